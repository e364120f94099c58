import Foundation
import Strata

/// o: what a stack of several stores costs a single-store workload. a, b, c and d run as Strata runs
/// them (the same functions of ``StrataBench``, unscoped `Into<Item>()` and `From<Item>()`, IDs made
/// from row IDs), on three stacks, one contestant each:
/// - ``Layout/oneStore``: `Schema("V1", Item.self)` on one `SQLiteStore`, as every other workload;
/// - ``Layout/itemInMain``: `Item` in the default (main) store, `Note` in an attached "Cache" store;
/// - ``Layout/itemAttached``: `Item` in an attached "Data" store, `Note` in the default (main) store.
///
/// Every run opens its stack on new files (fresh per round and per stack, the same settings for all
/// three: WAL, `synchronous = NORMAL`), writes the 100 notes of a two-store stack before the timer, and
/// for oc and od inserts the dataset's 100,000 items and makes one read, both untimed, so that the
/// reader connection (which attaches the other store) is open before the timer starts.
///
/// oa and oc run each stack in turn, round by round. ob and od, made of many short awaited calls
/// whose rate this machine's wake-ups move by ±20% from one 70 ms stretch to the next, run the three
/// stacks side by side (``StoresInterleave``): all three open, the calls in blocks of a tenth, the
/// stacks taking turns block by block, so that a slow stretch of the machine falls on all three.
final class StrataStoresBench: Contestant, @unchecked Sendable {
    // @unchecked: the runner uses a contestant from one task at a time.
    enum Layout: CaseIterable {
        case oneStore, itemInMain, itemAttached
    }

    let contender: Contender
    let environment: Environment
    private let layout: Layout
    /// Runs ob and od for the three stacks at once.
    private let interleave: StoresInterleave

    /// The rows of the other store's entity in a two-store stack.
    static let noteCount = 100

    init(environment: Environment, layout: Layout, interleave: StoresInterleave) {
        self.environment = environment
        self.layout = layout
        self.interleave = interleave
        contender = Self.contender(of: layout)
    }

    static func contender(of layout: Layout) -> Contender {
        switch layout {
        case .oneStore: .strataOneStore
        case .itemInMain: .strataItemInMain
        case .itemAttached: .strataItemAttached
        }
    }

    func runs(_ workload: Workload) -> Bool { workload.storesBase != nil }
    func setUp() async throws {}
    func prepare(_ workload: Workload) async throws {}
    func tearDown() async {}

    private static func filePrefix(_ layout: Layout) -> String {
        switch layout {
        case .oneStore: "stores-one"
        case .itemInMain: "stores-main"
        case .itemAttached: "stores-attached"
        }
    }

    /// A stack of `layout` on new files named for `name`, its files, and the time `DataStack(…)` took
    /// (seconds).
    static func openStack(
        _ layout: Layout, _ name: String, in environment: Environment
    ) async throws -> OpenedStack {
        let main = environment.path("\(filePrefix(layout))-\(name).sqlite")
        let other = environment.path("\(filePrefix(layout))-\(name)-other.sqlite")
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
        return OpenedStack(layout: layout, stack: stack, paths: paths, openTime: openTime)
    }

    func run(_ workload: Workload, round: Int) async throws -> Sample {
        if workload == .ob || workload == .od {
            return try await interleave.sample(workload, round: round, layout: layout)
        }
        let opened = try await Self.openStack(layout, "\(workload.rawValue)-\(round)", in: environment)
        var sample: Sample
        do {
            sample = try await measure(workload, opened.stack)
        } catch {
            await opened.close(in: environment)
            throw error
        }
        try await opened.checkNotes()
        await opened.close(in: environment)
        sample.note = opened.note(sample.note)
        return sample
    }

    private func measure(_ workload: Workload, _ stack: DataStack) async throws -> Sample {
        let dataset = environment.dataset
        switch workload.storesBase {
        case .a:
            let rate = try await StrataBench.insertMany(stack, dataset.items)
            return Sample(Metrics.insertRate, rate, checksum: try await StrataBench.checksum(of: stack))
        case .c:
            _ = try await StrataBench.insertMany(stack, dataset.items)
            // Opens the reader connection (and, in a two-store stack, attaches the other store).
            guard try await stack.fetchCount(From<Item>()) == dataset.items.count else {
                throw RawError(description: "the stack does not hold the 100,000 rows")
            }
            return try await StrataBench.fetchAll(stack)
        default:
            throw RawError(description: "\(workload.rawValue) is not one of o's workloads")
        }
    }
}

/// A stack of o opened on new files.
struct OpenedStack {
    let layout: StrataStoresBench.Layout
    let stack: DataStack
    let paths: [String]
    /// The time `DataStack(…)` took, in seconds.
    let openTime: Double

    /// Throws unless the other store of a two-store stack still holds its notes.
    func checkNotes() async throws {
        if layout != .oneStore, try await stack.fetchCount(From<Note>()) != StrataStoresBench.noteCount {
            throw RawError(description: "the other store lost its notes")
        }
    }

    func close(in environment: Environment) async {
        await stack.close()
        for path in paths { environment.remove(path) }
    }

    /// The round's note, with the time the stack took to open.
    func note(_ other: String?) -> String {
        let note = "stack opened in \(String(format: "%.1f", openTime * 1000)) ms"
        return other.map { "\($0); \(note)" } ?? note
    }
}

/// ob and od with the three stacks side by side: the first of the three contestants to run a round
/// opens a stack of each chosen layout, runs the workload's calls in ``blockCount`` blocks, each stack
/// in turn per block (the order turning by one each block), and keeps the others' samples for their
/// turn in the same round. Each stack's rate counts its own calls' time only.
final class StoresInterleave: @unchecked Sendable {
    // @unchecked: the runner runs one contestant at a time, from one task.
    let environment: Environment
    /// The layouts whose contestants run (`--contenders`).
    let layouts: [StrataStoresBench.Layout]
    private var samples: [Workload: [Int: [StrataStoresBench.Layout: Sample]]] = [:]
    static let blockCount = 10

    init(environment: Environment, layouts: [StrataStoresBench.Layout]) {
        self.environment = environment
        self.layouts = layouts
    }

    func sample(_ workload: Workload, round: Int, layout: StrataStoresBench.Layout) async throws -> Sample {
        if samples[workload]?[round] == nil { samples[workload, default: [:]][round] = try await run(workload, round) }
        guard let sample = samples[workload]?[round]?[layout] else {
            throw RawError(description: "no sample of \(layout) in round \(round)")
        }
        return sample
    }

    private func run(_ workload: Workload, _ round: Int) async throws -> [StrataStoresBench.Layout: Sample] {
        var opened: [OpenedStack] = []
        do {
            for layout in layouts {
                opened.append(try await StrataStoresBench.openStack(layout, "\(workload.rawValue)-\(round)", in: environment))
            }
            let result = try await measure(workload, opened)
            for one in opened { try await one.checkNotes() }
            for one in opened { await one.close(in: environment) }
            return result
        } catch {
            for one in opened { await one.close(in: environment) }
            throw error
        }
    }

    private func measure(_ workload: Workload, _ opened: [OpenedStack]) async throws -> [StrataStoresBench.Layout: Sample] {
        let dataset = environment.dataset
        if workload == .od {
            for one in opened {
                _ = try await StrataBench.insertMany(one.stack, dataset.items)
                // Opens the reader connection (and, in a two-store stack, attaches the other store).
                guard try await one.stack.fetchCount(From<Item>()) == dataset.items.count else {
                    throw RawError(description: "the stack does not hold the 100,000 rows")
                }
            }
        }
        let calls = workload == .ob ? 1_000 : dataset.lookupIDs.count
        let blockSize = calls / Self.blockCount
        var elapsed = [UInt64](repeating: 0, count: opened.count)
        var cpu = [Double](repeating: 0, count: opened.count)
        var found = [[Item]](repeating: [], count: opened.count)
        for block in 0..<Self.blockCount {
            let range = block * blockSize..<(block + 1) * blockSize
            for turn in 0..<opened.count {
                let index = (turn + block) % opened.count
                let stack = opened[index].stack
                let cpuStart = CPUTime.process()
                let start = nanoseconds()
                if workload == .ob {
                    for data in dataset.extraItems[range] {
                        try await stack.perform { tx in _ = try StrataBench.create(data, tx) }
                    }
                } else {
                    for id in dataset.lookupIDs[range] {
                        if let item = try await stack.fetchExisting(Item.ID(rawValue: id)) { found[index].append(item) }
                    }
                }
                elapsed[index] += nanoseconds() - start
                cpu[index] += CPUTime.process() - cpuStart
            }
        }
        var result: [StrataStoresBench.Layout: Sample] = [:]
        for (index, one) in opened.enumerated() {
            let rate = Double(calls) / (Double(elapsed[index]) / 1e9)
            var sample: Sample
            if workload == .ob {
                sample = Sample(Metrics.transactionRate, rate, checksum: try await StrataBench.checksum(of: one.stack))
            } else {
                var checksum = Checksum()
                for item in found[index] { checksum.add(item) }
                sample = Sample(Metrics.lookupRate, rate, checksum: checksum)
            }
            let perCall = String(format: "%.1f", cpu[index] / Double(calls) * 1e6)
            sample.note = one.note("CPU \(perCall) µs per call, every thread")
            result[one.layout] = sample
        }
        return result
    }
}

