import SwiftSyntax
import SwiftSyntaxBuilder

/// The Swift code that `@Entity` generates for a valid ``EntityAnalysis``.
///
/// Field `i` of the description is column `i + 1` of a row (column 0 is the ID), the `i`-th value the
/// encoder receives, and the index ``fieldIndex`` returns for its key path: the four generated members
/// agree on one order, the declaration order.
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

    private var access: String { analysis.accessPrefix }
    private var typeName: String { analysis.typeName }
    private var fields: [StoredField] { analysis.fields }

    /// `var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved`.
    var idProperty: DeclSyntax {
        "\(raw: access)var id: Strata.EntityID<\(raw: typeName)> = Strata.EntityID<\(raw: typeName)>.unsaved"
    }

    /// The extension that adds the `Entity` conformance, or only its members when the type already
    /// declares the conformance (`addingConformance` is then `false`).
    func conformanceExtension(addingConformance: Bool) -> DeclSyntax {
        let conformance = addingConformance ? ": Strata.Entity" : ""
        let members = [entityDescription, rowInitializer, newObjectInitializer, encodeFields, member]
            .map { $0.map { "    " + $0 }.joined(separator: "\n") }
        return DeclSyntax(
            stringLiteral: "extension \(qualifiedType)\(conformance) {\n"
                + members.joined(separator: "\n\n") + "\n}")
    }

    private var entityDescription: [String] {
        let head =
            "\(access)static let entityDescription = Strata.EntityDescription(name: \(literal(analysis.entityName)), "
            + "typeName: \(literal(analysis.plainTypeName)), fields: ["
        guard !fields.isEmpty else { return [head + "])"] }
        let descriptions = fields.map { field in
            var arguments = [
                "\\\(qualifiedType).\(field.identifier)",
                "property: \(literal(field.name))",
                "column: \(literal(field.column))",
                "options: [\(field.options.joined(separator: ", "))]",
            ]
            if field.dynamicInitialValue != nil { arguments.append("hasDynamicInitialValue: true") }
            if let value = field.defaultValue { arguments.append("default: \(value)") }
            return "    Strata.FieldDescription.stored(\(arguments.joined(separator: ", "))),"
        }
        return [head] + descriptions + ["])"]
    }

    private var rowInitializer: [String] {
        let assignments = ["self.id = try row.decode(at: 0)"]
            + fields.enumerated().map { "self.\($1.identifier) = try row.decode(at: \($0 + 1))" }
        return block("\(access)init(row: Strata.Row) throws", assignments)
    }

    private var newObjectInitializer: [String] {
        let assignments = fields.compactMap { field -> String? in
            if let value = field.dynamicInitialValue { return "self.\(field.identifier) = (\(value))()" }
            if field.defaultValue == nil && field.isOptional { return "self.\(field.identifier) = nil" }
            return nil
        }
        return block("\(access)init(newObject: Strata.NewObject)", assignments)
    }

    private var encodeFields: [String] {
        block(
            "\(access)func encodeFields(to encoder: inout Strata.FieldEncoder)",
            fields.map { "encoder.encode(self.\($0.identifier))" })
    }

    private var member: [String] {
        let tests = ["if keyPath == \\\(qualifiedType).id { return .id }"]
            + fields.enumerated().map { "if keyPath == \\\(qualifiedType).\($1.identifier) { return .field(\($0)) }" }
        return block(
            "\(access)static func member(for keyPath: Swift.PartialKeyPath<\(qualifiedType)>) -> Strata.EntityMember?",
            tests + ["return nil"])
    }

    /// The lines of a declaration with a body of one statement per line, or `{}` when there is none.
    private func block(_ signature: String, _ statements: [String]) -> [String] {
        guard !statements.isEmpty else { return [signature + " {}"] }
        return [signature + " {"] + statements.map { "    " + $0 } + ["}"]
    }

    /// `value` as a Swift string literal.
    private func literal(_ value: String) -> String {
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
