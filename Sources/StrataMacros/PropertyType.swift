import SwiftSyntax

/// What the macro can tell about a property's type from syntax alone.
///
/// The macro never sees resolved types: the compiler checks `DatabaseValueConvertible` conformance in
/// the generated code. These checks only catch, early and at the right place, the spellings that can
/// never name a column type.
enum PropertyType {
    /// The wrapped type when `type` is spelled as an optional (`T?`, `T!`, `Optional<T>`,
    /// `Swift.Optional<T>`), otherwise `nil`.
    static func wrappedType(ofOptional type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unwrapped.wrappedType }
        if let (name, arguments) = genericName(of: type), name == "Optional", arguments.count == 1 {
            return arguments.first
        }
        if let tuple = type.as(TupleTypeSyntax.self), let inner = parenthesized(tuple) {
            return wrappedType(ofOptional: inner)
        }
        return nil
    }

    /// Whether `type` is spelled as an optional.
    static func isOptional(_ type: TypeSyntax) -> Bool {
        wrappedType(ofOptional: type) != nil
    }

    /// Whether `type` is spelled in a way that no column can hold: a tuple, a function, a collection,
    /// a nested optional, a metatype, or an existential or opaque type.
    static func isUnsupported(_ type: TypeSyntax) -> Bool {
        var base = type
        if let wrapped = wrappedType(ofOptional: type) {
            if isOptional(wrapped) { return true }
            base = wrapped
        }
        return isUnsupportedBase(base)
    }

    private static func isUnsupportedBase(_ type: TypeSyntax) -> Bool {
        if let attributed = type.as(AttributedTypeSyntax.self) { return isUnsupportedBase(attributed.baseType) }
        if let tuple = type.as(TupleTypeSyntax.self) {
            guard let inner = parenthesized(tuple) else { return true }
            return isUnsupported(inner)
        }
        if type.is(FunctionTypeSyntax.self) || type.is(ArrayTypeSyntax.self) || type.is(DictionaryTypeSyntax.self)
            || type.is(SomeOrAnyTypeSyntax.self) || type.is(CompositionTypeSyntax.self)
            || type.is(MetatypeTypeSyntax.self)
        {
            return true
        }
        if let (name, _) = genericName(of: type) {
            return ["Array", "Dictionary", "Set", "Any", "AnyObject"].contains(name)
        }
        return false
    }

    /// Whether `type` can never be `Codable`: a tuple, a function, a nested optional, a metatype, or an
    /// existential or opaque type. Collections and custom types pass: `@Coded` stores them as JSON.
    static func isUncodable(_ type: TypeSyntax) -> Bool {
        var base = type
        if let wrapped = wrappedType(ofOptional: type) {
            if isOptional(wrapped) { return true }
            base = wrapped
        }
        if let attributed = base.as(AttributedTypeSyntax.self) { return isUncodable(attributed.baseType) }
        if let tuple = base.as(TupleTypeSyntax.self) {
            guard let inner = parenthesized(tuple) else { return true }
            return isUncodable(inner)
        }
        if base.is(FunctionTypeSyntax.self) || base.is(SomeOrAnyTypeSyntax.self)
            || base.is(CompositionTypeSyntax.self) || base.is(MetatypeTypeSyntax.self)
        {
            return true
        }
        return genericName(of: base).map { ["Any", "AnyObject"].contains($0.0) } ?? false
    }

    /// Whether `type` is spelled as one of the standard integer types.
    static func isInteger(_ type: TypeSyntax) -> Bool {
        guard let (name, arguments) = genericName(of: type), arguments.isEmpty else { return false }
        return ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"].contains(name)
    }

    /// The attribute that makes an unsupported type storable, offered as a fix-it: `Relationship` for a
    /// collection of entity IDs, `Coded` for another array, dictionary or set; `nil` for anything else.
    static func suggestedAttribute(for type: TypeSyntax) -> String? {
        switch RelationshipKind(type) {
        case .toMany, .optionalToMany: return "Relationship"
        default: break
        }
        let base = wrappedType(ofOptional: type) ?? type
        if base.is(ArrayTypeSyntax.self) || base.is(DictionaryTypeSyntax.self) { return "Coded" }
        if let (name, _) = genericName(of: base), ["Array", "Dictionary", "Set"].contains(name) { return "Coded" }
        return nil
    }

    /// `type?`, in parentheses when the question mark would otherwise bind to part of it.
    static func optional(_ type: TypeSyntax) -> TypeSyntax {
        let type = type.trimmed
        let isSimple =
            type.is(IdentifierTypeSyntax.self) || type.is(MemberTypeSyntax.self) || type.is(ArrayTypeSyntax.self)
            || type.is(DictionaryTypeSyntax.self) || type.is(TupleTypeSyntax.self)
        let wrapped = isSimple ? type : TypeSyntax(TupleTypeSyntax(elements: [TupleTypeElementSyntax(type: type)]))
        return TypeSyntax(OptionalTypeSyntax(wrappedType: wrapped))
    }

    /// The name and generic arguments of `Name<...>` or `Swift.Name<...>`.
    static func genericName(of type: TypeSyntax) -> (String, [TypeSyntax])? {
        let name: TokenSyntax
        let clause: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            (name, clause) = (identifier.name, identifier.genericArgumentClause)
        } else if let member = type.as(MemberTypeSyntax.self),
            member.baseType.as(IdentifierTypeSyntax.self)?.name.text == "Swift"
        {
            (name, clause) = (member.name, member.genericArgumentClause)
        } else {
            return nil
        }
        let arguments = clause?.arguments.compactMap { $0.argument.as(TypeSyntax.self) } ?? []
        return (name.text, arguments)
    }

    /// The type inside parentheses, `(T)`, which is `T` and no tuple.
    private static func parenthesized(_ tuple: TupleTypeSyntax) -> TypeSyntax? {
        guard tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil,
            only.ellipsis == nil
        else { return nil }
        return only.type
    }

    /// Whether the compiler infers the type of a property from this initial value without help:
    /// a string, integer, floating-point or Boolean literal, possibly negated.
    static func isInferableLiteral(_ expression: ExprSyntax) -> Bool {
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return prefix.expression.is(IntegerLiteralExprSyntax.self)
                || prefix.expression.is(FloatLiteralExprSyntax.self)
        }
        return expression.is(StringLiteralExprSyntax.self) || expression.is(IntegerLiteralExprSyntax.self)
            || expression.is(FloatLiteralExprSyntax.self) || expression.is(BooleanLiteralExprSyntax.self)
    }

    /// A natural default value for a few standard types, offered as a fix-it, or `nil`.
    static func suggestedDefault(for type: TypeSyntax) -> String? {
        guard let (name, arguments) = genericName(of: type), arguments.isEmpty else { return nil }
        switch name {
        case "String": return "\"\""
        case "Bool": return "false"
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double",
            "Float":
            return "0"
        default: return nil
        }
    }
}
