import Foundation
import Testing
@testable import Strata

// Names that need quoting; an entity renamed and rebuilt in one step.
enum MRE1 {
    @Entity(name: "Or'der x.select")
    struct Order {
        @Field(.indexed) var label: String = ""
        var amount: Int = 0
        @Relationship var tags: Set<Tag.ID> = []
    }
    @Entity(name: "Tag 'q' t")
    struct Tag { var text: String = "" }
    @Entity(name: "Line")
    struct Line {
        @Relationship var order: Order.ID?
        var qty: Int = 0
    }
}
enum MRE2 {
    @Entity(name: "group ö.by", renamedFrom: "Or'der x.select")
    struct Order {
        @Field(.indexed, renamedFrom: "label") var title: String = ""
        var amount: Double = 0
        @Relationship var tags: Set<Tag.ID> = []
    }
    @Entity(name: "Tag 'q' t")
    struct Tag { var text: String = "" }
    @Entity(name: "Line")
    struct Line {
        @Relationship var order: Order.ID?
        var qty: Int = 0
    }
}

// Two entities that swap names, with a to-one and a to-many pointing at them.
enum MRES1 {
    @Entity(name: "A") struct A { var x: String = "" }
    @Entity(name: "B") struct B { var y: Int = 0 }
    @Entity(name: "C") struct C {
        @Relationship var a: A.ID?
        @Relationship var bs: Set<B.ID> = []
    }
}
enum MRES2 {
    @Entity(name: "B") struct B { var x: String = "" }
    @Entity(name: "A") struct A { var y: Int = 0 }
    @Entity(name: "C") struct C {
        @Relationship var a: B.ID?
        @Relationship var bs: Set<A.ID> = []
    }
}

enum MREF1 { @Entity(name: "P") struct P { @Field(.indexed) var first: String = ""; var last: String = "" } }
enum MREW1 { @Entity(name: "Mood") struct Mood { var mood: String = "calm" } }
enum MREW2 { @Entity(name: "Mood") struct Mood { var mood: String = "calm"; var n: Int = 1 } }

@Suite("Migrations: renames, swaps and quoted names", .timeLimit(.minutes(1)))
struct MigrationRenameEdgeTests {
    @Test("quoted names: an entity renamed and rebuilt, a field renamed and widened, its index, join table and a to-one to it")
    func quotedNames() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("quoted.sqlite")
        let v1 = Schema("V1", MRE1.Order.self, MRE1.Tag.self, MRE1.Line.self)
        let old = try await DataStack(v1, storage: SQLiteStore(path: path))
        let (orderID, tagID) = try await old.perform { tx in
            let tag = try tx.create(Into<MRE1.Tag>()) { $0.text = "t1" }.id
            let order = try tx.create(Into<MRE1.Order>()) { $0.label = "o'1\""; $0.amount = 7; $0.tags = [tag] }.id
            _ = try tx.create(Into<MRE1.Line>()) { $0.order = order; $0.qty = 2 }
            return (order.rawValue, tag.rawValue)
        }
        await old.close()
        let history = SchemaHistory(v1, Schema("V2", MRE2.Order.self, MRE2.Tag.self, MRE2.Line.self))
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: path))
        #expect(forecast.steps.first?.entities.first { $0.entity == "group ö.by" }?.kind == .rebuild)
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let orders = try await stack.fetchAll(From<MRE2.Order>())
        #expect(orders.map(\.id.rawValue) == [orderID])
        #expect(orders.map(\.title) == ["o'1\""])
        #expect(orders.map(\.amount) == [7.0])
        #expect(orders.first?.tags.map(\.rawValue) == [tagID])
        #expect(try await stack.fetchAll(From<MRE2.Line>()).first?.order?.rawValue == orderID)
        try await stack.perform { tx in _ = try tx.create(Into<MRE2.Order>()) { $0.title = "x"; $0.tags = [MRE2.Tag.ID(rawValue: tagID)] } }
        #expect(try storeValue(path, "SELECT sql FROM sqlite_schema WHERE name = 'group ö.by_title_index'")
            == "CREATE INDEX \"group ö.by_title_index\" ON \"group ö.by\" (\"title\")")
        await stack.close()
    }

    @Test("two entities that swap names keep their objects, and the to-one and to-many pointing at them")
    func entitySwap() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("swap.sqlite")
        let v1 = Schema("V1", MRES1.A.self, MRES1.B.self, MRES1.C.self)
        let old = try await DataStack(v1, storage: SQLiteStore(path: path))
        let (a, b) = try await old.perform { tx in
            let a = try tx.create(Into<MRES1.A>()) { $0.x = "ax" }.id
            let b = try tx.create(Into<MRES1.B>()) { $0.y = 5 }.id
            _ = try tx.create(Into<MRES1.C>()) { $0.a = a; $0.bs = [b] }
            return (a.rawValue, b.rawValue)
        }
        await old.close()
        let history = SchemaHistory(
            v1, Schema("V2", MRES2.B.self, MRES2.A.self, MRES2.C.self),
            steps: [MigrationStep(from: "V1", to: "V2", .renameEntity(from: "A", to: "B"), .renameEntity(from: "B", to: "A"))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        #expect(try await stack.fetchAll(From<MRES2.B>()).map(\.x) == ["ax"])
        #expect(try await stack.fetchAll(From<MRES2.A>()).map(\.y) == [5])
        let c = try await stack.fetchAll(From<MRES2.C>()).first
        #expect(c?.a?.rawValue == a)
        #expect(c?.bs.map(\.rawValue) == [b])
        await stack.close()
    }

    @Test("two fields that swap names in place keep their values, and the index stays on its field's column")
    func fieldSwap() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fswap.sqlite")
        let old = try await DataStack(Schema("V1", MREF1.P.self), storage: SQLiteStore(path: path))
        try await old.perform { tx in _ = try tx.create(Into<MREF1.P>()) { $0.first = "Ada"; $0.last = "Lovelace" } }
        await old.close()
        let history = SchemaHistory(
            Schema("V1", MREF1.P.self), Schema("V2", MREF1.P.self),
            steps: [MigrationStep(from: "V1", to: "V2", .renameField("P", from: "first", to: "last"), .renameField("P", from: "last", to: "first"))])
        let stack = try await DataStack(history, storage: SQLiteStore(path: path))
        let p = try await stack.fetchAll(From<MREF1.P>()).first
        #expect(p?.first == "Lovelace" && p?.last == "Ada")
        #expect(try storeValue(path, "SELECT sql FROM sqlite_schema WHERE name = 'P_first_index'") == "CREATE INDEX \"P_first_index\" ON \"P\" (\"first\")")
        await stack.close()
    }

    @Test("a store whose committed rows are only in its -wal (copied without its -shm) migrates with them")
    func walOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("live.sqlite")
        let copy = directory.path("copy.sqlite")
        let v1 = Schema("V1", MREW1.Mood.self)
        let live = try await DataStack(v1, storage: SQLiteStore(path: path))
        try await live.perform { tx in _ = try tx.create(Into<MREW1.Mood>()) { $0.mood = "calm" } }
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        await live.close()
        let history = SchemaHistory(v1, Schema("V2", MREW2.Mood.self))
        let forecast = try await DataStack.forecast(history, storage: SQLiteStore(path: copy))
        #expect(forecast.steps.first?.entities.first?.addedFields == ["n"])
        let stack = try await DataStack(history, storage: SQLiteStore(path: copy))
        #expect(try await stack.fetchAll(From<MREW2.Mood>()).map(\.mood) == ["calm"])
        await stack.close()
    }
}
