/// The progress of a migration, as an `AsyncSequence` of events, for an app that shows a bar.
///
/// ```swift
/// let progress = MigrationProgress()
/// Task { for await event in progress { bar.value = event.fractionCompleted } }
/// let stack = try await DataStack(history, storage: SQLiteStore(path: path), progress: progress)
/// ```
///
/// The sequence ends when the migration ends, whether it succeeded, failed, or was not needed. It
/// keeps only the newest event for a consumer that falls behind (each event holds the whole state), so
/// a migration never waits for its consumer, and nobody has to consume it. One consumer iterates it.
///
/// A progress serves one opening of a stack, or one ``DataStack/addStorage(_:progress:)``: once its
/// sequence has ended it can report nothing more, so giving it to a second one (after the first, or
/// while the first still runs) throws ``StrataError/Code/invalidArgument`` before anything is opened,
/// and leaves the first one's sequence as it was. Make a new `MigrationProgress` for each.
public struct MigrationProgress: AsyncSequence, Sendable {
    /// Where a migration is.
    public struct Event: Sendable, Hashable {
        /// The version the current step starts from.
        public let source: String
        /// The version the current step leads to.
        public let destination: String
        /// The current step's position (0-based).
        public let stepIndex: Int
        /// How many steps the migration has.
        public let stepCount: Int
        /// The entity being migrated, or `nil` between entities.
        public let entity: String?
        /// Rows of this entity migrated so far.
        public let completedRows: Int
        /// The rows of this entity to migrate.
        public let totalRows: Int
        /// Rows migrated so far over the whole migration.
        public let overallCompletedRows: Int
        /// The rows to migrate over the whole migration.
        public let overallTotalRows: Int
        /// Whether the migration has committed: the last event of a migration that succeeded, for its
        /// last step, with ``fractionCompleted`` 1. In a stack of several stores, the last event of one
        /// store's migration (see ``configuration``).
        public let isFinished: Bool
        /// The configuration of the store this event is about, in a stack of several stores (`nil`: the
        /// default configuration's store, or a stack's only store).
        ///
        /// A stack of several stores migrates them one after the other, each in a transaction of its own,
        /// and each store's events go from its first step to its own finished event: ``fractionCompleted``
        /// starts again from 0 when the next store's migration starts.
        public let configuration: String?

        /// The fraction of the migration done, from 0 to 1: by rows when some step copies rows,
        /// otherwise by steps (a step that copies none counts as done once the next one starts). The
        /// last event of a migration that succeeded has 1. Rows are counted before the migration
        /// starts, so when a step adds rows that a later step copies, the fraction stays at 1 until
        /// that step ends.
        public var fractionCompleted: Double {
            if isFinished { return 1 }
            return overallTotalRows == 0 ? Double(stepIndex) / Double(Swift.max(stepCount, 1))
                : Swift.min(1, Double(overallCompletedRows) / Double(overallTotalRows))
        }
    }

    public typealias Element = Event
    public typealias Failure = Never

    private let stream: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    /// Whether an opening or `addStorage` took the progress already (see ``claim()``).
    private let claimed = Locked(false)

    /// A progress to pass to ``DataStack/init(_:storage:configuration:progress:)``.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func makeAsyncIterator() -> AsyncStream<Event>.Iterator {
        stream.makeAsyncIterator()
    }

    /// Takes the progress for the opening or `addStorage` that was given it, which finishes it when it
    /// ends; call it before anything else, and finish the progress only once it returned.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` when another one took it already: its sequence
    ///   ended with that one (or will), and would report nothing of this one.
    func claim() throws(StrataError) {
        guard claimed.takeOnce() else {
            throw StrataError(
                .invalidArgument,
                "This MigrationProgress was given to another stack or addStorage(_:progress:) already; its sequence ends "
                    + "with that migration, so it would report nothing of this one. Make a new MigrationProgress for each "
                    + "stack you open and each store you add.")
        }
    }

    func report(_ event: Event) {
        continuation.yield(event)
    }

    func finish() {
        continuation.finish()
    }
}
