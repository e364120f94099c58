import SwiftDiagnostics

/// Every error the Strata macros report, each with a stable identifier and a message that says what to do.
enum StrataDiagnostic: DiagnosticMessage {
    // MARK: The declaration
    case notAStruct(kind: String)
    case genericStruct
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
    case invalidColumnName(String)
    case reservedColumn(String)
    case duplicateColumn(String, usedBy: String)
    case invalidFieldOption(String)

    // MARK: @Field placement
    case fieldMisplaced(String)

    var message: String {
        switch self {
        case .notAStruct(let kind):
            "@Entity applies to a struct, not to \(kind)"
        case .genericStruct:
            "@Entity does not support generic structs; declare one non-generic struct per entity"
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
            "type '\(type)' cannot be stored in a column; use a DatabaseValueConvertible type "
                + "(coded fields and relationships come in a later release)"
        case .missingDefault(let name):
            "stored property '\(name)' needs a default value or @Field(dynamicInitialValue:) so that Strata can create new objects"
        case .needsTypeAnnotation(let name):
            "stored property '\(name)' needs a type annotation; @Entity infers a type only from a string, integer, "
                + "floating-point or Boolean literal"
        case .duplicateFieldAttribute(let name):
            "property '\(name)' has more than one @Field attribute; merge them into one"
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
        case .fieldMisplaced(let reason):
            "@Field applies to a stored 'var' of an @Entity struct; \(reason)"
        }
    }

    var diagnosticID: MessageID {
        let id: String =
            switch self {
            case .notAStruct: "notAStruct"
            case .genericStruct: "genericStruct"
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
            case .columnNotLiteral: "columnNotLiteral"
            case .invalidColumnName: "invalidColumnName"
            case .reservedColumn: "reservedColumn"
            case .duplicateColumn: "duplicateColumn"
            case .invalidFieldOption: "invalidFieldOption"
            case .fieldMisplaced: "fieldMisplaced"
            }
        return MessageID(domain: "StrataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }

    /// The name with a NUL character spelled as an escape, so that messages stay printable.
    private static func printable(_ name: String) -> String {
        String(name.flatMap { $0 == "\0" ? Array(#"\0"#) : [$0] })
    }
}
