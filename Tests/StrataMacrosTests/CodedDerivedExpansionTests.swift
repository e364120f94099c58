import Testing

@Suite("@Entity expansion of coded, derived and virtual properties")
struct CodedDerivedExpansionTests {
    @Test("A @Coded property is stored as JSON; collections, dictionaries, sets and custom types are allowed")
    func codedJSON() {
        assertStrataExpansion(
            #"""
            @Entity struct Profile {
                @Coded var tags: [String] = []
                @Coded() var scores: [String: Int]?
                @Field(column: "prefs", .indexed) @Coded var settings: Settings = Settings()
                @Coded var seen: Set<Int> = [1]
                @Coded @Field(dynamicInitialValue: { [Date()] }) var visits: Array<Date>
            }
            """#,
            expandedSource: #"""
                struct Profile {
                    var tags: [String] = []
                    var scores: [String: Int]?
                    var settings: Settings = Settings()
                    var seen: Set<Int> = [1]
                    var visits: Array<Date>

                    typealias ID = Strata.EntityID<Profile>

                    nonisolated var id: Strata.EntityID<Profile> = Strata.EntityID<Profile>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Profile", typeName: "Profile", fields: [
                        Strata.FieldDescription.coded(\Profile.tags, property: "tags", column: "tags", options: [], default: []),
                        Strata.FieldDescription.coded(\Profile.scores, property: "scores", column: "scores", options: [], isOptional: true),
                        Strata.FieldDescription.coded(\Profile.settings, property: "settings", column: "prefs", options: [.indexed], default: Settings()),
                        Strata.FieldDescription.coded(\Profile.seen, property: "seen", column: "seen", options: [], default: [1]),
                        Strata.FieldDescription.coded(\Profile.visits, property: "visits", column: "visits", options: []).initialJSONValues(_StrataScope.visits),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encodeJSON(self.tags)
                        encoder.encodeJSON(self.scores)
                        encoder.encodeJSON(self.settings)
                        encoder.encodeJSON(self.seen)
                        encoder.encodeJSON(self.visits)
                    }

                    nonisolated enum _StrataScope {
                        static let visits = Strata.DynamicInitialValue(\Profile.visits, { [Date()] })
                    }
                }

                nonisolated extension Profile: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.tags = try row.decodeJSON(at: 1)
                        self.scores = try row.decodeJSON(at: 2)
                        self.settings = try row.decodeJSON(at: 3)
                        self.seen = try row.decodeJSON(at: 4)
                        self.visits = try row.decodeJSON(at: 5)
                    }

                    init(newObject: Strata.NewObject) {
                        self.scores = nil
                        self.visits = Self._StrataScope.visits.make()
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Profile>) -> Strata.EntityMember? {
                        if keyPath == \Profile.id { return .id }
                        if keyPath == \Profile.tags { return .field(0) }
                        if keyPath == \Profile.scores { return .field(1) }
                        if keyPath == \Profile.settings { return .field(2) }
                        if keyPath == \Profile.seen { return .field(3) }
                        if keyPath == \Profile.visits { return .field(4) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Profile>] {
                        [
                            .init(.id, \Strata.EntityID<Profile>.id, \Strata.EntityID<Profile>?.?.id),
                            .init(.field(0), \Strata.EntityID<Profile>.tags, \Strata.EntityID<Profile>?.?.tags),
                            .init(.field(1), \Strata.EntityID<Profile>.scores, \Strata.EntityID<Profile>?.?.scores),
                            .init(.field(2), \Strata.EntityID<Profile>.settings, \Strata.EntityID<Profile>?.?.settings),
                            .init(.field(3), \Strata.EntityID<Profile>.seen, \Strata.EntityID<Profile>?.?.seen),
                            .init(.field(4), \Strata.EntityID<Profile>.visits, \Strata.EntityID<Profile>?.?.visits),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Profile] {
                        var objects: [Profile] = []
                        while let row = try rows.next() {
                            objects.append(try Profile(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("A custom @Coded property is described, decoded and encoded through its closures")
    func codedCustom() {
        assertStrataExpansion(
            #"""
            @Entity struct Theme {
                var name: String = ""
                @Coded(encode: { $0.hex }, decode: { Color(hex: $0) }) var tint: Color = .red
                @Field(column: "accent_hex") @Coded(encode: \.hex, decode: Color.init(hex:)) var accent: Color?
            }
            """#,
            expandedSource: #"""
                struct Theme {
                    var name: String = ""
                    var tint: Color = .red
                    var accent: Color?

                    typealias ID = Strata.EntityID<Theme>

                    nonisolated var id: Strata.EntityID<Theme> = Strata.EntityID<Theme>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Theme", typeName: "Theme", fields: [
                        Strata.FieldDescription.stored(\Theme.name, property: "name", column: "name", options: [], default: ""),
                        Strata.FieldDescription.coded(\Theme.tint, encode: { $0.hex }, property: "tint", column: "tint", options: [], default: .red),
                        Strata.FieldDescription.coded(\Theme.accent, encode: \.hex, property: "accent", column: "accent_hex", options: []),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.name)
                        encoder.encode(Self._StrataScope.tint.encode(self.tint))
                        encoder.encode(Self._StrataScope.accent.encode(self.accent))
                    }

                    nonisolated enum _StrataScope {
                        static let tint = Strata.CodedClosures(\Theme.tint, encode: { $0.hex }, decode: { Color(hex: $0) })
                        static let accent = Strata.CodedClosures(\Theme.accent, encode: \.hex, decode: Color.init(hex:))
                    }
                }

                nonisolated extension Theme: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.name = try row.decode(at: 1)
                        self.tint = try Self._StrataScope.tint.decode(row.decode(at: 2))
                        self.accent = try Self._StrataScope.accent.decode(row.decode(at: 3))
                    }

                    init(newObject: Strata.NewObject) {
                        self.accent = nil
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Theme>) -> Strata.EntityMember? {
                        if keyPath == \Theme.id { return .id }
                        if keyPath == \Theme.name { return .field(0) }
                        if keyPath == \Theme.tint { return .field(1) }
                        if keyPath == \Theme.accent { return .field(2) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Theme>] {
                        [
                            .init(.id, \Strata.EntityID<Theme>.id, \Strata.EntityID<Theme>?.?.id),
                            .init(.field(0), \Strata.EntityID<Theme>.name, \Strata.EntityID<Theme>?.?.name),
                            .init(.field(1), \Strata.EntityID<Theme>.tint, \Strata.EntityID<Theme>?.?.tint),
                            .init(.field(2), \Strata.EntityID<Theme>.accent, \Strata.EntityID<Theme>?.?.accent),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Theme] {
                        var objects: [Theme] = []
                        while let row = try rows.next() {
                            objects.append(try Theme(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("Derived fields are listed apart, read after the to-many relationships, and start at their value over no objects")
    func derived() {
        assertStrataExpansion(
            #"""
            @Entity struct Person {
                @Derived(count: \Person.pets) var petCount: Int
                @Derived(count: \Self.pets) var petTally = 0
                @Derived(sum: \Pet.age, over: \Person.pets) var totalAge: Int = 0
                @Derived(sum: \Pet.weight, over: \Person.pets) var totalWeight: Double
                @Derived(minimum: \Pet.age, over: \Person.pets) var youngest: Int?
                @Derived(maximum: \Pet.born, over: \Person.pets) var latest: Date? = nil
                @Relationship var pets: Set<Pet.ID> = []
            }
            """#,
            expandedSource: #"""
                struct Person {
                    var petCount: Int
                    var petTally = 0
                    var totalAge: Int = 0
                    var totalWeight: Double
                    var youngest: Int?
                    var latest: Date? = nil
                    var pets: Set<Pet.ID> = []

                    typealias ID = Strata.EntityID<Person>

                    nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Person", typeName: "Person", fields: [], toMany: [
                        Strata.ToManyDescription.make(\Person.pets, property: "pets"),
                    ], derived: [
                        Strata.DerivedDescription(\Person.petCount, property: "petCount", function: .count, relationship: "pets"),
                        Strata.DerivedDescription(\Person.petTally, property: "petTally", function: .count, relationship: "pets"),
                        Strata.DerivedDescription(\Person.totalAge, property: "totalAge", function: .sum, relationship: "pets", attribute: "age"),
                        Strata.DerivedDescription(\Person.totalWeight, property: "totalWeight", function: .sum, relationship: "pets", attribute: "weight"),
                        Strata.DerivedDescription(\Person.youngest, property: "youngest", function: .minimum, relationship: "pets", attribute: "age"),
                        Strata.DerivedDescription(\Person.latest, property: "latest", function: .maximum, relationship: "pets", attribute: "born"),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encodeRelationship(self.pets)
                        encoder.encodeDerived(self.petCount)
                        encoder.encodeDerived(self.petTally)
                        encoder.encodeDerived(self.totalAge)
                        encoder.encodeDerived(self.totalWeight)
                        encoder.encodeDerived(self.youngest)
                        encoder.encodeDerived(self.latest)
                    }
                }

                nonisolated extension Person: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.pets = try row.decodeIDs(at: 1)
                        self.petCount = try row.decode(at: 2)
                        self.petTally = try row.decode(at: 3)
                        self.totalAge = try row.decode(at: 4)
                        self.totalWeight = try row.decode(at: 5)
                        self.youngest = try row.decode(at: 6)
                        self.latest = try row.decode(at: 7)
                    }

                    init(newObject: Strata.NewObject) {
                        self.petCount = 0
                        self.totalWeight = 0
                        self.youngest = nil
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Person>) -> Strata.EntityMember? {
                        if keyPath == \Person.id { return .id }
                        if keyPath == \Person.pets { return .toMany(0) }
                        if keyPath == \Person.pets.count { return .toManyCount(0) }
                        if keyPath == \Person.petCount { return .derived(0) }
                        if keyPath == \Person.petTally { return .derived(1) }
                        if keyPath == \Person.totalAge { return .derived(2) }
                        if keyPath == \Person.totalWeight { return .derived(3) }
                        if keyPath == \Person.youngest { return .derived(4) }
                        if keyPath == \Person.latest { return .derived(5) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Person>] {
                        [
                            .init(.id, \Strata.EntityID<Person>.id, \Strata.EntityID<Person>?.?.id),
                            .init(.toMany(0), \Strata.EntityID<Person>.pets, \Strata.EntityID<Person>?.?.pets),
                            .init(.toManyCount(0), \Strata.EntityID<Person>.pets?.count, \Strata.EntityID<Person>?.?.pets?.count),
                            .init(.derived(0), \Strata.EntityID<Person>.petCount, \Strata.EntityID<Person>?.?.petCount),
                            .init(.derived(1), \Strata.EntityID<Person>.petTally, \Strata.EntityID<Person>?.?.petTally),
                            .init(.derived(2), \Strata.EntityID<Person>.totalAge, \Strata.EntityID<Person>?.?.totalAge),
                            .init(.derived(3), \Strata.EntityID<Person>.totalWeight, \Strata.EntityID<Person>?.?.totalWeight),
                            .init(.derived(4), \Strata.EntityID<Person>.youngest, \Strata.EntityID<Person>?.?.youngest),
                            .init(.derived(5), \Strata.EntityID<Person>.latest, \Strata.EntityID<Person>?.?.latest),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Person] {
                        var objects: [Person] = []
                        while let row = try rows.next() {
                            objects.append(try Person(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("Computed instance properties are virtual, unless no key path can name them (on every platform and OS version, outside any global actor); static ones are ignored")
    func virtualProperties() {
        assertStrataExpansion(
            #"""
            @Entity struct Person {
                var first: String = ""
                var full: String { first }
                var `init`: String {
                    get { first }
                    set { first = newValue }
                }
                var reading: Int { _read { yield 1 } }
                var checked: Int { get throws { 1 } }
                var awaited: Int { get async { 1 } }
                var counted: Int { mutating get { 1 } }
                @MainActor var isolated: Int { 1 }
                @Storage var guarded: Int { 1 }
                @inlinable var fast: Int { 1 }
                @available(*, unavailable) var gone: Int { 1 }
                @available(*, deprecated) var old: Int { 1 }
                @available(macOS 26, *) var recent: Int { 1 }
                @available(iOS, introduced: 26) var labeled: Int { 1 }
                @available(swift, obsoleted: 5) var obsolete: Int { 1 }
                static var shared: Int { 1 }
                subscript(index: Int) -> Int { index }
            }
            """#,
            expandedSource: #"""
                struct Person {
                    var first: String = ""
                    var full: String { first }
                    var `init`: String {
                        get { first }
                        set { first = newValue }
                    }
                    var reading: Int { _read { yield 1 } }
                    var checked: Int { get throws { 1 } }
                    var awaited: Int { get async { 1 } }
                    var counted: Int { mutating get { 1 } }
                    @MainActor var isolated: Int { 1 }
                    @Storage var guarded: Int { 1 }
                    @inlinable var fast: Int { 1 }
                    @available(*, unavailable) var gone: Int { 1 }
                    @available(*, deprecated) var old: Int { 1 }
                    @available(macOS 26, *) var recent: Int { 1 }
                    @available(iOS, introduced: 26) var labeled: Int { 1 }
                    @available(swift, obsoleted: 5) var obsolete: Int { 1 }
                    static var shared: Int { 1 }
                    subscript(index: Int) -> Int { index }

                    typealias ID = Strata.EntityID<Person>

                    nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Person", typeName: "Person", fields: [
                        Strata.FieldDescription.stored(\Person.first, property: "first", column: "first", options: [], default: ""),
                    ], virtualProperties: ["full", "init", "reading", "fast", "old"])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.first)
                    }
                }

                nonisolated extension Person: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.first = try row.decode(at: 1)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Person>) -> Strata.EntityMember? {
                        if keyPath == \Person.id { return .id }
                        if keyPath == \Person.first { return .field(0) }
                        if keyPath == \Person.full { return .virtual("full") }
                        if keyPath == \Person.`init` { return .virtual("init") }
                        if keyPath == \Person.reading { return .virtual("reading") }
                        if keyPath == \Person.fast { return .virtual("fast") }
                        if keyPath == \Person.old { return .virtual("old") }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Person>] {
                        [
                            .init(.id, \Strata.EntityID<Person>.id, \Strata.EntityID<Person>?.?.id),
                            .init(.field(0), \Strata.EntityID<Person>.first, \Strata.EntityID<Person>?.?.first),
                            .init(.virtual("full"), \Strata.EntityID<Person>.full, \Strata.EntityID<Person>?.?.full),
                            .init(.virtual("init"), \Strata.EntityID<Person>.`init`, \Strata.EntityID<Person>?.?.`init`),
                            .init(.virtual("reading"), \Strata.EntityID<Person>.reading, \Strata.EntityID<Person>?.?.reading),
                            .init(.virtual("fast"), \Strata.EntityID<Person>.fast, \Strata.EntityID<Person>?.?.fast),
                            .init(.virtual("old"), \Strata.EntityID<Person>.old, \Strata.EntityID<Person>?.?.old),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Person] {
                        var objects: [Person] = []
                        while let row = try rows.next() {
                            objects.append(try Person(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }
}
