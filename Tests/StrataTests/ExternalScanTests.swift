import Dispatch
import Testing
@testable import Strata

/// The persistent history scan that tells a stack what other connections committed: it reports each
/// commit once, with its changes, whatever lands while it reads.
@Suite("External scans")
struct ExternalScanTests {
    @Test("a commit that lands while the scan starts is reported once, with its changes, not later as an unknown change")
    func commitDuringScanIsReportedOnce() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("scanned.sqlite")
        var configuration = DataStack.Configuration()
        configuration.history = HistoryOptions()
        let other = try await DataStack(Schema("V1", StoreTag.self), storage: SQLiteStore(path: path), configuration: configuration)
        let armed = Locked(false)
        let versionRead = Locked(false)
        var scanned = configuration
        scanned.statementTrace = { text in
            // The statement after the check reads the store's version: another stack commits just then.
            if text.contains("data_version") { versionRead.withLock { $0 = true }; return }
            guard versionRead.withLock({ $0 }), armed.withLock({ was in defer { was = false }; return was }) else { return }
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                try? await other.perform { tx in _ = try tx.create(Into<StoreTag>()) { $0.name = "during" } }
                done.signal()
            }
            done.wait()
        }
        let stack = try await DataStack(Schema("V1", StoreTag.self), storage: SQLiteStore(path: path), configuration: scanned)
        try await other.perform { tx in _ = try tx.create(Into<StoreTag>()) { $0.name = "before" } }
        versionRead.withLock { $0 = false }
        armed.withLock { $0 = true }
        let first = try #require(try await stack.writer.externalChanges())
        #expect(!first.isUnknown && !armed.withLock { $0 })
        let second = try #require(try await stack.writer.externalChanges(), "the commit made during the scan is reported")
        #expect(!second.isUnknown)
        #expect(first.insertedIDs(StoreTag.self).count + second.insertedIDs(StoreTag.self).count == 2)
        await stack.close()
        await other.close()
    }
}
