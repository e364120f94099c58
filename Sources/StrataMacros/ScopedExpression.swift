import SwiftSyntax

/// A user expression made ready to be pasted into generated code.
enum ScopedExpression {
    /// `expression` with `Self` spelled `typeName`, for code in the entity's `_StrataScope` enum, where
    /// `Self` would name the enum: `{ Self.newToken() }` becomes `{ Book.newToken() }`. A `Self` inside a
    /// type declared in the expression keeps its meaning there.
    static func resolvingSelf(in expression: ExprSyntax, as typeName: String) -> ExprSyntax {
        SelfRewriter(typeName: typeName).rewrite(expression).cast(ExprSyntax.self)
    }

    /// `expression` as a function argument: an `if` or `switch` expression, which can only stand alone
    /// (`var limit: Int = if Self.isPro { 100 } else { 10 }`), becomes the call of a closure returning it.
    static func argument(_ expression: ExprSyntax) -> String {
        if expression.is(IfExprSyntax.self) || expression.is(SwitchExprSyntax.self) {
            return "{ \(expression.trimmedDescription) }()"
        }
        return expression.description
    }
}

/// Replaces the `Self` type references of an expression with a type name.
private final class SelfRewriter: SyntaxRewriter {
    let typeName: String

    init(typeName: String) {
        self.typeName = typeName
        super.init(viewMode: .sourceAccurate)
    }

    private func renamed(_ token: TokenSyntax) -> TokenSyntax {
        token.with(\.tokenKind, .identifier(typeName))
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        guard node.baseName.tokenKind == .keyword(.Self) else { return super.visit(node) }
        return ExprSyntax(node.with(\.baseName, renamed(node.baseName)))
    }

    override func visit(_ node: IdentifierTypeSyntax) -> TypeSyntax {
        guard node.name.tokenKind == .keyword(.Self) else { return super.visit(node) }
        return super.visit(node.with(\.name, renamed(node.name)))
    }

    // In a type declared inside the expression, `Self` is that type.
    override func visit(_ node: StructDeclSyntax) -> DeclSyntax { DeclSyntax(node) }
    override func visit(_ node: ClassDeclSyntax) -> DeclSyntax { DeclSyntax(node) }
    override func visit(_ node: EnumDeclSyntax) -> DeclSyntax { DeclSyntax(node) }
    override func visit(_ node: ActorDeclSyntax) -> DeclSyntax { DeclSyntax(node) }
    override func visit(_ node: ProtocolDeclSyntax) -> DeclSyntax { DeclSyntax(node) }
}
