/// Read generations: one committed state, held across awaits (see ``ReadGeneration``).
extension DataStack {
    /// Takes a read generation on the latest committed state; release it with
    /// ``ReadGeneration/release()`` when you are done (or let its last reference go).
    ///
    /// ```swift
    /// let generation = try await stack.readGeneration()
    /// let count = try await generation.fetchCount(From<Person>())
    /// let first = try await generation.fetchAll(From<Person>().orderBy(.ascending(\.name)).tweak(.limit(20)))
    /// await generation.release()
    /// ```
    /// It waits while ``Configuration/maximumReadGenerations`` generations are held, until one is
    /// released; cancelling the task ends the wait. A use of the generation from a cancelled task
    /// releases it. Prefer ``withReadGeneration(_:)``, which releases it for you, at once when the task
    /// is cancelled.
    ///
    /// - Throws: `CancellationError` when the task is cancelled; ``StrataError/Code/stackClosed`` when
    ///   the stack was closed; the error SQLite reported when the read transaction could not begin.
    public func readGeneration() async throws -> ReadGeneration {
        try Task.checkCancellation()
        // The stores as of now, before the generation's read begins: its connection attaches every store
        // listed by then, so none it names is missing (read after, a store added meanwhile could be).
        let store = self.store
        let reader = try await generationReaders.acquire()
        let token = generations.makeToken()
        let walSize: Int
        do {
            walSize = try await reader.pin(token)
        } catch {
            await reader.unpin(token, returningTo: generationReaders)
            throw Task.isCancelled ? CancellationError() : error
        }
        guard generations.register(token, reader: reader, walSize: walSize) else {
            await reader.unpin(token, returningTo: generationReaders)
            throw Connection.closedError
        }
        return ReadGeneration(reader: reader, token: token, pool: generationReaders, registry: generations, store: store)
    }

    /// Runs `body` with a read generation on the latest committed state, and releases the generation
    /// when `body` returns or throws.
    ///
    /// ```swift
    /// let (count, firstPage) = try await stack.withReadGeneration { generation in
    ///     let count = try await generation.fetchCount(From<Person>())
    ///     try await Task.sleep(for: .seconds(1))    // commits land meanwhile, unseen
    ///     let page = try await generation.fetchAll(From<Person>().tweak(.limit(20)))
    ///     return (count, page)
    /// }
    /// ```
    /// Cancelling the task releases the generation at once, even while `body` awaits something else:
    /// its connection goes back to the pool, and `body`'s later uses of the generation throw
    /// `CancellationError`. Do not keep the generation beyond `body`: it is released when `body` ends.
    ///
    /// - Throws: What `body` throws, and what ``readGeneration()`` throws.
    public func withReadGeneration<T: Sendable>(_ body: (ReadGeneration) async throws -> T) async throws -> T {
        let generation = try await readGeneration()
        let result: Result<T, any Error>
        do {
            result = .success(
                try await withTaskCancellationHandler {
                    try await body(generation)
                } onCancel: {
                    generation.releaseOnCancellation()
                })
        } catch {
            result = .failure(error)
        }
        await generation.release()
        return try result.get()
    }
}
