/// A recursive-descent parser from a format string's tokens to the ``SQLExpression`` tree that
/// key-path filters build, so that both render and behave identically.
///
/// ```
/// predicate  := or END
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison := operand comparator [modifier] operand
///             | operand ["NOT"] "IN" (list | %@)
///             | operand ["NOT"] "BETWEEN" (list | %@)
///             | operand ["NOT"] textTest [modifier] operand
/// ```
/// See ``Where/init(_:_:)`` for the grammar as users read it.
struct FormatParser {
    /// A parsed operand: a column (with its storage class), a value, or what a `%@` argument stands for.
    enum Operand {
        case column(ColumnRef, StorageClass)
        case value(DatabaseValue)
        case object(FormatArgument.Object)
    }

    /// An operand and the token it was written as, for messages.
    struct Located {
        let operand: Operand
        let token: FormatToken
        /// The value argument the operand was given for (`%@`, `%d`, …), if any.
        var valueArgument: (any Sendable)? = nil

        /// Whether the operand's argument is (or holds) a `UInt64` or `UInt` above `Int64.max`, which
        /// an ordering comparison refuses (see ``UnsignedBounds``). Looked at only by ordering
        /// operators, so that `==` and `IN` never walk their arguments for it.
        var beyondInt64: Bool { UnsignedBounds.holdsBeyondInt64(valueArgument) }
    }

    /// A `[c]`, `[d]` or `[cd]` after an operator.
    typealias Modifier = (options: SQLExpression.TextOptions, token: FormatToken)

    /// How deeply parentheses and `NOT`s may nest; deeper input is rejected rather than exhausting the stack.
    private static let maximumDepth = 100

    private let tokens: [FormatToken]
    private let arguments: [(any Sendable)?]
    private let entity: EntityDescription
    /// Resolves a key (a property name or a key path through to-one relationships) to a column.
    private let resolve: (String) -> Result<(ColumnRef, StorageClass), StrataError>
    private var index = 0
    private var argumentIndex = 0
    private var depth = 0

    private init<E: Entity>(tokens: [FormatToken], arguments: [(any Sendable)?], entity: E.Type) {
        self.tokens = tokens
        self.arguments = arguments
        self.entity = E.entityDescription
        self.resolve = { key in ColumnResolver.column(forKeyPath: key, of: E.self) }
    }

    /// Parses `format` with its arguments into an expression over the columns of `entity`, and of the
    /// entities its to-one relationships lead to.
    static func parse<E: Entity>(_ format: String, arguments: [(any Sendable)?], entity: E.Type)
        throws(FormatError) -> SQLExpression
    {
        let tokens = try FormatLexer.tokenize(format)
        let specifiers = tokens.filter {
            if case .specifier = $0.kind { return true }
            return false
        }
        guard specifiers.count == arguments.count else {
            let expected = "\(specifiers.count) argument\(specifiers.count == 1 ? "" : "s") expected"
            let given = "\(arguments.count) given"
            if specifiers.count > arguments.count {
                let missing = specifiers[arguments.count]
                throw FormatError(
                    "\(expected), \(given): \(missing.text) at position \(missing.position) has no argument",
                    position: missing.position)
            }
            // Too many arguments: a malformed string ("score ==", 3) is the likelier mistake; say that first.
            _ = try parse(format, arguments: Array(arguments.prefix(specifiers.count)), entity: entity)
            throw FormatError("\(expected), \(given)", position: nil)
        }
        if tokens.count == 1 {
            throw FormatError("the format string is empty; use TRUEPREDICATE to match everything", position: 0)
        }
        var parser = FormatParser(tokens: tokens, arguments: arguments, entity: entity)
        let expression = try parser.parseOr()
        let rest = parser.current
        guard rest.kind == .end else {
            throw FormatError(
                "expected AND, OR or the end after a complete predicate, found '\(rest.text)' at position \(rest.position)",
                position: rest.position)
        }
        return expression
    }

    // MARK: Tokens

    var current: FormatToken { tokens[index] }

    var previous: FormatToken { tokens[max(index - 1, 0)] }

    mutating func advance() -> FormatToken {
        let token = tokens[index]
        if token.kind != .end { index += 1 }
        return token
    }

    func found(_ token: FormatToken) -> String {
        token.kind == .end ? "the end of the format string" : "'\(token.text)'"
    }

    func isKeyword(_ keyword: FormatKeyword, _ token: FormatToken) -> Bool {
        token.kind == .keyword(keyword)
    }

    // MARK: Logic

    mutating func parseOr() throws(FormatError) -> SQLExpression {
        var operands = [try parseAnd()]
        while current.kind == .or || isKeyword(.or, current) {
            _ = advance()
            operands.append(try parseAnd())
        }
        // One flat list however long the chain (see `SQLExpression.anyOf`).
        return .disjunction(of: operands)
    }

    mutating func parseAnd() throws(FormatError) -> SQLExpression {
        var operands = [try parseNot()]
        while current.kind == .and || isKeyword(.and, current) {
            _ = advance()
            operands.append(try parseNot())
        }
        return .conjunction(of: operands)
    }

    mutating func parseNot() throws(FormatError) -> SQLExpression {
        let token = current
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw FormatError(
                "the predicate nests deeper than \(Self.maximumDepth) levels at position \(token.position)",
                position: token.position)
        }
        switch token.kind {
        case .not, .keyword(.not):
            _ = advance()
            return .not(try parseNot())
        case .leftParen:
            _ = advance()
            let inner = try parseOr()
            guard current.kind == .rightParen else {
                throw FormatError(
                    "expected ')' to close the '(' at position \(token.position), found \(found(current)) "
                        + "at position \(current.position)",
                    position: current.position)
            }
            _ = advance()
            return inner
        case .keyword(.truePredicate):
            _ = advance()
            return .constant(true)
        case .keyword(.falsePredicate):
            _ = advance()
            return .constant(false)
        default:
            return try parseComparison()
        }
    }

    // MARK: Comparisons

    mutating func parseComparison() throws(FormatError) -> SQLExpression {
        guard let left = try parseOperand() else {
            let token = current
            if case .unsupported(let word) = token.kind {
                throw unsupported(word, token)
            }
            let after = index > 0 ? " after '\(previous.text)'" : ""
            throw FormatError(
                "expected a comparison\(after), found \(found(token)) at position \(token.position)",
                position: token.position)
        }
        var negated = false
        if isKeyword(.not, current), isInfixKeyword(tokens[index + 1]) {
            _ = advance()
            negated = true
        }
        let operatorToken = advance()
        let modifier = parseModifier()
        let expression: SQLExpression
        switch operatorToken.kind {
        case .comparison(let comparison):
            expression = try comparisonExpression(left, comparison, operatorToken, modifier)
        case .keyword(.in):
            if let modifier { throw misplaced(modifier.token, after: operatorToken) }
            expression = try inExpression(left, operatorToken)
        case .keyword(.between):
            if let modifier { throw misplaced(modifier.token, after: operatorToken) }
            expression = try betweenExpression(left, operatorToken)
        case .keyword(.beginsWith):
            expression = try textExpression(.beginsWith, left, operatorToken, modifier?.options ?? [])
        case .keyword(.endsWith):
            expression = try textExpression(.endsWith, left, operatorToken, modifier?.options ?? [])
        case .keyword(.contains):
            expression = try textExpression(.contains, left, operatorToken, modifier?.options ?? [])
        case .keyword(.like):
            expression = try textExpression(.like, left, operatorToken, modifier?.options ?? [])
        case .unsupported(let word):
            throw unsupported(word, operatorToken)
        default:
            throw FormatError(
                "expected an operator after '\(left.token.text)', found \(found(operatorToken)) "
                    + "at position \(operatorToken.position)",
                position: operatorToken.position)
        }
        return negated ? .not(expression) : expression
    }

    func isInfixKeyword(_ token: FormatToken) -> Bool {
        [FormatKeyword.in, .between, .beginsWith, .endsWith, .contains, .like].contains { isKeyword($0, token) }
    }

    func unsupported(_ word: String, _ token: FormatToken) -> FormatError {
        FormatError(
            "'\(word)' at position \(token.position) is not supported by Strata's format strings",
            position: token.position)
    }

    mutating func parseModifier() -> Modifier? {
        guard case .modifier(let options) = current.kind else { return nil }
        return (options, advance())
    }

    func misplaced(_ modifier: FormatToken, after operatorToken: FormatToken) -> FormatError {
        FormatError(
            "modifier '\(modifier.text)' at position \(modifier.position) cannot follow "
                + "'\(operatorToken.text)'; it applies to ==, !=, BEGINSWITH, ENDSWITH, CONTAINS and LIKE",
            position: modifier.position)
    }

    // MARK: Operands

    mutating func expectOperand(after token: FormatToken) throws(FormatError) -> Located {
        if let operand = try parseOperand() { return operand }
        let next = current
        if case .unsupported(let word) = next.kind {
            throw unsupported(word, next)
        }
        throw FormatError(
            "expected a value after '\(token.text)' at position \(next.position), found \(found(next))",
            position: next.position)
    }

    /// A key, `%K`, a literal or a value argument; `nil` (consuming nothing) when the current token is none.
    mutating func parseOperand() throws(FormatError) -> Located? {
        let token = current
        let operand: Operand
        var valueArgument: (any Sendable)? = nil
        if case .keyword(let word) = token.kind, [.nil, .null, .true, .yes, .false, .no].contains(word),
            entity.fields.contains(where: { $0.property == token.text }) || entity.derived.contains(where: { $0.property == token.text })
        {
            // A field whose name is a literal's (`no`, `true`): as written, it is the literal.
            throw FormatError(
                "'\(token.text)' at position \(token.position) is a literal, but \(entity.name) has a field of that name: "
                    + "write #\(token.text) to name the field",
                position: token.position, key: token.text)
        }
        switch token.kind {
        case .identifier(let key):
            operand = try column(key, at: token, viaArgument: false)
        case .keyword(.nil), .keyword(.null):
            operand = .value(.null)
        case .keyword(.true), .keyword(.yes):
            operand = .value(.integer(1))
        case .keyword(.false), .keyword(.no):
            operand = .value(.integer(0))
        case .integer(let value):
            operand = .value(.integer(value))
        case .decimal(let value):
            operand = .value(.real(value))
        case .string(let value):
            operand = .value(.text(value))
        case .specifier(let specifier):
            let argument = arguments[argumentIndex]
            if specifier != .key { valueArgument = argument }
            argumentIndex += 1
            let number = argumentIndex
            switch specifier {
            case .key:
                let key = try FormatArgument.key(argument, number, at: token.position)
                operand = try column(key, at: token, viaArgument: true)
            case .integer:
                operand = .value(
                    try FormatArgument.integer(argument, number, at: token.position, specifier: token.text))
            case .floatingPoint:
                operand = .value(
                    try FormatArgument.floatingPoint(argument, number, at: token.position, specifier: token.text))
            case .object:
                operand = .object(try FormatArgument.object(argument, number, at: token.position))
            }
        default:
            return nil
        }
        _ = advance()
        return Located(operand: operand, token: token, valueArgument: valueArgument)
    }

    func column(_ key: String, at token: FormatToken, viaArgument: Bool) throws(FormatError) -> Operand {
        switch resolve(key) {
        case .success(let (column, storageClass)):
            return .column(column, storageClass)
        case .failure(let error):
            let given = viaArgument ? " (given for \(token.text))" : ""
            guard !key.contains(".") else {
                throw FormatError(
                    "unknown key path '\(key)'\(given) at position \(token.position): \(error.message)",
                    position: token.position, key: key)
            }
            let known = (["id"] + entity.fields.map(\.property)).joined(separator: ", ")
            throw FormatError(
                "unknown key '\(key)'\(given) at position \(token.position) (known: \(known))",
                position: token.position, key: key)
        }
    }

    /// The operand as a single expression; a collection argument is an error outside `IN` and `BETWEEN`.
    func scalar(_ located: Located, for operatorToken: FormatToken) throws(FormatError) -> SQLExpression {
        switch located.operand {
        case .column(let column, _): return .column(column)
        case .value(let value), .object(.scalar(let value)): return .value(value)
        case .object:
            throw FormatError(
                "'\(operatorToken.text)' at position \(operatorToken.position) needs a single value, but the "
                    + "argument for '\(located.token.text)' at position \(located.token.position) is a collection "
                    + "or a range (use IN or BETWEEN)",
                position: located.token.position)
        }
    }

    func describe(_ value: DatabaseValue) -> String {
        switch value {
        case .null: "nil"
        case .integer: "an integer"
        case .real: "a number"
        case .text: "text"
        case .blob: "binary data"
        }
    }
}
