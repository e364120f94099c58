import Foundation
import Testing
@testable import Strata

/// An entity whose table is named like the aliases subqueries once had (`_t1`), related to itself.
@Entity(name: "_t1")
struct AliasNode {
    var name: String = ""
    @Relationship var parent: AliasNode.ID?
    @Relationship(inverse: \AliasNode.parent) var children: Set<AliasNode.ID> = []
    @Relationship var links: [AliasNode.ID] = []
    @Derived(count: \AliasNode.children) var childCount: Int = 0
}

/// Subqueries over relationships (to-one chains, to-many IDs, counts, `any` / `all`) are correlated
/// to the outer table by its name; their own aliases must never take that name.
@Suite("Subquery aliases")
struct SubqueryAliasTests {
    @Test("an entity named _t1 and related to itself reads its relationships, counts and chains right")
    func entityNamedLikeAnAlias() async throws {
        let stack = try await DataStack(Schema("V1", AliasNode.self))
        let (root, a, b, c) = try await stack.perform { tx in
            let root = try tx.create(Into<AliasNode>()) { $0.name = "root" }
            let a = try tx.create(Into<AliasNode>()) { $0.name = "a"; $0.parent = root.id }
            let b = try tx.create(Into<AliasNode>()) { $0.name = "b"; $0.parent = root.id }
            let c = try tx.create(Into<AliasNode>()) { $0.name = "c"; $0.parent = a.id }
            _ = try tx.edit(root.id) { $0.links = [c.id, b.id] }
            return (root.id, a.id, b.id, c.id)
        }
        func names(_ filter: Where<AliasNode>) async throws -> [String] {
            try await stack.fetchAll(From<AliasNode>().where(filter).orderBy(.ascending(\.name))).map(\.name)
        }
        // Before, each subquery's alias "_t1" hid the outer table, so it compared the related rows with
        // themselves: no children, no links, counts of 0, and chains and any / all matching the wrong rows.
        let all = try await stack.fetchAll(From<AliasNode>().orderBy(.ascending(\.name)))
        #expect(all.map(\.name) == ["a", "b", "c", "root"])
        #expect(all.map(\.children) == [[c], [], [], [a, b]])
        #expect(all.map(\.childCount) == [1, 0, 0, 2])
        #expect(all.last?.links == [c, b])
        #expect(try await stack.fetchExisting(root)?.children == [a, b])
        #expect(try await names(\.parent?.name == "root") == ["a", "b"])
        #expect(try await names(\.parent ~ \.name == "root") == ["a", "b"])
        #expect(try await names(Where(#Predicate<AliasNode> { $0.parent?.name == "root" })) == ["a", "b"])
        #expect(try await names(\.parent?.parent?.name == "root") == ["c"])
        #expect(try await names(.any(\.children, \.name == "c")) == ["a"])
        #expect(try await names(.all(\.children, \.name != "c")) == ["b", "c", "root"])
        #expect(try await names(.any(\.links, \.name == "b")) == ["root"])
        #expect(try await names(\.childCount >= 1) == ["a", "root"])
        #expect(try await stack.fetchCount(From<AliasNode>().where(.any(\.children, \.name == "c"))) == 1)
        let byParent = try await stack.fetchAll(From<AliasNode>().orderBy(.descending(\.parent?.name) + .ascending(\.name)))
        #expect(byParent.map(\.name) == ["a", "b", "c", "root"])
        await stack.close()
    }
}
