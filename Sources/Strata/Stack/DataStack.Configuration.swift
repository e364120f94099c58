public import Logging
import Foundation

extension DataStack {
    /// How a stack opens its store. Every property has a sensible default.
    public struct Configuration: Sendable {
        /// The most reader connections open at once (default 4). Reads beyond it wait for a free one.
        public var maximumReaderCount: Int = 4
        /// The most ``FetchBatches`` streams that read at once (default 4), each on a connection of its
        /// own outside the reader pool; another stream waits for one to end.
        public var maximumConcurrentBatchFetches: Int = 4
        /// The most ``ReadGeneration``s held at once (default 4), each on a connection of its own outside
        /// the reader pool; taking another waits (cancellably) until one is released.
        public var maximumReadGenerations: Int = 4
        /// A ``ReadGeneration`` held while the store's write-ahead log grows past this many bytes is
        /// logged once, at warning level, with how long it has been held (`strata.held`) and the log's
        /// size (`strata.walSize`): an open generation keeps SQLite from recycling the log, which then
        /// grows with every commit. `nil` logs none. Default: 64 MiB, 16 times the log's usual size (SQLite
        /// checkpoints it at about 4 MiB), so only a generation held across a great many writes is
        /// reported.
        public var readGenerationWALWarningSize: Int? = 64 * 1024 * 1024
        /// How long a statement waits for a lock held by another process before it throws
        /// ``StrataError/Code/busy`` (default 5 seconds).
        public var busyTimeout: Duration = .seconds(5)
        /// SQLite's `synchronous` setting; `nil` means the storage's default (`.normal` for files in WAL
        /// mode: durable against application crashes, and against power loss up to the last checkpoint;
        /// `.off` for in-memory stores).
        public var synchronous: Synchronous?
        /// Where Strata logs, with `strata.` metadata keys and never a stored value: the store ready
        /// (info), rolled-back transactions and their errors (debug), long waits (notice, see
        /// ``longWaitThreshold``), commits and changes from other processes (trace).
        public var logger: Logger
        /// A wait for the writer's turn or for a reader connection longer than this is logged at notice
        /// level, with the time waited (`strata.wait`) and what was waited for (`strata.pool`); so is a
        /// wait for a lock another connection holds (another process, or another stack on the same
        /// file), once, while it lasts (it ends in ``StrataError/Code/busy`` at ``busyTimeout``). `nil`
        /// logs none. Default: 500 ms. Frequent long waits mean long transactions, or too few readers
        /// (``maximumReaderCount``) for the load.
        public var longWaitThreshold: Duration? = .milliseconds(500)
        /// How often the stack polls for commits made outside it (another process, or another
        /// `DataStack` on the same file), through SQLite's `PRAGMA data_version`, while some publisher is
        /// being iterated or some ``DataStack/changes()`` stream lives; `nil` turns noticing such
        /// commits off. Default: every 250 ms.
        ///
        /// A file store is also watched (inotify on Linux, dispatch sources on Apple platforms), which
        /// notices such a commit within milliseconds; the poll then only backs the watch up, 8 times
        /// less often (every 2 s by default). An ``InMemoryStore``, which no other connection opens, is
        /// only polled.
        public var externalChangePollInterval: Duration? = .milliseconds(250)
        /// The most observation fetches (publishers re-reading after a commit) that run at once; others wait,
        /// and commits that arrive meanwhile are coalesced. Default: one less than the number of cores the
        /// process may use (at least 1), so observers leave the writer a core of its own.
        public var maximumConcurrentObservationFetches: Int = max(1, ProcessorCount.available - 1)
        /// The persistent history: `nil` (the default) records none; ``HistoryOptions`` record every commit
        /// of the stack, in the same SQLite transaction as its data, with its author and changes (see
        /// ``DataStack/history(after:authors:excludingAuthors:entities:limit:)``). Once a store keeps a
        /// history, every stack that opens it records it too, whatever this says.
        public var history: HistoryOptions?
        /// Called with the SQL text of every statement Strata runs, on the connection's own thread; values
        /// are bound parameters and never appear in it. For debugging and logging; keep it fast.
        public var statementTrace: (@Sendable (String) -> Void)?
        /// The name of a registered SQLite VFS that every connection of the stack (the writer, the
        /// readers, the cursors) opens the store through; `nil` for SQLite's default. Internal: tests
        /// set it (through `@testable import`) to inject I/O faults.
        var vfsName: String?

        /// The default configuration, logging to a `Logger` labelled "strata".
        public init(
            maximumReaderCount: Int = 4, busyTimeout: Duration = .seconds(5), synchronous: Synchronous? = nil,
            logger: Logger = Logger(label: "strata")
        ) {
            self.maximumReaderCount = maximumReaderCount
            self.busyTimeout = busyTimeout
            self.synchronous = synchronous
            self.logger = logger
        }
    }

    /// SQLite's `synchronous` setting: how often SQLite waits for data to reach the disk.
    public enum Synchronous: String, Sendable {
        /// Never waits: fastest, but an OS crash or power loss may corrupt the database.
        case off
        /// Waits at checkpoints (WAL mode): a power loss may lose the last commits, never corrupts.
        case normal
        /// Waits at every commit: no commit is lost even to a power loss.
        case full

        var connectionValue: Connection.Synchronous {
            switch self {
            case .off: .off
            case .normal: .normal
            case .full: .full
            }
        }
    }
}
