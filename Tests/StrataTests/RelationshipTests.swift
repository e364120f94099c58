import Foundation
import Logging
import Testing
@testable import Strata

enum Tint: String, Sendable, Codable {
    case red, green
}

@Entity
struct Owner {
    var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Critter.owner) var critters: Set<Critter.ID> = []
    @Relationship var favorites: [Volume.ID] = []
    @Derived(count: \Owner.critters) var critterCount: Int = 0
    @Derived(sum: \Critter.age, over: \Owner.critters) var totalAge: Int = 0
    @Derived(maximum: \Critter.age, over: \Owner.critters) var oldest: Int?
    @Coded var tags: [String] = []
    @Coded(encode: { $0.rawValue }, decode: { Tint(rawValue: $0) ?? .red }) var tint: Tint = .red
    var display: String { "\(name) (\(critters.count))" }
}

@Entity
struct Critter {
    var name: String = ""
    var age: Int = 0
    @Relationship var owner: Owner.ID?
}

@Entity
struct Shelf {
    var label: String = ""
    @Relationship(deleteRule: .deny, inverse: \Volume.shelf) var volumes: [Volume.ID] = []
}

@Entity
struct Volume {
    var title: String = ""
    @Relationship var shelf: Shelf.ID?
    @Relationship(inverse: \Reader.volumes) var readers: Set<Reader.ID> = []
}

@Entity
struct Reader {
    var name: String = ""
    @Relationship var volumes: Set<Volume.ID> = []
}

let relationshipSchema = Schema("V1", Owner.self, Critter.self, Shelf.self, Volume.self, Reader.self)

@Entity
struct Playlist {
    var name: String = ""
    @Relationship(inverse: \Track.playlists) var tracks: [Track.ID] = []
}

@Entity
struct Track {
    var title: String = ""
    @Relationship var playlists: [Playlist.ID] = []
}

/// The details of a statement's `EXPLAIN QUERY PLAN` rows, joined.
func queryPlan(_ path: String, _ explain: String) throws -> String {
    let connection = try Connection(path: path, options: Connection.Options())
    defer { connection.close() }
    let statement = try connection.makeStatement(explain)
    var details: [String] = []
    while try statement.step() {
        if case .text(let detail) = statement.value(at: 3) { details.append(detail) }
    }
    return details.joined(separator: "; ")
}

@Suite("Relationships")
struct RelationshipTests {
    @Test("appending to an ordered to-many through the to-one side reads one index entry, in new and in older stores")
    func orderedAppendUsesPositionIndex() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shelves.sqlite")
        let append = "EXPLAIN QUERY PLAN SELECT coalesce(max(\"shelf_position\") + 1, 0) FROM \"Volume\" WHERE \"shelf\" = 1 AND \"id\" <> 2"
        let indexes = "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Volume' ORDER BY name)"
        var stack = try await DataStack(relationshipSchema, storage: SQLiteStore(path: path))
        let shelf = try await stack.perform { tx in try tx.create(Into<Shelf>()) { $0.label = "A" }.id }
        try await stack.perform { tx in
            for title in ["one", "two", "three"] { try tx.create(Into<Volume>()) { $0.title = title; $0.shelf = shelf } }
        }
        await stack.close()
        // Before, the owner's members were scanned for their largest position: 20,000 appends took tens of seconds.
        #expect(try storeValue(path, indexes) == "Volume_shelf_position_index")
        #expect(try queryPlan(path, append).contains("COVERING INDEX Volume_shelf_position_index"))
        // A store made before: the foreign key indexed alone. Opening it makes the new index and drops the old.
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            defer { connection.close() }
            try connection.execute("DROP INDEX \"Volume_shelf_position_index\"")
            try connection.execute("CREATE INDEX \"Volume_shelf_index\" ON \"Volume\" (\"shelf\")")
        }
        #expect(try storeValue(path, indexes) == "Volume_shelf_index")
        stack = try await DataStack(relationshipSchema, storage: SQLiteStore(path: path))
        try await stack.perform { tx in try tx.create(Into<Volume>()) { $0.title = "four"; $0.shelf = shelf } }
        let titles = try await stack.fetchExisting(shelf)?.volumes.map { id in id.rawValue }
        #expect(titles?.count == 4)
        await stack.close()
        #expect(try storeValue(path, indexes) == "Volume_shelf_position_index")
    }

    func makeOwnerWithCritters(_ stack: DataStack) async throws -> (Owner, [Critter]) {
        try await stack.perform { tx in
            let owner = try tx.create(Into<Owner>()) { $0.name = "Ada" }
            let critters = try [("Rex", 3), ("Tom", 7), ("Kit", 1)].map { name, age in
                try tx.create(Into<Critter>()) { $0.name = name; $0.age = age; $0.owner = owner.id }
            }
            return (try tx.fetchExisting(owner.id)!, critters)
        }
    }

    @Test("a to-one foreign key fills the inverse to-many, and derived fields follow", arguments: StoreKind.allCases)
    func oneToMany(kind: StoreKind) async throws {
        let (stack, directory) = try await makeStack(kind, schema: relationshipSchema)
        let (owner, critters) = try await makeOwnerWithCritters(stack)
        #expect(owner.critters == Set(critters.map(\.id)))
        #expect(owner.critterCount == 3)
        #expect(owner.totalAge == 11)
        #expect(owner.oldest == 7)
        let lonely = try await stack.perform { tx in try tx.create(Into<Owner>()) }
        #expect(lonely.critters.isEmpty && lonely.critterCount == 0 && lonely.totalAge == 0 && lonely.oldest == nil)
        withExtendedLifetime(directory) {}
    }

    @Test("an optional field compares with a value through key-path operators; nil never matches, nor a nil to-one")
    func optionalKeyPathComparisons() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, critters) = try await makeOwnerWithCritters(stack)
        let stray = try await stack.perform { tx in
            _ = try tx.create(Into<Owner>()) { $0.name = "Lonely" }
            return try tx.create(Into<Critter>()) { $0.name = "Stray"; $0.age = 9 }
        }
        // These did not compile before: Int? is not Comparable.
        #expect(try await stack.fetchAll(From<Owner>().where(\.oldest > 5)).map(\.id) == [owner.id])
        #expect(try await stack.fetchAll(From<Owner>().where(\.oldest >= 7)).map(\.id) == [owner.id])
        #expect(try await stack.fetchCount(From<Owner>().where(\.oldest < 100)) == 1)
        #expect(try await stack.fetchCount(From<Owner>().where(\.oldest <= 6)) == 0)
        let old = try await stack.fetchAll(From<Critter>().where(\.owner?.oldest >= 7).orderBy(.ascending(\.id)))
        #expect(old.map(\.id) == critters.map(\.id))
        #expect(!old.contains { $0.id == stray.id })
    }

    @Test("editing the to-many side moves foreign keys and reports every object that changed")
    func editToMany() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, critters) = try await makeOwnerWithCritters(stack)
        let other = try await stack.perform { tx in try tx.create(Into<Owner>()) { $0.name = "Grace" } }
        let feed = stack.changeSets()
        // Move Rex to Grace by editing her to-many relationship.
        let grace = try await stack.perform { tx in try tx.edit(other) { $0.critters.insert(critters[0].id) } }
        #expect(grace.critters == [critters[0].id])
        #expect(grace.critterCount == 1)
        let ada = try #require(try await stack.fetchExisting(owner.id))
        #expect(ada.critters == [critters[1].id, critters[2].id])
        #expect(try await stack.fetchExisting(critters[0].id)?.owner == other.id)
        var iterator = feed.makeAsyncIterator()
        let changes = try #require(await iterator.next())
        #expect(changes.updatedIDs(Owner.self) == [owner.id, other.id])
        #expect(changes.changedFields(of: owner.id) == ["critters", "critterCount", "totalAge", "oldest"])
        #expect(changes.changedFields(of: critters[0].id) == ["owner"])
        // Removing from the to-many side clears the foreign key.
        try await stack.perform { tx in try tx.edit(owner.id) { $0.critters.remove(critters[1].id) } }
        #expect(try await stack.fetchExisting(critters[1].id)?.owner == nil)
    }

    @Test("editing the to-one side updates both owners' to-many and derived fields")
    func editToOne() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, critters) = try await makeOwnerWithCritters(stack)
        let other = try await stack.perform { tx in try tx.create(Into<Owner>()) }
        let feed = stack.changeSets()
        try await stack.perform { tx in try tx.edit(critters[1]) { $0.owner = other.id } }
        let (ada, grace) = try await stack.read { r in (try r.fetchExisting(owner.id)!, try r.fetchExisting(other.id)!) }
        #expect(ada.critterCount == 2 && ada.oldest == 3)
        #expect(grace.critters == [critters[1].id] && grace.totalAge == 7)
        var iterator = feed.makeAsyncIterator()
        let changes = try #require(await iterator.next())
        #expect(changes.updatedIDs(Owner.self) == [owner.id, other.id])
        #expect(changes.changedFields(of: critters[1].id) == ["owner"])
    }

    @Test("cascade deletes the related objects, and the change set lists them")
    func cascade() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, critters) = try await makeOwnerWithCritters(stack)
        let feed = stack.changeSets()
        try await stack.perform { tx in try tx.delete(owner) }
        #expect(try await stack.fetchCount(From<Critter>()) == 0)
        var iterator = feed.makeAsyncIterator()
        let changes = try #require(await iterator.next())
        #expect(changes.deletedIDs(Owner.self) == [owner.id])
        #expect(changes.deletedIDs(Critter.self) == Set(critters.map(\.id)))
        #expect(changes.updatedIDs(Critter.self).isEmpty)
    }

    @Test("nullify (the default) clears the relationship and updates the derived fields")
    func nullify() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, critters) = try await makeOwnerWithCritters(stack)
        let feed = stack.changeSets()
        try await stack.perform { tx in try tx.delete(critters[1]) }
        let ada = try #require(try await stack.fetchExisting(owner.id))
        #expect(ada.critters == [critters[0].id, critters[2].id])
        #expect(ada.oldest == 3)
        var iterator = feed.makeAsyncIterator()
        let changes = try #require(await iterator.next())
        #expect(changes.changedFields(of: owner.id) == ["critters", "critterCount", "totalAge", "oldest"])
    }

    @Test("deny refuses the delete, names the blocking objects, and leaves everything in place")
    func deny() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (shelf, volume) = try await stack.perform { tx in
            let shelf = try tx.create(Into<Shelf>()) { $0.label = "A" }
            let volume = try tx.create(Into<Volume>()) { $0.title = "Dune"; $0.shelf = shelf.id }
            return (shelf, volume)
        }
        let error = await expectStrataError(.deleteDenied) { try await stack.perform { tx in try tx.delete(shelf) } }
        #expect(error?.message.contains("Volume(\(volume.id.rawValue))") == true)
        #expect(error?.entity == "Shelf")
        #expect(error?.field == "volumes")
        #expect(try await stack.fetchCount(From<Shelf>()) == 1)
        try await stack.perform { tx in
            try tx.delete(volume)
            try tx.delete(shelf)
        }
        #expect(try await stack.fetchCount(From<Shelf>()) == 0)
    }

    @Test("deleting several objects is all or none: a deny rule refusing one keeps the others, the error caught")
    func denyInABatch() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (empty, full) = try await stack.perform { tx in
            let empty = try tx.create(Into<Shelf>()) { $0.label = "empty" }
            let full = try tx.create(Into<Shelf>()) { $0.label = "full" }
            _ = try tx.create(Into<Volume>()) { $0.shelf = full.id }
            return (empty, full)
        }
        let deleted = try await stack.perform { tx in
            do { try tx.delete([empty, full]) } catch let error as StrataError where error.code == .deleteDenied {}
            do { try tx.delete(ids: [empty.id, full.id]) } catch let error as StrataError where error.code == .deleteDenied {}
            return tx.deletedIDs(Shelf.self)
        }
        #expect(deleted.isEmpty)
        #expect(try await stack.fetchCount(From<Shelf>()) == 2)
    }

    @Test("links that writes inside an edit's closure made stay when the edit changes the same to-many")
    func nestedWritesInsideAnEdit() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, kitten, stray) = try await stack.perform { tx in
            let owner = try tx.create(Into<Owner>())
            let stray = try tx.create(Into<Critter>())
            var kitten: Critter.ID?
            try tx.edit(owner) { owner in
                kitten = try tx.create(Into<Critter>()) { $0.owner = owner.id }.id
                owner.critters.insert(stray.id)
            }
            return (owner.id, try #require(kitten), stray.id)
        }
        #expect(try await stack.fetchExisting(kitten)?.owner == owner)
        #expect(try await stack.fetchExisting(stray)?.owner == owner)
        #expect(try await stack.fetchExisting(owner)?.critters == [kitten, stray])
        // An ordered to-many: a nested write appends, the edit reorders what it read.
        let (shelf, volumes, added) = try await stack.perform { tx in
            let shelf = try tx.create(Into<Shelf>())
            let volumes = try (0..<2).map { _ in try tx.create(Into<Volume>()) { $0.shelf = shelf.id }.id }
            var added: Volume.ID?
            try tx.edit(shelf) { shelf in
                added = try tx.create(Into<Volume>()) { $0.shelf = shelf.id }.id
                shelf.volumes.reverse()
            }
            return (shelf.id, volumes, try #require(added))
        }
        #expect(try await stack.fetchExisting(shelf)?.volumes == volumes.reversed() + [added])
    }

    @Test("an ordered to-many keeps its order, can be reordered, and new members go last")
    func ordered() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (shelf, volumes) = try await stack.perform { tx in
            let shelf = try tx.create(Into<Shelf>())
            let volumes = try ["C", "A", "B"].map { title in try tx.create(Into<Volume>()) { $0.title = title } }
            let filled = try tx.edit(shelf) { $0.volumes = volumes.map(\.id) }
            return (filled, volumes)
        }
        #expect(shelf.volumes == volumes.map(\.id))
        let reordered = try await stack.perform { tx in try tx.edit(shelf) { $0.volumes.reverse() } }
        #expect(reordered.volumes == volumes.map(\.id).reversed())
        let added = try await stack.perform { tx in try tx.create(Into<Volume>()) { $0.title = "D"; $0.shelf = shelf.id } }
        #expect(try await stack.fetchExisting(shelf.id)?.volumes == volumes.map(\.id).reversed() + [added.id])
    }

    @Test("a many-to-many relationship is seen from both sides, and deletes clean up both")
    func manyToMany() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (readers, volumes) = try await stack.perform { tx in
            let volumes = try (0..<3).map { index in try tx.create(Into<Volume>()) { $0.title = "V\(index)" } }
            let first = try tx.create(Into<Reader>()) { $0.name = "R1"; $0.volumes = [volumes[0].id, volumes[1].id] }
            let second = try tx.create(Into<Reader>()) { $0.name = "R2"; $0.volumes = [volumes[1].id] }
            return ([first, second], volumes)
        }
        let shared = try #require(try await stack.fetchExisting(volumes[1].id))
        #expect(shared.readers == Set(readers.map(\.id)))
        try await stack.perform { tx in try tx.edit(volumes[2]) { $0.readers.insert(readers[1].id) } }
        #expect(try await stack.fetchExisting(readers[1].id)?.volumes == [volumes[1].id, volumes[2].id])
        try await stack.perform { tx in try tx.delete(volumes[1]) }
        #expect(try await stack.fetchExisting(readers[0].id)?.volumes == [volumes[0].id])
        #expect(try await stack.fetchExisting(readers[1].id)?.volumes == [volumes[2].id])
    }

    @Test("a link added to a many-to-many goes last in the other side's list when that list is ordered, and is not numbered there when it is a set")
    func manyToManyPositions() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("links.sqlite")
        let stack = try await DataStack(
            Schema("V1", Playlist.self, Track.self, Volume.self, Reader.self, Shelf.self), storage: SQLiteStore(path: path))
        let (track, first, second) = try await stack.perform { tx in
            let track = try tx.create(Into<Track>()) { $0.title = "T" }
            let first = try tx.create(Into<Playlist>()) { $0.name = "P1" }
            let second = try tx.create(Into<Playlist>()) { $0.name = "P2" }
            return (track.id, first.id, second.id)
        }
        try await stack.perform { tx in try tx.edit(second) { $0.tracks = [track] } }
        try await stack.perform { tx in try tx.edit(first) { $0.tracks = [track] } }
        #expect(try await stack.fetchExisting(track)?.playlists == [second, first])
        let volume = try await stack.perform { tx in
            let volume = try tx.create(Into<Volume>()) { $0.title = "V" }
            for name in ["R1", "R2", "R3"] { try tx.create(Into<Reader>()) { $0.name = name; $0.volumes = [volume.id] } }
            return volume.id
        }
        #expect(try await stack.fetchExisting(volume)?.readers.count == 3)
        await stack.close()
        // Volume.readers is a set: a reader's link is not given the next position among the volume's
        // links, which read all of them (each new tag of a popular tag cost more than the last).
        #expect(try storeValue(path, "SELECT max(target_position) FROM Reader_volumes") == "0")
    }

    @Test("a one-way ordered to-many uses a join table, and loses members that are deleted")
    func oneWayOrdered() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, volumes) = try await stack.perform { tx in
            let volumes = try (0..<3).map { index in try tx.create(Into<Volume>()) { $0.title = "V\(index)" } }
            let owner = try tx.create(Into<Owner>()) { $0.favorites = [volumes[2].id, volumes[0].id, volumes[1].id] }
            return (owner, volumes)
        }
        #expect(owner.favorites == [volumes[2].id, volumes[0].id, volumes[1].id])
        let feed = stack.changeSets()
        try await stack.perform { tx in try tx.delete(volumes[0]) }
        #expect(try await stack.fetchExisting(owner.id)?.favorites == [volumes[2].id, volumes[1].id])
        var iterator = feed.makeAsyncIterator()
        #expect(await iterator.next()?.changedFields(of: owner.id) == ["favorites"])
    }

    @Test("a relationship to an object that does not exist is a notFound error naming the field")
    func missingTarget() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let error = await expectStrataError(.notFound) {
            try await stack.perform { tx in try tx.create(Into<Critter>()) { $0.owner = EntityID(rawValue: 42) } }
        }
        #expect(error?.entity == "Critter")
        #expect(error?.field == "owner")
        await expectStrataError(.notFound) {
            try await stack.perform { tx in try tx.create(Into<Owner>()) { $0.critters = [EntityID(rawValue: 42)] } }
        }
        #expect(try await stack.fetchCount(From<Owner>()) == 0)
    }

    @Test("derived fields cannot be edited; they are filterable and sortable")
    func derivedFields() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, _) = try await makeOwnerWithCritters(stack)
        try await stack.perform { tx in
            let other = try tx.create(Into<Owner>()) { $0.name = "Grace" }
            try tx.create(Into<Critter>()) { $0.age = 20; $0.owner = other.id }
        }
        await expectStrataError(.invalidEdit) {
            try await stack.perform { tx in try tx.edit(owner) { $0.critterCount = 99 } }
        }
        #expect(try await stack.fetchAll(From<Owner>().where(\.critterCount > 2)).map(\.name) == ["Ada"])
        #expect(try await stack.fetchAll(From<Owner>().orderBy(.descending(\.totalAge))).map(\.name) == ["Grace", "Ada"])
        #expect(try await stack.fetchAll(From<Owner>().where(\.oldest == nil)).isEmpty)
    }

    @Test("filters through relationships: related, any, all and count")
    func relationshipPredicates() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, _) = try await makeOwnerWithCritters(stack)
        try await stack.perform { tx in
            let other = try tx.create(Into<Owner>()) { $0.name = "Grace" }
            try tx.create(Into<Critter>()) { $0.name = "Old"; $0.age = 20; $0.owner = other.id }
            try tx.create(Into<Owner>()) { $0.name = "Nobody" }
            try tx.create(Into<Critter>()) { $0.name = "Stray" }
        }
        let adas = try await stack.fetchAll(From<Critter>().where(.related(\.owner, \.name == "Ada"))).map(\.name)
        #expect(Set(adas) == ["Rex", "Tom", "Kit"])
        #expect(try await stack.fetchAll(From<Owner>().where(.any(\.critters, \.age > 5))).map(\.name).sorted() == ["Ada", "Grace"])
        #expect(try await stack.fetchAll(From<Owner>().where(.all(\.critters, \.age > 5))).map(\.name).sorted() == ["Grace", "Nobody"])
        #expect(try await stack.fetchAll(From<Owner>().where(\.critters.count >= 1 && \.critters.count < 2)).map(\.name) == ["Grace"])
        // The same test in a #Predicate.
        #expect(try await stack.fetchAll(From<Owner>().where(#Predicate { $0.critters.count >= 1 && $0.critters.count < 2 })).map(\.name) == ["Grace"])
        #expect(try await stack.fetchCount(From<Owner>().where(#Predicate { $0.favorites.count == 0 })) > 0)
        let nested = From<Owner>().where(.any(\.critters, .related(\.owner, \.name == "Ada")))
        #expect(try await stack.fetchIDs(nested) == [owner.id])
        await expectStrataError(.unsupportedQuery) { try await stack.fetchAll(From<Owner>().where(\.display == "x")) }
    }

    @Test("related objects of a whole list load in one query each batch")
    func fetchRelated() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let (owner, critters) = try await makeOwnerWithCritters(stack)
        let loaded: [Critter] = try await stack.fetchExisting(owner.critters.sorted())
        #expect(Set(loaded.map(\.id)) == Set(critters.map(\.id)))
        let inOrder: [Critter] = try await stack.fetchExisting([critters[2].id, EntityID(rawValue: 999), critters[0].id])
        #expect(inOrder.map(\.id) == [critters[2].id, critters[0].id])
    }

    @Test("coded fields round-trip as JSON or through their encode / decode pair")
    func codedFields() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let owner = try await stack.perform { tx in
            try tx.create(Into<Owner>()) { $0.tags = ["a", "b"]; $0.tint = .green }
        }
        let fetched = try #require(try await stack.fetchExisting(owner.id))
        #expect(fetched.tags == ["a", "b"])
        #expect(fetched.tint == .green)
        let stored = try await stack.perform { tx in try tx.strings("SELECT tags || '|' || tint FROM Owner") }
        #expect(stored == ["[\"a\",\"b\"]|green"])
    }

    @Test("a relationship to an entity outside the schema is refused when the stack opens")
    func targetOutsideSchema() async throws {
        await expectStrataError(.invalidArgument) { try await DataStack(Schema("V1", Critter.self)) }
    }

    @Test("a to-one whose inverse is another to-one (one-to-one), or no to-many, opens with a warning naming both sides")
    func toOneInverseMustBeAToMany() async throws {
        // Refusing it would lock out a store made with a schema that shipped with such an inverse.
        let logs = CapturedLogs()
        var configuration = DataStack.Configuration()
        configuration.logger = logs.logger()
        let stack = try await DataStack(Schema("V1", PairedAccount.self, PairedBadge.self), configuration: configuration)
        let oneToOne = logs.all.filter { $0.level == .warning && $0.message.contains("PairedBadge.account is a to-one relationship") }
        #expect(oneToOne.count == 1 && oneToOne.first?.message.hasPrefix("PairedAccount.badge:") == true, "\(logs.all.map(\.message))")
        await stack.close()
        let misnamed = Schema("V1", Misnamed.self, Owner.self, Critter.self, Volume.self, Shelf.self, Reader.self)
        #expect(misnamed.warnings.contains { $0.contains("is not a to-many relationship of Owner") }, "\(misnamed.warnings)")
        #expect(relationshipSchema.warnings.isEmpty)
    }
}

@Entity
struct PairedAccount {
    @Relationship(inverse: \PairedBadge.account) var badge: PairedBadge.ID?
}

@Entity
struct PairedBadge {
    @Relationship var account: PairedAccount.ID?
}

@Entity
struct Misnamed {
    @Relationship(inverse: \Owner.name) var owner: Owner.ID?
}

@Entity
struct ChainCity {
    var name: String = ""
}

@Entity
struct ChainCompany {
    var name: String = ""
    @Relationship var city: ChainCity.ID?
}

@Entity
struct ChainEmployee {
    var name: String = ""
    var level: Int = 0
    @Relationship var company: ChainCompany.ID?
    var formerCompany: ChainCompany.ID?
}

@Suite("Relationship chains")
struct RelationshipChainTests {
    @Test("~ chains filter through one or more to-one relationships; a nil relationship never matches")
    func chains() async throws {
        let stack = try await DataStack(Schema("V1", ChainCity.self, ChainCompany.self, ChainEmployee.self))
        try await stack.perform { tx in
            let paris = try tx.create(Into<ChainCity>()) { $0.name = "Paris" }
            let oslo = try tx.create(Into<ChainCity>()) { $0.name = "Oslo" }
            let acme = try tx.create(Into<ChainCompany>()) { $0.name = "Acme"; $0.city = paris.id }
            let nordic = try tx.create(Into<ChainCompany>()) { $0.name = "Nordic"; $0.city = oslo.id }
            let nowhere = try tx.create(Into<ChainCompany>()) { $0.name = "Nowhere" }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Ann"; $0.company = acme.id }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Bob"; $0.company = nordic.id }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Cid"; $0.company = nowhere.id }
            try tx.create(Into<ChainEmployee>()) { $0.name = "Dee" }
        }
        func names(_ predicate: Where<ChainEmployee>) async throws -> [String] {
            try await stack.fetchAll(From<ChainEmployee>().where(predicate).orderBy(.ascending(\.name))).map(\.name)
        }
        #expect(try await names(\.company ~ \.name == "Acme") == ["Ann"])
        #expect(try await names(\.company ~ \.name != "Acme") == ["Bob", "Cid"])
        #expect(try await names(\.company ~ \.name > "B") == ["Bob", "Cid"])
        #expect(try await names(\.company ~ \.city ~ \.name == "Paris") == ["Ann"])
        #expect(try await names(\.company ~ \.city == nil) == ["Cid"])
        #expect(try await names(\.company ~ \.city ~ \.name == "Oslo" || \.name == "Dee") == ["Bob", "Dee"])
        // An ID stored without @Relationship is no relationship to follow.
        await expectStrataError(.unsupportedQuery) {
            try await stack.fetchAll(From<ChainEmployee>().where(\.formerCompany ~ \.name == "x"))
        }
    }
}
