import CSQLite
import Foundation
import Synchronization
import Testing
@testable import Strata

// MARK: - The fault VFS

/// The kinds of fault the VFS injects.
enum FaultKind: String, CaseIterable, Sendable {
    case readIOError, writeDiskFull, writeIOError, syncIOError, truncateIOError, shmMapIOError
}

/// SQLite's extended I/O error codes (C macros Swift does not import).
enum IOErrorCode {
    static let read = SQLITE_IOERR | (1 << 8)
    static let write = SQLITE_IOERR | (3 << 8)
    static let fsync = SQLITE_IOERR | (4 << 8)
    static let truncate = SQLITE_IOERR | (6 << 8)
    static let shmMap = SQLITE_IOERR | (21 << 8)
}

/// When to fail: a seeded SplitMix64 drawn under a lock by every thread that does I/O. Disarmed (the
/// default), nothing fails. The sequence of draws is reproducible, though which connection draws which
/// number depends on thread scheduling.
struct FaultPlan: Sendable {
    var generator = SeededGenerator(state: 0)
    /// The probability that one I/O call fails; 0 when disarmed.
    var probability = 0.0
    /// The calls that consulted the plan while armed.
    var armedCalls = 0
    /// The faults injected, by kind.
    var injected: [FaultKind: Int] = [:]
    /// Whether only writes fail (reads, syncs, truncations and mappings work).
    var writesOnly = false
    /// The files opened from now on whose name ends so are *marked*: ``failsMarkedWrites`` fails their
    /// writes alone, with a full disk.
    var markedSuffix: String?
    var failsMarkedWrites = false

    /// Whether the next call fails, counting it as `kind` when it does.
    mutating func fails(_ kind: FaultKind) -> Bool {
        guard probability > 0, !writesOnly else { return false }
        armedCalls += 1
        guard Double.random(in: 0..<1, using: &generator) < probability else { return false }
        injected[kind, default: 0] += 1
        return true
    }

    /// A write fails with a full disk or an I/O error, half and half.
    mutating func writeFault() -> Int32? {
        guard probability > 0 else { return nil }
        armedCalls += 1
        guard Double.random(in: 0..<1, using: &generator) < probability else { return nil }
        let full = Bool.random(using: &generator)
        injected[full ? .writeDiskFull : .writeIOError, default: 0] += 1
        return full ? SQLITE_FULL : IOErrorCode.write
    }
}

/// A VFS that wraps SQLite's default VFS under its own name and fails reads, writes, syncs, truncations
/// and shared-memory mappings as its plan says, like SQLite's own test VFSes.
///
/// Its files are the default VFS's files behind a small header: SQLite allocates `szOsFile` bytes per
/// file, the header holds our `sqlite3_file` (the pointer to our methods) and the real file follows at
/// `header` bytes, where the base VFS's `xOpen` fills it in. Every method forwards to the real file's.
/// The VFS is registered once (not as the default), so only the connections opened by name use it: in
/// this process, only the fault-injection test's stack.
enum FaultVFS {
    static let name = "strata-fault-injection"

    /// The plan every file of the VFS consults.
    static let plan = Locked(FaultPlan())   // Locked, not Mutex: ThreadSanitizer sees its pthread mutex

    /// Registers the VFS (once) and returns its name, for ``DataStack/Configuration/vfsName``.
    static var registeredName: String { registration.name }

    /// The bytes before the real file: our `sqlite3_file`, then the open flags and whether the file is
    /// marked (see ``FaultPlan/markedSuffix``), rounded up to 16.
    static let header = (MemoryLayout<sqlite3_file>.size + 2 * MemoryLayout<Int32>.size + 15) & ~15
    static let markOffset = MemoryLayout<sqlite3_file>.size + MemoryLayout<Int32>.size

    /// Whether `file` was marked when it was opened.
    static func isMarked(_ file: UnsafeMutablePointer<sqlite3_file>?) -> Bool {
        UnsafeMutableRawPointer(file!).load(fromByteOffset: markOffset, as: Int32.self) != 0
    }

    private static let registration = Registration()

    /// The VFS and its method tables: allocated once, registered with SQLite, never freed or changed
    /// after `init`. Unchecked `Sendable` because it holds raw pointers, which SQLite reads from any
    /// thread; nothing writes through them after registration.
    private final class Registration: @unchecked Sendable {
        let name: String
        /// Our io_methods, by the version of the real file's (index 0: version 1).
        let methods: [UnsafeMutablePointer<sqlite3_io_methods>]

        init() {
            name = FaultVFS.name
            methods = (1...3).map { FaultVFS.makeMethods(version: $0) }
            guard let base = sqlite3_vfs_find(nil) else { fatalError("SQLite has no default VFS") }
            let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
            vfs.initialize(to: FaultVFS.makeVFS(base: base))
            let rc = sqlite3_vfs_register(vfs, 0)
            precondition(rc == SQLITE_OK, "sqlite3_vfs_register failed: \(rc)")
        }
    }

    /// The io_methods table for a real file of `version`.
    static func methods(version: Int32) -> UnsafeMutablePointer<sqlite3_io_methods> {
        registration.methods[Int(min(max(version, 1), 3)) - 1]
    }

    // MARK: Files

    /// The real file behind one of ours.
    static func real(_ file: UnsafeMutablePointer<sqlite3_file>?) -> UnsafeMutablePointer<sqlite3_file> {
        (UnsafeMutableRawPointer(file!) + header).assumingMemoryBound(to: sqlite3_file.self)
    }

    /// The real file's methods.
    static func realMethods(_ file: UnsafeMutablePointer<sqlite3_file>?) -> sqlite3_io_methods {
        real(file).pointee.pMethods.pointee
    }

    private static func makeVFS(base: UnsafeMutablePointer<sqlite3_vfs>) -> sqlite3_vfs {
        var vfs = sqlite3_vfs()
        vfs.iVersion = base.pointee.iVersion
        vfs.szOsFile = Int32(header) + base.pointee.szOsFile
        vfs.mxPathname = base.pointee.mxPathname
        vfs.zName = UnsafePointer(strdup(name))
        vfs.pAppData = UnsafeMutableRawPointer(base)
        vfs.xOpen = { vfs, name, file, flags, outFlags in
            let base = FaultVFS.base(vfs)
            let file = file!
            file.pointee.pMethods = nil
            let real = FaultVFS.real(file)
            let rc = base.pointee.xOpen(base, name, real, flags, outFlags)
            // SQLite closes a file whose pMethods is set, even when xOpen failed: forward then too.
            if let realMethods = real.pointee.pMethods {
                UnsafeMutableRawPointer(file).storeBytes(
                    of: flags, toByteOffset: MemoryLayout<sqlite3_file>.size, as: Int32.self)
                let suffix = FaultVFS.plan.withLock { $0.markedSuffix }
                let marked = suffix.map { suffix in name.map { String(cString: $0).hasSuffix(suffix) } ?? false } ?? false
                UnsafeMutableRawPointer(file).storeBytes(of: marked ? 1 : 0, toByteOffset: FaultVFS.markOffset, as: Int32.self)
                file.pointee.pMethods = UnsafePointer(FaultVFS.methods(version: realMethods.pointee.iVersion))
            }
            return rc
        }
        vfs.xDelete = { vfs, name, syncDir in
            let base = FaultVFS.base(vfs)
            return base.pointee.xDelete(base, name, syncDir)
        }
        vfs.xAccess = { vfs, name, flags, result in
            let base = FaultVFS.base(vfs)
            return base.pointee.xAccess(base, name, flags, result)
        }
        vfs.xFullPathname = { vfs, name, count, output in
            let base = FaultVFS.base(vfs)
            return base.pointee.xFullPathname(base, name, count, output)
        }
        if base.pointee.xDlOpen != nil {
            vfs.xDlOpen = { vfs, name in
                let base = FaultVFS.base(vfs)
                return base.pointee.xDlOpen(base, name)
            }
            vfs.xDlError = { vfs, count, message in
                let base = FaultVFS.base(vfs)
                base.pointee.xDlError(base, count, message)
            }
            vfs.xDlSym = { vfs, handle, symbol in
                let base = FaultVFS.base(vfs)
                return base.pointee.xDlSym(base, handle, symbol)
            }
            vfs.xDlClose = { vfs, handle in
                let base = FaultVFS.base(vfs)
                base.pointee.xDlClose(base, handle)
            }
        }
        vfs.xRandomness = { vfs, count, output in
            let base = FaultVFS.base(vfs)
            return base.pointee.xRandomness(base, count, output)
        }
        vfs.xSleep = { vfs, microseconds in
            let base = FaultVFS.base(vfs)
            return base.pointee.xSleep(base, microseconds)
        }
        vfs.xCurrentTime = { vfs, time in
            let base = FaultVFS.base(vfs)
            return base.pointee.xCurrentTime(base, time)
        }
        vfs.xGetLastError = { vfs, count, message in
            let base = FaultVFS.base(vfs)
            return base.pointee.xGetLastError?(base, count, message) ?? 0
        }
        if base.pointee.iVersion >= 2, base.pointee.xCurrentTimeInt64 != nil {
            vfs.xCurrentTimeInt64 = { vfs, time in
                let base = FaultVFS.base(vfs)
                return base.pointee.xCurrentTimeInt64(base, time)
            }
        }
        if base.pointee.iVersion >= 3 {
            vfs.xSetSystemCall = { vfs, name, call in
                let base = FaultVFS.base(vfs)
                return base.pointee.xSetSystemCall?(base, name, call) ?? SQLITE_NOTFOUND
            }
            vfs.xGetSystemCall = { vfs, name in
                let base = FaultVFS.base(vfs)
                return base.pointee.xGetSystemCall?(base, name)
            }
            vfs.xNextSystemCall = { vfs, name in
                let base = FaultVFS.base(vfs)
                return base.pointee.xNextSystemCall?(base, name)
            }
        }
        return vfs
    }

    /// The default VFS, which ours wraps (its `pAppData`).
    private static func base(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs> {
        vfs!.pointee.pAppData.assumingMemoryBound(to: sqlite3_vfs.self)
    }

    /// Methods that forward to the real file's, failing I/O when the plan says so. Version 2 adds the
    /// shared-memory methods WAL needs; version 3 memory-mapped fetches.
    private static func makeMethods(version: Int32) -> UnsafeMutablePointer<sqlite3_io_methods> {
        var methods = sqlite3_io_methods()
        methods.iVersion = version
        methods.xClose = { file in
            let real = FaultVFS.real(file)
            let rc = real.pointee.pMethods.pointee.xClose(real)
            real.pointee.pMethods = nil
            return rc
        }
        methods.xRead = { file, buffer, count, offset in
            if FaultVFS.plan.withLock({ $0.fails(.readIOError) }) { return IOErrorCode.read }
            return FaultVFS.realMethods(file).xRead(FaultVFS.real(file), buffer, count, offset)
        }
        methods.xWrite = { file, buffer, count, offset in
            if FaultVFS.isMarked(file), FaultVFS.plan.withLock({ $0.failsMarkedWrites }) { return SQLITE_FULL }
            if let fault = FaultVFS.plan.withLock({ $0.writeFault() }) { return fault }
            return FaultVFS.realMethods(file).xWrite(FaultVFS.real(file), buffer, count, offset)
        }
        methods.xTruncate = { file, size in
            if FaultVFS.plan.withLock({ $0.fails(.truncateIOError) }) { return IOErrorCode.truncate }
            return FaultVFS.realMethods(file).xTruncate(FaultVFS.real(file), size)
        }
        methods.xSync = { file, flags in
            if FaultVFS.plan.withLock({ $0.fails(.syncIOError) }) { return IOErrorCode.fsync }
            return FaultVFS.realMethods(file).xSync(FaultVFS.real(file), flags)
        }
        methods.xFileSize = { file, size in
            FaultVFS.realMethods(file).xFileSize(FaultVFS.real(file), size)
        }
        methods.xLock = { file, level in
            FaultVFS.realMethods(file).xLock(FaultVFS.real(file), level)
        }
        methods.xUnlock = { file, level in
            FaultVFS.realMethods(file).xUnlock(FaultVFS.real(file), level)
        }
        methods.xCheckReservedLock = { file, result in
            FaultVFS.realMethods(file).xCheckReservedLock(FaultVFS.real(file), result)
        }
        methods.xFileControl = { file, operation, argument in
            FaultVFS.realMethods(file).xFileControl(FaultVFS.real(file), operation, argument)
        }
        methods.xSectorSize = { file in
            FaultVFS.realMethods(file).xSectorSize(FaultVFS.real(file))
        }
        methods.xDeviceCharacteristics = { file in
            FaultVFS.realMethods(file).xDeviceCharacteristics(FaultVFS.real(file))
        }
        if version >= 2 {
            methods.xShmMap = { file, region, size, extend, address in
                if FaultVFS.plan.withLock({ $0.fails(.shmMapIOError) }) { return IOErrorCode.shmMap }
                return FaultVFS.realMethods(file).xShmMap(FaultVFS.real(file), region, size, extend, address)
            }
            methods.xShmLock = { file, offset, count, flags in
                FaultVFS.realMethods(file).xShmLock(FaultVFS.real(file), offset, count, flags)
            }
            methods.xShmBarrier = { file in
                FaultVFS.realMethods(file).xShmBarrier(FaultVFS.real(file))
            }
            methods.xShmUnmap = { file, delete in
                FaultVFS.realMethods(file).xShmUnmap(FaultVFS.real(file), delete)
            }
        }
        if version >= 3 {
            methods.xFetch = { file, offset, count, pointer in
                FaultVFS.realMethods(file).xFetch(FaultVFS.real(file), offset, count, pointer)
            }
            methods.xUnfetch = { file, offset, pointer in
                FaultVFS.realMethods(file).xUnfetch(FaultVFS.real(file), offset, pointer)
            }
        }
        let table = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        table.initialize(to: methods)
        return table
    }
}

// MARK: - The test

// Serialized: the tests share the VFS's fault plan.
@Suite("Fault injection", .serialized, .timeLimit(.minutes(1)))
struct FaultInjectionTests {
    /// What a row of the ledger may look like.
    enum RowState: Equatable, Sendable, CustomStringConvertible {
        case absent
        case value(Int)

        var description: String {
            switch self {
            case .absent: "absent"
            case .value(let value): "\(value)"
            }
        }
    }

    /// What the test knows of one key: the state its last acknowledged commit left, and the states of
    /// the commits after it that threw (a commit that reported an error may still have reached the
    /// file, so those states are possible too, but not required).
    struct LedgerEntry {
        var id: EntityID<Counter>?
        var acknowledged = RowState.absent
        var uncertain: [RowState] = []

        var allowed: [RowState] { [acknowledged] + uncertain }
    }

    /// What the observing child task saw.
    struct ObserverReport: Sendable, CustomStringConvertible {
        var snapshots = 0
        var subscriptions = 0
        /// The errors that ended an iteration: their description, and whether they were typed and I/O-ish.
        var errors: [(description: String, expected: Bool)] = []
        var sawFinal = false
        var endedEarly = false

        var description: String {
            "\(snapshots) snapshots, \(subscriptions) subscriptions, \(errors.count) errors "
                + "(\(errors.filter { !$0.expected }.count) unexpected), saw the last commit: \(sawFinal)"
                + (errors.first.map { "; first error: \($0.description)" } ?? "")
        }
    }

    /// The codes an injected fault may surface as.
    static let faultCodes: [StrataError.Code] = [.ioError, .diskFull, .busy]

    static func isExpectedFault(_ error: any Error) -> Bool {
        guard let error = error as? StrataError else { return false }
        return faultCodes.contains(error.code)
    }

    /// Iterates a list publisher until it delivers the row written after the faults stopped. An
    /// iteration that ends with an error (a fetch failed) is recorded, and the publisher is iterated
    /// anew: after the faults stop it must work again.
    static func observe(_ publisher: ListPublisher<Counter>) async -> ObserverReport {
        var report = ObserverReport()
        while report.subscriptions < 5_000 {
            report.subscriptions += 1
            do {
                for try await snapshot in publisher {
                    report.snapshots += 1
                    if snapshot.sections.contains(where: { $0.items.contains { $0.key == "final" } }) {
                        report.sawFinal = true
                        return report
                    }
                }
                report.endedEarly = true
                return report
            } catch {
                report.errors.append(("\(error)", isExpectedFault(error)))
            }
        }
        return report
    }

    @Test("injected read, write, sync and truncate faults surface as typed errors and lose no acknowledged commit")
    func injectedFaults() async throws {
        let seed: UInt64 = 0x5EED_F00D
        let operationCount = 1_000
        let faultProbability = 0.03
        let clock = ContinuousClock()
        let start = clock.now

        let directory = try TemporaryDirectory()
        let path = directory.path("faults.sqlite")
        let schema = Schema("V1", Counter.self)
        var configuration = DataStack.Configuration()
        configuration.vfsName = FaultVFS.registeredName
        // A sync at every commit, so that syncs fail too (in WAL mode `.normal` syncs only at checkpoints).
        configuration.synchronous = .full
        let stack = try await DataStack(schema, storage: SQLiteStore(path: path), configuration: configuration)

        let publisher = stack.listPublisher(From<Counter>().orderBy(.ascending(\.key)))
        async let observed = Self.observe(publisher)

        var random = SeededGenerator(state: seed)
        var ledger: [String: LedgerEntry] = [:]
        var nextKey = 0
        var succeeded = 0
        var failed = 0
        var acknowledgedCommits = 0
        var failuresByCode: [String: Int] = [:]
        var operationsByKind: [String: Int] = [:]

        /// Keys whose row the last acknowledged commit left present, with no doubt since.
        func settledKeys() -> [String] {
            ledger.filter { if case .value = $0.value.acknowledged { $0.value.uncertain.isEmpty } else { false } }
                .keys.sorted()
        }
        func record(_ error: any Error, _ operation: String) {
            failed += 1
            if let error = error as? StrataError {
                let extended = error.extendedCode.map { " \($0)" } ?? ""
                failuresByCode["\(error.code)\(extended)", default: 0] += 1
            } else {
                failuresByCode["untyped", default: 0] += 1
            }
            #expect(Self.isExpectedFault(error), "\(operation) threw an unexpected error: \(error)")
        }
        /// Applies a write's outcome to the ledger.
        func settle(_ states: [String: RowState], ids: [String: EntityID<Counter>] = [:], acknowledged: Bool) {
            for (key, state) in states {
                var entry = ledger[key] ?? LedgerEntry()
                if let id = ids[key] { entry.id = id }
                if acknowledged {
                    entry.acknowledged = state
                    entry.uncertain = []
                } else {
                    entry.uncertain.append(state)
                }
                ledger[key] = entry
            }
        }
        /// Checks rows read from the store against the ledger.
        func checkRead(_ rows: [Counter], complete: Bool, _ operation: String) {
            var seen = Set<String>()
            for row in rows {
                seen.insert(row.key)
                let allowed = ledger[row.key]?.allowed ?? [.absent]
                #expect(allowed.contains(.value(row.value)), "\(operation) read \(row.key) = \(row.value), expected one of \(allowed)")
            }
            guard complete else { return }
            for key in settledKeys() where !seen.contains(key) {
                Issue.record("\(operation) misses \(key), acknowledged as \(ledger[key]!.acknowledged)")
            }
        }

        FaultVFS.plan.withLock { $0 = FaultPlan(generator: SeededGenerator(state: seed ^ 0xFA17), probability: faultProbability) }
        for operation in 0..<operationCount {
            let roll = Int.random(in: 0..<100, using: &random)
            let settled = settledKeys()
            do {
                // Updates and deletes need a row to change: without one, they insert.
                let kind = settled.isEmpty && (25..<50).contains(roll) ? 0 : roll
                switch kind {
                case 0..<25:
                    operationsByKind["insert", default: 0] += 1
                    let key = "k\(nextKey)"
                    nextKey += 1
                    do {
                        let created = try await stack.perform { tx in
                            try tx.create(Into<Counter>()) { $0.key = key; $0.value = operation }
                        }
                        settle([key: .value(operation)], ids: [key: created.id], acknowledged: true)
                        acknowledgedCommits += 1
                    } catch {
                        settle([key: .value(operation)], acknowledged: false)
                        throw error
                    }
                case 25..<50:
                    operationsByKind["update", default: 0] += 1
                    let key = settled.randomElement(using: &random)!
                    let id = ledger[key]!.id!
                    do {
                        try await stack.perform { tx in _ = try tx.edit(id) { $0.value = operation } }
                        settle([key: .value(operation)], acknowledged: true)
                        acknowledgedCommits += 1
                    } catch {
                        settle([key: .value(operation)], acknowledged: false)
                        throw error
                    }
                case 50..<90:
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0:
                        operationsByKind["fetchAll", default: 0] += 1
                        checkRead(try await stack.fetchAll(From<Counter>()), complete: true, "fetchAll")
                    case 1:
                        operationsByKind["fetchCount", default: 0] += 1
                        let count = try await stack.fetchCount(From<Counter>())
                        let certain = ledger.values.filter { $0.uncertain.isEmpty }
                        let least = certain.filter { $0.acknowledged != .absent }.count
                        let most = ledger.values.count - certain.filter { $0.acknowledged == .absent }.count
                        #expect((least...most).contains(count), "fetchCount read \(count), expected \(least)...\(most)")
                    default:
                        operationsByKind["fetchExisting", default: 0] += 1
                        guard let key = ledger.keys.sorted().randomElement(using: &random), let id = ledger[key]!.id else {
                            break
                        }
                        let row = try await stack.fetchExisting(id)
                        let allowed = ledger[key]!.allowed
                        #expect(allowed.contains(row.map { .value($0.value) } ?? .absent), "fetchExisting read \(key) = \(String(describing: row?.value)), expected one of \(allowed)")
                    }
                case 90..<95 where !settled.isEmpty:
                    operationsByKind["delete", default: 0] += 1
                    let key = settled.randomElement(using: &random)!
                    let id = ledger[key]!.id!
                    do {
                        try await stack.perform { tx in try tx.delete(id) }
                        settle([key: .absent], acknowledged: true)
                        acknowledgedCommits += 1
                    } catch {
                        settle([key: .absent], acknowledged: false)
                        throw error
                    }
                default:
                    operationsByKind["multi-row", default: 0] += 1
                    let keys = ["k\(nextKey)", "k\(nextKey + 1)"]
                    nextKey += 2
                    let edited = settled.randomElement(using: &random)
                    let editedID = edited.flatMap { ledger[$0]!.id }
                    var states = [keys[0]: RowState.value(operation), keys[1]: .value(operation)]
                    if let edited { states[edited] = .value(operation) }
                    do {
                        let created = try await stack.perform { tx in
                            let created = try keys.map { key in
                                try tx.create(Into<Counter>()) { $0.key = key; $0.value = operation }
                            }
                            if let editedID { _ = try tx.edit(editedID) { $0.value = operation } }
                            return created
                        }
                        settle(states, ids: [keys[0]: created[0].id, keys[1]: created[1].id], acknowledged: true)
                        acknowledgedCommits += 1
                    } catch {
                        settle(states, acknowledged: false)
                        throw error
                    }
                }
                succeeded += 1
            } catch {
                record(error, "operation \(operation) (roll \(roll))")
            }
        }
        let plan = FaultVFS.plan.withLock { plan in
            defer { plan.probability = 0 }
            return plan
        }

        // The faults stopped: the same stack works, and the observer sees a commit made now.
        try await stack.perform { tx in _ = try tx.create(Into<Counter>()) { $0.key = "final"; $0.value = -1 } }
        checkRead(try await stack.fetchAll(From<Counter>().where(\.key != "final")), complete: true, "fetchAll after the faults")
        let observer = await observed
        await stack.close()

        // Every acknowledged commit survived, with its last acknowledged value.
        let reopened = try await DataStack(schema, storage: SQLiteStore(path: path))
        let rows = try await reopened.fetchAll(From<Counter>())
        await reopened.close()
        var stored: [String: Int] = [:]
        for row in rows { stored[row.key] = row.value }
        #expect(stored["final"] == -1)
        var landedUnacknowledged = 0
        for (key, entry) in ledger {
            let state = stored[key].map(RowState.value) ?? .absent
            #expect(entry.allowed.contains(state), "\(key) is \(state) after reopening, acknowledged as \(entry.acknowledged), uncertain \(entry.uncertain)")
            if state != entry.acknowledged { landedUnacknowledged += 1 }
        }
        #expect(Set(stored.keys).subtracting(ledger.keys) == ["final"])

        let connection = try Connection(path: path, options: Connection.Options())
        do {
            let integrity = try connection.makeStatement("PRAGMA integrity_check")
            #expect(try integrity.step())
            #expect(integrity.value(at: 0) == .text("ok"))
        }
        connection.close()

        // The observer never crashed, saw the last commit, and every error that ended an iteration was typed.
        #expect(observer.sawFinal, "the observer did not see the commit made after the faults: \(observer)")
        #expect(!observer.endedEarly)
        for error in observer.errors where !error.expected {
            Issue.record("the observer ended with an unexpected error: \(error.description)")
        }

        // Enough happened, both ways, for the test to mean something.
        #expect(failed >= 50, "only \(failed) operations failed")
        #expect(succeeded >= 300, "only \(succeeded) operations succeeded")
        let injected = FaultKind.allCases.map { "\($0.rawValue) \(plan.injected[$0, default: 0])" }.joined(separator: ", ")
        print("""
            FaultInjection: \(operationCount) operations (\(operationsByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))); \
            \(succeeded) succeeded, \(failed) failed (\(failuresByCode.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))); \
            \(acknowledgedCommits) acknowledged commits, \(landedUnacknowledged) keys hold an unacknowledged state; \
            faults injected in \(plan.armedCalls) armed I/O calls: \(injected); \
            observer: \(observer.snapshots) snapshots, \(observer.subscriptions) subscriptions, \(observer.errors.count) errors; \
            \(start.duration(to: clock.now))
            """)
    }

    @Test("a COMMIT to two stores that fails after the main store committed is reported as possibly kept, and observers read again")
    func partialCommitOfSeveralStores() async throws {
        let directory = try TemporaryDirectory()
        FaultVFS.plan.withLock { $0.markedSuffix = "cache.sqlite-wal" }
        defer { FaultVFS.plan.withLock { $0.markedSuffix = nil; $0.failsMarkedWrites = false } }
        var configuration = DataStack.Configuration()
        configuration.vfsName = FaultVFS.registeredName
        let stack = try await DataStack(
            severalStoresSchema,
            storages: [SQLiteStore(path: directory.path("main.sqlite")), SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache")],
            configuration: configuration)
        // The cache's WAL exists and is marked before the fault is armed.
        try await stack.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "first.png" } }
        var changes = stack.changes().makeAsyncIterator()
        FaultVFS.plan.withLock { $0.failsMarkedWrites = true }
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                _ = try tx.create(Into<StoreNote>(nil)) { $0.title = "main" }
                _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "cache.png" }
            }
        }
        FaultVFS.plan.withLock { $0.failsMarkedWrites = false }
        #expect(error?.code == .diskFull && error?.message.contains("several stores") == true, "\(String(describing: error))")
        // SQLite committed the main store before the cache's WAL write failed.
        #expect(try await stack.fetchCount(From<StoreNote>()) == 1)
        #expect(try await stack.fetchCount(From<StoreThumbnail>()) == 1)
        try await stack.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "later.png" } }
        // Before, observers heard nothing of the note, which publishers of notes never showed.
        let first = try #require(await changes.next())
        #expect(first.isUnknown)
        let second = try #require(await changes.next())
        #expect(second.insertedIDs(StoreThumbnail.self).count == 1 && !second.isUnknown)
        await stack.close()
    }

    @Test("after a failed COMMIT to several stores, another stack's commits to a store that rolled back are all reported")
    func partialCommitLeavesOthersTokensAlone() async throws {
        let directory = try TemporaryDirectory()
        FaultVFS.plan.withLock { $0.markedSuffix = "cache.sqlite-wal" }
        defer { FaultVFS.plan.withLock { $0.markedSuffix = nil; $0.failsMarkedWrites = false } }
        var configuration = DataStack.Configuration()
        configuration.history = HistoryOptions()
        let storages: [any Storage] = [
            SQLiteStore(path: directory.path("main.sqlite")), SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache"),
        ]
        var faulty = configuration
        faulty.vfsName = FaultVFS.registeredName
        let stack = try await DataStack(severalStoresSchema, storages: storages, configuration: faulty)
        try await stack.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "first.png" } }
        FaultVFS.plan.withLock { $0.failsMarkedWrites = true }
        await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                _ = try tx.create(Into<StoreNote>(nil)) { $0.title = "main" }
                _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "cache.png" }
            }
        }
        FaultVFS.plan.withLock { $0.failsMarkedWrites = false }
        // The cache rolled its history entry back: the other stack's first commit takes its token.
        let other = try await DataStack(severalStoresSchema, storages: storages, configuration: configuration)
        try await other.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "a.png" } }
        try await other.perform { tx in _ = try tx.create(Into<StoreThumbnail>()) { $0.url = "b.png" } }
        let seen = try #require(try await stack.writer.externalChanges())
        #expect(!seen.isUnknown && seen.insertedIDs(StoreThumbnail.self).count == 2,
                "unknown: \(seen.isUnknown), inserted \(seen.insertedIDs(StoreThumbnail.self).count) thumbnails")
        await other.close()
        await stack.close()
    }

    @Test("a full disk or an I/O error while a migration writes rolls it back: the old version, whole, migrates later")
    func migrationWriteFaults() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("migration.sqlite")
        try await makeV1Store(at: path)
        var configuration = DataStack.Configuration()
        configuration.vfsName = FaultVFS.registeredName
        // Every write fails from the transform's first object on: the step's writes reach the file at
        // the latest when the migration commits.
        let armed = Locked(false)
        let transform = MigrationStep(from: "V2", to: "V3", .transform(MV3.Writer.self) { _, writer in
            if armed.withLock({ armed in defer { armed = true }; return !armed }) {
                FaultVFS.plan.withLock { $0 = FaultPlan(generator: SeededGenerator(state: 9), probability: 1, writesOnly: true) }
            }
            writer.initials = "?"
        })
        let history = SchemaHistory(migrationV1, migrationV2, migrationV3, steps: [stepV1V2, transform])
        let error = await #expect(throws: StrataError.self) {
            try await DataStack(history, storage: SQLiteStore(path: path), configuration: configuration)
        }
        let injected = FaultVFS.plan.withLock { plan in
            defer { plan = FaultPlan() }
            return plan.injected
        }
        #expect(injected[.writeDiskFull, default: 0] + injected[.writeIOError, default: 0] > 0)
        #expect(error.map { [.diskFull, .ioError].contains($0.code) } == true, "\(String(describing: error))")
        #expect(try storeValue(path, "SELECT value FROM strata_metadata WHERE key = 'schema_version'") == "V1")
        #expect(try storeValue(path, "PRAGMA integrity_check") == "ok")
        #expect(try storeValue(path, "SELECT count(*) FROM Author") == "2")
        // With room again, the same migration runs.
        let stack = try await DataStack(history, storage: SQLiteStore(path: path), configuration: configuration)
        #expect(try await stack.fetchAll(From<MV3.Writer>()).map(\.initials) == ["?", "?"])
        await stack.close()
    }

    @Test("a publisher whose fetch failed starts over for the next iterator, once the fault is over")
    func publisherAfterFailedFetch() async throws {
        let directory = try TemporaryDirectory()
        var configuration = DataStack.Configuration()
        configuration.vfsName = FaultVFS.registeredName
        let stack = try await DataStack(
            Schema("V1", Counter.self), storage: SQLiteStore(path: directory.path("observed.sqlite")),
            configuration: configuration)
        try await stack.perform { tx in _ = try tx.create(Into<Counter>()) { $0.key = "a" } }
        let publisher = stack.countPublisher(From<Counter>())
        // Every read fails: the publisher's first fetch does.
        FaultVFS.plan.withLock { $0 = FaultPlan(generator: SeededGenerator(state: 1), probability: 1) }
        var failing = publisher.makeAsyncIterator()
        let error = await #expect(throws: StrataError.self) { _ = try await failing.next() }
        FaultVFS.plan.withLock { $0.probability = 0 }
        #expect(error.map(Self.isExpectedFault) == true, "\(String(describing: error))")
        // The fault is over: a new iterator of the same publisher fetches again, rather than getting the
        // old error.
        var iterator = publisher.makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        try await stack.perform { tx in _ = try tx.create(Into<Counter>()) { $0.key = "b" } }
        #expect(try await iterator.next() == 2)
        await stack.close()
    }
}
