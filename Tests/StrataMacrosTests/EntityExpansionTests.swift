import StrataMacros
import SwiftSyntaxMacroExpansion
import Testing

@Suite("@Entity expansion")
struct EntityExpansionTests {
    @Test("A public struct gets public members, named columns, options, defaults, dynamic initial values and virtual properties")
    func fullExample() {
        assertStrataExpansion(
            #"""
            @Entity(name: "People")
            public struct Person {
                var name: String = ""
                @Field(column: "years", .indexed) var age: Int = 0
                @Field(.unique) var email: String?
                @Field(dynamicInitialValue: { UUID() }) var token: UUID
                var nickname = "x"                 // no type annotation is allowed
                var computed: Int { age * 2 }      // computed: virtual
                static var shared = 1              // static: ignored
            }
            """#,
            expandedSource: #"""

                public struct Person {
                    var name: String = ""
                    var age: Int = 0
                    var email: String?
                    var token: UUID
                    var nickname = "x"                 // no type annotation is allowed
                    var computed: Int { age * 2 }      // computed: virtual
                    static var shared = 1              // static: ignored

                    public typealias ID = Strata.EntityID<Person>

                    public nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved

                    public nonisolated static let entityDescription = Strata.EntityDescription(name: "People", typeName: "Person", fields: [
                        Strata.FieldDescription.stored(\Person.name, property: "name", column: "name", options: [], default: ""),
                        Strata.FieldDescription.stored(\Person.age, property: "age", column: "years", options: [.indexed], default: 0),
                        Strata.FieldDescription.stored(\Person.email, property: "email", column: "email", options: [.unique]),
                        Strata.FieldDescription.stored(\Person.token, property: "token", column: "token", options: [], hasDynamicInitialValue: true).initialValues(_StrataScope.token),
                        Strata.FieldDescription.stored(\Person.nickname, property: "nickname", column: "nickname", options: [], default: "x"),
                    ], virtualProperties: ["computed"])

                    public nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.name)
                        encoder.encode(self.age)
                        encoder.encode(self.email)
                        encoder.encode(self.token)
                        encoder.encode(self.nickname)
                    }

                    nonisolated enum _StrataScope {
                        static let token = Strata.DynamicInitialValue(\Person.token, { UUID() })
                    }
                }

                nonisolated extension Person: Strata.Entity {
                    public init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.name = try row.decode(at: 1)
                        self.age = try row.decode(at: 2)
                        self.email = try row.decode(at: 3)
                        self.token = try row.decode(at: 4)
                        self.nickname = try row.decode(at: 5)
                    }

                    public init(newObject: Strata.NewObject) {
                        self.email = nil
                        self.token = Self._StrataScope.token.make()
                    }

                    public static func member(for keyPath: Swift.PartialKeyPath<Person>) -> Strata.EntityMember? {
                        if keyPath == \Person.id { return .id }
                        if keyPath == \Person.name { return .field(0) }
                        if keyPath == \Person.age { return .field(1) }
                        if keyPath == \Person.email { return .field(2) }
                        if keyPath == \Person.token { return .field(3) }
                        if keyPath == \Person.nickname { return .field(4) }
                        if keyPath == \Person.computed { return .virtual("computed") }
                        return nil
                    }

                    public static func navigableMembers() -> [Strata.NavigableMember<Person>] {
                        [
                            .init(.id, \Strata.EntityID<Person>.id, \Strata.EntityID<Person>?.?.id),
                            .init(.field(0), \Strata.EntityID<Person>.name, \Strata.EntityID<Person>?.?.name),
                            .init(.field(1), \Strata.EntityID<Person>.age, \Strata.EntityID<Person>?.?.age),
                            .init(.field(2), \Strata.EntityID<Person>.email, \Strata.EntityID<Person>?.?.email),
                            .init(.field(3), \Strata.EntityID<Person>.token, \Strata.EntityID<Person>?.?.token),
                            .init(.field(4), \Strata.EntityID<Person>.nickname, \Strata.EntityID<Person>?.?.nickname),
                            .init(.virtual("computed"), \Strata.EntityID<Person>.computed, \Strata.EntityID<Person>?.?.computed),
                        ]
                    }

                    public static func decodeAll(_ rows: Strata.RowSequence) throws -> [Person] {
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

    @Test("An internal struct gets internal members, its type name as entity name, and keeps observed properties")
    func internalStructWithObservers() {
        assertStrataExpansion(
            #"""
            @Entity
            struct Note {
                var text: String = "" {
                    didSet { edited = true }
                }
                var edited = false
            }
            """#,
            expandedSource: #"""

                struct Note {
                    var text: String = "" {
                        didSet { edited = true }
                    }
                    var edited = false

                    typealias ID = Strata.EntityID<Note>

                    nonisolated var id: Strata.EntityID<Note> = Strata.EntityID<Note>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Note", typeName: "Note", fields: [
                        Strata.FieldDescription.stored(\Note.text, property: "text", column: "text", options: [], default: ""),
                        Strata.FieldDescription.stored(\Note.edited, property: "edited", column: "edited", options: [], default: false),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.text)
                        encoder.encode(self.edited)
                    }
                }

                nonisolated extension Note: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.text = try row.decode(at: 1)
                        self.edited = try row.decode(at: 2)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Note>) -> Strata.EntityMember? {
                        if keyPath == \Note.id { return .id }
                        if keyPath == \Note.text { return .field(0) }
                        if keyPath == \Note.edited { return .field(1) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Note>] {
                        [
                            .init(.id, \Strata.EntityID<Note>.id, \Strata.EntityID<Note>?.?.id),
                            .init(.field(0), \Strata.EntityID<Note>.text, \Strata.EntityID<Note>?.?.text),
                            .init(.field(1), \Strata.EntityID<Note>.edited, \Strata.EntityID<Note>?.?.edited),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Note] {
                        var objects: [Note] = []
                        while let row = try rows.next() {
                            objects.append(try Note(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("A struct without stored properties gets an entity without fields")
    func emptyStruct() {
        assertStrataExpansion(
            """
            @Entity package struct Marker {
                func describe() -> String { "marker" }
            }
            """,
            expandedSource: #"""
                package struct Marker {
                    func describe() -> String { "marker" }

                    package typealias ID = Strata.EntityID<Marker>

                    package nonisolated var id: Strata.EntityID<Marker> = Strata.EntityID<Marker>.unsaved

                    package nonisolated static let entityDescription = Strata.EntityDescription(name: "Marker", typeName: "Marker", fields: [])

                    package nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {}
                }

                nonisolated extension Marker: Strata.Entity {
                    package init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                    }

                    package init(newObject: Strata.NewObject) {}

                    package static func member(for keyPath: Swift.PartialKeyPath<Marker>) -> Strata.EntityMember? {
                        if keyPath == \Marker.id { return .id }
                        return nil
                    }

                    package static func navigableMembers() -> [Strata.NavigableMember<Marker>] {
                        [
                            .init(.id, \Strata.EntityID<Marker>.id, \Strata.EntityID<Marker>?.?.id),
                        ]
                    }

                    package static func decodeAll(_ rows: Strata.RowSequence) throws -> [Marker] {
                        var objects: [Marker] = []
                        while let row = try rows.next() {
                            objects.append(try Marker(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("Optionals spelled any way start as nil, unless they have a default or a dynamic initial value")
    func optionals() {
        assertStrataExpansion(
            #"""
            @Entity struct Contact {
                var phone: Optional<String>
                var fax: Swift.Optional<String>
                var pager: String!
                var city: String? = "Paris"
                @Field(dynamicInitialValue: Date.init) var seen: Date?
            }
            """#,
            expandedSource: #"""
                struct Contact {
                    var phone: Optional<String>
                    var fax: Swift.Optional<String>
                    var pager: String!
                    var city: String? = "Paris"
                    var seen: Date?

                    typealias ID = Strata.EntityID<Contact>

                    nonisolated var id: Strata.EntityID<Contact> = Strata.EntityID<Contact>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Contact", typeName: "Contact", fields: [
                        Strata.FieldDescription.stored(\Contact.phone, property: "phone", column: "phone", options: []),
                        Strata.FieldDescription.stored(\Contact.fax, property: "fax", column: "fax", options: []),
                        Strata.FieldDescription.stored(\Contact.pager, property: "pager", column: "pager", options: []),
                        Strata.FieldDescription.stored(\Contact.city, property: "city", column: "city", options: [], default: "Paris"),
                        Strata.FieldDescription.stored(\Contact.seen, property: "seen", column: "seen", options: [], hasDynamicInitialValue: true).initialValues(_StrataScope.seen),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.phone)
                        encoder.encode(self.fax)
                        encoder.encode(self.pager)
                        encoder.encode(self.city)
                        encoder.encode(self.seen)
                    }

                    nonisolated enum _StrataScope {
                        static let seen = Strata.DynamicInitialValue(\Contact.seen, Date.init)
                    }
                }

                nonisolated extension Contact: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.phone = try row.decode(at: 1)
                        self.fax = try row.decode(at: 2)
                        self.pager = try row.decode(at: 3)
                        self.city = try row.decode(at: 4)
                        self.seen = try row.decode(at: 5)
                    }

                    init(newObject: Strata.NewObject) {
                        self.phone = nil
                        self.fax = nil
                        self.pager = nil
                        self.seen = Self._StrataScope.seen.make()
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Contact>) -> Strata.EntityMember? {
                        if keyPath == \Contact.id { return .id }
                        if keyPath == \Contact.phone { return .field(0) }
                        if keyPath == \Contact.fax { return .field(1) }
                        if keyPath == \Contact.pager { return .field(2) }
                        if keyPath == \Contact.city { return .field(3) }
                        if keyPath == \Contact.seen { return .field(4) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Contact>] {
                        [
                            .init(.id, \Strata.EntityID<Contact>.id, \Strata.EntityID<Contact>?.?.id),
                            .init(.field(0), \Strata.EntityID<Contact>.phone, \Strata.EntityID<Contact>?.?.phone),
                            .init(.field(1), \Strata.EntityID<Contact>.fax, \Strata.EntityID<Contact>?.?.fax),
                            .init(.field(2), \Strata.EntityID<Contact>.pager, \Strata.EntityID<Contact>?.?.pager),
                            .init(.field(3), \Strata.EntityID<Contact>.city, \Strata.EntityID<Contact>?.?.city),
                            .init(.field(4), \Strata.EntityID<Contact>.seen, \Strata.EntityID<Contact>?.?.seen),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Contact] {
                        var objects: [Contact] = []
                        while let row = try rows.next() {
                            objects.append(try Contact(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("A field with both a default and a dynamic initial value declares both and evaluates the dynamic one")
    func defaultAndDynamicInitialValue() {
        assertStrataExpansion(
            #"""
            @Entity struct Event {
                @Field(.indexed, dynamicInitialValue: { Date() }) var created: Date = .distantPast
            }
            """#,
            expandedSource: #"""
                struct Event {
                    var created: Date = .distantPast

                    typealias ID = Strata.EntityID<Event>

                    nonisolated var id: Strata.EntityID<Event> = Strata.EntityID<Event>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Event", typeName: "Event", fields: [
                        Strata.FieldDescription.stored(\Event.created, property: "created", column: "created", options: [.indexed], hasDynamicInitialValue: true, default: .distantPast).initialValues(_StrataScope.created),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.created)
                    }

                    nonisolated enum _StrataScope {
                        static let created = Strata.DynamicInitialValue(\Event.created, { Date() })
                    }
                }

                nonisolated extension Event: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.created = try row.decode(at: 1)
                    }

                    init(newObject: Strata.NewObject) {
                        self.created = Self._StrataScope.created.make()
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Event>) -> Strata.EntityMember? {
                        if keyPath == \Event.id { return .id }
                        if keyPath == \Event.created { return .field(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Event>] {
                        [
                            .init(.id, \Strata.EntityID<Event>.id, \Strata.EntityID<Event>?.?.id),
                            .init(.field(0), \Strata.EntityID<Event>.created, \Strata.EntityID<Event>?.?.created),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Event] {
                        var objects: [Event] = []
                        while let row = try rows.next() {
                            objects.append(try Event(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("Qualified options are accepted and repeated ones kept once; names are escaped; backticks stay in code only")
    func spellings() {
        assertStrataExpansion(
            #"""
            @Entity(name: #"Odd\Name"#)
            struct Item {
                @Field(column: nil, FieldOption.unique, Strata.FieldOption.indexed, .unique) var `default`: Int = -1
            }
            """#,
            expandedSource: #"""

                struct Item {
                    var `default`: Int = -1

                    typealias ID = Strata.EntityID<Item>

                    nonisolated var id: Strata.EntityID<Item> = Strata.EntityID<Item>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Odd\\Name", typeName: "Item", fields: [
                        Strata.FieldDescription.stored(\Item.`default`, property: "default", column: "default", options: [.unique, .indexed], default: -1),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.`default`)
                    }
                }

                nonisolated extension Item: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.`default` = try row.decode(at: 1)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Item>) -> Strata.EntityMember? {
                        if keyPath == \Item.id { return .id }
                        if keyPath == \Item.`default` { return .field(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Item>] {
                        [
                            .init(.id, \Strata.EntityID<Item>.id, \Strata.EntityID<Item>?.?.id),
                            .init(.field(0), \Strata.EntityID<Item>.`default`, \Strata.EntityID<Item>?.?.`default`),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Item] {
                        var objects: [Item] = []
                        while let row = try rows.next() {
                            objects.append(try Item(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("A struct that already declares Entity gets the members in an extension without a conformance")
    func conformanceAlreadyDeclared() {
        assertStrataExpansion(
            """
            @Entity struct Tag: Entity {
                var label: String = ""
            }
            """,
            expandedSource: #"""
                struct Tag: Entity {
                    var label: String = ""

                    typealias ID = Strata.EntityID<Tag>

                    nonisolated var id: Strata.EntityID<Tag> = Strata.EntityID<Tag>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Tag", typeName: "Tag", fields: [
                        Strata.FieldDescription.stored(\Tag.label, property: "label", column: "label", options: [], default: ""),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.label)
                    }
                }

                nonisolated extension Tag {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.label = try row.decode(at: 1)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Tag>) -> Strata.EntityMember? {
                        if keyPath == \Tag.id { return .id }
                        if keyPath == \Tag.label { return .field(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Tag>] {
                        [
                            .init(.id, \Strata.EntityID<Tag>.id, \Strata.EntityID<Tag>?.?.id),
                            .init(.field(0), \Strata.EntityID<Tag>.label, \Strata.EntityID<Tag>?.?.label),
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
                """#,
            macroSpecs: ["Entity": MacroSpec(type: EntityMacro.self), "Field": MacroSpec(type: FieldMacro.self)]
        )
    }

    @Test("A nested struct is extended through its qualified name")
    func nestedStruct() {
        assertStrataExpansion(
            """
            enum Library {
                @Entity struct Book {
                    var title: String = ""
                }
            }
            """,
            expandedSource: #"""
                enum Library {
                    struct Book {
                        var title: String = ""

                        typealias ID = Strata.EntityID<Book>

                        nonisolated var id: Strata.EntityID<Book> = Strata.EntityID<Book>.unsaved

                        nonisolated static let entityDescription = Strata.EntityDescription(name: "Book", typeName: "Book", fields: [
                            Strata.FieldDescription.stored(\Book.title, property: "title", column: "title", options: [], default: ""),
                        ])

                        nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                            encoder.encode(self.title)
                        }
                    }
                }

                nonisolated extension Library.Book: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.title = try row.decode(at: 1)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Library.Book>) -> Strata.EntityMember? {
                        if keyPath == \Library.Book.id { return .id }
                        if keyPath == \Library.Book.title { return .field(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Library.Book>] {
                        [
                            .init(.id, \Strata.EntityID<Library.Book>.id, \Strata.EntityID<Library.Book>?.?.id),
                            .init(.field(0), \Strata.EntityID<Library.Book>.title, \Strata.EntityID<Library.Book>?.?.title),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Library.Book] {
                        var objects: [Library.Book] = []
                        while let row = try rows.next() {
                            objects.append(try Library.Book(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }
}
