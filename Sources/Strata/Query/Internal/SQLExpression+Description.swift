/// Filters written out in the format-string language (``Where/init(_:_:)``), the way a user would
/// write them: `age >= 18 AND name CONTAINS[c] "ad"`.
extension SQLExpression {
    /// How tightly an expression binds, loosest first: operands of a looser kind get parentheses.
    private enum Binding: Int, Comparable {
        case or, and, not, comparison

        static func < (lhs: Binding, rhs: Binding) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Deeper expressions are written as `…`, so that describing a filter never exhausts the stack.
    private static let maximumDescribedDepth = 200

    /// The expression as format-string text; columns reached through relationships are prefixed with
    /// `prefix` (`owner.`).
    func formatText(prefix: String = "", depth: Int = 0) -> String {
        guard depth < Self.maximumDescribedDepth else { return "…" }
        let next = depth + 1
        switch self {
        case .column(let column):
            return FormatLexer.writtenKey(prefix + column.path)
        case .value(let value):
            return Self.literal(value)
        case .constant(let value):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .compare(let left, let comparison, let right):
            let symbol = switch comparison {
            case .equal: "=="
            case .notEqual: "!="
            default: comparison.rawValue
            }
            return "\(left.operandText(prefix, next)) \(symbol) \(right.operandText(prefix, next))"
        case .isNull(let operand, let negated):
            return "\(operand.operandText(prefix, next)) \(negated ? "!=" : "==") nil"
        case .inList(let operand, let values, let negated):
            let list = values.map(Self.literal).joined(separator: ", ")
            return "\(operand.operandText(prefix, next)) \(negated ? "NOT IN" : "IN") {\(list)}"
        case .between(let operand, let lower, let upper):
            return "\(operand.operandText(prefix, next)) BETWEEN {\(lower.operandText(prefix, next)), "
                + "\(upper.operandText(prefix, next))}"
        case .text(let test, let left, let right, let options):
            let name = switch test {
            case .contains: "CONTAINS"
            case .beginsWith: "BEGINSWITH"
            case .endsWith: "ENDSWITH"
            case .equals: "=="
            case .like: "LIKE"
            }
            var modifier = ""
            if options.contains(.caseInsensitive) { modifier += "c" }
            if options.contains(.diacriticInsensitive) { modifier += "d" }
            if !modifier.isEmpty { modifier = "[\(modifier)]" }
            return "\(left.operandText(prefix, next)) \(name)\(modifier) \(right.operandText(prefix, next))"
        case .allOf(let operands):
            return operands.map { $0.text(within: .and, prefix, next) }.joined(separator: " AND ")
        case .anyOf(let operands):
            return operands.map { $0.text(within: .or, prefix, next) }.joined(separator: " OR ")
        case .not(let operand):
            return "NOT " + operand.text(within: .not, prefix, next)
        case .related(_, _, let property, let condition):
            let text = condition.formatText(prefix: prefix + property + ".", depth: next)
            // A filter through a to-one relationship never matches a nil relationship, where the
            // text's `owner.name != "Ada"` reads a nil owner's name as nil: say so where it matters.
            guard condition.mayMatchNulls else { return text }
            let guarded = "\(FormatLexer.writtenKey(prefix + property)) != nil"
            return "\(guarded) AND " + (condition.binding < .and ? "(\(text))" : text)
        case .anyRelated(_, _, let property, let condition), .allRelated(_, _, let property, let condition):
            let quantifier = if case .anyRelated = self { "ANY" } else { "ALL" }
            if condition.binding == .comparison {
                return "\(quantifier) " + condition.formatText(prefix: prefix + property + ".", depth: next)
            }
            return "\(quantifier) \(FormatLexer.writtenKey(prefix + property)) (\(condition.formatText(depth: next)))"
        case .invalid(let error):
            return "<invalid: \(error.message)>"
        case .storeChecked(_, let inner):
            return inner.formatText(prefix: prefix, depth: depth)
        }
    }

    /// Whether the condition can hold for a row whose columns are all `NULL` (a nil to-one
    /// relationship's object, as the text reads it): a test of `!=`, `== nil`, `NOT`, `NOT IN` or
    /// `TRUEPREDICATE` somewhere in it. Conservative: it may say yes where the whole could not match.
    private var mayMatchNulls: Bool {
        switch self {
        case .compare(_, let comparison, _): comparison == .notEqual
        case .isNull, .not: true
        case .inList(_, _, let negated): negated
        case .constant(let value): value
        case .allOf(let operands), .anyOf(let operands): operands.contains { $0.mayMatchNulls }
        case .related(_, _, _, let condition), .storeChecked(_, let condition): condition.mayMatchNulls
        case .allRelated: true
        case .column, .value, .between, .text, .anyRelated, .invalid: false
        }
    }

    private var binding: Binding {
        switch self {
        case .anyOf: .or
        case .allOf: .and
        case .not: .not
        case .related(_, _, _, let condition):
            // Guarded by `… != nil AND` when it may match nulls (see formatText).
            condition.mayMatchNulls ? min(condition.binding, .and) : condition.binding
        case .storeChecked(_, let condition): condition.binding
        default: .comparison
        }
    }

    /// The text of an operand of an operator that binds as `outer`: in parentheses when it binds looser,
    /// and also for an `AND` inside an `OR` and a `NOT` inside a `NOT`, which read better so.
    private func text(within outer: Binding, _ prefix: String, _ depth: Int) -> String {
        let inner = formatText(prefix: prefix, depth: depth)
        let needsParentheses = binding < outer || (outer == .not && binding == .not)
            || (outer == .or && binding == .and)
        return needsParentheses ? "(\(inner))" : inner
    }

    /// The text of an operand of a comparison: a constant is a value there (`isDone == TRUE`, as a
    /// `#Predicate` that tests a stored `Bool` translates), not a predicate (`TRUEPREDICATE`).
    private func operandText(_ prefix: String, _ depth: Int) -> String {
        if case .constant(let value) = self { return value ? "TRUE" : "FALSE" }
        return formatText(prefix: prefix, depth: depth)
    }

    /// A value as a format-string literal.
    static func literal(_ value: DatabaseValue) -> String {
        switch value {
        case .null:
            return "nil"
        case .integer(let value):
            return String(value)
        case .real(let value):
            return String(value)
        case .text(let value):
            var escaped = "\""
            for character in value.unicodeScalars {
                switch character {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\t": escaped += "\\t"
                case "\0": escaped += "\\0"
                default: escaped.unicodeScalars.append(character)
                }
            }
            return escaped + "\""
        case .blob(let value):
            return "<\(value.count) bytes>"
        }
    }
}

extension ColumnRef {
    /// The key path a user would write: relationships followed, then the property (`owner.company.city`).
    var path: String {
        (through.map(\.property) + [property]).joined(separator: ".")
    }
}
