/// Assigns the IDs of new objects, so that an ID is never used twice in a store, without SQLite's
/// `AUTOINCREMENT` (which reads and writes `sqlite_sequence` on every insert: a quarter of the cost of
/// a bulk insert).
///
/// The next ID of an entity is kept in memory, starting above the table's largest ID and above the
/// entity's *mark*: the largest ID ever deleted, which the metadata table keeps. Only transactions that
/// delete write the mark, once per entity at commit; inserts cost nothing more than the insert itself.
/// Another connection's commits (another process or stack) make the counters stale: the writer drops
/// them when `PRAGMA data_version` says so, inside each write transaction, where no other connection
/// can commit until it ends.
///
/// Confined to the writer: it is created, used and released on the writer's executor only, like the
/// write connection it reads.
final class IDAllocator {
    /// The next ID per entity name, for the entities that inserted since the counters were loaded.
    private var next: [String: Int64] = [:]
    /// The entity of the last allocation and its counter's index in `next` (valid until a key is added
    /// or the counters are dropped).
    private var lastUsed: (entity: String, index: Dictionary<String, Int64>.Index)?
    /// `PRAGMA data_version` of each store, by its index on the write connection (0 the main store, *n*
    /// the *n*th attached one), when the first counter of an entity it holds was loaded; `nil` for a
    /// store none was loaded from.
    private var dataVersions: [Int64?] = []
    /// The largest ID deleted per entity in the running transaction, to be kept as its mark.
    private var deleted: [String: Int64] = [:]
    private let sql = SchemaSQL()
    /// The stores that hold each entity, by SQLite schema name (`nil`: the main database), in a stack
    /// of several stores; empty otherwise. An entity's IDs are unique across all of them, so that an ID
    /// names one object of the stack whatever its store, and change sets need no store.
    private let homes: [String: [String?]]

    /// The entities that live in several stores: allocating one of their IDs needs every such store.
    private let sharedEntities: Set<String>

    init(homes: [String: [String?]] = [:]) {
        self.homes = homes
        sharedEntities = Set(homes.filter { $0.value.count > 1 }.keys)
    }

    /// For an entity that lives in several stores: takes the write lock of each of them (its IDs are
    /// unique across them, so no other connection may add one meanwhile), and drops the counters when
    /// another connection committed to one since they were loaded.
    private func lockStores(of entity: String, _ connection: Connection) throws(StrataError) {
        for home in homes(of: entity) {
            let index = try connection.storeIndex(home)
            guard try connection.lockForWriting(store: index) else { continue }
            if let recorded = recordedVersion(index), connection.lockedDataVersion(store: index) != recorded {
                dropCounters()
            }
        }
    }

    /// The stores of an entity.
    private func homes(of entity: String) -> [String?] {
        homes[entity] ?? [nil]
    }

    /// Drops the counters when another connection committed to a store since they were loaded. Call
    /// inside the write transaction, once it holds the store's write lock (no other connection can
    /// commit to it then): at its start for the main store, and when a write first goes to an attached
    /// store for that one. `index` is the store's on the write connection (see
    /// `Connection.storeIndex(_:)`).
    ///
    /// `current` is the store's `PRAGMA data_version` when the caller read it already.
    func checkExternalChanges(_ connection: Connection, store index: Int, current: Int64? = nil) throws(StrataError) {
        guard !next.isEmpty, let version = recordedVersion(index) else { return }
        let now: Int64?
        if let current { now = current } else { now = try connection.dataVersion(store: index) }
        guard now != version else { return }
        dropCounters()
    }

    private func recordedVersion(_ index: Int) -> Int64? {
        index < dataVersions.count ? dataVersions[index] : nil
    }

    private func record(_ version: Int64?, at index: Int) {
        if index >= dataVersions.count {
            dataVersions.append(contentsOf: repeatElement(nil, count: index + 1 - dataVersions.count))
        }
        dataVersions[index] = version
    }

    private func dropCounters() {
        next.removeAll()
        lastUsed = nil
        dataVersions.removeAll()
    }

    /// The ID for a new object of `entity`.
    func allocate(_ entity: String, _ connection: Connection) throws(StrataError) -> Int64 {
        if !sharedEntities.isEmpty, sharedEntities.contains(entity) { try lockStores(of: entity, connection) }
        // A run of creations asks for the same entity again and again: its counter's index is kept, and
        // comparing the same name's storage costs less than hashing it.
        if let (name, index) = lastUsed, name == entity {
            let id = next.values[index]
            next.values[index] = id + 1
            return id
        }
        if let index = next.index(forKey: entity) {
            lastUsed = (entity, index)
            let id = next.values[index]
            next.values[index] = id + 1
            return id
        }
        let id = try load(entity, connection)
        next[entity] = id + 1
        // Adding a key invalidates the indices of the dictionary.
        lastUsed = nil
        return id
    }

    /// Whether the IDs of `entity` are unique across several stores (it lives in more than one).
    func spansStores(_ entity: String) -> Bool {
        sharedEntities.contains(entity)
    }

    /// Loads the counter of `entity` unless it is loaded, without taking an ID.
    func prepare(_ entity: String, _ connection: Connection) throws(StrataError) {
        giveBack(entity, try allocate(entity, connection))
    }

    /// Takes back the ID just allocated for `entity` when it went unused (an upsert that updated an
    /// existing row), so that the next object gets it.
    func giveBack(_ entity: String, _ id: Int64) {
        guard let index = next.index(forKey: entity), next.values[index] == id + 1 else { return }
        next.values[index] = id
    }

    /// Notes that the running transaction deleted object `id` of `entity`.
    func noteDeleted(_ entity: String, _ id: Int64) {
        if id > deleted[entity, default: 0] { deleted[entity] = id }
    }

    /// Keeps the marks of the running transaction's deletions; call just before `COMMIT`.
    func saveMarks(_ connection: Connection) throws(StrataError) {
        guard !deleted.isEmpty else { return }
        for (entity, id) in deleted {
            for home in homes(of: entity) {
                let statement = try connection.cachedStatement(sql.raiseIDMark(in: home))
                defer { statement.reset() }
                try statement.bind([.text(SchemaSQL.idMarkKey(entity)), .integer(id)])
                while try statement.step() {}
            }
        }
        deleted.removeAll()
    }

    /// Forgets the running transaction's deletions (it rolled back). Counters stay ahead: a gap in IDs
    /// is harmless.
    func transactionEnded() {
        deleted.removeAll()
    }

    /// The first free ID of `entity`: above its largest ID, its mark, the largest the running transaction
    /// deleted, and `sqlite_sequence` for a table an earlier version created with `AUTOINCREMENT`.
    private func load(_ entity: String, _ connection: Connection) throws(StrataError) -> Int64 {
        for home in homes(of: entity) {
            let index = try connection.storeIndex(home)
            if recordedVersion(index) == nil { record(try connection.dataVersion(store: index), at: index) }
        }
        var largest: Int64 = 0
        for home in homes(of: entity) {
            let sequence = try hasSequenceTable(connection, in: home)
            let statement = try connection.makeStatement(sql.largestUsedID(entity, sequence: sequence, in: home))
            try statement.bind([.text(SchemaSQL.idMarkKey(entity))] + (sequence ? [.text(entity)] : []))
            if try statement.step(), case .integer(let used) = statement.value(at: 0) { largest = max(largest, used) }
        }
        // Objects the running transaction deleted before this first creation: their rows are gone and
        // their mark is only written at commit.
        return max(largest, deleted[entity] ?? 0) + 1
    }

    private func hasSequenceTable(_ connection: Connection, in home: String?) throws(StrataError) -> Bool {
        let master = sql.dialect.qualify("sqlite_master", in: home)
        let statement = try connection.cachedStatement("SELECT count(*) FROM \(master) WHERE name = 'sqlite_sequence'")
        defer { statement.reset() }
        guard try statement.step(), case .integer(let count) = statement.value(at: 0) else { return false }
        return count > 0
    }
}
