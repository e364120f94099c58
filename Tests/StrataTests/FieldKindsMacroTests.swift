import Foundation
import Testing
@testable import Strata

// MARK: - Entities with one property of each kind beyond plain attributes

/// A value stored through a custom encode / decode pair; `init(hex:)` is overloaded on purpose, so that
/// the decoding closure alone does not say which type the value is stored as.
struct KindTint: Hashable, Sendable {
    var hex: String
    init(hex: String) { self.hex = hex }
    init(hex: Int) { self.hex = String(hex, radix: 16) }
    static let red = KindTint(hex: "ff0000")
}

/// A `Codable` value stored as JSON.
struct KindAddress: Codable, Hashable, Sendable {
    var city: String
    var zip: String
}

@Entity
struct KindOwner {
    var name: String = ""
    @Relationship(deleteRule: .cascade) var pets: Set<KindPet.ID> = []
    @Relationship var favorites: [KindBook.ID]
    @Field(column: "mentor_id", .indexed) @Relationship(deleteRule: .deny) var mentor: KindOwner.ID?
    @Coded var tags: [String] = ["new"]
    @Coded var address: KindAddress?
    @Coded(encode: { $0.hex }, decode: { KindTint(hex: $0) }) var tint: KindTint = .red
    @Derived(count: \KindOwner.pets) var petCount: Int
    @Derived(sum: \KindPet.age, over: \KindOwner.pets) var totalAge: Int = 0
    @Derived(minimum: \KindPet.age, over: \KindOwner.pets) var youngest: Int?
    @Derived(maximum: \KindPet.age, over: \Self.pets) var oldest: Int?

    var label: String { "\(name) (\(pets.count) pets)" }
    var nickname: String {
        get { name.lowercased() }
        set { name = newValue }
    }
    private var initials: String { String(name.prefix(1)) }
    var checked: Int { get throws { 1 } }
    static var registry: String { "owners" }
}

@Entity(name: "kind_pets")
struct KindPet {
    var name: String = ""
    var age: Int = 0
    @Relationship(inverse: \KindOwner.pets) var owner: KindOwner.ID?
    @Relationship(deleteRule: .cascade) var vet: EntityID<KindOwner>?
    @Relationship var keeper: Optional<KindOwner.ID>
    @Coded(encode: { $0?.hex }, decode: { $0.map { KindTint(hex: $0) } }) var collar: KindTint?
}

@Entity
struct KindBook {
    var title: String = ""
    @Relationship(inverse: \KindOwner.favorites) var readers: Set<EntityID<KindOwner>>
    @Relationship(deleteRule: .nullify) var sequels: Array<EntityID<KindBook>> = []
}

@Suite("@Entity generated code for relationships, coded, derived and virtual properties")
struct FieldKindsMacroTests {
    @Test("stored fields list attributes, to-one relationships and coded fields in declaration order")
    func fields() {
        let fields = KindOwner.entityDescription.fields
        #expect(fields.map(\.property) == ["name", "mentor", "tags", "address", "tint"])
        #expect(fields.map(\.column) == ["name", "mentor_id", "tags", "address", "tint"])
        #expect(fields.map(\.kind) == [.attribute, fields[1].kind, .coded, .coded, .coded])
        #expect(fields.map(\.storageClass) == [.text, .integer, .text, .text, .text])
        #expect(fields.filter(\.isOptional).map(\.property) == ["mentor", "address"])
        #expect(fields[1].isIndexed)
        #expect(fields[1].toOne == ToOneRelationship(target: EntityReference(KindOwner.self), deleteRule: .deny, inverse: nil))

        let pet = KindPet.entityDescription
        #expect(pet.name == "kind_pets")
        #expect(pet.fields.map(\.property) == ["name", "age", "owner", "vet", "keeper", "collar"])
        #expect(pet.fields[2].toOne == ToOneRelationship(target: EntityReference(KindOwner.self), deleteRule: .nullify, inverse: "pets"))
        #expect(pet.fields[3].toOne?.deleteRule == .cascade)
        #expect(pet.fields[4].toOne?.target == EntityReference(KindOwner.self))
        #expect(pet.fields[5].kind == .coded && pet.fields[5].isOptional && pet.fields[5].storageClass == .text)
        #expect(pet.toMany.isEmpty && pet.derived.isEmpty && pet.virtualProperties.isEmpty)
    }

    @Test("to-many relationships, derived fields and virtual properties have their own lists")
    func lists() {
        let owner = KindOwner.entityDescription
        #expect(owner.toMany.map(\.property) == ["pets", "favorites"])
        #expect(owner.toMany.map(\.target) == [EntityReference(KindPet.self), EntityReference(KindBook.self)])
        #expect(owner.toMany.map(\.isOrdered) == [false, true])
        #expect(owner.toMany.map(\.deleteRule) == [.cascade, .nullify])
        #expect(owner.toMany.map(\.inverse) == [nil, nil])
        #expect(
            owner.derived == [
                DerivedDescription(\KindOwner.petCount, property: "petCount", function: .count, relationship: "pets"),
                DerivedDescription(\KindOwner.totalAge, property: "totalAge", function: .sum, relationship: "pets", attribute: "age"),
                DerivedDescription(\KindOwner.youngest, property: "youngest", function: .minimum, relationship: "pets", attribute: "age"),
                DerivedDescription(\KindOwner.oldest, property: "oldest", function: .maximum, relationship: "pets", attribute: "age"),
            ])
        #expect(owner.virtualProperties == ["label", "nickname", "initials"])

        let book = KindBook.entityDescription
        #expect(book.toMany.map(\.property) == ["readers", "sequels"])
        #expect(book.toMany.map(\.isOrdered) == [false, true])
        #expect(book.toMany.map(\.target) == [EntityReference(KindOwner.self), EntityReference(KindBook.self)])
        #expect(book.toMany.map(\.inverse) == ["favorites", nil])
    }

    @Test("member(for:) names the ID, fields, to-many relationships and their counts, derived and virtual properties")
    func member() {
        #expect(KindOwner.member(for: \KindOwner.id) == .id)
        #expect(KindOwner.member(for: \KindOwner.name) == .field(0))
        #expect(KindOwner.member(for: \KindOwner.mentor) == .field(1))
        #expect(KindOwner.member(for: \KindOwner.tint) == .field(4))
        #expect(KindOwner.member(for: \KindOwner.pets) == .toMany(0))
        #expect(KindOwner.member(for: \KindOwner.pets.count) == .toManyCount(0))
        #expect(KindOwner.member(for: \KindOwner.favorites.count) == .toManyCount(1))
        #expect(KindOwner.member(for: \KindOwner.petCount) == .derived(0))
        #expect(KindOwner.member(for: \KindOwner.oldest) == .derived(3))
        #expect(KindOwner.member(for: \KindOwner.label) == .virtual("label"))
        #expect(KindOwner.member(for: \KindOwner.nickname) == .virtual("nickname"))
        #expect(KindOwner.member(for: \KindOwner.name.count) == nil)
        #expect(KindOwner.member(for: \KindOwner.tags.count) == nil)
        #expect(KindOwner.member(for: \KindOwner.pets.isEmpty) == nil)
        #expect(KindPet.member(for: \KindPet.collar) == .field(5))
    }

    @Test("a new object has nil to-one relationships, empty to-many ones, and derived values over no objects")
    func newObject() {
        let owner = KindOwner(newObject: NewObject())
        #expect(owner.pets.isEmpty && owner.favorites.isEmpty && owner.mentor == nil)
        #expect(owner.tags == ["new"] && owner.address == nil && owner.tint == .red)
        #expect(owner.petCount == 0 && owner.totalAge == 0 && owner.youngest == nil && owner.oldest == nil)
        let pet = KindPet(newObject: NewObject())
        #expect(pet.owner == nil && pet.vet == nil && pet.keeper == nil && pet.collar == nil)
        let book = KindBook(newObject: NewObject())
        #expect(book.readers.isEmpty && book.sequels.isEmpty)
    }

    @Test("encodeFields gives the fields, then the to-many relationships, then the derived values")
    func encodeFields() {
        var owner = KindOwner(newObject: NewObject())
        owner.name = "Ann"
        owner.mentor = KindOwner.ID(rawValue: 9)
        owner.address = KindAddress(city: "Lyon", zip: "69001")
        owner.tint = KindTint(hex: "00ff00")
        owner.pets = [KindPet.ID(rawValue: 5), KindPet.ID(rawValue: 2)]
        owner.favorites = [KindBook.ID(rawValue: 8), KindBook.ID(rawValue: 3)]
        owner.youngest = 4
        var encoder = FieldEncoder.collecting()
        owner.encodeFields(to: &encoder)
        #expect(
            encoder.values == [
                .text("Ann"), .integer(9), .text(#"["new"]"#), .text(#"{"city":"Lyon","zip":"69001"}"#),
                .text("00ff00"),
            ])
        #expect(encoder.relationships == [[2, 5], [8, 3]])
        #expect(encoder.derivedValues == [.integer(0), .integer(0), .integer(4), .null])

        var pet = KindPet(newObject: NewObject())
        pet.collar = KindTint(hex: "abc")
        var petEncoder = FieldEncoder.collecting()
        pet.encodeFields(to: &petEncoder)
        #expect(petEncoder.values == [.text(""), .integer(0), .null, .null, .null, .text("abc")])
        #expect(petEncoder.relationships.isEmpty && petEncoder.derivedValues.isEmpty)
    }

    @Test("init(row:) reads the ID, the fields, the to-many relationships and the derived values in that order")
    func rowDecoding() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.path("kinds.sqlite"), options: Connection.Options())
        let statement = try connection.makeStatement(
            #"SELECT 7, 'Ann', 9, '["a","b"]', NULL, '00ff00', '[5,2]', '[8,3]', 2, 11, 4, 7"#)
        #expect(try statement.step())
        let owner = try KindOwner(row: Row(statement: statement))
        #expect(owner.id == KindOwner.ID(rawValue: 7))
        #expect(owner.name == "Ann" && owner.mentor == KindOwner.ID(rawValue: 9))
        #expect(owner.tags == ["a", "b"] && owner.address == nil && owner.tint == KindTint(hex: "00ff00"))
        #expect(owner.pets == [KindPet.ID(rawValue: 2), KindPet.ID(rawValue: 5)])
        #expect(owner.favorites == [KindBook.ID(rawValue: 8), KindBook.ID(rawValue: 3)])
        #expect(owner.petCount == 2 && owner.totalAge == 11 && owner.youngest == 4 && owner.oldest == 7)

        let petStatement = try connection.makeStatement("SELECT 3, 'Rex', 4, 7, NULL, 7, 'abc'")
        #expect(try petStatement.step())
        let pet = try KindPet(row: Row(statement: petStatement))
        #expect(pet.owner == KindOwner.ID(rawValue: 7) && pet.vet == nil && pet.keeper == KindOwner.ID(rawValue: 7))
        #expect(pet.collar == KindTint(hex: "abc"))
    }
}
