import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder

/// What `@Entity` reads from the struct it is attached to: the names, the stored fields, and every
/// problem found on the way, each at the node to fix.
///
/// Both roles of ``EntityMacro`` run the same analysis; only the member role reports the diagnostics,
/// so that each appears once, and the extension role generates nothing when there is any.
struct EntityAnalysis {
    /// The struct, or `nil` when the macro is attached to something else.
    private(set) var structDecl: StructDeclSyntax?
    /// The struct name as Swift code spells it.
    private(set) var typeName = ""
    /// The struct name as a plain string, without backticks.
    var plainTypeName: String { structDecl?.name.plainName ?? "" }
    /// The entity (table) name.
    private(set) var entityName = ""
    /// The entity's name in the version before, from `@Entity(renamedFrom:)`.
    private(set) var entityRenamedFrom: String?
    /// The stored fields — attributes, coded fields and to-one relationships — in declaration order.
    var fields: [StoredField] = []
    /// The to-many relationships, in declaration order.
    var toMany: [ToManyField] = []
    /// The derived fields, in declaration order.
    var derived: [DerivedField] = []
    /// The computed instance properties whose key path the generated code can form, in declaration order.
    var virtualProperties: [VirtualProperty] = []
    /// The unique constraints declared with `#Unique`, as lists of property names, in source order.
    var uniqueConstraints: [[String]] = []
    /// The indexes declared with `#Index`, as lists of property names, in source order.
    var indexes: [[String]] = []
    /// The problems found, in source order.
    var diagnostics: [Diagnostic] = []
    /// The lowercased column names seen so far, with the property that uses each.
    var columns: [String: String] = [:]

    /// Whether the macro can generate the conformance.
    var isValid: Bool { structDecl != nil && diagnostics.isEmpty }

    /// The access modifier, with a trailing space, that the generated members need to witness the
    /// protocol requirements: `public ` for a public struct, `package ` for a package one, empty otherwise.
    /// A struct without an access modifier of its own takes the one its enclosing extension gives its
    /// members (`public extension Library { @Entity struct Book {} }` declares a public `Book`).
    private(set) var accessPrefix = ""

    /// Analyzes `declaration`, to which the `@Entity` attribute `node` is attached; `lexicalContext` is
    /// the macro expansion context's, innermost first.
    init(attribute node: AttributeSyntax, declaration: some DeclGroupSyntax, lexicalContext: [Syntax] = []) {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            diagnoseNotAStruct(declaration)
            return
        }
        self.structDecl = structDecl
        typeName = structDecl.name.text
        accessPrefix = Self.accessPrefix(of: structDecl, in: lexicalContext)
        if let generics = structDecl.genericParameterClause {
            diagnose(generics, .genericStruct)
        } else if let generic = Self.enclosingGenericName(lexicalContext) {
            diagnose(node, .nestedInGeneric(generic))
        }
        readEntityName(node, structName: structDecl.name)
        var composites: [CompositeDeclaration] = []
        for member in structDecl.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                analyze(variable)
            } else if let ifConfig = member.decl.as(IfConfigDeclSyntax.self) {
                diagnoseStoredProperties(in: ifConfig)
            } else if let composite = Self.compositeDeclaration(member.decl) {
                composites.append(composite)
            }
        }
        checkDerivedRelationships()
        analyzeComposites(composites)
        // Derived fields and composite lists are checked once every property is known: put their problems back in source order.
        diagnostics = diagnostics.enumerated()
            .sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }
            .map(\.element)
    }

    /// The access prefix of `structDecl`: its own modifier, or else the default its immediately enclosing
    /// extension gives its members (a `private` extension's members are `fileprivate`, which needs none).
    private static func accessPrefix(of structDecl: StructDeclSyntax, in lexicalContext: [Syntax]) -> String {
        func prefix(_ modifiers: DeclModifierListSyntax) -> String? {
            if modifiers.contains(.public) || modifiers.contains(.open) { return "public " }
            if modifiers.contains(.package) { return "package " }
            if modifiers.contains(.internal) || modifiers.contains(.fileprivate) || modifiers.contains(.private) {
                return ""
            }
            return nil
        }
        if let own = prefix(structDecl.modifiers) { return own }
        guard let enclosing = lexicalContext.first?.as(ExtensionDeclSyntax.self) else { return "" }
        return prefix(enclosing.modifiers) ?? ""
    }

    /// The name of the innermost enclosing type or function with generic parameters, whose nested types
    /// cannot have the static stored properties the macro generates; `nil` when there is none.
    private static func enclosingGenericName(_ lexicalContext: [Syntax]) -> String? {
        for context in lexicalContext {
            if let decl = context.asProtocol((any NamedDeclSyntax).self),
                let generic = context.asProtocol((any WithGenericParametersSyntax).self),
                let parameters = generic.genericParameterClause
            {
                return decl.name.text + parameters.trimmedDescription
            }
            if let function = context.as(FunctionDeclSyntax.self), let parameters = function.genericParameterClause {
                return function.name.text + parameters.trimmedDescription
            }
        }
        return nil
    }

    // MARK: - The declaration

    private mutating func diagnoseNotAStruct(_ declaration: some DeclGroupSyntax) {
        if let decl = declaration.as(ClassDeclSyntax.self) {
            diagnose(decl.classKeyword, .notAStruct(kind: "a class"))
        } else if let decl = declaration.as(EnumDeclSyntax.self) {
            diagnose(decl.enumKeyword, .notAStruct(kind: "an enum"))
        } else if let decl = declaration.as(ActorDeclSyntax.self) {
            diagnose(decl.actorKeyword, .notAStruct(kind: "an actor"))
        } else if let decl = declaration.as(ProtocolDeclSyntax.self) {
            diagnose(decl.protocolKeyword, .notAStruct(kind: "a protocol"))
        } else if let decl = declaration.as(ExtensionDeclSyntax.self) {
            diagnose(decl.extensionKeyword, .notAStruct(kind: "an extension"))
        } else {
            diagnose(declaration, .notAStruct(kind: "this declaration"))
        }
    }

    private mutating func readEntityName(_ node: AttributeSyntax, structName: TokenSyntax) {
        if let renamed = node.argumentList.first(where: { $0.label?.text == "renamedFrom" }) {
            entityRenamedFrom = RenamedFrom.value(of: renamed, diagnostics: &diagnostics)
        }
        let argument = node.argumentList.first { $0.label?.text == "name" }
        switch argument.map({ StringLiteral.value(of: $0.expression) }) ?? .absent {
        case .absent:
            entityName = structName.plainName
            if entityName.asciiLowercased.hasPrefix("sqlite_") {
                diagnose(structName, .reservedEntityName(entityName))
            }
        case .string(let name):
            entityName = name
            if let argument, !Self.isValidName(name) {
                diagnose(argument.expression, .invalidEntityName(name))
            } else if let argument, name.asciiLowercased.hasPrefix("sqlite_") {
                diagnose(argument.expression, .reservedEntityName(name))
            }
        case .notLiteral:
            if let argument { diagnose(argument.expression, .entityNameNotLiteral) }
        }
    }

    // MARK: - Properties

    private mutating func analyze(_ variable: VariableDeclSyntax) {
        guard !variable.isTypeProperty else { return }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            if isLet || variable.hasStoredBinding {
                let split = FixIt(
                    message: StrataFixIt.splitDeclaration,
                    changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(Self.split(variable)))])
                diagnostics.append(
                    Diagnostic(
                        node: variable.bindings, message: StrataDiagnostic.multipleBindings, fixIts: [split]))
            }
            return
        }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
            if isLet || binding.isStored { diagnose(binding.pattern, .nonIdentifierPattern) }
            return
        }
        let property = PropertySyntax(variable: variable, binding: binding, identifier: pattern.identifier)
        guard property.name != "id" else {
            diagnose(pattern.identifier, .reservedID)
            return
        }
        guard binding.isStored else {
            if property.type != nil, property.isKeyPathable {
                virtualProperties.append(VirtualProperty(identifier: property.code, name: property.name))
            }
            return
        }
        if let lazy = variable.modifiers.first(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            diagnose(lazy, .lazyProperty(property.name))
            return
        }
        if isLet {
            let fixIt = FixIt(
                message: StrataFixIt.replaceLetWithVar,
                changes: [
                    .replace(
                        oldNode: Syntax(variable.bindingSpecifier),
                        newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
                ])
            diagnostics.append(
                Diagnostic(
                    node: variable.bindingSpecifier, message: StrataDiagnostic.letProperty(property.name),
                    fixIts: [fixIt]))
        }

        let attributes = PropertyAttributes(of: property, diagnostics: &diagnostics)
        switch attributes.role {
        case nil: analyzeAttribute(property, attributes.fieldArguments)
        case (.coded, let attribute)?: analyzeCoded(property, attributes.fieldArguments, attribute: attribute)
        case (.relationship, let attribute)?: analyzeRelationship(property, attributes, attribute: attribute)
        case (.derived, let attribute)?: analyzeDerived(property, attributes, attribute: attribute)
        }
    }

    private mutating func diagnoseStoredProperties(in ifConfig: IfConfigDeclSyntax) {
        for clause in ifConfig.clauses {
            guard case .decls(let members) = clause.elements else { continue }
            for member in members {
                if let variable = member.decl.as(VariableDeclSyntax.self), !variable.isTypeProperty,
                    variable.hasStoredBinding
                {
                    diagnose(variable, .storedPropertyInIfConfig)
                } else if let nested = member.decl.as(IfConfigDeclSyntax.self) {
                    diagnoseStoredProperties(in: nested)
                } else if let composite = Self.compositeDeclaration(member.decl) {
                    // `@Entity` reads the struct's own members only: one inside `#if` would be lost.
                    diagnose(
                        composite.node,
                        .compositeMisplaced(
                            macro: composite.macro,
                            reason: "@Entity does not read one inside '#if' (every build must have the same constraints): "
                                + "declare it directly in the struct's body"))
                }
            }
        }
    }

    // MARK: - Helpers

    mutating func diagnose(_ node: some SyntaxProtocol, _ message: StrataDiagnostic) {
        diagnostics.append(Diagnostic(node: node, message: message))
    }

    /// Whether SQLite can take `name` between double quotes: it is not empty and holds no `"` or NUL.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("\"") && !name.contains("\0")
    }

    /// `var a, b: Int = 0` as one declaration per binding, each binding without a type of its own taking
    /// the type of the next one that has a type, as the compiler reads it.
    static func split(_ variable: VariableDeclSyntax) -> CodeBlockItemListSyntax {
        var bindings = Array(variable.bindings)
        var nextType: TypeAnnotationSyntax?
        for index in bindings.indices.reversed() {
            if let annotation = bindings[index].typeAnnotation {
                nextType = annotation
            } else if bindings[index].initializer == nil, let nextType {
                bindings[index].typeAnnotation = nextType.trimmed
            }
        }
        let indentation = Trivia(pieces: variable.leadingTrivia.reversed().prefix { !$0.isNewline }.reversed())
        let declarations = bindings.enumerated().map { index, binding in
            let decl =
                variable
                .with(\.bindings, [binding.with(\.trailingComma, nil).trimmed])
                .with(\.trailingTrivia, [])
            return CodeBlockItemSyntax(
                item: .decl(DeclSyntax(index == 0 ? decl : decl.with(\.leadingTrivia, .newline + indentation))))
        }
        return CodeBlockItemListSyntax(declarations).with(\.trailingTrivia, variable.trailingTrivia)
    }
}

extension String {
    /// The string with ASCII letters lowercased, as SQLite compares names.
    var asciiLowercased: String {
        String(decoding: utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
