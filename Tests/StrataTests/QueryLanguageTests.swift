import Foundation
import Testing
@testable import Strata

@Entity
struct Item {
    var name: String = ""
    @Field(.indexed) var age: Int = 0
    var score: Double = 0
    var nickname: String?
    var flag: Bool = false
}

let itemSchema = Schema("V1", Item.self)

/// A stack holding a fixed set of items.
func makeItemStack(_ items: [(String, Int, Double, String?, Bool)]) async throws -> DataStack {
    let stack = try await DataStack(itemSchema)
    try await stack.perform { tx in
        for (name, age, score, nickname, flag) in items {
            try tx.create(Into<Item>()) {
                $0.name = name
                $0.age = age
                $0.score = score
                $0.nickname = nickname
                $0.flag = flag
            }
        }
    }
    return stack
}

let sampleItems: [(String, Int, Double, String?, Bool)] = [
    ("Ada", 36, 9.5, "countess", true),
    ("Grace", 45, 8.0, nil, false),
    ("Linus", 17, 7.25, "penguin", true),
    ("Margaret", 33, 9.0, "Apollo", false),
    ("Édith", 51, 6.5, "Piaf", true),
    ("alan", 41, 9.75, nil, false),
]

@Suite("Where clauses")
struct WhereTests {
    func names(_ stack: DataStack, _ predicate: Where<Item>) async throws -> [String] {
        try await stack.fetchAll(From<Item>().where(predicate).orderBy(.ascending(\.id))).map(\.name)
    }

    @Test("comparisons against values and against other key paths")
    func comparisons() async throws {
        let stack = try await makeItemStack(sampleItems)
        #expect(try await names(stack, \.age == 36) == ["Ada"])
        #expect(try await names(stack, \.age != 36).count == 5)
        #expect(try await names(stack, \.age < 33) == ["Linus"])
        #expect(try await names(stack, \.age <= 33) == ["Linus", "Margaret"])
        #expect(try await names(stack, \.age > 45) == ["Édith"])
        #expect(try await names(stack, \.age >= 45) == ["Grace", "Édith"])
        #expect(try await names(stack, \.score > 9.0 && \.flag == true) == ["Ada"])
        #expect(try await names(stack, \.name == \.name).count == 6)
        #expect(try await names(stack, \.name != \.name).isEmpty)
    }

    @Test("a Boolean key path alone filters, in fetches and queries")
    func keyPathShorthands() async throws {
        let stack = try await makeItemStack(sampleItems)
        let flagged = try await stack.fetchAll(From<Item>().where(\.flag).orderBy(.ascending(\.age))).map(\.name)
        #expect(flagged == ["Linus", "Ada", "Édith"])
        let both = try await stack.fetchAll(From<Item>().where(\.flag).where(\.age > 20).orderBy(.ascending(\.name))).map(\.name)
        #expect(both == ["Ada", "Édith"])
        // Long chains of OrderBy values type-check at once (an orderBy(\.keyPath) overload made this one
        // fail to type-check in reasonable time).
        let chained = From<Item>().orderBy(
            .ascending(\.flag) + .descending(\.age) + .ascending(\.name) + .descending(\.score) + .ascending(\.id)
                + .descending(\.nickname))
        #expect(try await stack.fetchAll(chained).map(\.name) == ["Grace", "alan", "Margaret", "Édith", "Ada", "Linus"])
        let rows = try await stack.queryAttributes(From<Item>().select(.attribute(\.name)).where(\.flag).orderBy(.ascending(\.age)))
        #expect(rows.map { $0["name", as: String.self] } == ["Linus", "Ada", "Édith"])
    }

    @Test("nil checks follow Swift: == nil matches NULL, and ! of a comparison with nil is true")
    func nilChecks() async throws {
        let stack = try await makeItemStack(sampleItems)
        #expect(try await names(stack, \.nickname == nil) == ["Grace", "alan"])
        #expect(try await names(stack, \.nickname != nil).count == 4)
        #expect(try await names(stack, !(\.nickname == "Piaf")).count == 5)
        #expect(try await names(stack, !Where.contains(\.nickname, "p", caseInsensitive: true)) == ["Ada", "Grace", "alan"])
    }

    @Test("in, not in, and between")
    func membership() async throws {
        let stack = try await makeItemStack(sampleItems)
        #expect(try await names(stack, .in(\.age, [17, 51, 99])) == ["Linus", "Édith"])
        #expect(try await names(stack, .notIn(\.age, [17, 51])).count == 4)
        #expect(try await names(stack, .in(\.age, [Int]())).isEmpty)
        #expect(try await names(stack, .notIn(\.age, [Int]())).count == 6)
        #expect(try await names(stack, .in(\.nickname, ["Piaf", nil])) == ["Grace", "Édith", "alan"])
        #expect(try await names(stack, .between(\.age, 33...41)) == ["Ada", "Margaret", "alan"])
    }

    @Test("text tests: contains, prefix, suffix and LIKE, with case and diacritic folding")
    func textTests() async throws {
        let stack = try await makeItemStack(sampleItems)
        #expect(try await names(stack, .contains(\.name, "a")) == ["Ada", "Grace", "Margaret", "alan"])
        #expect(try await names(stack, .contains(\.name, "A")) == ["Ada"])
        #expect(try await names(stack, .contains(\.name, "A", caseInsensitive: true)).count == 4)
        #expect(try await names(stack, .hasPrefix(\.name, "a", caseInsensitive: true)) == ["Ada", "alan"])
        #expect(try await names(stack, .hasPrefix(\.name, "E")).isEmpty)
        #expect(try await names(stack, .hasPrefix(\.name, "e", caseInsensitive: true, diacriticInsensitive: true)) == ["Édith"])
        #expect(try await names(stack, .hasSuffix(\.name, "us")) == ["Linus"])
        #expect(try await names(stack, .like(\.name, "?a*")) == ["Margaret"])
        #expect(try await names(stack, .like(\.name, "*A*", caseInsensitive: true)).count == 4)
        #expect(try await names(stack, .equals(\.name, "ADA", caseInsensitive: true)) == ["Ada"])
        #expect(try await names(stack, .contains(\.nickname, "o")) == ["countess", "Apollo"].compactMap { nick in
            sampleItems.first { $0.3 == nick }?.0 })
    }

    @Test("Where(true) keeps everything, Where(false) nothing, and both combine")
    func constants() async throws {
        let stack = try await makeItemStack(sampleItems)
        #expect(try await names(stack, Where(true)).count == 6)
        #expect(try await names(stack, Where(false)).isEmpty)
        #expect(try await names(stack, Where(false) || \.age == 17) == ["Linus"])
        #expect(try await names(stack, !Where(false)).count == 6)
    }

    @Test("two where clauses combine with AND")
    func chainedWhere() async throws {
        let stack = try await makeItemStack(sampleItems)
        let names = try await stack.fetchAll(From<Item>().where(\.flag == true).where(\.age > 20)).map(\.name)
        #expect(names.sorted() == ["Ada", "Édith"])
    }

    @Test("a key path that is not a stored field makes the fetch throw unsupportedQuery")
    func computedKeyPath() async throws {
        let stack = try await makeItemStack(sampleItems)
        let error = await expectStrataError(.unsupportedQuery) {
            try await stack.fetchAll(From<Item>().where(\.age > 3 && \.name.isEmpty == false))
        }
        #expect(error?.entity == "Item")
        // It says which key path, as far as the platform prints it: its path (Apple platforms), or its
        // value's type (Linux).
        #expect(error?.message.contains("isEmpty") == true || error?.message.contains("Bool") == true, "\(String(describing: error))")
    }

    @Test("values are bound, never spliced into SQL")
    func valuesAreBound() throws {
        let query = try QueryBuilder().select(
            From<Item>().where(\.name == "Robert'); DROP TABLE Item;--" || .contains(\.name, "secret")))
        #expect(!query.sql.contains("Robert"))
        #expect(!query.sql.contains("secret"))
        #expect(query.bindings.contains(.text("Robert'); DROP TABLE Item;--")))
    }
}

@Suite("Ordering, tweaks and batches", .timeLimit(.minutes(1)))
struct OrderingTests {
    @Test("orderBy with key paths, keys, + and +=")
    func ordering() async throws {
        let stack = try await makeItemStack(sampleItems + [("Zed", 36, 1, nil, true)])
        let byAgeThenName = try await stack.fetchAll(From<Item>().orderBy(.descending(\.age) + .ascending("name")))
        #expect(byAgeThenName.map(\.name) == ["Édith", "Grace", "alan", "Ada", "Zed", "Margaret", "Linus"])
        var order = OrderBy<Item>.ascending(\.flag)
        order += .descending(\.score)
        let byFlagThenScore = try await stack.fetchAll(From<Item>().orderBy(order)).map(\.name)
        #expect(byFlagThenScore == ["alan", "Margaret", "Grace", "Ada", "Linus", "Édith", "Zed"])
        await expectStrataError(.unsupportedQuery) { try await stack.fetchAll(From<Item>().orderBy(.ascending("nope"))) }
    }

    @Test("Foundation SortDescriptors translate to ORDER BY")
    func sortDescriptors() async throws {
        let stack = try await makeItemStack(sampleItems)
        let order = OrderBy<Item>([SortDescriptor(\Item.score), SortDescriptor(\Item.age, order: .reverse)])
        let names = try await stack.fetchAll(From<Item>().orderBy(order)).map(\.name)
        #expect(names == ["Édith", "Linus", "Grace", "Margaret", "Ada", "alan"])
        let lexical = try await stack.fetchAll(From<Item>().orderBy(OrderBy(SortDescriptor(\Item.name, comparator: .lexical))))
        #expect(lexical.map(\.name) == sampleItems.map(\.0).sorted())
    }

    @Test("text can sort case-insensitively or like the Finder")
    func textComparison() async throws {
        let stack = try await makeItemStack([("b10", 1, 0, nil, false), ("B2", 2, 0, nil, false), ("a", 3, 0, nil, false)])
        let lexical = try await stack.fetchAll(From<Item>().orderBy(.ascending(\.name))).map(\.name)
        #expect(lexical == ["B2", "a", "b10"])
        let caseless = try await stack.fetchAll(From<Item>().orderBy(.ascending(\.name, comparing: .caseInsensitive))).map(\.name)
        #expect(caseless == ["a", "b10", "B2"])
        let finder = try await stack.fetchAll(From<Item>().orderBy(.descending(\.name, comparing: .localizedStandard))).map(\.name)
        #expect(finder == ["b10", "B2", "a"])
    }

    @Test("limit and offset, from tweaks or chain methods, and fetchID / fetchOne")
    func limitOffset() async throws {
        let stack = try await makeItemStack(sampleItems)
        let page = try await stack.fetchAll(From<Item>().orderBy(.ascending(\.age)).tweak(.limit(2), .offset(1)))
        #expect(page.map(\.age) == [33, 36])
        #expect(try await stack.fetchCount(From<Item>().tweak(.offset(4))) == 2)
        #expect(try await stack.fetchCount(From<Item>().limit(3)) == 3)
        let oldest = try await stack.fetchID(From<Item>().orderBy(.descending(\.age)))
        #expect(try await stack.fetchExisting(try #require(oldest))?.name == "Édith")
        #expect(try await stack.fetchID(From<Item>().where(\.age > 100)) == nil)
        let inTransaction = try await stack.perform { tx in
            (try tx.fetchID(From<Item>().orderBy(.ascending(\.age))), try tx.fetchOne(From<Item>().where(\.age == 45))?.name)
        }
        #expect(inTransaction.0 != nil)
        #expect(inTransaction.1 == "Grace")
        await expectStrataError(.invalidArgument) { try await stack.fetchAll(From<Item>().limit(-1)) }
        await expectStrataError(.invalidArgument) { try await stack.fetchAll(From<Item>().tweak(.batchSize(0))) }
    }

    @Test("fetchBatches streams every object in chunks of the batch size, in order")
    func batches() async throws {
        let stack = try await DataStack(itemSchema)
        try await stack.perform { tx in
            for index in 0..<1_000 { try tx.create(Into<Item>()) { $0.age = index } }
        }
        var sizes: [Int] = []
        var ages: [Int] = []
        for try await batch in stack.fetchBatches(From<Item>().where(\.age >= 10).orderBy(.ascending(\.age)).tweak(.batchSize(128))) {
            sizes.append(batch.count)
            ages += batch.map(\.age)
        }
        #expect(sizes == Array(repeating: 128, count: 7) + [94])
        #expect(ages == Array(10..<1_000))
    }

    @Test("a batch stream sees one committed state even while writes commit")
    func batchesAreConsistent() async throws {
        let stack = try await DataStack(itemSchema)
        try await stack.perform { tx in
            for index in 0..<300 { try tx.create(Into<Item>()) { $0.age = index } }
        }
        var iterator = stack.fetchBatches(From<Item>().tweak(.batchSize(100))).makeAsyncIterator()
        var total = try #require(try await iterator.next()).count
        try await stack.perform { tx in
            try tx.deleteAll(From<Item>())
            for _ in 0..<50 { try tx.create(Into<Item>()) }
        }
        while let batch = try await iterator.next() { total += batch.count }
        #expect(total == 300)
        #expect(try await stack.fetchCount(From<Item>()) == 50)
    }

    @Test("a batch stream that stops early gives its reader back to the pool")
    func batchesReleaseReader() async throws {
        var configuration = DataStack.Configuration()
        configuration.maximumReaderCount = 1
        let stack = try await DataStack(itemSchema, configuration: configuration)
        try await stack.perform { tx in
            for index in 0..<100 { try tx.create(Into<Item>()) { $0.age = index } }
        }
        for try await batch in stack.fetchBatches(From<Item>().tweak(.batchSize(10))) {
            #expect(batch.count == 10)
            break
        }
        // The only reader is free again once the abandoned stream is released.
        #expect(try await stack.fetchCount(From<Item>()) == 100)
    }
}

@Suite("Queries")
struct QueryTests {
    @Test("queryValue returns one value or aggregate, typed by the select")
    func queryValue() async throws {
        let stack = try await makeItemStack(sampleItems)
        #expect(try await stack.queryValue(From<Item>().select(Int.self, .count(\.id))) == 6)
        #expect(try await stack.queryValue(From<Item>().select(Int.self, .maximum(\.age))) == 51)
        #expect(try await stack.queryValue(From<Item>().select(Int.self, .minimum(\.age)).where(\.flag == true)) == 17)
        #expect(try await stack.queryValue(From<Item>().select(Int.self, .sum(\.age))) == 223)
        let average = try #require(try await stack.queryValue(From<Item>().select(Double.self, .average(\.score))))
        #expect(abs(average - 50.0 / 6) < 1e-9)
        #expect(try await stack.queryValue(From<Item>().select(Int.self, .count(\.nickname))) == 4)
        #expect(try await stack.queryValue(From<Item>().select(String.self, .attribute(\.name)).orderBy(.descending(\.age))) == "Édith")
        #expect(try await stack.queryValue(From<Item>().select(Int.self, .sum(\.age)).where(\.age > 100)) == nil)
        await expectStrataError(.typeMismatch) { try await stack.queryValue(From<Item>().select(Int.self, .attribute(\.name))) }
    }

    @Test("without groups, a limit and an offset choose the rows an aggregate reads, as fetchCount counts them")
    func aggregateOfLimitedRows() async throws {
        let stack = try await makeItemStack(sampleItems)
        let ages = try await stack.fetchAll(From<Item>().orderBy(.descending(\.age))).map(\.age)
        #expect(try await stack.fetchCount(From<Item>().offset(2)) == ages.count - 2)
        // Before, the limit and offset applied to the one row of results: the offset gave nil, the limit nothing.
        #expect(try await stack.queryValue(From<Item>().offset(2).select(Int.self, .count(\.id))) == ages.count - 2)
        #expect(try await stack.queryValue(From<Item>().orderBy(.descending(\.age)).limit(2).select(Int.self, .sum(\.age)))
            == ages.prefix(2).reduce(0, +))
        #expect(try await stack.queryValue(
            From<Item>().orderBy(.descending(\.age)).select(Int.self, .minimum(\.age)).tweak(.limit(3), .offset(1)))
            == ages.dropFirst().prefix(3).min())
        let row = try #require(try await stack.queryAttributes(
            From<Item>().orderBy(.ascending(\.age)).limit(2).select(.count(\.id), .maximum(\.age))).first)
        #expect(row["count(id)"] == .integer(2) && row["maximum(age)"] == .integer(Int64(ages.reversed()[1])))
        // With groups, they still choose groups.
        #expect(try await stack.queryAttributes(From<Item>().select(.attribute(\.flag), .count(\.id)).groupBy(\.flag).tweak(.limit(1))).count == 1)
    }

    @Test("queryAttributes returns keyed rows, grouped and ordered, with default keys or aliases")
    func queryAttributes() async throws {
        let stack = try await makeItemStack(sampleItems)
        let rows = try await stack.queryAttributes(
            From<Item>().select(.attribute(\.flag), .count(\.id), .average(\.score, as: "meanScore"), .maximum(\.age))
                .groupBy(\.flag).orderBy(.ascending(\.flag)))
        #expect(rows.count == 2)
        #expect(rows[0]["flag", as: Bool.self] == false)
        #expect(rows[0]["count(id)", as: Int.self] == 3)
        #expect(rows[0]["maximum(age)", as: Int.self] == 45)
        #expect(rows[1]["meanScore", as: Double.self] == (9.5 + 7.25 + 6.5) / 3)
        #expect(rows[1]["missing"] == nil)
        let inTransaction = try await stack.perform { tx in
            try tx.queryAttributes(From<Item>().select(.attribute("age")).where(\.age < 20))
        }
        #expect(inTransaction == [QueryRow(values: ["age": .integer(17)])])
        let keys = SelectTerm<Item>.count(\.nickname).key
        #expect(keys == "count(nickname)")
    }
}

@Suite("Query plans")
struct QueryPlanTests {
    @Test("equality and range predicates on an indexed field use its index")
    func indexIsUsed() async throws {
        let stack = try await makeItemStack(sampleItems)
        let predicates: [Where<Item>] = [\.age == 36, \.age > 30 && \.age < 40, .between(\.age, 1...5), .in(\.age, [1, 2])]
        for predicate in predicates {
            let query = try QueryBuilder().select(From<Item>().where(predicate))
            let plan = try await stack.perform { tx in try tx.queryPlan(query) }
            #expect(plan.contains("USING INDEX Item_age_index"), "\(query.sql): \(plan)")
        }
        let scan = try await stack.perform { tx in try tx.queryPlan(try QueryBuilder().select(From<Item>().where(\.score > 1))) }
        #expect(scan.contains("SCAN"))
    }
}

extension ReadContext {
    /// SQLite's `EXPLAIN QUERY PLAN` for a query, as one line of text.
    func queryPlan(_ query: SQLQuery) throws -> String {
        let statement = try connection.makeStatement("EXPLAIN QUERY PLAN " + query.sql)
        try statement.bind(query.bindings)
        var lines: [String] = []
        while try statement.step() {
            if case .text(let detail) = statement.value(at: 3) { lines.append(detail) }
        }
        return lines.joined(separator: "; ")
    }
}
