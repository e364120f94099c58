import Testing

/// `@Relationship`, `@Coded` and `@Derived` as written in the tests below, with their names.
private let attributes = [
    ("@Relationship(deleteRule: .cascade)", "Relationship"),
    ("@Coded", "Coded"),
    (#"@Coded(encode: { $0 }, decode: { $0 })"#, "Coded"),
    (#"@Derived(count: \Person.pets)"#, "Derived"),
]

@Suite("@Relationship, @Coded and @Derived placement")
struct PropertyAttributePlacementTests {
    @Test(
        "An attribute on a function or a static property of an @Entity struct is an error at the attribute",
        arguments: attributes)
    func notAStoredProperty(attribute: (String, String)) {
        let (spelling, name) = attribute
        assertStrataExpansion(
            """
            @Entity struct Person {
                \(spelling) func describe() {}
                \(spelling) static var shared: Int = 0
            }
            """,
            expandedSource: #"""
                struct Person {
                    func describe() {}
                    static var shared: Int = 0

                    typealias ID = Strata.EntityID<Person>

                    nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Person", typeName: "Person", fields: [])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {}
                }

                nonisolated extension Person: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Person>) -> Strata.EntityMember? {
                        if keyPath == \Person.id { return .id }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Person>] {
                        [
                            .init(.id, \Strata.EntityID<Person>.id, \Strata.EntityID<Person>?.?.id),
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
                """#,
            diagnostics: [
                diagnostic(
                    "@\(name) applies to a stored 'var' of an @Entity struct; this declaration is not a property",
                    line: 2, column: 5),
                diagnostic(
                    "@\(name) applies to a stored 'var' of an @Entity struct; a static property is not stored in the table",
                    line: 3, column: 5),
            ]
        )
    }

    @Test("An attribute on a computed property is an error at the attribute; the property stays virtual", arguments: attributes)
    func computedProperty(attribute: (String, String)) {
        let (spelling, name) = attribute
        assertStrataExpansion(
            """
            @Entity struct Person {
                \(spelling) var label: String { "" }
            }
            """,
            expandedSource: #"""
                struct Person {
                    var label: String { "" }

                    typealias ID = Strata.EntityID<Person>

                    nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Person", typeName: "Person", fields: [], virtualProperties: ["label"])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {}
                }

                nonisolated extension Person: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Person>) -> Strata.EntityMember? {
                        if keyPath == \Person.id { return .id }
                        if keyPath == \Person.label { return .virtual("label") }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Person>] {
                        [
                            .init(.id, \Strata.EntityID<Person>.id, \Strata.EntityID<Person>?.?.id),
                            .init(.virtual("label"), \Strata.EntityID<Person>.label, \Strata.EntityID<Person>?.?.label),
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
                """#,
            diagnostics: [
                diagnostic(
                    "@\(name) applies to a stored 'var' of an @Entity struct; a computed property is not stored in the table",
                    line: 2, column: 5)
            ]
        )
    }

    @Test(
        "An attribute in a struct without @Entity, in a class, on a global or a local is an error at the attribute",
        arguments: attributes)
    func outsideAnEntity(attribute: (String, String)) {
        let (spelling, name) = attribute
        assertStrataExpansion(
            """
            struct Plain {
                \(spelling) var pets: Set<Pet.ID> = []
            }
            class Object {
                \(spelling) var pets: Set<Pet.ID> = []
            }
            \(spelling) var global: Int = 0
            func compute() {
                \(spelling) var local: Int = 0
            }
            """,
            expandedSource: """
                struct Plain {
                    var pets: Set<Pet.ID> = []
                }
                class Object {
                    var pets: Set<Pet.ID> = []
                }
                var global: Int = 0
                func compute() {
                    var local: Int = 0
                }
                """,
            diagnostics: [
                diagnostic(
                    "@\(name) applies to a stored 'var' of an @Entity struct; the enclosing struct has no @Entity attribute",
                    line: 2, column: 5),
                diagnostic(
                    "@\(name) applies to a stored 'var' of an @Entity struct; the enclosing type is not a struct",
                    line: 5, column: 5),
                diagnostic(
                    "@\(name) applies to a stored 'var' of an @Entity struct; a global variable is not stored in a table",
                    line: 7, column: 1),
                diagnostic(
                    "@\(name) applies to a stored 'var' of an @Entity struct; a local variable is not stored in a table",
                    line: 9, column: 5),
            ]
        )
    }
}
