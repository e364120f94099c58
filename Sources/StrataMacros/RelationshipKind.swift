import SwiftSyntax

/// What the declared type of a `@Relationship` property says about it, read from syntax.
///
/// An entity ID is spelled `Person.ID` (any `X.ID`, `Self.ID` included), `ID`, `EntityID<Person>` or
/// `Strata.EntityID<Person>`; the compiler checks in the generated code that it really is one.
enum RelationshipKind {
    /// An optional ID: `Person.ID?`, `Optional<EntityID<Person>>`.
    case toOne
    /// A non-optional ID, which a new object could not hold.
    case nonOptionalToOne
    /// A set (unordered) or an array (ordered) of IDs: `Set<Pet.ID>`, `[Book.ID]`, `Array<EntityID<Book>>`.
    case toMany(isOrdered: Bool)
    /// An optional set or array of IDs; the wrapped type is what to declare instead.
    case optionalToMany(wrapped: TypeSyntax)

    /// The kind of relationship `type` declares, or `nil` when it is no ID nor collection of IDs.
    init?(_ type: TypeSyntax) {
        if let wrapped = PropertyType.wrappedType(ofOptional: type) {
            if Self.isEntityID(wrapped) {
                self = .toOne
            } else if Self.collectionOfIDs(wrapped) != nil {
                self = .optionalToMany(wrapped: wrapped)
            } else {
                return nil
            }
        } else if Self.isEntityID(type) {
            self = .nonOptionalToOne
        } else if let isOrdered = Self.collectionOfIDs(type) {
            self = .toMany(isOrdered: isOrdered)
        } else {
            return nil
        }
    }

    /// Whether `type` is spelled as an entity ID.
    private static func isEntityID(_ type: TypeSyntax) -> Bool {
        if let member = type.as(MemberTypeSyntax.self) {
            if member.name.text == "ID" && member.genericArgumentClause == nil { return true }
            return member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Strata"
                && member.name.text == "EntityID" && member.genericArgumentClause?.arguments.count == 1
        }
        guard let identifier = type.as(IdentifierTypeSyntax.self) else { return false }
        let argumentCount = identifier.genericArgumentClause?.arguments.count ?? 0
        return (identifier.name.text == "ID" && argumentCount == 0)
            || (identifier.name.text == "EntityID" && argumentCount == 1)
    }

    /// `true` for an array of IDs, `false` for a set of IDs, `nil` for anything else.
    private static func collectionOfIDs(_ type: TypeSyntax) -> Bool? {
        if let array = type.as(ArrayTypeSyntax.self) {
            return isEntityID(array.element) ? true : nil
        }
        guard let (name, arguments) = PropertyType.genericName(of: type), arguments.count == 1,
            let element = arguments.first, isEntityID(element)
        else { return nil }
        switch name {
        case "Array": return true
        case "Set": return false
        default: return nil
        }
    }
}
