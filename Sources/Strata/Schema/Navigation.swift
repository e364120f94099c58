/// One member of an entity as seen through an ID of that entity: the key paths that reach it from an
/// ``EntityID`` (`\Person.ID.name`) and from an optional one (`\Person.ID?.?.name`).
///
/// The ``Entity(name:renamedFrom:)`` macro generates the list (``Entity/navigableMembers()``); the query layer uses
/// it to resolve to-one chains such as `\Pet.owner?.name` in key-path filters, sort keys and
/// `#Predicate`. You never make one yourself.
public struct NavigableMember<Root: Entity> {
    /// What the member is in `Root`.
    let member: EntityMember
    /// The key path from an ID of `Root` to the member.
    let throughID: AnyKeyPath
    /// The key path from an optional ID of `Root` to the member, with optional chaining.
    let throughOptionalID: AnyKeyPath
    /// For a to-one relationship: the entity it points to.
    let target: (any Entity.Type)?
    /// For a to-one relationship: its key path from `Root` (`\Pet.owner`).
    let relationship: AnyKeyPath?

    /// A member that is not a to-one relationship.
    public init(_ member: EntityMember, _ throughID: AnyKeyPath, _ throughOptionalID: AnyKeyPath) {
        self.member = member
        self.throughID = throughID
        self.throughOptionalID = throughOptionalID
        self.target = nil
        self.relationship = nil
    }

    /// A to-one relationship (field `field`), whose target the chain can continue into.
    public static func toOne<Target: Entity>(
        field: Int, _ relationship: KeyPath<Root, EntityID<Target>?>, _ throughID: AnyKeyPath,
        _ throughOptionalID: AnyKeyPath
    ) -> NavigableMember {
        NavigableMember(
            member: .field(field), throughID: throughID, throughOptionalID: throughOptionalID, target: Target.self,
            relationship: relationship)
    }

    private init(
        member: EntityMember, throughID: AnyKeyPath, throughOptionalID: AnyKeyPath, target: (any Entity.Type)?,
        relationship: AnyKeyPath?
    ) {
        self.member = member
        self.throughID = throughID
        self.throughOptionalID = throughOptionalID
        self.target = target
        self.relationship = relationship
    }
}

extension Entity {
    /// No navigable members: the default for a conformance written by hand.
    public static func navigableMembers() -> [NavigableMember<Self>] { [] }
}

/// One step of a to-one chain: the ID held in `column` (of the entity the chain has reached) names a
/// row of the entity named `target`.
struct ToOneHop: Sendable, Hashable {
    let column: String
    let target: String
    /// The relationship's property name, for descriptions.
    let property: String

    /// The hop through field `index` of `entity` into `target`.
    init(_ entity: EntityDescription, field index: Int, into target: EntityDescription) {
        self.column = entity.fields[index].column
        self.target = target.name
        self.property = entity.fields[index].property
    }

    init(column: String, target: String, property: String) {
        self.column = column
        self.target = target
        self.property = property
    }
}

/// A member reached through to-one relationships: the hops from the root, then `member` of `entity`.
struct ChainedMember {
    var hops: [ToOneHop]
    let member: EntityMember
    let entity: EntityDescription
}

/// Resolves key paths that follow to-one relationships: `\Pet.owner?.name`, `\Pet.owner?.company?.city`.
enum Navigation {
    /// How many relationships a chain may follow: bounds the search, which tries every path.
    static let maximumDepth = 4

    /// The member a key path of `E` reaches through one or more of its to-one relationships, if any.
    static func chainedMember<E: Entity>(_ keyPath: AnyKeyPath, from root: E.Type) -> ChainedMember? {
        for navigable in E.navigableMembers() {
            guard let target = navigable.target, let relationship = navigable.relationship,
                case .field(let index) = navigable.member
            else { continue }
            if var found = chained(keyPath, prefix: relationship, in: target, depth: 1) {
                found.hops.insert(ToOneHop(E.entityDescription, field: index, into: target.entityDescription), at: 0)
                return found
            }
        }
        return nil
    }

    /// The member of `E` that a key path rooted at `EntityID<E>` names (`\Person.ID.name`).
    static func memberThroughID<E: Entity>(_ keyPath: AnyKeyPath, of type: E.Type) -> ChainedMember? {
        for navigable in E.navigableMembers() where navigable.throughID == keyPath {
            return ChainedMember(hops: [], member: navigable.member, entity: E.entityDescription)
        }
        return nil
    }

    /// Searches the members of `T`, reached from the root through `prefix`, for `keyPath`.
    private static func chained<T: Entity>(
        _ keyPath: AnyKeyPath, prefix: AnyKeyPath, in type: T.Type, depth: Int
    ) -> ChainedMember? {
        for navigable in T.navigableMembers() {
            guard let path = prefix.appending(path: navigable.throughOptionalID) else { continue }
            if path == keyPath {
                return ChainedMember(hops: [], member: navigable.member, entity: T.entityDescription)
            }
            // A key path matches one chain at most, so the search can go deeper at once.
            guard depth < maximumDepth, let target = navigable.target, case .field(let index) = navigable.member,
                var found = chained(keyPath, prefix: path, in: target, depth: depth + 1)
            else { continue }
            found.hops.insert(ToOneHop(T.entityDescription, field: index, into: target.entityDescription), at: 0)
            return found
        }
        return nil
    }
}
