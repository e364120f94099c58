import SwiftSyntax
import SwiftSyntaxBuilder

/// The Swift code that `@Entity` generates for a valid ``EntityAnalysis``.
///
/// The generated members agree on one order. A row holds the ID in column 0, then the stored fields
/// (attributes, coded fields and to-one relationships), the to-many relationships and the derived
/// fields, each group in declaration order; the encoder receives the same values in the same order
/// (the ID aside), and `member(for:)` returns the indices of the description's lists.
struct EntityCode {
    /// The analysis of a struct with no diagnostics.
    let analysis: EntityAnalysis
    /// The type as the generated extension names it, qualified for a nested type (`Library.Book`).
    let qualifiedType: String

    /// The code for `analysis`, whose struct the compiler calls `qualifiedType` outside its declaration.
    init(analysis: EntityAnalysis, qualifiedType: String? = nil) {
        self.analysis = analysis
        self.qualifiedType = qualifiedType ?? analysis.typeName
    }

    var access: String { analysis.accessPrefix }
    private var typeName: String { analysis.typeName }
    var fields: [StoredField] { analysis.fields }
    var toMany: [ToManyField] { analysis.toMany }
    var derived: [DerivedField] { analysis.derived }

    /// `nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved`.
    ///
    /// Every generated member is `nonisolated`, and so is the extension: in a module compiled with
    /// main-actor default isolation (new Xcode 26 app targets), the struct and whatever it declares are
    /// otherwise isolated to the main actor, and can witness neither `Entity`'s requirements nor the
    /// `Hashable` conformance that a `Sendable`-refining protocol needs (an isolated conformance).
    var idProperty: DeclSyntax {
        "\(raw: access)nonisolated var id: Strata.EntityID<\(raw: typeName)> = Strata.EntityID<\(raw: typeName)>.unsaved"
    }

    /// `typealias ID = Strata.EntityID<Person>`, spelled out: the `ID` that `Identifiable` would infer
    /// from `id` is not visible to other declarations' macro expansions in a client that does not enable
    /// `MemberImportVisibility` (`@Relationship var owner: Owner.ID?` failed there with "'ID' is
    /// inaccessible due to 'internal' protection level").
    var idTypeAlias: DeclSyntax {
        "\(raw: access)typealias ID = Strata.EntityID<\(raw: typeName)>"
    }

    /// The members declared in the struct itself: those that hold the user's expressions (default values,
    /// `@Coded` encode closures), so that these are compiled in the struct's own scope. In an entity nested
    /// in another type, they can then name the outer type's other members (`Settings()` for
    /// `Library.Settings`), which the extension, declared at file scope, cannot.
    var scopedMembers: [DeclSyntax] {
        [entityDescription, encodeFields, scope].filter { !$0.isEmpty }
            .map { DeclSyntax(stringLiteral: $0.joined(separator: "\n")) }
    }

    /// The name of the enum nested in the entity that holds the closures the initializers call
    /// (`@Coded(encode:decode:)`, `@Field(dynamicInitialValue:)`), compiled in the entity's scope.
    static let scopeName = "_StrataScope"

    /// `nonisolated enum _StrataScope { static let tint = Strata.CodedClosures(...) }`, or nothing when no
    /// field has such closures. It is internal whatever the entity's access, so it stays out of its public
    /// interface. `Self` in the closures means the entity, as where the user wrote them, not the enum.
    private var scope: [String] {
        var members: [String] = []
        for field in fields {
            let keyPath = "\\\(qualifiedType).\(field.identifier)"
            if case .custom(let encode, let decode) = field.kind {
                let encode = inScope(encode), decode = inScope(decode)
                members.append(
                    "static let \(field.identifier) = Strata.CodedClosures(\(keyPath), encode: \(encode), decode: \(decode))")
            }
            if let value = field.dynamicInitialValue {
                members.append(
                    "static let \(field.initialValueMember) = Strata.DynamicInitialValue(\(keyPath), \(inScope(value)))")
            }
        }
        return members.isEmpty ? [] : block("nonisolated enum \(Self.scopeName)", members)
    }

    /// The extension that adds the `Entity` conformance, or only its members when the type already
    /// declares the conformance (`addingConformance` is then `false`). The initializers are here, not in the
    /// struct, so that the struct keeps its memberwise initializer.
    /// It is `nonisolated`, so that its members and the conformance stay nonisolated under main-actor default
    /// isolation.
    func conformanceExtension(addingConformance: Bool) -> DeclSyntax {
        let conformance = addingConformance ? ": Strata.Entity" : ""
        let members = [rowInitializer, newObjectInitializer, member, navigableMembers, decodeAll]
            .map { $0.map { "    " + $0 }.joined(separator: "\n") }
        return DeclSyntax(
            stringLiteral: "nonisolated extension \(qualifiedType)\(conformance) {\n"
                + members.joined(separator: "\n\n") + "\n}")
    }

    // MARK: - Reading and writing

    /// `init(row:)`: column 0 is the ID, then the fields, the to-many relationships and the derived fields.
    private var rowInitializer: [String] {
        // IDs (the object's own, to-one relationships) are decoded with the store's tag.
        var assignments = ["self.id = try row.decodeID(at: 0)"]
        var column = 1
        for field in fields {
            let decoding =
                switch field.kind {
                case .attribute: "try row.decode(at: \(column))"
                case .toOne: "try row.decodeID(at: \(column))"
                case .json: "try row.decodeJSON(at: \(column))"
                case .custom:
                    "try Self.\(Self.scopeName).\(field.identifier).decode(row.decode(at: \(column)))"
                }
            assignments.append("self.\(field.identifier) = \(decoding)")
            column += 1
        }
        for relationship in toMany {
            assignments.append("self.\(relationship.identifier) = try row.decodeIDs(at: \(column))")
            column += 1
        }
        for field in derived {
            assignments.append("self.\(field.identifier) = try row.decode(at: \(column))")
            column += 1
        }
        return block("\(access)init(row: Strata.Row) throws", assignments)
    }

    /// `init(newObject:)`: assigns what the declarations leave unset — dynamic initial values, `nil`
    /// optionals, empty to-many relationships, and derived fields at their value over no objects.
    private var newObjectInitializer: [String] {
        var assignments = fields.compactMap { field -> String? in
            if field.dynamicInitialValue != nil {
                return "self.\(field.identifier) = Self.\(Self.scopeName).\(field.initialValueMember).make()"
            }
            if field.defaultValue == nil && field.isOptional { return "self.\(field.identifier) = nil" }
            return nil
        }
        assignments += toMany.filter { !$0.hasDefault }.map { "self.\($0.identifier) = []" }
        assignments += derived.filter { !$0.hasDefault }.map { field in
            "self.\(field.identifier) = \(field.function.isOptional ? "nil" : "0")"
        }
        return block("\(access)init(newObject: Strata.NewObject)", assignments)
    }

    /// `encodeFields(to:)`: the fields, then the to-many relationships, then the derived fields.
    var encodeFields: [String] {
        let statements =
            fields.map { field in
                switch field.kind {
                case .attribute: "encoder.encode(self.\(field.identifier))"
                case .toOne: "encoder.encodeID(self.\(field.identifier))"
                case .json: "encoder.encodeJSON(self.\(field.identifier))"
                case .custom: "encoder.encode(Self.\(Self.scopeName).\(field.identifier).encode(self.\(field.identifier)))"
                }
            }
            + toMany.map { "encoder.encodeRelationship(self.\($0.identifier))" }
            + derived.map { "encoder.encodeDerived(self.\($0.identifier))" }
        return block("\(access)nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder)", statements)
    }

    /// `member(for:)`: the ID, each field, each to-many relationship and its `count`, each derived field,
    /// and each virtual property.
    private var member: [String] {
        let prefix = "if keyPath == \\\(qualifiedType)."
        var tests = ["\(prefix)id { return .id }"]
        tests += fields.enumerated().map { "\(prefix)\($1.identifier) { return .field(\($0)) }" }
        for (index, relationship) in toMany.enumerated() {
            tests.append("\(prefix)\(relationship.identifier) { return .toMany(\(index)) }")
            tests.append("\(prefix)\(relationship.identifier).count { return .toManyCount(\(index)) }")
        }
        tests += derived.enumerated().map { "\(prefix)\($1.identifier) { return .derived(\($0)) }" }
        tests += analysis.virtualProperties.map {
            "\(prefix)\($0.identifier) { return .virtual(\(literal($0.name))) }"
        }
        return block(
            "\(access)static func member(for keyPath: Swift.PartialKeyPath<\(qualifiedType)>) -> Strata.EntityMember?",
            tests + ["return nil"])
    }

    /// `navigableMembers()`: each member as key paths through an ID and an optional ID of the entity,
    /// so that queries can follow to-one relationships into it (`\Pet.owner?.name`).
    private var navigableMembers: [String] {
        let id = "\\Strata.EntityID<\(qualifiedType)>"
        func paths(_ member: String) -> String { "\(id).\(member), \(id)?.?.\(member)" }
        var entries = [".init(.id, \(paths("id")))"]
        for (index, field) in fields.enumerated() {
            if case .toOne = field.kind {
                entries.append(
                    ".toOne(field: \(index), \\\(qualifiedType).\(field.identifier), \(paths(field.identifier)))")
            } else {
                entries.append(".init(.field(\(index)), \(paths(field.identifier)))")
            }
        }
        for (index, relationship) in toMany.enumerated() {
            entries.append(".init(.toMany(\(index)), \(paths(relationship.identifier)))")
            entries.append(".init(.toManyCount(\(index)), \(paths(relationship.identifier + "?.count")))")
        }
        entries += derived.enumerated().map { ".init(.derived(\($0)), \(paths($1.identifier)))" }
        entries += analysis.virtualProperties.map { ".init(.virtual(\(literal($0.name))), \(paths($0.identifier)))" }
        let signature =
            "\(access)static func navigableMembers() -> [Strata.NavigableMember<\(qualifiedType)>]"
        return [signature + " {", "    ["] + entries.map { "        " + $0 + "," } + ["    ]", "}"]
    }

    /// `decodeAll(_:)`: the row loop of a fetch, compiled for this type rather than through generic
    /// witnesses (measurably faster for large fetches).
    private var decodeAll: [String] {
        [
            "\(access)static func decodeAll(_ rows: Strata.RowSequence) throws -> [\(qualifiedType)] {",
            "    var objects: [\(qualifiedType)] = []",
            "    while let row = try rows.next() {",
            "        objects.append(try \(qualifiedType)(row: row))",
            "    }",
            "    return objects",
            "}",
        ]
    }

    // MARK: - Helpers

    /// A user expression as code of the `_StrataScope` enum: `Self` spelled as the entity's name.
    private func inScope(_ expression: ExprSyntax) -> ExprSyntax {
        ScopedExpression.resolvingSelf(in: expression, as: typeName)
    }

    /// The lines of a declaration with a body of one statement per line, or `{}` when there is none.
    func block(_ signature: String, _ statements: [String]) -> [String] {
        guard !statements.isEmpty else { return [signature + " {}"] }
        return [signature + " {"] + statements.map { "    " + $0 } + ["}"]
    }

    /// `value` as a Swift string literal.
    func literal(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
