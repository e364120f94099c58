/// A column of the entity being queried, resolved from a key path or a key.
struct ColumnRef: Sendable, Hashable {
    /// What the reference reads.
    enum Kind: Sendable, Hashable {
        /// A column of the entity's table.
        case column
        /// A derived field (by index), computed by a subquery.
        case derived(Int)
        /// The number of objects in a to-many relationship (by index), computed by a subquery.
        case toManyCount(Int)
    }

    /// The column name in the table (the property name for computed kinds).
    let column: String
    /// The property name (or `id`), for messages and result keys.
    let property: String
    /// Whether the value may be `NULL`.
    let isOptional: Bool
    /// The entity whose table holds the column.
    var entity: String = ""
    /// What the reference reads.
    var kind: Kind = .column
    /// The to-one relationships followed from the queried entity to `entity`, outermost first; empty
    /// for a column of the queried entity itself.
    var through: [ToOneHop] = []
    /// Whether the column holds a to-one relationship, which queries can follow.
    var isToOne = false
    /// Whether the column holds a `Decimal` as text, which SQL cannot order (see ``TextStoredNumbers``).
    var isDecimal = false

    /// Whether this is the ID of the object it belongs to (not a to-one relationship's ID).
    var isOwnID: Bool { column == "id" && property == "id" && kind == .column }

    /// The ID column of an entity.
    static func id(of entity: String) -> ColumnRef {
        ColumnRef(column: "id", property: "id", isOptional: false, entity: entity)
    }
}

/// The expression tree every filter becomes — from key-path operators, `#Predicate`, or a format
/// string — and the only input of SQL rendering. Values are leaves that render as bound parameters.
indirect enum SQLExpression: Sendable {
    /// How two values compare. `equal` and `notEqual` are null-safe (`IS` / `IS NOT`), matching Swift's
    /// `==` on optionals.
    enum Comparison: String, Sendable {
        case equal = "IS", notEqual = "IS NOT", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="

        /// Whether the comparison orders values (not `IS` / `IS NOT`).
        var orders: Bool { self != .equal && self != .notEqual }
    }

    typealias TextTest = Strata.TextTest
    typealias TextOptions = Strata.TextOptions

    case column(ColumnRef)
    case value(DatabaseValue)
    case constant(Bool)
    case compare(SQLExpression, Comparison, SQLExpression)
    case isNull(SQLExpression, negated: Bool)
    case inList(SQLExpression, [DatabaseValue], negated: Bool)
    case between(SQLExpression, SQLExpression, SQLExpression)
    case text(TextTest, SQLExpression, SQLExpression, TextOptions)
    /// Every operand matches (at least two operands). Chains of `&&` become one flat list, so that a
    /// filter of thousands of terms nests no deeper than two.
    case allOf([SQLExpression])
    /// At least one operand matches (at least two operands), flat like ``allOf(_:)``.
    case anyOf([SQLExpression])
    case not(SQLExpression)
    /// The to-one relationship (field index of `entity`) points to an object that matches the condition,
    /// whose columns belong to the target entity.
    case related(entity: String, field: Int, property: String, SQLExpression)
    /// At least one object of the to-many relationship (index of `entity`) matches the condition.
    case anyRelated(entity: String, toMany: Int, property: String, SQLExpression)
    /// Every object of the to-many relationship (index of `entity`) matches the condition (true when empty).
    case allRelated(entity: String, toMany: Int, property: String, SQLExpression)
    /// A part that could not be built; rendering throws its error.
    case invalid(StrataError)
    /// `expression`, whose bound values include IDs read from the stores tagged `tags`: the query
    /// notes them (``SQLQuery/idTags``), and running it on another store throws.
    case storeChecked([UInt32], SQLExpression)

    /// This expression, noting the store tags of the IDs among `values` (itself when there are none).
    func checkingStores(of values: [Any]) -> SQLExpression {
        let tags = storeTags(of: values)
        return tags.isEmpty ? self : .storeChecked(tags, self)
    }

    /// `operand IN (values)` (or `NOT IN`), read in one pass, noting the store tags of the values when
    /// they are IDs; a list of any other type is neither boxed nor cast value by value.
    static func membership<V: DatabaseValueConvertible, S: Sequence>(
        _ operand: SQLExpression, _ values: S, negated: Bool
    ) -> SQLExpression where S.Element == V {
        guard V.self is any StoreTaggedValue.Type else {
            return .inList(operand, values.map(\.databaseValue), negated: negated)
        }
        var bound: [DatabaseValue] = []
        var ids: [Any] = []
        for value in values {
            bound.append(value.databaseValue)
            ids.append(value)
        }
        return SQLExpression.inList(operand, bound, negated: negated).checkingStores(of: ids)
    }

    /// `lhs AND rhs`, with the operands of either side that is itself an `AND` taken into one list.
    static func and(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        conjunction(of: [lhs, rhs])
    }

    /// `lhs OR rhs`, with the operands of either side that is itself an `OR` taken into one list.
    static func or(_ lhs: SQLExpression, _ rhs: SQLExpression) -> SQLExpression {
        disjunction(of: [lhs, rhs])
    }

    /// The `AND` of `operands`, flattened into one list (an operand that is one `AND` is not).
    static func conjunction(of operands: [SQLExpression]) -> SQLExpression {
        flattened(operands, make: SQLExpression.allOf) { if case .allOf(let inner) = $0 { inner } else { nil } }
    }

    /// The `OR` of `operands`, flattened into one list.
    static func disjunction(of operands: [SQLExpression]) -> SQLExpression {
        flattened(operands, make: SQLExpression.anyOf) { if case .anyOf(let inner) = $0 { inner } else { nil } }
    }

    /// `operands` with those that `inner` opens replaced by their own operands, joined by `make`; a
    /// single operand stands alone.
    private static func flattened(
        _ operands: [SQLExpression], make: ([SQLExpression]) -> SQLExpression, inner: (SQLExpression) -> [SQLExpression]?
    ) -> SQLExpression {
        var flat: [SQLExpression] = []
        flat.reserveCapacity(operands.count)
        for operand in operands {
            if let nested = inner(operand) { flat += nested } else { flat.append(operand) }
        }
        return flat.count == 1 ? flat[0] : make(flat)
    }

    /// How deeply expressions may nest (flat `AND` and `OR` lists count once, whatever their length):
    /// deeper filters, such as thousands of nested `!`, throw ``StrataError/Code/unsupportedQuery``
    /// instead of exhausting the stack or SQLite's own limit on expression depth (1,000).
    static let maximumNesting = 100

    /// The error of an expression that nests deeper than ``maximumNesting``.
    static var tooDeepError: StrataError {
        StrataError(
            .unsupportedQuery,
            "The filter nests more than \(maximumNesting) levels deep (nested !, relationships or "
                + "parentheses). Long chains of && or || are fine; flatten the nesting, or use .in for many values.")
    }
}

/// Resolves key paths and keys of an entity to columns.
enum ColumnResolver {
    /// The column a key path reads: a member of `E`, or of an entity reached through its to-one
    /// relationships (`\Pet.owner?.name`).
    static func column<E: Entity>(for keyPath: PartialKeyPath<E>) -> Result<ColumnRef, StrataError> {
        if let member = E.member(for: keyPath) {
            return column(for: member, in: E.entityDescription)
        }
        if let chained = Navigation.chainedMember(keyPath, from: E.self) {
            return column(for: chained)
        }
        if let error = throughPlainID(keyPath, of: E.self) { return .failure(error) }
        return .failure(StrataError(
            .unsupportedQuery,
            "A key path of \(E.self) used in a query (\(PredicateKeyPathName.describe(keyPath))) is not a stored field; only stored fields, the ID, derived "
                + "fields, to-many counts and fields of related objects (\\.owner?.name) can be filtered and sorted on.",
            entity: E.entityDescription.name))
    }

    /// The error for a key path that goes through an ID field that is not a `@Relationship`
    /// (`\.recipe?.title` with `var recipe: Recipe.ID?`): queries follow relationships only. Read from
    /// the key path's description, which names its stored properties; `nil` when it names no such field.
    private static func throughPlainID<E: Entity>(_ keyPath: AnyKeyPath, of type: E.Type) -> StrataError? {
        let text = "\(keyPath)"
        let entity = E.entityDescription
        // The field must be the path's first component: `\SearchHit.recipe?.…`, nothing chained before it.
        let first = { (field: FieldDescription) -> Bool in
            for separator in ["?.", "."] {
                guard let range = text.firstRange(of: ".\(field.property)\(separator)") else { continue }
                if !text[..<range.lowerBound].contains(where: { "?<(".contains($0) }) { return true }
            }
            return false
        }
        guard let field = entity.fields.first(where: { $0.plainID.typeName != nil && first($0) }),
            let target = field.plainID.typeName
        else { return nil }
        return StrataError(
            .unsupportedQuery,
            "A key path of \(E.self) used in a query goes through \(entity.name).\(field.property), an ID field "
                + "(\(target).ID), not a @Relationship: queries follow relationships only. To filter or sort through it, "
                + "mark it @Relationship (@Relationship var \(field.property): \(target).ID?), or filter on the ID itself "
                + "(\\.\(field.property) == id).",
            entity: entity.name, field: field.property)
    }

    /// The column of a member reached through to-one relationships.
    static func column(for chained: ChainedMember) -> Result<ColumnRef, StrataError> {
        column(for: chained.member, in: chained.entity).map { column in
            var column = column
            column.through = chained.hops
            return column
        }
    }

    /// The column of one member of an entity.
    static func column(for member: EntityMember, in entity: EntityDescription) -> Result<ColumnRef, StrataError> {
        switch member {
        case .id:
            return .success(.id(of: entity.name))
        case .field(let index):
            let field = entity.fields[index]
            var column = ColumnRef(
                column: field.column, property: field.property, isOptional: field.isOptional, entity: entity.name)
            column.isToOne = field.toOne != nil
            column.isDecimal = field.isDecimal
            return .success(column)
        case .derived(let index):
            let derived = entity.derived[index]
            return .success(ColumnRef(
                column: derived.property, property: derived.property, isOptional: derived.function == .minimum
                    || derived.function == .maximum, entity: entity.name, kind: .derived(index)))
        case .toManyCount(let index):
            let property = entity.toMany[index].property
            return .success(ColumnRef(
                column: property, property: "\(property).count", isOptional: false, entity: entity.name,
                kind: .toManyCount(index)))
        case .virtual(let name):
            return .failure(StrataError(
                .unsupportedQuery,
                "\(entity.typeName).\(name) is a virtual field (computed, never stored), so it cannot be used in a "
                    + "query; filter and sort on the stored fields it is computed from.",
                entity: entity.name, field: name))
        case .toMany(let index):
            return .failure(StrataError(
                .unsupportedQuery,
                "\(entity.typeName).\(entity.toMany[index].property) is a to-many relationship; filter on it with "
                    + "Where.any, Where.all or its count, not as a column.",
                entity: entity.name, field: entity.toMany[index].property))
        }
    }

    /// The column a key names, with its storage class: a property name of `E` (or `id`), or a path
    /// through to-one relationships (`owner.name`, `owner.company.city`), as format strings and keys
    /// name them.
    static func column<E: Entity>(forKeyPath key: String, of type: E.Type) -> Result<(ColumnRef, StorageClass), StrataError> {
        var names = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = names.removeLast()
        var hops: [ToOneHop] = []
        var current: any Entity.Type = E.self
        for name in names {
            guard let step = toOneStep(name, of: current) else {
                let entity = current.entityDescription
                return .failure(StrataError(
                    .unsupportedQuery,
                    "In '\(key)', '\(name)' is not a to-one relationship of \(entity.name); a key path follows "
                        + "to-one relationships (@Relationship) to a field.",
                    entity: entity.name, field: name))
            }
            hops.append(step.hop)
            current = step.target
        }
        let target = current.entityDescription
        return column(forKey: last, in: target).map { column in
            var column = column
            column.through = hops
            let storageClass = target.fields.first { $0.property == column.property }?.storageClass ?? .integer
            return (column, storageClass)
        }
    }

    /// The to-one relationship `name` of `type`: the hop into its target, and the target.
    private static func toOneStep<T: Entity>(_ name: String, of type: T.Type) -> (hop: ToOneHop, target: any Entity.Type)? {
        let entity = T.entityDescription
        guard let index = entity.fields.firstIndex(where: { $0.property == name && $0.toOne != nil }),
            let target = T.navigableMembers().first(where: { $0.member == .field(index) })?.target
        else { return nil }
        return (ToOneHop(entity, field: index, into: target.entityDescription), target)
    }

    /// The column of a property name (or `id`), as format strings and `OrderBy` keys name them.
    static func column(forKey key: String, in entity: EntityDescription) -> Result<ColumnRef, StrataError> {
        if key == "id" {
            return .success(.id(of: entity.name))
        }
        if let index = entity.derived.firstIndex(where: { $0.property == key }) {
            let derived = entity.derived[index]
            return .success(ColumnRef(
                column: key, property: key, isOptional: derived.function == .minimum || derived.function == .maximum,
                entity: entity.name, kind: .derived(index)))
        }
        guard let field = entity.fields.first(where: { $0.property == key }) else {
            let known = (["id"] + entity.fields.map(\.property)).joined(separator: ", ")
            return .failure(StrataError(
                .unsupportedQuery,
                "\(entity.name) has no stored field named '\(key)'. Known fields: \(known).",
                entity: entity.name, field: key))
        }
        var column = ColumnRef(column: field.column, property: field.property, isOptional: field.isOptional, entity: entity.name)
        column.isDecimal = field.isDecimal
        return .success(column)
    }
}

extension Result where Success == ColumnRef, Failure == StrataError {
    /// The column as an expression, or an invalid expression carrying the error.
    var expression: SQLExpression {
        switch self {
        case .success(let column): .column(column)
        case .failure(let error): .invalid(error)
        }
    }
}
