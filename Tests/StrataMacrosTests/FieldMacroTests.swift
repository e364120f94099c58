import Testing

/// The placements in which the property attributes have no effect, with the reason each diagnostic gives.
let misplacedDeclarations = [
    ("func describe() {}", "this declaration is not a property"),
    ("static var shared: Int = 0", "a static property is not stored in the table"),
]

@Suite("@Field placement")
struct FieldMacroTests {
    @Test("@Field on anything but a stored var of an @Entity struct is an error at the attribute", arguments: misplacedDeclarations)
    func notAStoredProperty(declaration: String, reason: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Field(.indexed) \(declaration)
            }
            """,
            expandedSource: #"""
                struct Person {
                    \#(declaration)

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
                diagnostic("@Field applies to a stored 'var' of an @Entity struct; \(reason)", line: 2, column: 5)
            ]
        )
    }

    @Test("@Field on a computed property is an error at the attribute; the property stays virtual")
    func computedProperty() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Field(.indexed) var doubled: Int { 2 }
            }
            """,
            expandedSource: #"""
                struct Person {
                    var doubled: Int { 2 }

                    typealias ID = Strata.EntityID<Person>

                    nonisolated var id: Strata.EntityID<Person> = Strata.EntityID<Person>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Person", typeName: "Person", fields: [], virtualProperties: ["doubled"])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {}
                }

                nonisolated extension Person: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Person>) -> Strata.EntityMember? {
                        if keyPath == \Person.id { return .id }
                        if keyPath == \Person.doubled { return .virtual("doubled") }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Person>] {
                        [
                            .init(.id, \Strata.EntityID<Person>.id, \Strata.EntityID<Person>?.?.id),
                            .init(.virtual("doubled"), \Strata.EntityID<Person>.doubled, \Strata.EntityID<Person>?.?.doubled),
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
                    "@Field applies to a stored 'var' of an @Entity struct; a computed property is not stored in the table",
                    line: 2, column: 5)
            ]
        )
    }

    @Test("@Field in a struct without @Entity, in a class, on a global or a local is an error at the attribute")
    func outsideAnEntity() {
        assertStrataExpansion(
            """
            struct Plain {
                @Field var name: String = ""
            }
            class Object {
                @Field var name: String = ""
            }
            @Field var global: Int = 0
            func compute() {
                @Field var local: Int = 0
            }
            """,
            expandedSource: """
                struct Plain {
                    var name: String = ""
                }
                class Object {
                    var name: String = ""
                }
                var global: Int = 0
                func compute() {
                    var local: Int = 0
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Field applies to a stored 'var' of an @Entity struct; the enclosing struct has no @Entity attribute",
                    line: 2, column: 5),
                diagnostic(
                    "@Field applies to a stored 'var' of an @Entity struct; the enclosing type is not a struct",
                    line: 5, column: 5),
                diagnostic(
                    "@Field applies to a stored 'var' of an @Entity struct; a global variable is not stored in a table",
                    line: 7, column: 1),
                diagnostic(
                    "@Field applies to a stored 'var' of an @Entity struct; a local variable is not stored in a table",
                    line: 9, column: 5),
            ]
        )
    }
}
