extension QueryBuilder {
    /// Renders an expression whose columns belong to the table named `qualifier`; values become bound
    /// parameters.
    ///
    /// `depth` counts the levels above `expression`; beyond ``SQLExpression/maximumNesting`` rendering
    /// throws rather than exhausting the stack.
    func render(
        _ expression: SQLExpression, qualifier: String, into query: inout SQLQuery, depth: Int = 0
    ) throws(StrataError) {
        guard depth <= SQLExpression.maximumNesting else { throw SQLExpression.tooDeepError }
        let depth = depth + 1
        switch expression {
        case .column(let column):
            query.sql += try columnSQL(column, qualifier: qualifier, into: &query)
        case .value(let value):
            query.bindings.append(value)
            query.sql += dialect.placeholder(query.bindings.count)
        case .constant(let value):
            query.sql += value ? "1" : "0"
        case .compare(let left, let op, let right):
            if op.orders { try Self.refuseDecimals([left, right], "filter it with \(op.rawValue)") }
            try renderInfix(left, op.rawValue, right, qualifier: qualifier, into: &query, depth: depth)
        case .isNull(let operand, let negated):
            query.sql += "("
            try render(operand, qualifier: qualifier, into: &query, depth: depth)
            query.sql += negated ? " IS NOT NULL)" : " IS NULL)"
        case .inList(let operand, let values, let negated):
            try renderIn(operand, values, negated: negated, qualifier: qualifier, into: &query, depth: depth)
        case .between(let operand, let lower, let upper):
            try Self.refuseDecimals([operand, lower, upper], "filter it with between")
            query.sql += "("
            try render(operand, qualifier: qualifier, into: &query, depth: depth)
            query.sql += " BETWEEN "
            try render(lower, qualifier: qualifier, into: &query, depth: depth)
            query.sql += " AND "
            try render(upper, qualifier: qualifier, into: &query, depth: depth)
            query.sql += ")"
        case .text(let test, let left, let right, let options):
            // One Swift function gives text tests Swift's semantics (Unicode case and diacritic folding,
            // `*`/`?` patterns), identical in SQL and in memory.
            query.sql += "\(TextFunction.name)('\(test.rawValue)', "
            try render(left, qualifier: qualifier, into: &query, depth: depth)
            query.sql += ", "
            try render(right, qualifier: qualifier, into: &query, depth: depth)
            query.sql += ", \(options.rawValue))"
        case .allOf(let operands):
            try renderBalanced(operands[...], "AND", qualifier: qualifier, into: &query, depth: depth)
        case .anyOf(let operands):
            try renderBalanced(operands[...], "OR", qualifier: qualifier, into: &query, depth: depth)
        case .not(let operand):
            // SQL's NOT keeps NULL unknown; Swift's ! of a comparison with nil is true.
            query.sql += "NOT coalesce("
            try render(operand, qualifier: qualifier, into: &query, depth: depth)
            query.sql += ", 0)"
        case .related(let entity, let field, _, let condition):
            try renderRelated(entity, field, condition, outer: qualifier, into: &query, depth: depth)
        case .anyRelated(let entity, let index, _, let condition):
            try renderMembers(entity, index, condition, all: false, outer: qualifier, into: &query, depth: depth)
        case .allRelated(let entity, let index, _, let condition):
            try renderMembers(entity, index, condition, all: true, outer: qualifier, into: &query, depth: depth)
        case .invalid(let error):
            throw error
        case .storeChecked(let tags, let inner):
            for tag in tags where !query.idTags.contains(tag) { query.idTags.append(tag) }
            try render(inner, qualifier: qualifier, into: &query, depth: depth)
        }
    }

    /// Throws when one of `operands` is a column that holds a `Decimal` as text, which SQL orders
    /// character by character (``TextStoredNumbers``); the key-path operators refuse it before, the
    /// other ways to write a filter (format strings, `~` chains) here.
    static func refuseDecimals(_ operands: [SQLExpression], _ operation: String) throws(StrataError) {
        for case .column(let column) in operands {
            if let refusal = TextStoredNumbers.refusal(column, operation) { throw refusal }
        }
    }

    /// `(left OP right)`.
    private func renderInfix(
        _ left: SQLExpression, _ op: String, _ right: SQLExpression, qualifier: String, into query: inout SQLQuery,
        depth: Int
    ) throws(StrataError) {
        query.sql += "("
        try render(left, qualifier: qualifier, into: &query, depth: depth)
        query.sql += " \(op) "
        try render(right, qualifier: qualifier, into: &query, depth: depth)
        query.sql += ")"
    }

    /// The operands joined by `op` as a balanced tree, `((a op b) op (c op d))`: SQLite's parse tree of
    /// a flat `a op b op c …` is as deep as the list is long, and SQLite refuses expressions deeper than
    /// 1,000; balanced, 100,000 operands nest 17 levels.
    private func renderBalanced(
        _ operands: ArraySlice<SQLExpression>, _ op: String, qualifier: String, into query: inout SQLQuery, depth: Int
    ) throws(StrataError) {
        guard operands.count > 1 else {
            if let only = operands.first { try render(only, qualifier: qualifier, into: &query, depth: depth) }
            return
        }
        let middle = operands.startIndex + operands.count / 2
        query.sql += "("
        try renderBalanced(operands[..<middle], op, qualifier: qualifier, into: &query, depth: depth)
        query.sql += " \(op) "
        try renderBalanced(operands[middle...], op, qualifier: qualifier, into: &query, depth: depth)
        query.sql += ")"
    }

    private func renderIn(
        _ operand: SQLExpression, _ values: [DatabaseValue], negated: Bool, qualifier: String, into query: inout SQLQuery,
        depth: Int
    ) throws(StrataError) {
        let present = values.filter { !$0.isNull }
        let matchesNull = present.count != values.count
        if values.isEmpty {
            query.sql += negated ? "1" : "0"
            return
        }
        query.sql += negated ? "NOT coalesce((" : "("
        if !present.isEmpty {
            try render(operand, qualifier: qualifier, into: &query, depth: depth)
            query.sql += " IN ("
            for (index, value) in present.enumerated() {
                if index > 0 { query.sql += ", " }
                query.bindings.append(value)
                query.sql += dialect.placeholder(query.bindings.count)
            }
            query.sql += ")"
        }
        if matchesNull {
            if !present.isEmpty { query.sql += " OR " }
            try render(operand, qualifier: qualifier, into: &query, depth: depth)
            query.sql += " IS NULL"
        }
        query.sql += negated ? "), 0)" : ")"
    }
}
