// The operators of a comparison: each checks its operands and builds its part of the expression.

extension FormatParser {
    /// `==`, `!=`, `<`, `<=`, `>`, `>=`; with a modifier, `==` and `!=` become text equality.
    mutating func comparisonExpression(
        _ left: Located, _ comparison: SQLExpression.Comparison, _ operatorToken: FormatToken,
        _ modifier: Modifier?
    ) throws(FormatError) -> SQLExpression {
        if let modifier {
            guard comparison == .equal || comparison == .notEqual else {
                throw misplaced(modifier.token, after: operatorToken)
            }
            let equals = try textExpression(.equals, left, operatorToken, modifier.options)
            return comparison == .equal ? equals : .not(equals)
        }
        let right = try expectOperand(after: operatorToken)
        let lhs = try scalar(left, for: operatorToken)
        let rhs = try scalar(right, for: operatorToken)
        let leftIsNull = isNull(lhs)
        let rightIsNull = isNull(rhs)
        if leftIsNull || rightIsNull {
            guard comparison == .equal || comparison == .notEqual else {
                let nilToken = rightIsNull ? right.token : left.token
                throw FormatError(
                    "'\(operatorToken.text)' at position \(operatorToken.position) cannot compare with nil "
                        + "('\(nilToken.text)' at position \(nilToken.position)); only == and != can",
                    position: nilToken.position)
            }
            return .isNull(rightIsNull ? lhs : rhs, negated: comparison == .notEqual)
        }
        try checkTypes(left, right, operatorToken)
        try checkTypes(right, left, operatorToken)
        if comparison.orders, left.beyondInt64 || right.beyondInt64 {
            throw UnsignedBounds.formatRefusal(operatorToken.text, at: operatorToken.position)
        }
        // A value on the left and a key on the right: `30 < age` is `age > 30`.
        if case .value = lhs, case .column = rhs {
            return .compare(rhs, flipped(comparison), lhs)
        }
        return .compare(lhs, comparison, rhs)
    }

    /// Refuses a value that a key's column cannot hold (SQLite would convert one to the other, or
    /// order the two storage classes apart, and quietly match the wrong objects): numbers compare with
    /// integer and real keys, text with text keys, data with data keys.
    func checkTypes(_ key: Located, _ other: Located, _ operatorToken: FormatToken) throws(FormatError) {
        let value: DatabaseValue
        switch other.operand {
        case .value(let bound), .object(.scalar(let bound)): value = bound
        default: return
        }
        try checkType(of: value, against: key, other, operatorToken)
    }

    /// Refuses `value` (given at `other`) when the key at `key` cannot hold it (see ``checkTypes(_:_:_:)``).
    func checkType(of value: DatabaseValue, against key: Located, _ other: Located, _ operatorToken: FormatToken) throws(FormatError) {
        guard case .column(let column, let storageClass) = key.operand else { return }
        let fits: Bool =
            switch (storageClass, value) {
            case (_, .null): true
            case (.integer, .integer), (.integer, .real), (.real, .integer), (.real, .real): true
            case (.text, .text), (.blob, .blob): true
            default: false
            }
        guard !fits else { return }
        throw FormatError(
            "'\(operatorToken.text)' at position \(operatorToken.position) compares key '\(column.property)', stored as "
                + "\(storageClass.rawValue), with '\(other.token.text)' at position \(other.token.position), which is "
                + "\(describe(value)); pass a value of the field's type",
            position: other.token.position)
    }

    func flipped(_ comparison: SQLExpression.Comparison) -> SQLExpression.Comparison {
        switch comparison {
        case .equal, .notEqual: comparison
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }

    func isNull(_ expression: SQLExpression) -> Bool {
        if case .value(.null) = expression { return true }
        return false
    }

    /// `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` and `==[c]`: both sides must be text.
    mutating func textExpression(
        _ test: SQLExpression.TextTest, _ left: Located, _ operatorToken: FormatToken,
        _ options: SQLExpression.TextOptions
    ) throws(FormatError) -> SQLExpression {
        let right = try expectOperand(after: operatorToken)
        return .text(
            test, try text(left, for: operatorToken), try text(right, for: operatorToken), options)
    }

    func text(_ located: Located, for operatorToken: FormatToken) throws(FormatError) -> SQLExpression {
        let operand = try scalar(located, for: operatorToken)
        let name = operatorToken.text.uppercased()
        switch located.operand {
        case .column(let column, let storageClass) where storageClass != .text:
            throw FormatError(
                "'\(name)' at position \(operatorToken.position) compares text, but key '\(column.property)' "
                    + "at position \(located.token.position) is stored as \(storageClass.rawValue)",
                position: located.token.position)
        case .value(let value), .object(.scalar(let value)):
            guard case .text = value else {
                throw FormatError(
                    "'\(name)' at position \(operatorToken.position) compares text, but "
                        + "'\(located.token.text)' at position \(located.token.position) is \(describe(value))",
                    position: located.token.position)
            }
        default:
            break
        }
        return operand
    }

    /// `IN {…}` or `IN %@` with a collection or a range.
    mutating func inExpression(_ left: Located, _ operatorToken: FormatToken) throws(FormatError)
        -> SQLExpression
    {
        let lhs = try scalar(left, for: operatorToken)
        if current.kind == .leftBrace {
            let (elements, _) = try parseList(after: operatorToken)
            var values: [DatabaseValue] = []
            for element in elements {
                guard case .value(let value) = try scalar(element, for: operatorToken) else {
                    throw FormatError(
                        "the list after IN at position \(operatorToken.position) holds values, not keys: "
                            + "'\(element.token.text)' at position \(element.token.position)",
                        position: element.token.position)
                }
                try checkType(of: value, against: left, element, operatorToken)
                values.append(value)
            }
            return .inList(lhs, values, negated: false)
        }
        let right = try expectOperand(after: operatorToken)
        switch right.operand {
        case .object(.collection(let values)):
            for value in values { try checkType(of: value, against: left, right, operatorToken) }
            return .inList(lhs, values, negated: false)
        case .object(.closedRange(let lower, let upper)):
            for value in [lower, upper] { try checkType(of: value, against: left, right, operatorToken) }
            if right.beyondInt64 { throw UnsignedBounds.formatRefusal(operatorToken.text, at: operatorToken.position) }
            return .between(lhs, .value(lower), .value(upper))
        case .object(.halfOpenRange(let lower, let upper)):
            for value in [lower, upper] { try checkType(of: value, against: left, right, operatorToken) }
            if right.beyondInt64 { throw UnsignedBounds.formatRefusal(operatorToken.text, at: operatorToken.position) }
            return .and(.compare(lhs, .greaterOrEqual, .value(lower)), .compare(lhs, .less, .value(upper)))
        case .object(.scalar(let value)):
            throw FormatError(
                "IN at position \(operatorToken.position) expects a list {…} or an array argument %@, but the "
                    + "argument for '\(right.token.text)' at position \(right.token.position) is \(describe(value)), not a collection",
                position: right.token.position)
        default:
            throw FormatError(
                "IN at position \(operatorToken.position) expects a list {…} or an array argument %@, "
                    + "found '\(right.token.text)' at position \(right.token.position)",
                position: right.token.position)
        }
    }

    /// `BETWEEN {low, high}` or `BETWEEN %@` with an array of two or a `ClosedRange`.
    mutating func betweenExpression(_ left: Located, _ operatorToken: FormatToken) throws(FormatError)
        -> SQLExpression
    {
        let lhs = try scalar(left, for: operatorToken)
        let bounds: [SQLExpression]
        let boundsToken: FormatToken
        if current.kind == .leftBrace {
            let (elements, brace) = try parseList(after: operatorToken)
            var expressions: [SQLExpression] = []
            for element in elements {
                if element.beyondInt64 { throw UnsignedBounds.formatRefusal(operatorToken.text, at: operatorToken.position) }
                let bound = try scalar(element, for: operatorToken)
                if case .value(let value) = bound { try checkType(of: value, against: left, element, operatorToken) }
                expressions.append(bound)
            }
            bounds = expressions
            boundsToken = brace
        } else {
            let right = try expectOperand(after: operatorToken)
            boundsToken = right.token
            if right.beyondInt64 { throw UnsignedBounds.formatRefusal(operatorToken.text, at: operatorToken.position) }
            switch right.operand {
            case .object(.collection(let values)):
                for value in values { try checkType(of: value, against: left, right, operatorToken) }
                bounds = values.map { .value($0) }
            case .object(.closedRange(let lower, let upper)):
                for value in [lower, upper] { try checkType(of: value, against: left, right, operatorToken) }
                bounds = [.value(lower), .value(upper)]
            case .object(.halfOpenRange):
                throw FormatError(
                    "BETWEEN at position \(operatorToken.position) includes both bounds; pass a ClosedRange "
                        + "(a...b), not a Range (a..<b), as '\(right.token.text)' at position \(right.token.position)",
                    position: right.token.position)
            default:
                throw FormatError(
                    "BETWEEN at position \(operatorToken.position) expects {low, high} or an argument %@ holding "
                        + "two values or a ClosedRange, found '\(right.token.text)' at position \(right.token.position)",
                    position: right.token.position)
            }
        }
        guard bounds.count == 2 else {
            throw FormatError(
                "BETWEEN at position \(operatorToken.position) expects 2 bounds, got \(bounds.count) "
                    + "at position \(boundsToken.position)",
                position: boundsToken.position)
        }
        if bounds.contains(where: isNull) {
            throw FormatError(
                "BETWEEN at position \(operatorToken.position) cannot have nil as a bound "
                    + "(at position \(boundsToken.position))",
                position: boundsToken.position)
        }
        return .between(lhs, bounds[0], bounds[1])
    }

    /// `{a, b, …}`: operands separated by commas. Returns them and the opening brace.
    mutating func parseList(after operatorToken: FormatToken) throws(FormatError) -> ([Located], FormatToken) {
        let brace = advance()
        var elements: [Located] = []
        if current.kind == .rightBrace {
            _ = advance()
            return (elements, brace)
        }
        while true {
            elements.append(try expectOperand(after: elements.isEmpty ? brace : previous))
            let separator = advance()
            switch separator.kind {
            case .comma: continue
            case .rightBrace: return (elements, brace)
            default:
                throw FormatError(
                    "expected ',' or '}' in the list opened at position \(brace.position), found "
                        + "\(found(separator)) at position \(separator.position)",
                    position: separator.position)
            }
        }
    }
}
