import Testing

@Suite("@Entity expansion of relationships")
struct RelationshipExpansionTests {
    @Test("A to-one relationship is an optional ID stored in a column, with its column, options, delete rule and inverse")
    func toOne() {
        assertStrataExpansion(
            #"""
            @Entity struct Pet {
                @Relationship(deleteRule: .cascade, inverse: \Person.pets) var owner: Person.ID?
                @Relationship var vet: EntityID<Person>?
                @Relationship(deleteRule: DeleteRule.deny) var breeder: Optional<Person.ID>
                @Field(column: "walker_id", .indexed, .unique) @Relationship(deleteRule: Strata.DeleteRule.nullify, inverse: nil) var walker: Strata.EntityID<Person>? = nil
                @Relationship(inverse: \Library.Shelf.`default`) var shelf: Swift.Optional<Self.ID>
            }
            """#,
            expandedSource: #"""
                struct Pet {
                    var owner: Person.ID?
                    var vet: EntityID<Person>?
                    var breeder: Optional<Person.ID>
                    var walker: Strata.EntityID<Person>? = nil
                    var shelf: Swift.Optional<Self.ID>

                    typealias ID = Strata.EntityID<Pet>

                    nonisolated var id: Strata.EntityID<Pet> = Strata.EntityID<Pet>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Pet", typeName: "Pet", fields: [
                        Strata.FieldDescription.toOne(\Pet.owner, property: "owner", column: "owner", options: [], deleteRule: .cascade, inverse: "pets"),
                        Strata.FieldDescription.toOne(\Pet.vet, property: "vet", column: "vet", options: []),
                        Strata.FieldDescription.toOne(\Pet.breeder, property: "breeder", column: "breeder", options: [], deleteRule: .deny),
                        Strata.FieldDescription.toOne(\Pet.walker, property: "walker", column: "walker_id", options: [.indexed, .unique]),
                        Strata.FieldDescription.toOne(\Pet.shelf, property: "shelf", column: "shelf", options: [], inverse: "default"),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encodeID(self.owner)
                        encoder.encodeID(self.vet)
                        encoder.encodeID(self.breeder)
                        encoder.encodeID(self.walker)
                        encoder.encodeID(self.shelf)
                    }
                }

                nonisolated extension Pet: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.owner = try row.decodeID(at: 1)
                        self.vet = try row.decodeID(at: 2)
                        self.breeder = try row.decodeID(at: 3)
                        self.walker = try row.decodeID(at: 4)
                        self.shelf = try row.decodeID(at: 5)
                    }

                    init(newObject: Strata.NewObject) {
                        self.owner = nil
                        self.vet = nil
                        self.breeder = nil
                        self.shelf = nil
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Pet>) -> Strata.EntityMember? {
                        if keyPath == \Pet.id { return .id }
                        if keyPath == \Pet.owner { return .field(0) }
                        if keyPath == \Pet.vet { return .field(1) }
                        if keyPath == \Pet.breeder { return .field(2) }
                        if keyPath == \Pet.walker { return .field(3) }
                        if keyPath == \Pet.shelf { return .field(4) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Pet>] {
                        [
                            .init(.id, \Strata.EntityID<Pet>.id, \Strata.EntityID<Pet>?.?.id),
                            .toOne(field: 0, \Pet.owner, \Strata.EntityID<Pet>.owner, \Strata.EntityID<Pet>?.?.owner),
                            .toOne(field: 1, \Pet.vet, \Strata.EntityID<Pet>.vet, \Strata.EntityID<Pet>?.?.vet),
                            .toOne(field: 2, \Pet.breeder, \Strata.EntityID<Pet>.breeder, \Strata.EntityID<Pet>?.?.breeder),
                            .toOne(field: 3, \Pet.walker, \Strata.EntityID<Pet>.walker, \Strata.EntityID<Pet>?.?.walker),
                            .toOne(field: 4, \Pet.shelf, \Strata.EntityID<Pet>.shelf, \Strata.EntityID<Pet>?.?.shelf),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Pet] {
                        var objects: [Pet] = []
                        while let row = try rows.next() {
                            objects.append(try Pet(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("A to-many relationship is a set or an array of IDs, listed apart, empty in a new object unless declared")
    func toMany() {
        assertStrataExpansion(
            #"""
            public struct Wrapper {
                @Entity public struct Person {
                    var name: String = ""
                    @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: Set<Pet.ID> = []
                    @Relationship var favorites: [Book.ID]
                    @Relationship(deleteRule: .deny) var lent: Array<EntityID<Book>> = []
                    @Relationship(inverse: \Person.friends) var friends: Swift.Set<Strata.EntityID<Person>>
                    @Relationship var `default`: [ID]
                }
            }
            """#,
            expandedSource: #"""
                public struct Wrapper {
                    public struct Person {
                        var name: String = ""
                        var pets: Set<Pet.ID> = []
                        var favorites: [Book.ID]
                        var lent: Array<EntityID<Book>> = []
                        var friends: Swift.Set<Strata.EntityID<Person>>
                        var `default`: [ID]

                        public typealias ID = Strata.EntityID<Person>

                        public nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved

                        public nonisolated static let entityDescription = Strata.EntityDescription(name: "Person", typeName: "Person", fields: [
                            Strata.FieldDescription.stored(\Person.name, property: "name", column: "name", options: [], default: ""),
                        ], toMany: [
                            Strata.ToManyDescription.make(\Person.pets, property: "pets", deleteRule: .cascade, inverse: "owner"),
                            Strata.ToManyDescription.make(\Person.favorites, property: "favorites"),
                            Strata.ToManyDescription.make(\Person.lent, property: "lent", deleteRule: .deny),
                            Strata.ToManyDescription.make(\Person.friends, property: "friends", inverse: "friends"),
                            Strata.ToManyDescription.make(\Person.`default`, property: "default"),
                        ])

                        public nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                            encoder.encode(self.name)
                            encoder.encodeRelationship(self.pets)
                            encoder.encodeRelationship(self.favorites)
                            encoder.encodeRelationship(self.lent)
                            encoder.encodeRelationship(self.friends)
                            encoder.encodeRelationship(self.`default`)
                        }
                    }
                }

                nonisolated extension Wrapper.Person: Strata.Entity {
                    public init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.name = try row.decode(at: 1)
                        self.pets = try row.decodeIDs(at: 2)
                        self.favorites = try row.decodeIDs(at: 3)
                        self.lent = try row.decodeIDs(at: 4)
                        self.friends = try row.decodeIDs(at: 5)
                        self.`default` = try row.decodeIDs(at: 6)
                    }

                    public init(newObject: Strata.NewObject) {
                        self.favorites = []
                        self.friends = []
                        self.`default` = []
                    }

                    public static func member(for keyPath: Swift.PartialKeyPath<Wrapper.Person>) -> Strata.EntityMember? {
                        if keyPath == \Wrapper.Person.id { return .id }
                        if keyPath == \Wrapper.Person.name { return .field(0) }
                        if keyPath == \Wrapper.Person.pets { return .toMany(0) }
                        if keyPath == \Wrapper.Person.pets.count { return .toManyCount(0) }
                        if keyPath == \Wrapper.Person.favorites { return .toMany(1) }
                        if keyPath == \Wrapper.Person.favorites.count { return .toManyCount(1) }
                        if keyPath == \Wrapper.Person.lent { return .toMany(2) }
                        if keyPath == \Wrapper.Person.lent.count { return .toManyCount(2) }
                        if keyPath == \Wrapper.Person.friends { return .toMany(3) }
                        if keyPath == \Wrapper.Person.friends.count { return .toManyCount(3) }
                        if keyPath == \Wrapper.Person.`default` { return .toMany(4) }
                        if keyPath == \Wrapper.Person.`default`.count { return .toManyCount(4) }
                        return nil
                    }

                    public static func navigableMembers() -> [Strata.NavigableMember<Wrapper.Person>] {
                        [
                            .init(.id, \Strata.EntityID<Wrapper.Person>.id, \Strata.EntityID<Wrapper.Person>?.?.id),
                            .init(.field(0), \Strata.EntityID<Wrapper.Person>.name, \Strata.EntityID<Wrapper.Person>?.?.name),
                            .init(.toMany(0), \Strata.EntityID<Wrapper.Person>.pets, \Strata.EntityID<Wrapper.Person>?.?.pets),
                            .init(.toManyCount(0), \Strata.EntityID<Wrapper.Person>.pets?.count, \Strata.EntityID<Wrapper.Person>?.?.pets?.count),
                            .init(.toMany(1), \Strata.EntityID<Wrapper.Person>.favorites, \Strata.EntityID<Wrapper.Person>?.?.favorites),
                            .init(.toManyCount(1), \Strata.EntityID<Wrapper.Person>.favorites?.count, \Strata.EntityID<Wrapper.Person>?.?.favorites?.count),
                            .init(.toMany(2), \Strata.EntityID<Wrapper.Person>.lent, \Strata.EntityID<Wrapper.Person>?.?.lent),
                            .init(.toManyCount(2), \Strata.EntityID<Wrapper.Person>.lent?.count, \Strata.EntityID<Wrapper.Person>?.?.lent?.count),
                            .init(.toMany(3), \Strata.EntityID<Wrapper.Person>.friends, \Strata.EntityID<Wrapper.Person>?.?.friends),
                            .init(.toManyCount(3), \Strata.EntityID<Wrapper.Person>.friends?.count, \Strata.EntityID<Wrapper.Person>?.?.friends?.count),
                            .init(.toMany(4), \Strata.EntityID<Wrapper.Person>.`default`, \Strata.EntityID<Wrapper.Person>?.?.`default`),
                            .init(.toManyCount(4), \Strata.EntityID<Wrapper.Person>.`default`?.count, \Strata.EntityID<Wrapper.Person>?.?.`default`?.count),
                        ]
                    }

                    public static func decodeAll(_ rows: Strata.RowSequence) throws -> [Wrapper.Person] {
                        var objects: [Wrapper.Person] = []
                        while let row = try rows.next() {
                            objects.append(try Wrapper.Person(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("An entity with only to-many relationships has no fields")
    func onlyToMany() {
        assertStrataExpansion(
            #"""
            @Entity struct Tag {
                @Relationship var items: Set<Item.ID>
            }
            """#,
            expandedSource: #"""
                struct Tag {
                    var items: Set<Item.ID>

                    typealias ID = Strata.EntityID<Tag>

                    nonisolated var id: Strata.EntityID<Tag> = Strata.EntityID<Tag>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Tag", typeName: "Tag", fields: [], toMany: [
                        Strata.ToManyDescription.make(\Tag.items, property: "items"),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encodeRelationship(self.items)
                    }
                }

                nonisolated extension Tag: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.items = try row.decodeIDs(at: 1)
                    }

                    init(newObject: Strata.NewObject) {
                        self.items = []
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Tag>) -> Strata.EntityMember? {
                        if keyPath == \Tag.id { return .id }
                        if keyPath == \Tag.items { return .toMany(0) }
                        if keyPath == \Tag.items.count { return .toManyCount(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Tag>] {
                        [
                            .init(.id, \Strata.EntityID<Tag>.id, \Strata.EntityID<Tag>?.?.id),
                            .init(.toMany(0), \Strata.EntityID<Tag>.items, \Strata.EntityID<Tag>?.?.items),
                            .init(.toManyCount(0), \Strata.EntityID<Tag>.items?.count, \Strata.EntityID<Tag>?.?.items?.count),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Tag] {
                        var objects: [Tag] = []
                        while let row = try rows.next() {
                            objects.append(try Tag(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("An ID without @Relationship stays a plain stored field")
    func plainID() {
        assertStrataExpansion(
            #"""
            @Entity struct Pet {
                var ownerID: Person.ID?
            }
            """#,
            expandedSource: #"""
                struct Pet {
                    var ownerID: Person.ID?

                    typealias ID = Strata.EntityID<Pet>

                    nonisolated var id: Strata.EntityID<Pet> = Strata.EntityID<Pet>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Pet", typeName: "Pet", fields: [
                        Strata.FieldDescription.stored(\Pet.ownerID, property: "ownerID", column: "ownerID", options: []),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.ownerID)
                    }
                }

                nonisolated extension Pet: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.ownerID = try row.decode(at: 1)
                    }

                    init(newObject: Strata.NewObject) {
                        self.ownerID = nil
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Pet>) -> Strata.EntityMember? {
                        if keyPath == \Pet.id { return .id }
                        if keyPath == \Pet.ownerID { return .field(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Pet>] {
                        [
                            .init(.id, \Strata.EntityID<Pet>.id, \Strata.EntityID<Pet>?.?.id),
                            .init(.field(0), \Strata.EntityID<Pet>.ownerID, \Strata.EntityID<Pet>?.?.ownerID),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Pet] {
                        var objects: [Pet] = []
                        while let row = try rows.next() {
                            objects.append(try Pet(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }
}
