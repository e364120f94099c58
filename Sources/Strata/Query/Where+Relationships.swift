// Filters over related objects: through a to-one relationship, or over the members of a to-many one.
//
//     From<Pet>().where(.related(\.owner, \.name == "Ada"))        // pets whose owner is named Ada
//     From<Person>().where(.any(\.pets, \.age > 10))               // people with a pet older than 10
//     From<Person>().where(.all(\.pets, \.age > 10))               // people whose pets are all older than 10
//     From<Person>().where(\.pets.count > 2)                       // people with more than two pets

extension Where {
    /// The to-one relationship points to an object that matches `condition` (a `nil` relationship never
    /// matches).
    public static func related<T: Entity>(_ keyPath: KeyPath<E, EntityID<T>?>, _ condition: Where<T>) -> Where<E> {
        let entity = E.entityDescription
        guard case .field(let index) = E.member(for: keyPath), entity.fields[index].toOne != nil else {
            return Where(.invalid(StrataError(
                .unsupportedQuery, "Where.related needs a to-one relationship (@Relationship) of \(E.self).", entity: entity.name)))
        }
        return Where(.related(entity: entity.name, field: index, property: entity.fields[index].property, condition.expression))
    }

    /// At least one object of the unordered to-many relationship matches `condition`.
    public static func any<T: Entity>(_ keyPath: KeyPath<E, Set<EntityID<T>>>, _ condition: Where<T>) -> Where<E> {
        members(keyPath, condition, all: false)
    }

    /// At least one object of the ordered to-many relationship matches `condition`.
    public static func any<T: Entity>(_ keyPath: KeyPath<E, [EntityID<T>]>, _ condition: Where<T>) -> Where<E> {
        members(keyPath, condition, all: false)
    }

    /// Every object of the unordered to-many relationship matches `condition` (true when it is empty).
    public static func all<T: Entity>(_ keyPath: KeyPath<E, Set<EntityID<T>>>, _ condition: Where<T>) -> Where<E> {
        members(keyPath, condition, all: true)
    }

    /// Every object of the ordered to-many relationship matches `condition` (true when it is empty).
    public static func all<T: Entity>(_ keyPath: KeyPath<E, [EntityID<T>]>, _ condition: Where<T>) -> Where<E> {
        members(keyPath, condition, all: true)
    }

    private static func members<V, T: Entity>(_ keyPath: KeyPath<E, V>, _ condition: Where<T>, all: Bool) -> Where<E> {
        let entity = E.entityDescription
        guard case .toMany(let index) = E.member(for: keyPath) else {
            return Where(.invalid(StrataError(
                .unsupportedQuery, "Where.any and Where.all need a to-many relationship (@Relationship) of \(E.self).",
                entity: entity.name)))
        }
        return Where(all
            ? .allRelated(entity: entity.name, toMany: index, property: entity.toMany[index].property, condition.expression)
            : .anyRelated(entity: entity.name, toMany: index, property: entity.toMany[index].property, condition.expression))
    }
}
