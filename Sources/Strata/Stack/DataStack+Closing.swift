/// Closing a stack: ``close()``, and the parts it closes.
extension DataStack {
    // MARK: Closing

    /// Waits for the running and queued transactions, closes every connection, ends the writer's and
    /// the idle readers' threads (a reader busy in a read ends its thread when that read ends; a
    /// ``fetchBatches(_:)`` iteration under way loses its connection once its current batch is read, and
    /// its next batch throws ``StrataError/Code/stackClosed``), ends the ``ReadGeneration``s still held
    /// and, for an ``InMemoryStore``, removes its files. Afterwards every call throws ``StrataError/Code/stackClosed`` (a held generation's too),
    /// even while the `DataStack` value is still referenced.
    ///
    /// An ``UnsafeTransaction`` still open is not waited for (its owner may never end it): its
    /// uncommitted work is rolled back, it ends, and its later calls throw
    /// ``StrataError/Code/stackClosed``; the transactions queued behind it run first.
    ///
    /// Closing is optional: a stack that is released closes itself, in the same way, soon after (its
    /// publishers' and streams' iterations then end too: they hold the stack's parts, not the stack).
    /// Close explicitly when the file must be free at a known point (before moving or deleting it, or
    /// at server shutdown).
    public func close() async {
        await parts.close()
    }

    /// What ``close()`` closes.
    var parts: Parts {
        Parts(
            closing: closing, addingStore: addingStore, observation: observation, writer: writer, readers: readers, cursors: cursors,
            generationReaders: generationReaders, generations: generations, feed: feed, files: files)
    }

    /// The parts of a stack that closing closes, apart from the stack: ``close()`` and a released
    /// stack's deinit close them the same way.
    struct Parts: Sendable {
        let closing: Locked<Task<Void, Never>?>
        let addingStore: LeasePool<Void>
        let observation: ObservationCenter
        let writer: Writer
        let readers: ReaderPool
        let cursors: ReaderPool
        let generationReaders: ReaderPool
        let generations: GenerationRegistry
        let feed: CommitFeed
        let files: StoreFiles

        /// Closes once: a second `close()` (or the deinit) while one runs awaits that one, so that
        /// none returns before everything is closed.
        func close() async {
            let run = closing.withLock { running in
                if let running { return running }
                let run = Task { await closeParts() }
                running = run
                return run
            }
            await run.value
        }

        private func closeParts() async {
            writer.beginClosing()
            _ = addingStore.close(Connection.closedError)
            await observation.close()
            await writer.close()
            await writer.executor.stopped()
            await readers.close()
            await cursors.close()
            // The generations still held end: their connections close, their later uses throw stackClosed.
            await generationReaders.close()
            let (held, ending) = generations.close()
            for held in held {
                await held.reader.unpin(held.token, returningTo: generationReaders)
                await held.reader.executor.stopped()
            }
            // Generations released just before, whose connections are on their way back.
            for giveBack in ending { await giveBack.value }
            feed.finish()
            files.removeIfTemporary()
        }
    }
}
