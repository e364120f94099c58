import Foundation
import Strata

/// o: what a stack of several stores costs a single-store workload. a, b, c and d run as Strata runs
/// them (the same functions of ``StrataBench``, unscoped `Into<Item>()` and `From<Item>()`, IDs made
/// from row IDs), on three stacks, one contestant each, interleaved round by round:
/// - ``Layout/oneStore``: `Schema("V1", Item.self)` on one `SQLiteStore`, as every other workload;
/// - ``Layout/itemInMain``: `Item` in the default (main) store, `Note` in an attached "Cache" store;
/// - ``Layout/itemAttached``: `Item` in an attached "Data" store, `Note` in the default (main) store.
///
/// Every run opens its stack on new files (fresh per round and per stack, the same settings for all
/// three: WAL, `synchronous = NORMAL`), writes the 100 notes of a two-store stack before the timer, and
/// for oc and od inserts the dataset's 100,000 items and makes one read, both untimed, so that the
/// reader connection (which attaches the other store) is open before the timer starts.
final class StrataStoresBench: Contestant, @unchecked Sendable {
    // @unchecked: the runner uses a contestant from one task at a time.
    enum Layout: CaseIterable {
        case oneStore, itemInMain, itemAttached
    }

    let contender: Contender
    let environment: Environment
    private let layout: Layout

    /// The rows of the other store's entity in a two-store stack.
    static let noteCount = 100

    init(environment: Environment, layout: Layout) {
        self.environment = environment
        self.layout = layout
        contender = switch layout {
        case .oneStore: .strataOneStore
        case .itemInMain: .strataItemInMain
        case .itemAttached: .strataItemAttached
        }
    }

    func runs(_ workload: Workload) -> Bool { workload.storesBase != nil }
    func setUp() async throws {}
    func prepare(_ workload: Workload) async throws {}
    func tearDown() async {}

    private var filePrefix: String {
        switch layout {
        case .oneStore: "stores-one"
        case .itemInMain: "stores-main"
        case .itemAttached: "stores-attached"
        }
    }

    /// A stack on new files named for `name`, its files, and the time `DataStack(…)` took (seconds).
    private func openStack(_ name: String) async throws -> (stack: DataStack, paths: [String], openTime: Double) {
        let main = environment.path("\(filePrefix)-\(name).sqlite")
        let other = environment.path("\(filePrefix)-\(name)-other.sqlite")
        let paths = layout == .oneStore ? [main] : [main, other]
        for path in paths { environment.remove(path) }
        let start = nanoseconds()
        let stack: DataStack
        switch layout {
        case .oneStore:
            stack = try await DataStack(Schema("V1", Item.self), storage: SQLiteStore(path: main))
        case .itemInMain:
            stack = try await DataStack(
                Schema("V1", Item.self, Note.self).configuration("Cache", Note.self),
                storages: [SQLiteStore(path: main), SQLiteStore(path: other).configuration("Cache")])
        case .itemAttached:
            stack = try await DataStack(
                Schema("V1", Item.self, Note.self).configuration("Data", Item.self),
                storages: [SQLiteStore(path: main), SQLiteStore(path: other).configuration("Data")])
        }
        let openTime = seconds(since: start)
        if layout != .oneStore {
            try await stack.perform { tx in
                for index in 0..<Self.noteCount {
                    try tx.create(Into<Note>()) {
                        $0.key = "note-\(index)"
                        $0.value = Double(index)
                    }
                }
            }
        }
        return (stack, paths, openTime)
    }

    func run(_ workload: Workload, round: Int) async throws -> Sample {
        let (stack, paths, openTime) = try await openStack("\(workload.rawValue)-\(round)")
        var sample: Sample
        do {
            sample = try await measure(workload, stack)
        } catch {
            await stack.close()
            for path in paths { environment.remove(path) }
            throw error
        }
        if layout != .oneStore, try await stack.fetchCount(From<Note>()) != Self.noteCount {
            throw RawError(description: "the other store lost its notes")
        }
        await stack.close()
        for path in paths { environment.remove(path) }
        let note = "stack opened in \(String(format: "%.1f", openTime * 1000)) ms"
        sample.note = sample.note.map { "\($0); \(note)" } ?? note
        return sample
    }

    private func measure(_ workload: Workload, _ stack: DataStack) async throws -> Sample {
        let dataset = environment.dataset
        switch workload.storesBase {
        case .a:
            let rate = try await StrataBench.insertMany(stack, dataset.items)
            return Sample(Metrics.insertRate, rate, checksum: try await StrataBench.checksum(of: stack))
        case .b:
            let rate = try await StrataBench.insertEach(stack, dataset.extraItems[0..<1_000])
            return Sample(Metrics.transactionRate, rate, checksum: try await StrataBench.checksum(of: stack))
        case .c, .d:
            _ = try await StrataBench.insertMany(stack, dataset.items)
            // Opens the reader connection (and, in a two-store stack, attaches the other store).
            guard try await stack.fetchCount(From<Item>()) == dataset.items.count else {
                throw RawError(description: "the stack does not hold the 100,000 rows")
            }
            if workload == .oc { return try await StrataBench.fetchAll(stack) }
            return try await StrataBench.lookups(stack, dataset.lookupIDs)
        default:
            throw RawError(description: "\(workload.rawValue) is not one of o's workloads")
        }
    }
}
