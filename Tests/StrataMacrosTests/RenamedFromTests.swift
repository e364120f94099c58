import Testing

@Suite("renamedFrom: on @Entity, @Field and @Relationship")
struct RenamedFromTests {
    @Test("renamedFrom: reaches the entity, field and relationship descriptions; the rest of the expansion is unchanged")
    func expansion() {
        assertStrataExpansion(
            """
            @Entity(name: "Writer", renamedFrom: "Author") struct Writer {
                @Field(.indexed, renamedFrom: "fullName") var name: String = ""
                @Relationship(renamedFrom: "works") var books: Set<Book.ID> = []
            }
            """,
            expandedSource: #"""
                struct Writer {
                    var name: String = ""
                    var books: Set<Book.ID> = []

                    typealias ID = Strata.EntityID<Writer>

                    nonisolated var id: Strata.EntityID<Writer> = Strata.EntityID<Writer>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Writer", typeName: "Writer", fields: [
                        Strata.FieldDescription.stored(\Writer.name, property: "name", column: "name", options: [.indexed], default: "").renamed(from: "fullName"),
                    ], toMany: [
                        Strata.ToManyDescription.make(\Writer.books, property: "books", renamedFrom: "works"),
                    ], renamedFrom: "Author")

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.name)
                        encoder.encodeRelationship(self.books)
                    }
                }

                nonisolated extension Writer: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.name = try row.decode(at: 1)
                        self.books = try row.decodeIDs(at: 2)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Writer>) -> Strata.EntityMember? {
                        if keyPath == \Writer.id { return .id }
                        if keyPath == \Writer.name { return .field(0) }
                        if keyPath == \Writer.books { return .toMany(0) }
                        if keyPath == \Writer.books.count { return .toManyCount(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Writer>] {
                        [
                            .init(.id, \Strata.EntityID<Writer>.id, \Strata.EntityID<Writer>?.?.id),
                            .init(.field(0), \Strata.EntityID<Writer>.name, \Strata.EntityID<Writer>?.?.name),
                            .init(.toMany(0), \Strata.EntityID<Writer>.books, \Strata.EntityID<Writer>?.?.books),
                            .init(.toManyCount(0), \Strata.EntityID<Writer>.books?.count, \Strata.EntityID<Writer>?.?.books?.count),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Writer] {
                        var objects: [Writer] = []
                        while let row = try rows.next() {
                            objects.append(try Writer(row: row))
                        }
                        return objects
                    }
                }
                """#)
    }

    @Test("renamedFrom: that is not a string literal is an error at the argument")
    func notLiteral() {
        assertStrataExpansion(
            """
            @Entity struct Writer {
                @Field(renamedFrom: oldName) var name: String = ""
            }
            """,
            expandedSource: """
                struct Writer {
                    var name: String = ""
                }
                """,
            diagnostics: [
                diagnostic("renamedFrom: must be a string literal: the name in the version before", line: 2, column: 25)
            ])
    }
}
