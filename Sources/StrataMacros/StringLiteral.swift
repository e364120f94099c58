import SwiftSyntax

/// The value of a string literal written as a macro argument, such as a column name.
enum StringLiteral {
    /// What an argument expression says about a name.
    enum Value: Equatable {
        /// `nil`: use the default name.
        case absent
        /// A literal without interpolation, its escapes resolved.
        case string(String)
        /// Anything else: a variable, a call, an interpolated string.
        case notLiteral
    }

    /// Reads a name argument: `nil`, or a string literal without interpolation.
    static func value(of expression: ExprSyntax) -> Value {
        if expression.is(NilLiteralExprSyntax.self) { return .absent }
        guard let literal = expression.as(StringLiteralExprSyntax.self) else { return .notLiteral }
        let escape = "\\" + (literal.openingPounds?.text ?? "")
        var result = ""
        for segment in literal.segments {
            guard case .stringSegment(let text) = segment else { return .notLiteral }
            guard let unescaped = unescape(text.content.text, escape: escape) else { return .notLiteral }
            result += unescaped
        }
        return .string(result)
    }

    /// Resolves the escape sequences of a literal's text, or returns `nil` for one it does not know.
    private static func unescape(_ text: String, escape: String) -> String? {
        var result = ""
        var rest = Substring(text)
        while let range = rest.firstRange(of: escape) {
            result += rest[..<range.lowerBound]
            rest = rest[range.upperBound...]
            guard let first = rest.first else { return nil }
            rest = rest.dropFirst()
            switch first {
            case "0": result += "\0"
            case "n": result += "\n"
            case "r": result += "\r"
            case "t": result += "\t"
            case "\\", "\"", "'": result.append(first)
            case "u":
                guard rest.first == "{", let close = rest.firstIndex(of: "}"),
                    let code = UInt32(rest[rest.index(after: rest.startIndex)..<close], radix: 16),
                    let scalar = Unicode.Scalar(code)
                else { return nil }
                result.unicodeScalars.append(scalar)
                rest = rest[rest.index(after: close)...]
            default:
                return nil
            }
        }
        return result + rest
    }
}
