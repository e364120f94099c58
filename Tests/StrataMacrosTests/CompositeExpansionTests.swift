import Testing

@Suite("#Unique and #Index expansion")
struct CompositeExpansionTests {
    @Test("#Unique and #Index expand to nothing; @Entity puts their lists, by property name, in the description")
    func expansion() {
        assertStrataExpansion(
            #"""
            @Entity struct Member {
                #Unique<Member>([\.firstName, \.lastName], [\.email])
                #Index<Member>([\.lastName, \.firstName], [\Member.club, \.joined])
                var firstName: String = ""
                @Field(column: "last_name") var lastName: String = ""
                var email: String? = nil
                @Relationship var club: Club.ID?
                var joined: Int = 0
            }
            """#,
            expandedSource: #"""
                struct Member {
                    var firstName: String = ""
                    var lastName: String = ""
                    var email: String? = nil
                    var club: Club.ID?
                    var joined: Int = 0

                    typealias ID = Strata.EntityID<Member>

                    nonisolated var id: Strata.EntityID<Member> = Strata.EntityID<Member>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Member", typeName: "Member", fields: [
                        Strata.FieldDescription.stored(\Member.firstName, property: "firstName", column: "firstName", options: [], default: ""),
                        Strata.FieldDescription.stored(\Member.lastName, property: "lastName", column: "last_name", options: [], default: ""),
                        Strata.FieldDescription.stored(\Member.email, property: "email", column: "email", options: [], default: nil),
                        Strata.FieldDescription.toOne(\Member.club, property: "club", column: "club", options: []),
                        Strata.FieldDescription.stored(\Member.joined, property: "joined", column: "joined", options: [], default: 0),
                    ], uniqueConstraints: [["firstName", "lastName"], ["email"]], indexes: [["lastName", "firstName"], ["club", "joined"]])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.firstName)
                        encoder.encode(self.lastName)
                        encoder.encode(self.email)
                        encoder.encodeID(self.club)
                        encoder.encode(self.joined)
                    }
                }

                nonisolated extension Member: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.firstName = try row.decode(at: 1)
                        self.lastName = try row.decode(at: 2)
                        self.email = try row.decode(at: 3)
                        self.club = try row.decodeID(at: 4)
                        self.joined = try row.decode(at: 5)
                    }

                    init(newObject: Strata.NewObject) {
                        self.club = nil
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Member>) -> Strata.EntityMember? {
                        if keyPath == \Member.id { return .id }
                        if keyPath == \Member.firstName { return .field(0) }
                        if keyPath == \Member.lastName { return .field(1) }
                        if keyPath == \Member.email { return .field(2) }
                        if keyPath == \Member.club { return .field(3) }
                        if keyPath == \Member.joined { return .field(4) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Member>] {
                        [
                            .init(.id, \Strata.EntityID<Member>.id, \Strata.EntityID<Member>?.?.id),
                            .init(.field(0), \Strata.EntityID<Member>.firstName, \Strata.EntityID<Member>?.?.firstName),
                            .init(.field(1), \Strata.EntityID<Member>.lastName, \Strata.EntityID<Member>?.?.lastName),
                            .init(.field(2), \Strata.EntityID<Member>.email, \Strata.EntityID<Member>?.?.email),
                            .toOne(field: 3, \Member.club, \Strata.EntityID<Member>.club, \Strata.EntityID<Member>?.?.club),
                            .init(.field(4), \Strata.EntityID<Member>.joined, \Strata.EntityID<Member>?.?.joined),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Member] {
                        var objects: [Member] = []
                        while let row = try rows.next() {
                            objects.append(try Member(row: row))
                        }
                        return objects
                    }
                }
                """#)
    }
}
