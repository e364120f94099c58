public import Foundation

/// What an import or a batch call did: the objects it created and updated, and the sources it skipped.
///
/// The same IDs reach observers and the commit's ``ChangeSet``.
public struct ImportResult<E: Entity>: Sendable {
    /// The objects each applied source created or updated (also those an update left unchanged), in
    /// source order; empty for the batch calls, which return IDs only.
    public internal(set) var objects: [E] = []
    /// The IDs of the objects created, in source order.
    public internal(set) var insertedIDs: [EntityID<E>] = []
    /// The IDs of the objects updated, in source order, with the property names of the fields each
    /// update wrote (for imports, the fields whose values changed; for ``Transaction/upsertAll(_:from:uniqueBy:policy:_:)``,
    /// the fields the policy writes).
    public internal(set) var updated: [(id: EntityID<E>, fields: Set<String>)] = []
    /// The sources skipped: no key, `shouldInsert` or `shouldUpdate` said no, or an upsert whose policy
    /// writes no field (``UpsertPolicy/keepExisting``) found its key taken and kept the existing object.
    public internal(set) var skipped = 0
    /// The sources whose existing object their update found with nothing to change: nothing was written.
    /// For imports, their objects are in ``objects``; for ``Transaction/upsertAll(_:from:uniqueBy:policy:_:)``,
    /// these are the existing rows that already held the source's values in every field the policy writes.
    public internal(set) var unchanged = 0
    /// The sources not applied because a later source of the same call had the same key (the last wins).
    public internal(set) var superseded = 0

    /// The IDs of the objects updated, in source order.
    public var updatedIDs: [EntityID<E>] { updated.map(\.id) }

    /// An empty result.
    public init() {}
}

/// An error thrown while one source of an import was applied: which source (its position among the
/// sources of the call), which entity, and the error itself. Nothing the call wrote is kept: uncaught,
/// the error rolls the transaction back; caught inside it, the transaction goes on without the call.
///
/// Three stops are not wrapped, since they end the whole transaction rather than one source:
/// ``Transaction/cancel()`` called from import code comes through as
/// ``StrataError/Code/transactionCancelled``; an error after which SQLite rolled the whole transaction
/// back (an I/O error, a full disk, an interrupt) as that ``StrataError``, with no source index; and
/// ``DataStack/perform(_:)`` reports a cancelled task as `CancellationError`. In a chunked import,
/// these carry no ``ImportError/committed`` summary: ``ImportProgress/latest`` tells what the
/// committed chunks did.
public struct ImportError: Error, CustomStringConvertible {
    /// The position of the failing source among the call's sources, from 0.
    public let sourceIndex: Int
    /// The entity being imported.
    public let entity: String
    /// What went wrong: the error thrown by the entity's import code, or by Strata (a
    /// ``StrataError``, such as a unique constraint).
    public let underlying: any Error
    /// For an import in chunks (``DataStack/importUniqueObjects(_:from:chunkSize:progress:)`` and its
    /// siblings), what the chunks committed before the failing source's chunk did: they stay in the
    /// store. `nil` for an import in one transaction, which leaves nothing behind.
    public internal(set) var committed: ImportSummary? = nil

    public var description: String {
        let kept = committed.map { " (\($0.chunksCommitted) earlier chunk\($0.chunksCommitted == 1 ? "" : "s") stay committed)" } ?? ""
        return "Importing source \(sourceIndex) into \(entity) failed, and nothing the call wrote was kept\(kept): \(underlying)"
    }
}

/// Foundation's `localizedDescription` of an ``ImportError`` names the source and what went wrong
/// (``ImportError/description``).
extension ImportError: LocalizedError {
    public var errorDescription: String? { description }
}
