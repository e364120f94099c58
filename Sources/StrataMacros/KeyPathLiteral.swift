import SwiftSyntax

/// A key path literal written as a macro argument, such as `\Person.pets`, reduced to names.
///
/// The parser cannot tell where a qualified root type ends (`\Library.Book.items`), so the literal is
/// read as a list of names: ``name`` is the last one, and ``rootNames`` the ones before it.
struct KeyPathLiteral {
    /// The names before the last one: the root type, qualified for a nested type, maybe followed by
    /// properties. Empty for `\.name`.
    var rootNames: [String]
    /// The last property name, without backticks.
    var name: String

    /// Reads `expression` as a key path literal whose components are plain property names, or returns
    /// `nil` for anything else (a variable, `nil`, a subscript, an optional chain).
    init?(_ expression: ExprSyntax) {
        guard let keyPath = expression.as(KeyPathExprSyntax.self) else { return nil }
        var names = keyPath.root.map { root in
            root.trimmedDescription.split(separator: ".").map { String($0).filter { $0 != "`" } }
        } ?? []
        for component in keyPath.components {
            guard case .property(let property) = component.component, property.genericArgumentClause == nil,
                property.declName.argumentNames == nil
            else { return nil }
            names.append(property.declName.baseName.plainName)
        }
        guard !keyPath.components.isEmpty, let last = names.popLast() else { return nil }
        rootNames = names
        name = last
    }

    /// Whether the key path is `\Type.name` or `\Self.name` for the struct named `typeName` (qualified or not).
    func isProperty(of typeName: String) -> Bool {
        rootNames.last == typeName || rootNames == ["Self"]
    }
}
