internal import CSQLite
import Foundation
import Testing
@testable import Strata

/// Defects found by trying Strata as a new user would (issue 11), each with a test that failed before.
@Suite("Hardening", .timeLimit(.minutes(1)))
struct HardeningTests {
    @Test("closing a stack twice, or from two tasks at once, closes it once")
    func doubleClose() async throws {
        for _ in 0..<20 {
            let (stack, directory) = try await makeStack(.file)
            try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "Ada" } }
            await stack.close()
            await stack.close()
            let (other, _) = try await makeStack()
            async let first: Void = other.close()
            async let second: Void = other.close()
            _ = await (first, second)
            await expectStrataError(.stackClosed) { try await stack.fetchCount(From<Person>()) }
            await expectStrataError(.stackClosed) { try await other.perform { _ in } }
            _ = directory
        }
    }

    @Test("errors give their message as localizedDescription")
    func localizedDescriptions() async throws {
        let error = StrataError(.invalidArgument, "Something specific went wrong; do this instead.")
        #expect((error as any Error).localizedDescription == error.description)
        #expect(error.localizedDescription.contains("Something specific went wrong"))
        let stack = try await DataStack(importSchema)
        let thrown = await #expect(throws: ImportError.self) {
            try await stack.perform { tx in
                try tx.insertAll(Into<Rate>(), from: ["USD", "USD"]) { code, rate in rate.code = code }
            }
        }
        #expect((thrown as (any Error)?)?.localizedDescription.contains("Importing source 1 into Rate failed") == true)
        #expect(ImportSummary(inserted: 3).inserted == 3 && ImportSummary() == ImportSummary(sourcesRead: 0))
    }

    // MARK: NUL characters

    @Test("text tests read the whole text, past a NUL character")
    func textTestsPastNUL() async throws {
        let stack = try await DataStack(coreSchema)
        try await stack.perform { tx in
            try tx.create(Into<CoreOwner>()) { $0.name = "abc\0xyz" }
            try tx.create(Into<CoreOwner>()) { $0.name = "abc" }
        }
        func count(_ filter: Where<CoreOwner>) async throws -> Int {
            try await stack.fetchCount(From<CoreOwner>().where(filter))
        }
        #expect(try await count(.contains(\.name, "xyz")) == 1)
        #expect(try await count(.contains(\.name, "c\0x")) == 1)
        #expect(try await count(.hasPrefix(\.name, "abc\0q")) == 0)
        #expect(try await count(.hasPrefix(\.name, "abc\0x")) == 1)
        #expect(try await count(.hasSuffix(\.name, "xyz")) == 1)
        #expect(try await count(.equals(\.name, "ABC\0XYZ", caseInsensitive: true)) == 1)
        #expect(try await count(.equals(\.name, "ABC", caseInsensitive: true)) == 1)
        #expect(try await count(.like(\.name, "abc?xyz")) == 1)
        #expect(try await count(.like(\.name, "abc")) == 1)
        #expect(try await count(Where("name ==[c] %@", "ABC\0XYZ")) == 1)
        #expect(try await count(Where("name LIKE %@", "*xyz")) == 1)
    }

    @Test("a store path that SQLite would read as a URI is refused; a file whose name begins with file: opens by a full path")
    func uriPath() async throws {
        let directory = try TemporaryDirectory()
        let error = await #expect(throws: StrataError.self) {
            _ = try await DataStack(coreSchema, storage: SQLiteStore(path: "file:\(directory.path("notes.sqlite"))?mode=memory"))
        }
        #expect(error?.code == .invalidArgument && error?.message.contains("URI") == true)
        let stack = try await DataStack(coreSchema, storage: SQLiteStore(path: directory.path("file:notes.sqlite")))
        await stack.close()
        #expect(FileManager.default.fileExists(atPath: directory.path("file:notes.sqlite")))
    }

    @Test("a store path with a NUL character is refused, not cut short")
    func pathWithNUL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-nul-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/abc\0def.sqlite"
        let error = await #expect(throws: StrataError.self) {
            _ = try await DataStack(coreSchema, storage: SQLiteStore(path: path))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("NUL") == true)
        // Nothing was created under the name before the NUL.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("abc").path))
        await #expect(throws: StrataError.self) {
            _ = try await DataStack(coreSchema, storage: SQLiteStore(fileName: "abc\0def.sqlite"))
        }
    }

    @Test("anyOf and allOf combine many filters in one flat list; empty lists mean false and true")
    func combinedFilters() async throws {
        let stack = try await DataStack(coreSchema)
        try await stack.perform { tx in
            for index in 0..<20 { try tx.create(Into<CoreOwner>()) { $0.name = "n\(index)" } }
        }
        let names = (0..<5_000).map { "n\($0)" }
        let any = Where<CoreOwner>.anyOf(names.map { \.name == $0 })
        if case .anyOf(let operands) = any.expression { #expect(operands.count == 5_000) } else { Issue.record("not flat") }
        #expect(try await stack.fetchCount(From<CoreOwner>().where(any)) == 20)
        let all = Where<CoreOwner>.allOf(names.map { \.name != "x" + $0 })
        #expect(try await stack.fetchCount(From<CoreOwner>().where(all)) == 20)
        #expect(try await stack.fetchCount(From<CoreOwner>().where(.anyOf([]))) == 0)
        #expect(try await stack.fetchCount(From<CoreOwner>().where(.allOf([]))) == 20)
        // Nested lists flatten too.
        let nested = Where<CoreOwner>.anyOf([.anyOf([\.name == "n1", \.name == "n2"]), \.name == "n3"])
        if case .anyOf(let operands) = nested.expression { #expect(operands.count == 3) } else { Issue.record("not flat") }
        #expect(try await stack.fetchCount(From<CoreOwner>().where(nested)) == 3)
    }

    // MARK: IDs from another store

    /// Two in-memory stacks, each holding one owner ("first", "second") with the same row ID.
    static func twoStoresWithOneOwnerEach() async throws -> (DataStack, DataStack, CoreOwner, CoreOwner) {
        let first = try await DataStack(coreSchema)
        let second = try await DataStack(coreSchema)
        let foreign = try await first.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "first" } }
        let own = try await second.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "second" } }
        return (first, second, foreign, own)
    }

    @Test("an ID from another store is refused by delete, edit, fetches and relationships; a bare row ID is not")
    func foreignIDs() async throws {
        let (first, second, foreign, own) = try await Self.twoStoresWithOneOwnerEach()
        #expect(foreign.id.rawValue == own.id.rawValue)   // the same row ID in both stores
        func expectRefused(_ body: () async throws -> Void) async {
            let error = await #expect(throws: StrataError.self) { try await body() }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("another store") == true)
        }
        await expectRefused { try await second.perform { tx in try tx.delete(foreign.id) } }
        await expectRefused { try await second.perform { tx in _ = try tx.edit(foreign.id) { $0.name = "edited" } } }
        await expectRefused { _ = try await second.fetchExisting(foreign.id) }
        await expectRefused { _ = try await second.fetchExisting([foreign.id]) }
        await expectRefused { _ = try await second.read { r in try r.fetchExisting(foreign.id) } }
        await expectRefused {
            try await second.perform { tx in _ = try tx.create(Into<CorePet>()) { $0.owner = foreign.id } }
        }
        let pet = try await second.perform { tx in try tx.create(Into<CorePet>()) { $0.owner = own.id } }
        await expectRefused { try await second.perform { tx in _ = try tx.edit(pet) { $0.owner = foreign.id } } }
        // Nothing changed in the second store.
        #expect(try await second.fetchAll(From<CoreOwner>()).map(\.name) == ["second"])
        #expect(try await second.fetchExisting(pet.id)?.owner == own.id)
        // IDs read from a store carry it, whatever the read.
        let fetchedID = try #require(try await first.fetchIDs(From<CoreOwner>()).first)
        await expectRefused { _ = try await second.fetchExisting(fetchedID) }
        // A bare row ID names that row in any store; IDs round-trip through Codable that way.
        #expect(try await second.fetchExisting(CoreOwner.ID(rawValue: foreign.id.rawValue))?.name == "second")
        let decoded = try JSONDecoder().decode(CoreOwner.ID.self, from: JSONEncoder().encode(foreign.id))
        #expect(try await second.fetchExisting(decoded)?.name == "second")
    }

    @Test("a filter that compares with an ID from another store throws, whichever way it is written; nothing is deleted")
    func foreignIDsInFilters() async throws {
        let (first, second, foreign, own) = try await Self.twoStoresWithOneOwnerEach()
        _ = try await second.perform { tx in try tx.create(Into<CorePet>()) { $0.name = "Rex"; $0.owner = own.id } }
        #expect(foreign.id.rawValue == own.id.rawValue)
        let foreignID = foreign.id
        let optionalForeign: CoreOwner.ID? = foreign.id
        let filters: [Where<CoreOwner>] = [
            \.id == foreignID, \.id != foreignID, .in(\.id, [own.id, foreignID]), .notIn(\.id, [foreignID]),
            Where("id == %@", foreignID), Where("id IN %@", [foreignID]),
            Where(#Predicate<CoreOwner> { $0.id == foreignID }),
        ]
        for filter in filters {
            await expectStrataError(.invalidArgument) { _ = try await second.fetchAll(From<CoreOwner>().where(filter)) }
            await expectStrataError(.invalidArgument) { _ = try await second.fetchCount(From<CoreOwner>().where(filter)) }
            await expectStrataError(.invalidArgument) {
                try await second.perform { tx in _ = try tx.deleteAll(From<CoreOwner>().where(filter)) }
            }
        }
        let petFilters: [Where<CorePet>] = [\.owner == optionalForeign, \.owner ~ \.id == foreignID]
        for filter in petFilters {
            await expectStrataError(.invalidArgument) { _ = try await second.fetchIDs(From<CorePet>().where(filter)) }
            await expectStrataError(.invalidArgument) {
                for try await _ in second.fetchBatches(From<CorePet>().where(filter)) {}
            }
            await expectStrataError(.invalidArgument) {
                _ = try await second.queryAttributes(From<CorePet>().where(filter).select(.attribute(\.name)))
            }
        }
        #expect(try await second.fetchAll(From<CoreOwner>()).map(\.name) == ["second"])
        #expect(try await second.fetchCount(From<CorePet>()) == 1)
        // The store's own IDs, and bare row IDs, filter as before.
        #expect(try await second.fetchAll(From<CoreOwner>().where(\.id == own.id)).map(\.name) == ["second"])
        #expect(try await second.fetchCount(From<CorePet>().where(\.owner == own.id)) == 1)
        #expect(try await second.fetchCount(From<CoreOwner>().where(\.id == CoreOwner.ID(rawValue: foreignID.rawValue))) == 1)
        #expect(try await first.fetchCount(From<CoreOwner>().where(\.id == foreignID)) == 1)
        // Reads scoped to a configuration take the path of reads across stores: the same checks there.
        await expectStrataError(.invalidArgument) {
            for try await _ in second.fetchBatches(From<CoreOwner>(nil).where(\.id == foreignID)) {}
        }
        await expectStrataError(.invalidArgument) { _ = try await second.fetchCount(From<CoreOwner>(nil).where(\.id == foreignID)) }
        // And the IDs such a read gives carry their store, as every read's do.
        var batched: [CoreOwner.ID] = []
        for try await batch in first.fetchBatches(From<CoreOwner>(nil)) { batched += batch.map(\.id) }
        #expect(batched == [foreignID])
        await expectStrataError(.invalidArgument) { _ = try await second.fetchExisting(batched[0]) }
    }

    @Test("in a stack of several stores, a read across them refuses an ID from another stack")
    func foreignIDsAcrossStores() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await makeSeveralStoresStack(directory)
        let other = try await DataStack(severalStoresSchema, storages: [InMemoryStore(), InMemoryStore().configuration("Shared")])
        try await stack.perform { tx in
            try tx.create(Into<StoreNote>(nil)) { $0.title = "main" }
            try tx.create(Into<StoreNote>("Shared")) { $0.title = "shared" }
        }
        let foreign = try await other.perform { tx in try tx.create(Into<StoreNote>(nil)) { $0.title = "other" } }
        let filter = From<StoreNote>().where(\.id == foreign.id)
        await expectStrataError(.invalidArgument) { _ = try await stack.fetchAll(filter) }
        await expectStrataError(.invalidArgument) { _ = try await stack.fetchCount(filter) }
        await expectStrataError(.invalidArgument) { _ = try await stack.fetchIDs(filter) }
        await expectStrataError(.invalidArgument) { _ = try await stack.queryAttributes(filter.select(.attribute(\.title))) }
        await expectStrataError(.invalidArgument) { for try await _ in stack.fetchBatches(filter) {} }
        // The stack's own IDs filter across its stores as before.
        let own = try await stack.fetchIDs(From<StoreNote>(nil))
        #expect(try await stack.fetchAll(From<StoreNote>().where(\.id == own[0])).map(\.title) == ["main"])
    }

    @Test("a store keeps its tag: IDs stay valid for another stack on the same file, and after reopening")
    func storeTagPersists() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tag.sqlite")
        let first = try await DataStack(coreSchema, storage: SQLiteStore(path: path))
        let owner = try await first.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } }
        let sibling = try await DataStack(coreSchema, storage: SQLiteStore(path: path))
        #expect(try await sibling.fetchExisting(owner.id)?.name == "Ada")
        await sibling.close()
        await first.close()
        let reopened = try await DataStack(coreSchema, storage: SQLiteStore(path: path))
        try await reopened.perform { tx in try tx.edit(owner.id) { $0.name = "Grace" } }
        #expect(try await reopened.fetchExisting(owner.id)?.name == "Grace")
    }

    @Test("queryValue throws typeMismatch for a value of another type; an attributes row gives nil")
    func queryValueTypeMismatch() async throws {
        let stack = try await DataStack(coreSchema)
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } }
        let error = await #expect(throws: StrataError.self) {
            _ = try await stack.queryValue(From<CoreOwner>().select(Int.self, .maximum(\.name)))
        }
        #expect(error?.code == .typeMismatch)
        #expect(try await stack.queryValue(From<CoreOwner>().select(String.self, .maximum(\.name))) == "Ada")
        let rows = try await stack.queryAttributes(From<CoreOwner>().select(.maximum(\.name, as: "top")))
        #expect(rows.first?["top", as: Int.self] == nil)
        #expect(rows.first?["top"] == .text("Ada"))
    }

    @Test("a term through a to-one relationship is keyed by its path, apart from the entity's own field; two terms may not share a key")
    func relatedTermKeys() async throws {
        let stack = try await DataStack(coreSchema)
        try await stack.perform { tx in
            let ada = try tx.create(Into<CoreOwner>()) { $0.name = "Ada" }
            try tx.create(Into<CorePet>()) { $0.name = "Rex"; $0.owner = ada.id }
        }
        let terms: [SelectTerm<CorePet>] = [.attribute(\.name), .attribute(\.owner?.name), .count(\.owner?.name)]
        #expect(terms.map(\.key) == ["name", "owner.name", "count(owner.name)"])
        #expect(SelectTerm<CorePet>.attribute("owner.name").key == "owner.name")
        let row = try await stack.queryAttributes(From<CorePet>().select(.attribute(\.name), .attribute(\.owner?.name))).first
        #expect(row?["name"] == .text("Rex") && row?["owner.name"] == .text("Ada"))
        for clash in [
            From<CorePet>().select(.attribute(\.name), .maximum(\.name, as: "name")),
            From<CorePet>().select(.count(\.id), .count(\.id)),
        ] {
            let error = await #expect(throws: StrataError.self) { _ = try await stack.queryAttributes(clash) }
            #expect(error?.code == .invalidArgument && error?.message.contains("alias") == true)
        }
    }

    @Test("an integer sum past Int64's range throws an error that says so and what to do")
    func sumOverflow() async throws {
        let (stack, _) = try await makeStack()
        try await stack.perform { tx in
            for _ in 0..<2 { try tx.create(Into<Person>()) { $0.age = Int.max } }
        }
        let error = await #expect(throws: StrataError.self) {
            _ = try await stack.queryValue(From<Person>().select(Int.self, .sum(\.age)))
        }
        #expect(error?.message.contains("Int64") == true && error?.message.contains("Double") == true)
    }

    // MARK: Errors a user can act on

    @Test("a damaged file is reported as corrupt, naming the path, and is left as it is")
    func corruptFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let stack = try await DataStack(coreSchema, storage: SQLiteStore(path: path))
        try await stack.perform { tx in
            for index in 0..<2_000 { try tx.create(Into<CoreOwner>()) { $0.name = "owner \(index) " + String(repeating: "x", count: 40) } }
        }
        await stack.close()
        // Overwrite every page after the first with garbage; the header stays valid.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 4_096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4_096))
        try handle.close()
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = await #expect(throws: StrataError.self) {
            let reopened = try await DataStack(coreSchema, storage: SQLiteStore(path: path))
            _ = try await reopened.fetchAll(From<CoreOwner>())
        }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains(path) == true)
        #expect(error?.sqliteCode == 11)   // SQLITE_CORRUPT
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged)
    }

    @Test("a Data field holding text another program wrote reads its bytes as they are, invalid UTF-8 and NUL included")
    func dataWrittenAsText() async throws {
        let (stack, directory) = try await makeStack(.file)
        let object = try await stack.perform { tx in try tx.create(Into<AllTypes>()) }
        let path = try #require(directory).path("test.sqlite")
        try await onOwnThread {
            let connection = try Connection(path: path, options: Connection.Options())
            defer { connection.close() }
            try connection.execute("UPDATE AllTypes SET data = CAST(X'FF00C328' AS TEXT) WHERE id = ?", [.integer(object.id.rawValue)])
        }
        #expect(try await stack.fetchExisting(object.id)?.data == Data([0xFF, 0x00, 0xC3, 0x28]))
    }

    @Test("a schema whose declared names take a name Strata makes (a hidden position column, an index) is refused, naming it")
    func generatedNameCollisions() async throws {
        let position = await expectStrataError(.invalidArgument) { try await DataStack(Schema("V1", CollidingAlbum.self, CollidingTrack.self)) }
        #expect(position?.field == "album_position" && position?.message.contains("ordered relationship") == true, "\(String(describing: position))")
        let index = await expectStrataError(.invalidArgument) { try await DataStack(Schema("V1", CollidingPost.self, CollidingPostAuthor.self)) }
        #expect(index?.message.contains("'Post_author_name_index'") == true, "\(String(describing: index))")
    }

    @Test("a derived sum of Double values declared as an Int is refused when the stack opens, not when a read meets 7.5")
    func derivedSumType() async throws {
        let error = await expectStrataError(.invalidArgument) { try await DataStack(Schema("V1", WholeOrder.self, WholeLine.self)) }
        #expect(error?.field == "total" && error?.message.contains("Declare it as Double") == true, "\(String(describing: error))")
    }

    @Test("a full disk is reported as diskFull, naming the path")
    func diskFull() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("full.sqlite")
        let connection = try Connection(path: path, options: Connection.Options())
        defer { connection.close() }
        try connection.execute("CREATE TABLE t (x BLOB)")
        // A page limit makes SQLite report SQLITE_FULL, as a full disk does.
        try connection.execute("PRAGMA max_page_count = 20")
        let error = #expect(throws: StrataError.self) {
            for _ in 0..<100 { try connection.execute("INSERT INTO t VALUES (?)", [.blob(Data(count: 4_000))]) }
        }
        #expect(error?.code == .diskFull)
        #expect(error?.message.contains(path) == true)
    }

    // MARK: Floating point

    @Test("NaN is refused with an error naming the field, on create, edit and in filters; infinities round-trip")
    func notANumber() async throws {
        let (stack, _) = try await makeStack()
        let created = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<AllTypes>()) { $0.double = .nan } }
        }
        #expect(created?.code == .invalidArgument)
        #expect(created?.field == "double")
        #expect(created?.message.contains("NaN") == true)
        let floatError = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<AllTypes>()) { $0.float = .nan } }
        }
        #expect(floatError?.field == "float")
        let object = try await stack.perform { tx in
            try tx.create(Into<AllTypes>()) { $0.double = .infinity; $0.float = -.infinity }
        }
        let stored = try #require(try await stack.fetchExisting(object.id))
        #expect(stored.double == .infinity)
        #expect(stored.float == -.infinity)
        let edited = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.edit(object) { $0.double = .nan } }
        }
        #expect(edited?.field == "double")
        #expect(try await stack.fetchExisting(object.id)?.double == .infinity)
        await #expect(throws: StrataError.self) {
            try await stack.fetchCount(From<AllTypes>().where(\.double == .nan))
        }
        // A Decimal NaN was stored as the text "NaN", which no read could decode.
        let decimalError = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<AllTypes>()) { $0.decimal = Decimal(1) / Decimal(0) } }
        }
        #expect(decimalError?.field == "decimal" && decimalError?.code == .invalidArgument)
        #expect(try await stack.fetchAll(From<AllTypes>()).count == 1)
    }

    @Test("-0.0 round-trips in Double and Float fields, on both kinds of storage, and still equals 0 in filters")
    func negativeZero() async throws {
        for kind in [StoreKind.inMemory, .file] {
            let (stack, directory) = try await makeStack(kind)
            defer { withExtendedLifetime(directory) {} }
            let onFile = kind == .file
            let object = try await stack.perform { tx in
                try tx.create(Into<AllTypes>()) {
                    $0.double = -0.0
                    $0.float = -0.0
                }
            }
            let stored = try #require(try await stack.fetchExisting(object.id))
            #expect(stored.double == 0 && stored.double.sign == .minus, "on file: \(onFile)")
            #expect(stored.float == 0 && stored.float.sign == .minus, "on file: \(onFile)")
            #expect(try await stack.fetchCount(From<AllTypes>().where(\.double == 0)) == 1)
            #expect(try await stack.fetchCount(From<AllTypes>().where(\.double == -0.0)) == 1)
            let positive = try await stack.perform { tx in try tx.create(Into<AllTypes>()) { $0.double = 3 } }
            #expect(try await stack.fetchExisting(positive.id)?.double == 3)
            #expect(try await stack.fetchCount(From<AllTypes>().where(\.double > 2.5)) == 1)
            // An edit from -0.0 to 0.0 and back writes the sign: SQL compares the two equal, the store does not.
            for sign in [FloatingPointSign.plus, .minus] {
                let edited = try await stack.perform { tx in
                    try tx.edit(object.id) { $0.double = sign == .plus ? 0.0 : -0.0; $0.float = sign == .plus ? 0.0 : -0.0 }
                }
                #expect(edited.double.sign == sign)
                let reread = try #require(try await stack.fetchExisting(object.id))
                #expect(reread.double.sign == sign && reread.float.sign == sign, "on file: \(onFile), \(sign)")
            }
        }
    }

    @Test("an edit of a @Coded value that cannot be encoded throws, naming the field, and keeps the stored value")
    func unencodableCodedEdit() async throws {
        let stack = try await DataStack(Schema("V1", CodedRun.self))
        let run = try await stack.perform { tx in try tx.create(Into<CodedRun>()) { $0.stats = CodedStats(best: 1) } }
        let error = await expectStrataError(.invalidArgument) {
            try await stack.perform { tx in _ = try tx.edit(run.id) { $0.stats = CodedStats(best: .infinity) } }
        }
        #expect(error?.field == "stats" && error?.entity == "CodedRun", "\(String(describing: error))")
        #expect(try await stack.fetchExisting(run.id)?.stats == CodedStats(best: 1))
        let created = await expectStrataError(.invalidArgument) {
            try await stack.perform { tx in _ = try tx.create(Into<CodedRun>()) { $0.stats = CodedStats(best: -.infinity) } }
        }
        #expect(created?.field == "stats")
        #expect(try await stack.fetchCount(From<CodedRun>()) == 1)
    }

    // MARK: Silent no-ops

    @Test("a negative busy timeout is refused")
    func negativeBusyTimeout() async throws {
        var configuration = DataStack.Configuration()
        configuration.busyTimeout = .milliseconds(-1)
        let error = await #expect(throws: StrataError.self) {
            _ = try await DataStack(coreSchema, configuration: configuration)
        }
        #expect(error?.code == .invalidArgument)
        configuration.busyTimeout = .zero
        _ = try await DataStack(coreSchema, configuration: configuration)
        // "Wait forever" spelled as the largest duration waits as long as SQLite can, without a crash.
        configuration.busyTimeout = .seconds(Int64.max)
        _ = try await DataStack(coreSchema, configuration: configuration)
    }

    @Test("a file store attached behind an in-memory main store keeps its own synchronous (NORMAL), not the memory store's OFF")
    func attachedFileStoreSynchronous() async throws {
        let directory = try TemporaryDirectory()
        let storages: [any Storage] = [InMemoryStore(), SQLiteStore(path: directory.path("cache.sqlite")).configuration("Cache")]
        let stack = try await DataStack(severalStoresSchema, storages: storages)
        let levels = try await stack.perform { tx in
            let attached = try tx.strings("SELECT name FROM pragma_database_list WHERE name NOT IN ('main', 'temp')")
            return try attached.map { name in
                let statement = try tx.connection.makeStatement("PRAGMA \"\(name)\".synchronous")
                _ = try statement.step()
                return statement.value(at: 0)
            }
        }
        #expect(levels == [.integer(1)])
        await stack.close()
    }

    @Test("an error SQLite gives for a damaged attached store names the attached stores' files, not only the main one")
    func damagedAttachedStoreNamed() async throws {
        let directory = try TemporaryDirectory()
        let cache = directory.path("cache.sqlite")
        do {
            let stack = try await makeSeveralStoresStack(directory)
            try await stack.perform { tx in
                for index in 0..<2_000 {
                    _ = try tx.create(Into<StoreThumbnail>()) { $0.url = String(repeating: "u\(index)", count: 20); $0.bytes = index }
                }
            }
            await stack.close()
        }
        // Damage the second half of the cache's file, past its schema and metadata pages.
        let handle = try #require(FileHandle(forUpdatingAtPath: cache))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size - size / 2)))
        try handle.close()
        let error = await #expect(throws: StrataError.self) {
            let stack = try await makeSeveralStoresStack(directory)
            defer { Task { await stack.close() } }
            _ = try await stack.fetchAll(From<StoreThumbnail>())
        }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains(cache) == true, "\(String(describing: error))")
    }

    @Test("one file spelt two ways is one file: a second store on it is refused, and recreating it never deletes the first")
    func oneFileTwoSpellings() async throws {
        let directory = try TemporaryDirectory()
        let main = directory.path("main.sqlite")
        let other = directory.path("shared.sqlite")
        do {
            let stack = try await DataStack(
                severalStoresSchema,
                storages: [SQLiteStore(path: main), SQLiteStore(path: other).configuration("Shared"), InMemoryStore().configuration("Cache")])
            try await stack.perform { tx in _ = try tx.create(Into<StoreNote>(nil)) { $0.title = "kept" } }
            await stack.close()
        }
        let aliased = directory.url.path + "//./main.sqlite"
        let error = await expectStrataError(.invalidArgument) {
            try await DataStack(
                severalStoresSchema,
                storages: [
                    SQLiteStore(path: main), SQLiteStore(path: aliased).configuration("Shared").recreatingOnSchemaMismatch(),
                    InMemoryStore().configuration("Cache"),
                ])
        }
        #expect(error?.message.contains("each store needs a file of its own") == true, "\(String(describing: error))")
        let stack = try await DataStack(
            severalStoresSchema,
            storages: [SQLiteStore(path: main), SQLiteStore(path: other).configuration("Shared"), InMemoryStore().configuration("Cache")])
        #expect(try await stack.fetchAll(From<StoreNote>(nil)).map(\.title) == ["kept"])
        await stack.close()
    }

    @Test("a poll interval of zero or less is refused (it would keep a core busy); nil turns the poll off")
    func nonPositivePollInterval() async throws {
        for interval in [Duration.zero, .milliseconds(-5)] {
            var configuration = DataStack.Configuration()
            configuration.externalChangePollInterval = interval
            let error = await #expect(throws: StrataError.self) {
                _ = try await DataStack(coreSchema, configuration: configuration)
            }
            #expect(error?.code == .invalidArgument && error?.message.contains("externalChangePollInterval") == true)
        }
        var off = DataStack.Configuration()
        off.externalChangePollInterval = nil
        _ = try await DataStack(coreSchema, configuration: off)
    }

    @Test("duplicate IDs in an ordered to-many are refused, on both kinds of storage")
    func orderedDuplicates() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let volumes = try await stack.perform { tx in
            try (0..<2).map { index in try tx.create(Into<Volume>()) { $0.title = "V\(index)" } }
        }
        // A one-way ordered to-many (join table).
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                try tx.create(Into<Owner>()) { $0.favorites = [volumes[0].id, volumes[1].id, volumes[0].id] }
            }
        }
        #expect(error?.code == .invalidEdit)
        #expect(error?.field == "favorites")
        #expect(try await stack.fetchCount(From<Owner>()) == 0)
        // An ordered to-many stored through the inverse foreign key.
        let shelf = try await stack.perform { tx in try tx.create(Into<Shelf>()) { $0.label = "S" } }
        await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.edit(shelf) { $0.volumes = [volumes[1].id, volumes[1].id] } }
        }
        #expect(try await stack.fetchExisting(shelf.id)?.volumes == [])
    }

    @Test("sections from a virtual property and an object publisher of virtual fields throw, not stay silent")
    func virtualObservation() async throws {
        let (stack, _) = try await makeStack(schema: relationshipSchema)
        let owner = try await stack.perform { tx in try tx.create(Into<Owner>()) { $0.name = "Ada" } }
        var lists = stack.listPublisher(From<Owner>().sectionBy(\.display)).makeAsyncIterator()
        let listError = await #expect(throws: StrataError.self) { _ = try await lists.next() }
        #expect(listError?.code == .unsupportedQuery)
        var changes = stack.objectPublisher(owner.id, fields: \.display).makeAsyncIterator()
        let fieldsError = await #expect(throws: StrataError.self) { _ = try await changes.next() }
        #expect(fieldsError?.code == .unsupportedQuery)
        #expect(fieldsError?.message.contains("display") == true)
    }

    // MARK: Resources

    @Test("close() ends the stack's threads while the stack is still referenced")
    func closeEndsThreads() async throws {
        let stack = try await DataStack(coreSchema, configuration: .init(maximumReaderCount: 2))
        try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "Ada" } }
        // Two readers at once, so that the pool opens two.
        async let first = stack.fetchCount(From<CoreOwner>())
        async let second = stack.fetchCount(From<CoreOwner>())
        _ = try await (first, second)
        let executors = [stack.writer.executor] + stack.readers.executors
        #expect(executors.count >= 2)
        #expect(executors.allSatisfy { $0.hasThread })
        await stack.close()
        let running = executors.filter(\.hasThread).map(\.label)
        #expect(running.isEmpty, "still running: \(running) of \(executors.map(\.label))")
        let error = await #expect(throws: StrataError.self) { try await stack.fetchCount(From<CoreOwner>()) }
        #expect(error?.code == .stackClosed)
        await #expect(throws: StrataError.self) {
            try await stack.perform { tx in try tx.create(Into<CoreOwner>()) { $0.name = "late" } }
        }
        #expect(executors.allSatisfy { !$0.hasThread })
    }

    @Test("a stack released while its publishers are iterated closes itself: the iterations end, its connections close and its threads and file watch stop")
    func releasedStackWithPublishers() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("released.sqlite")
        let (started, signal) = AsyncStream<Void>.makeStream()
        let iterations: [Task<Int, any Error>]
        let parts: (executors: [ThreadExecutor], observation: ObservationCenter)
        weak var released: DataStack?
        do {
            let stack = try await DataStack(testSchema, storage: SQLiteStore(path: path))
            let person = try await stack.perform { tx in try tx.create(Into<Person>()) { $0.name = "Ada" } }
            // The tasks hold the publishers, not the stack.
            let lists = stack.listPublisher(From<Person>())
            let counts = stack.countPublisher(From<Person>())
            let objects = stack.objectPublisher(person)
            iterations = [
                Task { var count = 0; for try await _ in lists { count += 1; signal.yield() }; return ended(count) },
                Task { var count = 0; for try await _ in counts { count += 1; signal.yield() }; return ended(count) },
                Task { var count = 0; for try await _ in objects { count += 1; signal.yield() }; return ended(count) },
            ]
            var starts = started.makeAsyncIterator()
            for _ in iterations { await starts.next() }
            #expect(stack.observation.monitor != nil)
            parts = ([stack.writer.executor] + stack.readers.executors, stack.observation)
            released = stack
        }
        // Each iteration ends after its first value, as after close().
        for iteration in iterations { try #require(try await valueWithinTimeLimit(iteration) == 1) }
        #expect(released == nil)
        await expectClosed(parts.executors, path: path)
        #expect(parts.observation.monitor == nil && parts.observation.activeCount == 0)
    }

    @Test("a stack released while its history updates are iterated closes itself: the iteration ends, and the store is free")
    func releasedStackWithHistoryUpdates() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("released.sqlite")
        let (started, signal) = AsyncStream<Void>.makeStream()
        let iteration: Task<Int, any Error>
        let parts: (executors: [ThreadExecutor], observation: ObservationCenter)
        weak var released: DataStack?
        do {
            let (stack, _) = try await makeHistoryStack(path: path)
            try await stack.perform { tx in _ = try tx.create(Into<Person>()) { $0.name = "Ada" } }
            // The task holds the sequence, which must not keep the stack open.
            let updates = stack.historyUpdates()
            iteration = Task { var count = 0; for try await _ in updates { count += 1; signal.yield() }; return ended(count) }
            var starts = started.makeAsyncIterator()
            await starts.next()
            parts = ([stack.writer.executor] + stack.readers.executors, stack.observation)
            released = stack
        }
        try #require(try await valueWithinTimeLimit(iteration) == 1)
        #expect(released == nil)
        await expectClosed(parts.executors, path: path)
        #expect(parts.observation.monitor == nil && parts.observation.activeCount == 0)
    }

    /// The count of an iteration that ended; -1 for one that was cancelled instead.
    private func ended(_ count: Int) -> Int {
        Task.isCancelled ? -1 : count
    }

    /// The task's value. Cancelling the waiting test (its time limit does) cancels the task, so that an
    /// iteration that never ends fails the test instead of stalling the run.
    private func valueWithinTimeLimit<T: Sendable>(_ task: Task<T, any Error>) async throws -> T {
        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Waits until the threads of a released stack end (its close closes their connections first) and,
    /// where the process's descriptors can be listed, checks that none of the store's files is open.
    private func expectClosed(_ executors: [ThreadExecutor], path: String) async {
        #expect(executors.count >= 2)
        for executor in executors { await executor.stopped() }
        #if os(Linux)
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let open = descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(path) }
        #expect(open.isEmpty, "still open: \(open)")
        #endif
    }

    @Test("in-memory store files of dead processes are removed; those of live processes and other namespaces stay")
    func orphanedInMemoryFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-orphans-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A process that has ended: its ID names no process (until reused, which keeps files, safely).
        let ended = try ChildProcess.spawn(URL(fileURLWithPath: "/bin/true"))
        _ = try await onOwnThread { ended.waitUntilExit() }
        let namespace = InMemoryStore.pidNamespace
        let dead = "strata-memory-\(namespace)-\(ended.processIdentifier)-\(UUID()).sqlite"
        let mine = "strata-memory-\(namespace)-\(getpid())-\(UUID()).sqlite"
        let elsewhere = "strata-memory-\(namespace &+ 1)-\(ended.processIdentifier)-\(UUID()).sqlite"
        let other = "notes.txt"
        for name in [dead, dead + "-wal", mine, elsewhere, other] {
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data())
        }
        InMemoryStore.removeOrphans(in: directory.path)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == [mine, elsewhere, other])
        #expect(InMemoryStore.freeSpace(at: directory.path) ?? 0 > 0)
    }

    @Test("stores named by older versions or other namespaces are removed once no process has them open")
    func orphansWithoutLiveOwner() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-orphans-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        // An old-format store (`strata-memory-<pid>-<uuid>`) held open by another process.
        let held = "strata-memory-\(Int32.max)-\(UUID()).sqlite"
        let probe = try #require(LongFilterTests.probeExecutable(), "the StrataProbe executable was not found")
        let holder = try ChildProcess.spawn(probe, ["hold", path(held)], readOutput: true, writeInput: true)
        let line = try await onOwnThread { holder.read() }   // once the probe says it holds the store
        #expect(String(decoding: line, as: UTF8.self).hasPrefix("holding"))
        // Old-format sets nobody holds: one left by a crash (with a `-shm`), one long abandoned (without).
        let crashed = "strata-memory-12345-\(UUID()).sqlite"
        let abandoned = "strata-memory-\(InMemoryStore.pidNamespace &+ 1)-1-\(UUID()).sqlite"
        let young = "strata-memory-12345-\(UUID()).sqlite"
        for name in [crashed, crashed + "-wal", crashed + "-shm", abandoned, young] {
            _ = FileManager.default.createFile(atPath: path(name), contents: Data())
        }
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-2 * InMemoryStore.abandonedAge)], ofItemAtPath: path(abandoned))
        InMemoryStore.removeOrphans(in: directory.path)
        var left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left.isSuperset(of: [held, held + "-shm", young]))
        #expect(left.isDisjoint(with: [crashed, crashed + "-wal", crashed + "-shm", abandoned]))
        // Once the holder ends (without closing, as in a crash), its store goes too.
        holder.closeInput()
        _ = try await onOwnThread { holder.waitUntilExit() }
        InMemoryStore.removeOrphans(in: directory.path)
        left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(left == [young])
    }

    @Test("a job enqueued after an executor stopped still runs, on a thread that then ends")
    func lateJobAfterStop() async throws {
        let executor = ThreadExecutor(label: "strata.test.late")
        let probe = ExecutorProbe(executor: executor)
        #expect(await probe.label() == "strata.test.late")
        executor.stop()
        await executor.stopped()
        #expect(!executor.hasThread)
        #expect(await probe.label() == "strata.test.late")
        #expect(await probe.label() == "strata.test.late")
        executor.stop()
        await executor.stopped()
        #expect(!executor.hasThread)
    }
}

/// The same entity with its fields declared in two orders.
enum SwapOrderA {
    @Entity(name: "Swap")
    struct Swap {
        var label: String = ""
        @Field(.unique, .indexed) var rank: Int = 0
    }
}

enum SwapOrderB {
    @Entity(name: "Swap")
    struct Swap {
        @Field(.indexed, .unique) var rank: Int = 0
        var label: String = ""
    }
}

enum SwapChanged {
    @Entity(name: "Swap")
    struct Swap {
        @Field(.indexed, .unique) var rank: Int = 0
        var label: String?
    }
}

@Suite("Version lock", .timeLimit(.minutes(1)))
struct VersionLockTests {
    @Test("the version lock does not depend on the order of declarations; a real change still fails")
    func declarationOrder() async throws {
        let first = Schema("V1", SwapOrderA.Swap.self)
        let second = Schema("V1", SwapOrderB.Swap.self)
        #expect(first.versionHash == second.versionHash)
        #expect(Schema("V1", SwapChanged.Swap.self).versionHash != first.versionHash)
        let directory = try TemporaryDirectory()
        let path = directory.path("swap.sqlite")
        let stack = try await DataStack(first, storage: SQLiteStore(path: path))
        try await stack.perform { tx in try tx.create(Into<SwapOrderA.Swap>()) { $0.label = "one"; $0.rank = 1 } }
        await stack.close()
        // Declared the other way round, the store opens and reads its data by column name.
        let swapped = try await DataStack(second, storage: SQLiteStore(path: path))
        let rows = try await swapped.fetchAll(From<SwapOrderB.Swap>())
        #expect(rows.map(\.label) == ["one"])
        #expect(rows.map(\.rank) == [1])
        await swapped.close()
        let error = await #expect(throws: StrataError.self) {
            _ = try await DataStack(Schema("V1", SwapChanged.Swap.self), storage: SQLiteStore(path: path))
        }
        #expect(error?.code == .schemaMismatch)
    }

    @Test("a store locked with the first hash (declaration order) opens and gets the new hash")
    func legacyHash() async throws {
        let schema = Schema("V1", SwapOrderA.Swap.self)
        #expect(schema.legacyVersionHash != schema.versionHash)
        let directory = try TemporaryDirectory()
        let path = directory.path("legacy.sqlite")
        await (try DataStack(schema, storage: SQLiteStore(path: path))).close()
        do {
            let connection = try Connection(path: path, options: Connection.Options())
            try connection.execute(
                "UPDATE strata_metadata SET value = ? WHERE key = 'schema_hash'", [.text(schema.legacyVersionHash)])
            connection.close()
        }
        await (try DataStack(schema, storage: SQLiteStore(path: path))).close()
        let connection = try Connection(path: path, options: Connection.Options())
        defer { connection.close() }
        let statement = try connection.makeStatement("SELECT value FROM strata_metadata WHERE key = 'schema_hash'")
        #expect(try statement.step())
        #expect(statement.value(at: 0) == .text(schema.versionHash))
    }
}

/// An ordered relationship whose hidden position column (`album_position`) a field takes.
@Entity
struct CollidingAlbum {
    @Relationship(inverse: \CollidingTrack.album) var tracks: [CollidingTrack.ID] = []
}

@Entity
struct CollidingTrack {
    @Relationship var album: CollidingAlbum.ID?
    var album_position: Int = 0
}

/// Two entities whose indexes get the same name (`Post_author_name_index`).
@Entity(name: "Post")
struct CollidingPost {
    @Field(.indexed) var author_name: String = ""
}

@Entity(name: "Post_author")
struct CollidingPostAuthor {
    @Field(.indexed) var name: String = ""
}

/// A sum of `Double` prices declared as an `Int`.
@Entity
struct WholeOrder {
    @Relationship(inverse: \WholeLine.order) var lines: Set<WholeLine.ID> = []
    @Derived(sum: \WholeLine.price, over: \WholeOrder.lines) var total: Int = 0
}

@Entity
struct WholeLine {
    var price: Double = 0
    @Relationship var order: WholeOrder.ID?
}

/// A value JSON cannot encode when `best` is not finite.
struct CodedStats: Codable, Hashable, Sendable {
    var best: Double
}

@Entity
struct CodedRun {
    @Coded var stats: CodedStats?
}

/// An actor on a given executor, reporting where its methods run.
private actor ExecutorProbe {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(executor: ThreadExecutor) {
        self.executor = executor
    }

    func label() -> String? {
        ThreadExecutor.currentLabel
    }
}

/// Filters of any size, built in code or in a format string, work or throw a typed error: they never
/// crash the process. They run in `StrataProbe`, a process of its own, so that a crash fails this test
/// instead of taking the test runner down.
@Suite("Long filters", .timeLimit(.minutes(2)))
struct LongFilterTests {
    @Test("10,000 || and && terms work, 10,000 nested ! and parentheses throw, nothing crashes")
    func longFilters() async throws {
        let probe = try #require(Self.probeExecutable(), "the StrataProbe executable was not found beside the tests")
        let child = try ChildProcess.spawn(probe, ["10000"], readOutput: true)
        // The probe runs for seconds in a debug build: wait for it off Swift's pool.
        let (data, process) = try await onOwnThread { (child.readToEnd(), child.waitUntilExit()) }
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationReason == .exit, "the probe crashed (signal \(process.terminationStatus)); it printed:\n\(text)")
        #expect(process.terminationStatus == 0)
        let lines = Dictionary(
            text.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: ":", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces)) : nil
            },
            uniquingKeysWith: { first, _ in first })
        // The ten rows have ages 0…9: every one matches the long OR and the long AND.
        #expect(lines["key-path or"] == "ok count 10")
        #expect(lines["key-path and"] == "ok count 10")
        #expect(lines["format or"] == "ok count 10")
        #expect(lines["nested not"] == "ok error unsupportedQuery")
        #expect(lines["format parentheses"] == "ok error invalidArgument")
        #expect(lines["format not"] == "ok error invalidArgument")
        #expect(text.hasSuffix("done\n"))
    }

    @Test("an in list longer than SQLite binds in one statement throws unsupportedQuery, with a description of a readable size")
    func inListPastTheLimit() async throws {
        let directory = try TemporaryDirectory()
        let stack = try await DataStack(coreSchema)
        let limit = try await onOwnThread { () throws -> Int in
            let connection = try Connection(path: directory.path("limit.sqlite"), options: Connection.Options())
            defer { connection.close() }
            return Int(sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        }
        let names = (0...limit).map { "n\($0)" }
        let error = await expectStrataError(.unsupportedQuery) {
            _ = try await stack.fetchCount(From<CoreOwner>().where(.in(\.name, names)))
        }
        #expect(error?.message.contains("binds \(limit + 1) values") == true, "\(error?.message ?? "")")
        #expect((error?.description.count ?? .max) < 3_000, "the statement's text is cut short in the description")
        #expect(error?.sql?.count ?? 0 > limit, "the error keeps the whole statement")
        // Below the limit, the same list works.
        #expect(try await stack.fetchCount(From<CoreOwner>().where(.in(\.name, names.prefix(1_000)))) == 0)
    }

    /// The probe, built beside the test bundle.
    static func probeExecutable() -> URL? {
        var directories = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for directory in directories {
            let candidate = directory.appendingPathComponent("StrataProbe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
