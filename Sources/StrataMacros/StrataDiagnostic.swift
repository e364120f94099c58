import SwiftDiagnostics

/// Every error the Strata macros report, each with a stable identifier and a message that says what to do.
enum StrataDiagnostic: DiagnosticMessage {
    // MARK: The declaration
    case notAStruct(kind: String)
    case genericStruct
    case nestedInGeneric(String)
    case entityNameNotLiteral
    case invalidEntityName(String)
    case reservedEntityName(String)

    // MARK: Properties
    case letProperty(String)
    case reservedID
    case lazyProperty(String)
    case multipleBindings
    case nonIdentifierPattern
    case storedPropertyInIfConfig
    case unsupportedType(String)
    case missingDefault(String)
    case needsTypeAnnotation(String)
    case duplicateFieldAttribute(String)

    // MARK: Columns and options
    case columnNotLiteral
    case renamedFromNotLiteral
    case invalidColumnName(String)
    case reservedColumn(String)
    case duplicateColumn(String, usedBy: String)
    case invalidFieldOption(String)

    // MARK: Attributes
    case duplicateAttribute(String, property: String)
    case conflictingAttributes(String, String, property: String)
    case misplaced(attribute: String, reason: String)
    case fieldNotAColumn(kind: String, property: String)

    // MARK: Relationships
    case invalidDeleteRule(String)
    case inverseNotKeyPath
    case relationshipNeedsType(String)
    case relationshipNotAnID(String)
    case nonOptionalToOne(String)
    case optionalToMany(String)
    case dynamicInitialValueOnRelationship(String)

    // MARK: Coded fields
    case incompleteCodedPair
    case uncodableType(String)

    // MARK: Derived fields
    case derivedAttributeNotKeyPath(String)
    case derivedRelationshipNotKeyPath(String)
    case derivedForeignRelationship(typeName: String)
    case derivedNotToMany(String, typeName: String, isDeclared: Bool)
    case derivedCountNotInteger(String)
    case derivedNotOptional(String, function: String)

    // MARK: Unique constraints and indexes over several fields
    case compositeMisplaced(macro: String, reason: String)
    case compositeForeignType(macro: String, written: String, typeName: String)
    case compositeNotList(macro: String)
    case compositeEmpty(macro: String)
    case compositeNotKeyPath(macro: String, typeName: String)
    case compositeNotStored(String, kind: String?, macro: String, typeName: String)
    case compositeRepeatedField(String, macro: String)
    case compositeDuplicate(macro: String)

    var message: String {
        switch self {
        case .notAStruct(let kind):
            "@Entity applies to a struct, not to \(kind)"
        case .genericStruct:
            "@Entity does not support generic structs; declare one non-generic struct per entity"
        case .nestedInGeneric(let enclosing):
            "@Entity does not support a struct nested in generic '\(enclosing)'; declare the entity outside it"
        case .entityNameNotLiteral:
            "the entity name must be a string literal"
        case .invalidEntityName(let name):
            name.isEmpty
                ? "the entity name must not be empty"
                : "invalid entity name '\(Self.printable(name))': a name must not contain a double quote or a NUL character"
        case .reservedEntityName(let name):
            "entity name '\(name)' is reserved: SQLite keeps names starting with 'sqlite_' for itself"
        case .letProperty(let name):
            "stored property '\(name)' must be a 'var': Strata assigns every field when it reads an object"
        case .reservedID:
            "property 'id' is reserved: @Entity provides 'id', the object's EntityID"
        case .lazyProperty(let name):
            "lazy property '\(name)' is not supported by @Entity; use a stored property with a default value or a computed property"
        case .multipleBindings:
            "@Entity needs one stored property per declaration; declare each property on its own line"
        case .nonIdentifierPattern:
            "@Entity needs one named stored property per declaration; declare each property on its own line"
        case .storedPropertyInIfConfig:
            "@Entity does not support stored properties inside '#if'; every build must store the same columns"
        case .unsupportedType(let type):
            "type '\(type)' cannot be stored in a column; use a DatabaseValueConvertible type, "
                + "@Coded to store a Codable value as JSON, or @Relationship for entity IDs"
        case .missingDefault(let name):
            "stored property '\(name)' needs a default value or @Field(dynamicInitialValue:) so that Strata can create new objects"
        case .needsTypeAnnotation(let name):
            "stored property '\(name)' needs a type annotation; @Entity infers a type only from a string, integer, "
                + "floating-point or Boolean literal"
        case .duplicateFieldAttribute(let name):
            "property '\(name)' has more than one @Field attribute; merge them into one"
        case .renamedFromNotLiteral:
            "renamedFrom: must be a string literal: the name in the version before"
        case .columnNotLiteral:
            "the column name must be a string literal"
        case .invalidColumnName(let name):
            name.isEmpty
                ? "the column name must not be empty"
                : "invalid column name '\(Self.printable(name))': a name must not contain a double quote or a NUL character"
        case .reservedColumn(let name):
            "column name '\(name)' is reserved for the entity's ID column"
        case .duplicateColumn(let name, let property):
            "column '\(name)' is already used by property '\(property)' (column names are case-insensitive)"
        case .invalidFieldOption(let text):
            "'\(text)' is not a field option; write .unique or .indexed"
        case .duplicateAttribute(let attribute, let property):
            "property '\(property)' has more than one @\(attribute) attribute; remove one"
        case .conflictingAttributes(let attribute, let other, let property):
            "@\(attribute) cannot be combined with @\(other) on property '\(property)': "
                + "a property is a relationship, a coded field or a derived field, not two of them"
        case .misplaced(let attribute, let reason):
            "@\(attribute) applies to a stored 'var' of an @Entity struct; \(reason)"
        case .fieldNotAColumn(let kind, let property):
            "@Field does not apply to \(kind) '\(property)': it is not a column of the table"
        case .invalidDeleteRule(let text):
            "'\(text)' is not a delete rule; write .nullify, .cascade or .deny"
        case .inverseNotKeyPath:
            "the inverse must be a key path literal naming the relationship on the other entity, like \\Person.pets"
        case .relationshipNeedsType(let name):
            "relationship '\(name)' needs a type annotation: \(Self.relationshipTypes)"
        case .relationshipNotAnID(let type):
            "@Relationship needs an entity ID type, not '\(type)': \(Self.relationshipTypes)"
        case .nonOptionalToOne(let name):
            "to-one relationship '\(name)' must be optional: a new object has no target yet"
        case .optionalToMany(let name):
            "to-many relationship '\(name)' must not be optional: an empty collection means no related objects"
        case .dynamicInitialValueOnRelationship(let name):
            "relationship '\(name)' cannot have a dynamic initial value: a new object has no target yet; "
                + "set the relationship in the transaction that creates the object"
        case .incompleteCodedPair:
            "@Coded needs both encode: and decode:, or neither to store the value as JSON"
        case .uncodableType(let type):
            "type '\(type)' cannot be stored by @Coded as JSON; use a Codable type, "
                + "or give encode: and decode: closures"
        case .derivedAttributeNotKeyPath(let label):
            "the '\(label):' argument must be a key path literal naming an attribute of the related entity, "
                + "like \\Pet.age"
        case .derivedRelationshipNotKeyPath(let label):
            "the '\(label):' argument must be a key path literal naming a to-many relationship of this struct, "
                + "like \\Person.pets"
        case .derivedForeignRelationship(let typeName):
            "a derived field is computed over a to-many relationship of '\(typeName)', the struct that declares it; "
                + "write \\\(typeName).<relationship>"
        case .derivedNotToMany(let name, let typeName, let isDeclared):
            isDeclared
                ? "'\(name)' is not a to-many relationship; @Derived is computed over a @Relationship of "
                    + "'\(typeName)' whose type is a Set or an Array of IDs"
                : "'\(typeName)' declares no to-many relationship '\(name)'; @Derived is computed over a @Relationship "
                    + "of '\(typeName)' whose type is a Set or an Array of IDs"
        case .derivedCountNotInteger(let name):
            "derived count '\(name)' must have an integer type, such as Int"
        case .derivedNotOptional(let name, let function):
            "derived \(function) '\(name)' must be optional: it is nil when there are no related objects"
        case .compositeMisplaced(let macro, let reason):
            "#\(macro) applies in the body of an @Entity struct, which reads it; \(reason)"
        case .compositeForeignType(let macro, let written, let typeName):
            "\(macro)\(written) must name the entity that declares it: write \(macro)<\(typeName)>"
        case .compositeNotList(let macro):
            "each argument of \(macro) must be an array literal of key paths, like [\\.firstName, \\.lastName]"
        case .compositeEmpty(let macro):
            "\(macro) needs at least one field in each list, like [\\.firstName, \\.lastName]"
        case .compositeNotKeyPath(let macro, let typeName):
            "each field of \(macro) must be a key path literal naming a stored property of '\(typeName)', like \\.email"
        case .compositeNotStored(let name, let kind, let macro, let typeName):
            kind.map { "'\(name)' is \($0), not a column: \(macro) lists stored fields (attributes, coded fields, to-one relationships)" }
                ?? "'\(typeName)' has no stored property '\(name)'; \(macro) lists stored fields (attributes, coded fields, to-one relationships)"
        case .compositeRepeatedField(let name, let macro):
            "'\(name)' appears twice in this \(macro) list; name each field once"
        case .compositeDuplicate(let macro):
            macro == "#Unique"
                ? "this #Unique list has the same fields as one declared before; remove one"
                : "this #Index list is the same as one declared before; remove one"
        }
    }

    var diagnosticID: MessageID {
        let id: String =
            switch self {
            case .notAStruct: "notAStruct"
            case .genericStruct: "genericStruct"
            case .nestedInGeneric: "nestedInGeneric"
            case .entityNameNotLiteral: "entityNameNotLiteral"
            case .invalidEntityName: "invalidEntityName"
            case .reservedEntityName: "reservedEntityName"
            case .letProperty: "letProperty"
            case .reservedID: "reservedID"
            case .lazyProperty: "lazyProperty"
            case .multipleBindings: "multipleBindings"
            case .nonIdentifierPattern: "nonIdentifierPattern"
            case .storedPropertyInIfConfig: "storedPropertyInIfConfig"
            case .unsupportedType: "unsupportedType"
            case .missingDefault: "missingDefault"
            case .needsTypeAnnotation: "needsTypeAnnotation"
            case .duplicateFieldAttribute: "duplicateFieldAttribute"
            case .renamedFromNotLiteral: "renamedFromNotLiteral"
            case .columnNotLiteral: "columnNotLiteral"
            case .invalidColumnName: "invalidColumnName"
            case .reservedColumn: "reservedColumn"
            case .duplicateColumn: "duplicateColumn"
            case .invalidFieldOption: "invalidFieldOption"
            case .duplicateAttribute: "duplicateAttribute"
            case .conflictingAttributes: "conflictingAttributes"
            case .misplaced: "misplaced"
            case .fieldNotAColumn: "fieldNotAColumn"
            case .invalidDeleteRule: "invalidDeleteRule"
            case .inverseNotKeyPath: "inverseNotKeyPath"
            case .relationshipNeedsType: "relationshipNeedsType"
            case .relationshipNotAnID: "relationshipNotAnID"
            case .nonOptionalToOne: "nonOptionalToOne"
            case .optionalToMany: "optionalToMany"
            case .dynamicInitialValueOnRelationship: "dynamicInitialValueOnRelationship"
            case .incompleteCodedPair: "incompleteCodedPair"
            case .uncodableType: "uncodableType"
            case .derivedAttributeNotKeyPath: "derivedAttributeNotKeyPath"
            case .derivedRelationshipNotKeyPath: "derivedRelationshipNotKeyPath"
            case .derivedForeignRelationship: "derivedForeignRelationship"
            case .derivedNotToMany: "derivedNotToMany"
            case .derivedCountNotInteger: "derivedCountNotInteger"
            case .derivedNotOptional: "derivedNotOptional"
            case .compositeMisplaced: "compositeMisplaced"
            case .compositeForeignType: "compositeForeignType"
            case .compositeNotList: "compositeNotList"
            case .compositeEmpty: "compositeEmpty"
            case .compositeNotKeyPath: "compositeNotKeyPath"
            case .compositeNotStored: "compositeNotStored"
            case .compositeRepeatedField: "compositeRepeatedField"
            case .compositeDuplicate: "compositeDuplicate"
            }
        return MessageID(domain: "StrataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }

    /// The types a relationship can have, for messages.
    private static let relationshipTypes =
        "an optional ID like 'Person.ID?' for a to-one relationship, 'Set<Person.ID>' (unordered) or "
        + "'[Person.ID]' (ordered) for a to-many relationship"

    /// The name with a NUL character spelled as an escape, so that messages stay printable.
    private static func printable(_ name: String) -> String {
        String(name.flatMap { $0 == "\0" ? Array(#"\0"#) : [$0] })
    }
}
