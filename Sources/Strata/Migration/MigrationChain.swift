/// The order in which a store moves from one schema version to the next.
///
/// A chain is linear (`MigrationChain("V1", "V2", "V3")`) or a tree whose branches converge on the
/// current version (`MigrationChain(["A": "C", "B": "C"])`: stores at A and at B both migrate to C).
/// Every version has at most one successor, so from any version there is exactly one way to the
/// current one. A chain that breaks this (a cycle, a version with two successors, a version unknown to
/// the ``SchemaHistory``, two versions nothing follows) is refused when the stack is created, with
/// ``StrataError/Code/invalidMigration`` naming the problem.
public struct MigrationChain: Sendable, Hashable, CustomStringConvertible {
    /// Every declared edge, in declaration order, duplicates included (so that they can be reported).
    let edges: [Edge]

    struct Edge: Sendable, Hashable {
        let source: String
        let destination: String
    }

    /// A linear chain: each version migrates to the one after it.
    public init(_ versions: String...) {
        self.init(linear: versions)
    }

    /// A linear chain: each version migrates to the one after it.
    public init(linear versions: [String]) {
        edges = zip(versions, versions.dropFirst()).map { Edge(source: $0, destination: $1) }
        singleVersion = versions.count == 1 ? versions.first : nil
    }

    /// A tree: each key migrates to its value. Several keys may share a value; a key given twice is
    /// refused when the stack is created.
    public init(_ successors: KeyValuePairs<String, String>) {
        edges = successors.map { Edge(source: $0.key, destination: $0.value) }
        singleVersion = nil
    }

    /// The version of a one-version linear chain (no edges).
    let singleVersion: String?

    /// Every version the chain names.
    var versions: Set<String> {
        Set(edges.flatMap { [$0.source, $0.destination] } + (singleVersion.map { [$0] } ?? []))
    }

    /// The next version after `version`, if any.
    func successor(of version: String) -> String? {
        edges.first { $0.source == version }?.destination
    }

    public var description: String {
        if let singleVersion { return "MigrationChain(\(singleVersion))" }
        return "MigrationChain(" + edges.map { "\($0.source) → \($0.destination)" }.joined(separator: ", ") + ")"
    }

    /// Checks the chain's shape against the versions a history declares; returns the current version
    /// (the one every other version leads to).
    func validate(versions declared: [String]) throws(StrataError) -> String {
        let known = Set(declared)
        for version in versions.sorted() where !known.contains(version) {
            throw StrataError(
                .invalidMigration,
                "\(self) names version \(version), which the schema history does not declare. Declare a Schema "
                    + "for \(version) in the history, or remove it from the chain.")
        }
        var successors: [String: String] = [:]
        for edge in edges {
            guard edge.source != edge.destination else {
                throw StrataError(
                    .invalidMigration, "\(self) migrates \(edge.source) to itself. Remove that edge.")
            }
            if let other = successors[edge.source] {
                throw StrataError(
                    .invalidMigration,
                    "\(self) gives version \(edge.source) two successors (\(other) and \(edge.destination)), so a store "
                        + "at \(edge.source) would have two paths. Keep one.")
            }
            successors[edge.source] = edge.destination
        }
        for start in successors.keys.sorted() {
            var seen: [String] = [start]
            var current = start
            while let next = successors[current] {
                if let loop = seen.firstIndex(of: next) {
                    let cycle = (seen[loop...] + [next]).joined(separator: " → ")
                    throw StrataError(
                        .invalidMigration, "\(self) has a cycle: \(cycle). A chain must end in the current version.")
                }
                seen.append(next)
                current = next
            }
        }
        let all = versions
        let ends = all.filter { successors[$0] == nil }.sorted()
        guard ends.count == 1, let current = ends.first else {
            throw StrataError(
                .invalidMigration,
                "\(self) ends in \(ends.count) versions (\(ends.joined(separator: ", "))); every version must lead to "
                    + "the one current version. Add the missing edges.")
        }
        for version in declared where !all.contains(version) && version != current {
            throw StrataError(
                .invalidMigration,
                "Version \(version) is declared in the schema history but is not part of \(self), so a store at "
                    + "\(version) could not migrate. Add it to the chain, or remove it from the history.")
        }
        return current
    }
}
