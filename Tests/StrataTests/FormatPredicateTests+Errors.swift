import Foundation
import Testing
@testable import Strata

// The errors of format-string predicates: each with its position and reason.

/// The error a format string makes, through the throwing initializer.
private func formatError(
    _ format: String, _ arguments: [(any Sendable)?] = [], sourceLocation: SourceLocation = #_sourceLocation
) -> StrataError? {
    let filter = Where<FormatFriend>(format: format, arguments: arguments)
    guard case .invalid(let error) = filter.expression else {
        Issue.record("Expected '\(format)' to be rejected", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
    return error
}

/// The first line of an error's message: the reason and the position.
private func reason(_ error: StrataError?) -> String {
    error?.message.split(separator: "\n").first.map(String.init) ?? ""
}

private struct NotStorable: Sendable {}

extension SQLExpression {
    fileprivate var isValidForTests: Bool {
        if case .invalid = self { return false }
        return true
    }
}

extension FormatPredicateTests {
    @Test("The throwing initializer reports at once what the plain one reports at fetch time")
    func errorsSurface() async throws {
        let (stack, _) = try await makeStack()
        let fetched = await expectStrataError(.invalidArgument) {
            try await stack.fetchAll(From<Person>().where("agee > %d", 3))
        }
        let thrown = await expectStrataError(.invalidArgument) { try Where<Person>(validating: "agee > %d", 3) }
        #expect(fetched?.message == thrown?.message)
        #expect(reason(thrown) == "Format string of Where<Person>: unknown key 'agee' at position 0 "
            + "(known: id, name, age, email)")
        #expect(thrown?.entity == "Person")
        #expect(thrown?.field == "agee")
        #expect(try Where<Person>(validating: "age > %d", 3).expression.isValidForTests)
    }

    @Test("An error shows the format string with a caret under the position")
    func caretLine() {
        let lines = formatError("age > 30 AND agee < 3")?.message.split(separator: "\n").map(String.init)
        #expect(lines == [
            "Format string of Where<FormatFriend>: unknown key 'agee' at position 13 "
                + "(known: id, name, age, email, score, active, mood, born, like)",
            "    age > 30 AND agee < 3",
            String(repeating: " ", count: 4 + 13) + "^",
        ])
        let end = formatError("age >\n")?.message.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(end?.dropFirst().map(String.init) == ["    age > ", String(repeating: " ", count: 4 + 6) + "^"])
        let count = formatError("age > %d", [1, 2])?.message.split(separator: "\n").map(String.init)
        #expect(count == ["Format string of Where<FormatFriend>: 1 argument expected, 2 given", "    age > %d"])
    }

    static let errors: [(String, [(any Sendable)?], String)] = [
        ("age > ", [], "expected a value after '>' at position 6, found the end of the format string"),
        ("age > AND name == 'a'", [], "expected a value after '>' at position 6, found 'AND'"),
        ("age >< 3", [], "expected a value after '>' at position 5, found '<'"),
        ("agee > 3", [], "unknown key 'agee' at position 0 (known: id, name, age, email, score, active, mood, born, like)"),
        ("%K > 3", ["agee"], "unknown key 'agee' (given for %K) at position 0"),
        ("%K > 3", [5], "%K at position 0 expects a key name (String), got Int (argument 1)"),
        ("age > %d AND name == %@", [30], "2 arguments expected, 1 given: %@ at position 21 has no argument"),
        ("age > 3", [30], "0 arguments expected, 1 given"),
        ("age ==", [3], "expected a value after '==' at position 6, found the end of the format string"),
        ("age IN %@", [3], "the argument for '%@' at position 7 is an integer, not a collection"),
        ("age > %d", ["30"], "%d at position 6 expects an integer argument, got String (argument 1)"),
        ("age > %d OR score > %f", [1, "x"], "%f at position 20 expects a floating-point argument, got String (argument 2)"),
        ("age > %d", [2.5], "%d at position 6 expects an integer argument, got Double (argument 1)"),
        ("age > %@", [NotStorable()], "%@ at position 6 expects a value Strata stores"),
        ("age IN %@", [[NotStorable()]], "%@ at position 7 got a collection whose element 0 is a NotStorable"),
        ("name == %@", [["a": 1]], "%@ at position 8 got a collection whose element 0 is a"),
        ("age == %@", [[1, 2]], "'==' at position 4 needs a single value, but the argument for '%@' at position 7 is a collection"),
        ("name == 'abc", [], "unterminated string starting at position 8"),
        ("name == \"abc", [], "unterminated string starting at position 8"),
        ("name == 'a\\q'", [], "unknown escape '\\q' at position 10"),
        ("(age > 3", [], "expected ')' to close the '(' at position 0, found the end of the format string at position 8"),
        ("age > 3)", [], "expected AND, OR or the end after a complete predicate, found ')' at position 7"),
        ("age > 3 name == 'a'", [], "expected AND, OR or the end after a complete predicate, found 'name' at position 8"),
        ("age > 3 AND", [], "expected a comparison after 'AND', found the end of the format string at position 11"),
        ("age", [], "expected an operator after 'age', found the end of the format string at position 3"),
        ("age ~ 3", [], "unexpected character '~' at position 4"),
        ("age & 3", [], "unexpected character '&' at position 4"),
        ("a.b == 1", [], "unknown key path 'a.b' at position 0: In 'a.b', 'a' is not a to-one relationship"),
        ("name. == 1", [], "unexpected '.' at position 4: a key path joins field names"),
        ("age > 30abc", [], "unexpected character 'a' at position 8, right after a number"),
        ("age > 99999999999999999999", [], "integer '99999999999999999999' does not fit in 64 bits at position 6"),
        ("age > %x", [], "unknown format specifier '%x' at position 6"),
        ("age > %", [], "unknown format specifier '%' at position 6"),
        ("#1 > 2", [], "expected a key name after '#' at position 0"),
        ("like > 2", [], "expected a comparison, found 'like' at position 0"),
        ("$x == 1", [], "unexpected character '$' at position 0"),
        ("age < nil", [], "'<' at position 4 cannot compare with nil ('nil' at position 6); only == and != can"),
        ("age >= %@", [Int?.none], "'>=' at position 4 cannot compare with nil ('%@' at position 7); only == and != can"),
        ("name BEGINSWITH 3", [], "'BEGINSWITH' at position 5 compares text, but '3' at position 16 is an integer"),
        ("name CONTAINS nil", [], "'CONTAINS' at position 5 compares text, but 'nil' at position 14 is nil"),
        ("age BEGINSWITH '3'", [], "'BEGINSWITH' at position 4 compares text, but key 'age' at position 0 is stored as INTEGER"),
        ("name ==[c] 3.5", [], "'==' at position 5 compares text, but '3.5' at position 11 is a number"),
        ("age <[c] 3", [], "modifier '[c]' at position 5 cannot follow '<'; it applies to ==, !=, BEGINSWITH, ENDSWITH, CONTAINS and LIKE"),
        ("age IN[c] {1}", [], "modifier '[c]' at position 6 cannot follow 'IN'"),
        ("name LIKE[x] 'a'", [], "unknown modifier 'x' at position 10 (supported: [c], [d], [cd])"),
        ("name LIKE[c 'a'", [], "unterminated modifier '[' at position 9"),
        ("name LIKE[] 'a'", [], "empty modifier '[]' at position 9"),
        ("age IN 3", [], "IN at position 4 expects a list {…} or an array argument %@, found '3' at position 7"),
        ("age IN {1, age}", [], "the list after IN at position 4 holds values, not keys: 'age' at position 11"),
        ("age IN {1 2}", [], "expected ',' or '}' in the list opened at position 7, found '2' at position 10"),
        ("age IN {1,", [], "expected a value after ',' at position 10, found the end of the format string"),
        ("age BETWEEN {1}", [], "BETWEEN at position 4 expects 2 bounds, got 1 at position 12"),
        ("age BETWEEN %@", [[1, 2, 3]], "BETWEEN at position 4 expects 2 bounds, got 3 at position 12"),
        ("age BETWEEN {1, nil}", [], "BETWEEN at position 4 cannot have nil as a bound"),
        ("age BETWEEN %@", [1..<5], "BETWEEN at position 4 includes both bounds; pass a ClosedRange"),
        ("age BETWEEN 3", [], "BETWEEN at position 4 expects {low, high} or an argument %@"),
        ("name MATCHES 'a.*'", [], "'MATCHES' at position 5 is not supported by Strata's format strings"),
        ("ANY age > 3", [], "'ANY' at position 0 is not supported by Strata's format strings"),
        ("", [], "the format string is empty; use TRUEPREDICATE to match everything"),
        ("   ", [], "the format string is empty"),
        (String(repeating: "(", count: 150) + "age > 1" + String(repeating: ")", count: 150), [],
            "the predicate nests deeper than 100 levels at position 100"),
        (String(repeating: "NOT ", count: 150) + "age > 1", [], "the predicate nests deeper than 100 levels"),
    ]

    @Test("Every malformed format string is reported with its position and reason", arguments: errors)
    func malformedFormatStrings(format: String, arguments: [(any Sendable)?], expected: String) {
        let error = formatError(format, arguments)
        #expect(reason(error).contains(expected), "\(format): \(reason(error))")
    }

    @Test("A field named as a literal (no, true, nil) must be written with #: as written, it is refused, not read as the literal")
    func fieldNamedAsLiteral() async throws {
        // Before, `no == 42` compared the literal NO (0) with 42 and matched nothing, silently.
        let error = await expectStrataError(.invalidArgument) { try Where<FormatInvoice>(validating: "no == %d", 42) }
        #expect(error?.message.contains("write #no to name the field") == true, "\(String(describing: error))")
        let stack = try await DataStack(Schema("V1", FormatInvoice.self))
        try await stack.perform { tx in _ = try tx.create(Into<FormatInvoice>()) { $0.no = 42 } }
        #expect(try await stack.fetchCount(From<FormatInvoice>().where(try Where(validating: "#no == %d", 42))) == 1)
        // A literal where no field has its name still reads as the literal.
        #expect(try await stack.fetchCount(From<FormatInvoice>().where(try Where(validating: "paid == NO"))) == 1)
    }

    @Test("An argument the key's column cannot hold is refused, not converted by SQLite")
    func argumentOfWrongType() {
        #expect(reason(formatError("age == %@", ["1"])).contains("compares key 'age', stored as INTEGER, with '%@' at position 7, which is text"))
        #expect(reason(formatError("name > %@", [5])).contains("key 'name', stored as TEXT"))
        #expect(reason(formatError("%@ < name", [5])).contains("key 'name', stored as TEXT"))
        #expect(reason(formatError("age IN %@", [["1", "2"]])).contains("key 'age', stored as INTEGER"))
        #expect(reason(formatError("name IN {1, 2}")).contains("key 'name', stored as TEXT"))
        // BETWEEN and ranges too: before, a server's query-string text for a number matched nothing, silently.
        #expect(reason(formatError("score BETWEEN %@", [["5", "9"]])).contains("key 'score', stored as REAL"))
        #expect(reason(formatError("score BETWEEN {'5', 9}")).contains("key 'score', stored as REAL"))
        #expect(reason(formatError("name BETWEEN {1, 5}")).contains("key 'name', stored as TEXT"))
        #expect(reason(formatError("name BETWEEN %@", [1...5])).contains("key 'name', stored as TEXT"))
        #expect(reason(formatError("name IN %@", [1..<5])).contains("key 'name', stored as TEXT"))
        #expect(Where<FormatFriend>(format: "score BETWEEN {2, 9.5}", arguments: []).expression.isValidForTests)
        #expect(Where<FormatFriend>(format: "age IN %@", arguments: [1...5]).expression.isValidForTests)
        #expect(Where<FormatFriend>(format: "age IN %@", arguments: [[1, 2]]).expression.isValidForTests)
        // Numbers compare across integer and real keys; nil compares with any key.
        #expect(Where<FormatFriend>(format: "age > %@", arguments: [2.5]).expression.isValidForTests)
        #expect(Where<FormatFriend>(format: "score > %@", arguments: [2]).expression.isValidForTests)
        #expect(Where<FormatFriend>(format: "email == %@", arguments: [nil]).expression.isValidForTests)
        #expect(Where<FormatFriend>(format: "born > %@", arguments: [Date()]).expression.isValidForTests)
    }
}

/// An entity with a field named as a format-string literal.
@Entity struct FormatInvoice {
    var no: Int = 0
    var paid: Bool = false
}
