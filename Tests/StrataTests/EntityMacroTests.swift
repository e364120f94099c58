import Foundation
import Testing
@testable import Strata

// MARK: - An entity with one field of each kind the macro handles

enum GadgetStatus: String, DatabaseValueConvertible {
    case draft, live
}

@Entity(name: "gadgets")
struct Gadget {
    var name: String = ""
    @Field(column: "unit_price", .indexed) var price: Double = 9.5
    @Field(.unique) var serial: Int64 = 0
    var status: GadgetStatus = .draft
    var notes: String?
    var weight: Float? = 1.25
    var isActive = true
    var payload: Data = Data([1, 2])
    @Field(dynamicInitialValue: { UUID() }) var token: UUID
    @Field(.indexed, dynamicInitialValue: { Date() }) var created: Date = .distantPast
    private(set) var revision: UInt8 = 1
    private var secret: String = "s"
    var edits: Int = 0 {
        didSet { revision &+= 1 }
    }

    var label: String { "\(name) #\(serial)" }
    static let catalog = "main"

    func hasSecret(_ value: String) -> Bool { secret == value }
}

@Suite("@Entity generated code")
struct EntityMacroTests {
    @Test("the description lists names, columns, storage classes, optionality, options and defaults in order")
    func description() {
        let description = Gadget.entityDescription
        #expect(description.name == "gadgets")
        #expect(description.typeName == "Gadget")
        #expect(
            description.fields.map(\.property) == [
                "name", "price", "serial", "status", "notes", "weight", "isActive", "payload", "token", "created",
                "revision", "secret", "edits",
            ])
        #expect(description.fields.map(\.column)[0...2] == ["name", "unit_price", "serial"])
        #expect(
            description.fields.map(\.storageClass) == [
                .text, .real, .integer, .text, .text, .real, .integer, .blob, .blob, .real, .integer, .text, .integer,
            ])
        #expect(description.fields.filter(\.isOptional).map(\.property) == ["notes", "weight"])
        #expect(description.fields.filter(\.isUnique).map(\.property) == ["serial"])
        #expect(description.fields.filter(\.isIndexed).map(\.property) == ["price", "created"])
        #expect(description.fields.filter(\.hasDynamicInitialValue).map(\.property) == ["token", "created"])

        let defaults = Dictionary(uniqueKeysWithValues: description.fields.map { ($0.property, $0.defaultValue) })
        #expect(defaults["name"] == .text(""))
        #expect(defaults["price"] == .real(9.5))
        #expect(defaults["status"] == .text("draft"))
        #expect(defaults["weight"] == .real(1.25))
        #expect(defaults["isActive"] == .integer(1))
        #expect(defaults["payload"] == .blob(Data([1, 2])))
        #expect(defaults["created"] == Date.distantPast.databaseValue)
        #expect(defaults["notes"] == .some(nil))
        #expect(defaults["token"] == .some(nil))
    }

    @Test("member(for:) finds the ID and each stored field, and nothing else")
    func member() {
        #expect(Gadget.member(for: \Gadget.name) == .field(0))
        #expect(Gadget.member(for: \Gadget.price) == .field(1))
        #expect(Gadget.member(for: \Gadget.token) == .field(8))
        #expect(Gadget.member(for: \Gadget.edits) == .field(12))
        #expect(Gadget.member(for: \Gadget.id) == .id)
        #expect(Gadget.member(for: \Gadget.name.count) == nil)
    }

    @Test("a new object has the defaults, nil optionals, an unsaved ID and fresh dynamic values each time")
    func newObject() {
        let before = Date()
        let first = Gadget(newObject: NewObject())
        let second = Gadget(newObject: NewObject())
        #expect(first.id == .unsaved)
        #expect(first.name == "" && first.price == 9.5 && first.status == .draft && first.isActive)
        #expect(first.notes == nil && first.weight == 1.25 && first.revision == 1)
        #expect(first.hasSecret("s"))
        #expect(first.token != second.token)
        #expect(first.created >= before && first.created != .distantPast)
    }

    @Test("encodeFields gives one value per field, in the order of the description")
    func encodeFields() {
        var gadget = Gadget(newObject: NewObject())
        gadget.name = "Lamp"
        gadget.serial = 42
        gadget.status = .live
        gadget.notes = "bright"
        gadget.weight = nil
        gadget.edits = 3
        var encoder = FieldEncoder.collecting()
        gadget.encodeFields(to: &encoder)
        #expect(encoder.values.count == Gadget.entityDescription.fields.count)
        #expect(
            encoder.values == [
                .text("Lamp"), .real(9.5), .integer(42), .text("live"), .text("bright"), .null, .integer(1),
                .blob(Data([1, 2])), gadget.token.databaseValue, gadget.created.databaseValue, .integer(2), .text("s"),
                .integer(3),
            ])
    }

    @Test("objects are equal and hash alike exactly when their ID and every field are")
    func hashable() {
        let gadget = Gadget(newObject: NewObject())
        var copy = gadget
        #expect(copy == gadget && Set([gadget, copy]).count == 1)
        copy.name = "Other"
        #expect(copy != gadget)
        copy = gadget
        copy.id = EntityID(rawValue: 7)
        #expect(copy != gadget)
    }

    @Test("a stored object reads back equal, through the generated encoder and row decoder")
    func storeRoundTrip() async throws {
        let stack = try await DataStack(Schema("V1", Gadget.self))
        let created = try await stack.perform { tx in
            try tx.create(Into<Gadget>()) {
                $0.name = "Lamp"
                $0.notes = "bright"
                $0.weight = nil
                $0.status = .live
            }
        }
        #expect(created.id.isSaved)
        let fetched = try await stack.fetchAll(From<Gadget>())
        #expect(fetched == [created])
    }
}
