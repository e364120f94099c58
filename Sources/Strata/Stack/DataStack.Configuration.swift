public import CoreMetrics
public import Logging
public import Tracing
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
        /// (debug), rolled-back transactions and their errors (debug), long waits (notice, see
        /// ``longWaitThreshold``), commits and changes from other processes (trace), and a migration
        /// step that drops a field beside a new one of the same type, perhaps a forgotten rename (warning,
        /// with `strata.entity`, `strata.field` and `strata.added`), and what ``Schema/warnings`` finds
        /// (warning). The default logger writes to stderr at info level and above unless the app
        /// bootstraps swift-log's `LoggingSystem`; raise the `logLevel` of your own logger to quiet Strata.
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
        /// commits off. Default: every 250 ms. A zero or negative interval is refused with
        /// ``StrataError/Code/invalidArgument`` when the stack opens.
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
        /// history, every stack that opens it records it too, whatever this says, and a stack of one store
        /// already open then starts with its next write transaction.
        public var history: HistoryOptions?
        /// Called with the SQL text of every statement Strata runs, on the connection's own thread; values
        /// are bound parameters and never appear in it. For debugging and logging; keep it fast, and never
        /// wait in it for anything of the stack: it runs inside the access that ran the statement (a
        /// transaction's on the writer's thread, which every write waits for), so a slow trace slows
        /// them, and one that waits for another access of the stack can wait forever. In a stack of
        /// several stores, the statements that run under the lock every commit and the start of every
        /// read share (a `COMMIT`, the start of a read) reach the trace just after that lock is let go,
        /// so a slow trace does not also hold up the reads.
        public var statementTrace: (@Sendable (String) -> Void)?
        /// The name of the stack in its metrics: the value of their `stack` dimension (default
        /// `"default"`), to tell apart several stacks of one process. Name the stack, never a stored value.
        public var name: String = "default"
        /// Where the stack's metrics go; `nil` (the default) means swift-metrics' global
        /// `MetricsSystem.factory` as it is when the stack opens: bootstrap it before opening stacks. Until
        /// a backend is bootstrapped it is the no-op factory, and the stack records nothing, not even a
        /// clock reading. Pass `NOOPMetricsHandler.instance` to turn a stack's metrics off.
        ///
        /// The metrics, each with the `stack` dimension (``name``), never a stored value:
        /// - `strata_transactions_total` (counter), with `outcome` `committed`, `rolled_back` (the
        ///   closure threw, called ``Transaction/cancel()`` or its task was cancelled while it ran),
        ///   `failed` (the commit failed), `cancelled` (its task was cancelled before it began, while
        ///   it waited for the writer, say) or `refused` (its task runs inside the stack's
        ///   ``DataStack/withUnsafeTransaction(_:)``, which it would wait for forever: it throws
        ///   ``StrataError/Code/reentrantTransaction``); each commit of an ``UnsafeTransaction`` counts once;
        /// - `strata_commit_duration` (timer): how long each commit took;
        /// - `strata_writer_wait` (timer): each wait for the writer's turn that suspended;
        /// - `strata_reader_wait` (timer): each wait for a read connection that suspended, with `pool`
        ///   `reader` (the reader pool), `cursor` (``DataStack/fetchBatches(_:)`` streams) or
        ///   `generation` (``ReadGeneration``s);
        /// - `strata_reader_pool_in_use` (meter): read connections lent out now, by `pool` as above;
        /// - `strata_observation_fetches_total` (counter): publishers' re-fetches;
        /// - `strata_active_observations` (meter): publishers being iterated and live
        ///   ``DataStack/changes()`` streams (``DataStack/activeObservations``).
        public var metricsFactory: (any MetricsFactory)?
        /// Where the stack's spans go; `nil` (the default) means swift-distributed-tracing's
        /// `InstrumentationSystem.tracer` as it is when the stack opens: bootstrap it before opening stacks.
        /// Until one is bootstrapped it is the no-op tracer, and the stack starts no span. Pass
        /// `NoOpTracer()` to turn a stack's tracing off.
        ///
        /// Each ``DataStack/perform(_:)`` runs in a `strata.transaction` span, and each read (the fetches,
        /// ``DataStack/read(_:)``, and those of a ``ReadGeneration``, which also carry
        /// `strata.read_generation`) in a `strata.read` span; a ``DataStack/fetchBatches(_:)`` iteration
        /// is one `strata.read` span with `strata.batches`, and an ``UnsafeTransaction`` one
        /// `strata.unsafe_transaction` span, from its wait for the writer to its end, with
        /// `strata.commits`. Observation fetches get no span (they have no caller to be a child of).
        /// Spans start in the calling task, so the caller's span (the task-local
        /// `InstrumentationContext`) is their parent; spans started inside the closure are their children. They cover the wait for the writer or a reader, carry `strata.entities` (the
        /// entity names a transaction changed, or the entity a fetch reads) and `strata.statements` (how
        /// many statements the closure ran), and record a thrown error by its code and message (or, for
        /// errors not Strata's, only its type): never a stored value.
        public var tracer: (any Tracer)?
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
