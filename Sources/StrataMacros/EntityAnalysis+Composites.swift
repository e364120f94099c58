import SwiftDiagnostics
import SwiftSyntax

/// The analysis of `#Unique` and `#Index` declarations in the struct's body: lists of its stored fields.
extension EntityAnalysis {
    /// A `#Unique<Person>(...)` or `#Index<Person>(...)` member, read once every property is known.
    struct CompositeDeclaration {
        /// `Unique` or `Index`.
        let macro: String
        let node: MacroExpansionDeclSyntax
    }

    /// The composite declaration `decl` is, if it is `#Unique` or `#Index`.
    static func compositeDeclaration(_ decl: DeclSyntax) -> CompositeDeclaration? {
        guard let expansion = decl.as(MacroExpansionDeclSyntax.self) else { return nil }
        let name = expansion.macroName.text
        guard name == "Unique" || name == "Index" else { return nil }
        return CompositeDeclaration(macro: name, node: expansion)
    }

    /// Reads the lists of each `#Unique` and `#Index`, in source order, into ``uniqueConstraints`` and
    /// ``indexes``, reporting what cannot be one: a generic type other than this struct, an argument that
    /// is not an array literal of key paths, an empty list, a key path that names no stored field of this
    /// struct, a field repeated in a list, and a list declared twice (unique constraints compare as sets
    /// of fields, indexes in order).
    mutating func analyzeComposites(_ declarations: [CompositeDeclaration]) {
        for declaration in declarations {
            let macro = "#" + declaration.macro
            let node = declaration.node
            if let generic = node.genericArgumentClause {
                let written = generic.arguments.map(\.argument.trimmedDescription)
                let name = written.first?.split(separator: ".").last.map(String.init)?.filter { $0 != "`" }
                if written.count != 1 || (name != plainTypeName && name != "Self") {
                    diagnose(generic, .compositeForeignType(macro: macro, written: generic.trimmedDescription, typeName: plainTypeName))
                    continue
                }
            }
            if node.arguments.isEmpty {
                diagnose(node.macroName, .compositeEmpty(macro: macro))
                continue
            }
            for argument in node.arguments {
                guard let names = compositeList(argument.expression, macro: macro) else { continue }
                if declaration.macro == "Unique" {
                    if uniqueConstraints.contains(where: { Set($0) == Set(names) }) {
                        diagnose(argument.expression, .compositeDuplicate(macro: macro))
                    } else {
                        uniqueConstraints.append(names)
                    }
                } else if indexes.contains(names) {
                    diagnose(argument.expression, .compositeDuplicate(macro: macro))
                } else {
                    indexes.append(names)
                }
            }
        }
    }

    /// The property names of one list, or `nil` after reporting why it is not a list of stored fields.
    private mutating func compositeList(_ expression: ExprSyntax, macro: String) -> [String]? {
        guard let array = expression.as(ArrayExprSyntax.self) else {
            diagnose(expression, .compositeNotList(macro: macro))
            return nil
        }
        guard !array.elements.isEmpty else {
            diagnose(expression, .compositeEmpty(macro: macro))
            return nil
        }
        let stored = Set(fields.map(\.name))
        var names: [String] = []
        var isValid = true
        for element in array.elements {
            guard let keyPath = KeyPathLiteral(element.expression),
                keyPath.rootNames.isEmpty || keyPath.isProperty(of: plainTypeName)
            else {
                diagnose(element.expression, .compositeNotKeyPath(macro: macro, typeName: plainTypeName))
                isValid = false
                continue
            }
            let name = keyPath.name
            guard stored.contains(name) else {
                let kind: String? =
                    if toMany.contains(where: { $0.name == name }) { "a to-many relationship" }
                    else if derived.contains(where: { $0.name == name }) { "a derived field" }
                    else if virtualProperties.contains(where: { $0.name == name }) { "a computed property" }
                    else { nil }
                diagnose(element.expression, .compositeNotStored(name, kind: kind, macro: macro, typeName: plainTypeName))
                isValid = false
                continue
            }
            guard !names.contains(name) else {
                diagnose(element.expression, .compositeRepeatedField(name, macro: macro))
                isValid = false
                continue
            }
            names.append(name)
        }
        return isValid ? names : nil
    }
}
