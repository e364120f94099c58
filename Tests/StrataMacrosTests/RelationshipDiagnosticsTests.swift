import Testing

@Suite("@Entity diagnostics on relationships")
struct RelationshipDiagnosticsTests {
    @Test(
        "@Relationship on a type that is no ID nor collection of IDs is an error at the type",
        arguments: ["String?", "Int", "[String]", "Set<Int>", "Person.ID??", "Dictionary<Person.ID, Int>", "Person"])
    func notAnID(type: String) {
        assertStrataExpansion(
            """
            @Entity struct Pet {
                @Relationship var owner: \(type)
            }
            """,
            expandedSource: """
                struct Pet {
                    var owner: \(type)
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Relationship needs an entity ID type, not '\(type)': an optional ID like 'Person.ID?' for a to-one "
                        + "relationship, 'Set<Person.ID>' (unordered) or '[Person.ID]' (ordered) for a to-many relationship",
                    line: 2, column: 30)
            ]
        )
    }

    @Test("@Relationship without a type annotation is an error at the name")
    func needsType() {
        assertStrataExpansion(
            """
            @Entity struct Pet {
                @Relationship var owner = Person.ID.unsaved
            }
            """,
            expandedSource: """
                struct Pet {
                    var owner = Person.ID.unsaved
                }
                """,
            diagnostics: [
                diagnostic(
                    "relationship 'owner' needs a type annotation: an optional ID like 'Person.ID?' for a to-one "
                        + "relationship, 'Set<Person.ID>' (unordered) or '[Person.ID]' (ordered) for a to-many relationship",
                    line: 2, column: 23)
            ]
        )
    }

    @Test(
        "A non-optional to-one relationship is an error with a fix-it that makes it optional",
        arguments: ["Person.ID", "EntityID<Person>", "Strata.EntityID<Person>", "ID"])
    func nonOptionalToOne(type: String) {
        assertStrataExpansion(
            """
            @Entity struct Pet {
                @Relationship var owner: \(type) // the owner
            }
            """,
            expandedSource: """
                struct Pet {
                    var owner: \(type) // the owner
                }
                """,
            diagnostics: [
                diagnostic(
                    "to-one relationship 'owner' must be optional: a new object has no target yet",
                    line: 2, column: 30, fixIts: ["Replace '\(type)' with '\(type)?'"])
            ],
            applyFixIts: ["Replace '\(type)' with '\(type)?'"],
            fixedSource: """
                @Entity struct Pet {
                    @Relationship var owner: \(type)? // the owner
                }
                """
        )
    }

    @Test(
        "An optional to-many relationship is an error with a fix-it that removes the optional",
        arguments: [("Set<Pet.ID>?", "Set<Pet.ID>"), ("Optional<[Book.ID]>", "[Book.ID]")])
    func optionalToMany(type: String, fixed: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Relationship var pets: \(type) = []
            }
            """,
            expandedSource: """
                struct Person {
                    var pets: \(type) = []
                }
                """,
            diagnostics: [
                diagnostic(
                    "to-many relationship 'pets' must not be optional: an empty collection means no related objects",
                    line: 2, column: 29, fixIts: ["Replace '\(type)' with '\(fixed)'"])
            ],
            applyFixIts: ["Replace '\(type)' with '\(fixed)'"],
            fixedSource: """
                @Entity struct Person {
                    @Relationship var pets: \(fixed) = []
                }
                """
        )
    }

    @Test(
        "A delete rule not written as .nullify, .cascade or .deny is an error at the rule",
        arguments: [".destroy", "rule", "Other.cascade", "DeleteRule.cascade()"])
    func invalidDeleteRule(rule: String) {
        assertStrataExpansion(
            """
            @Entity struct Pet {
                @Relationship(deleteRule: \(rule)) var owner: Person.ID?
            }
            """,
            expandedSource: """
                struct Pet {
                    var owner: Person.ID?
                }
                """,
            diagnostics: [
                diagnostic("'\(rule)' is not a delete rule; write .nullify, .cascade or .deny", line: 2, column: 31)
            ]
        )
    }

    @Test(
        "An inverse that is not a key path literal of property names is an error at the argument",
        arguments: [#""pets""#, "path", #"\Person.pets[0]"#, #"\Person.pets?.first"#])
    func inverseNotKeyPath(inverse: String) {
        assertStrataExpansion(
            """
            @Entity struct Pet {
                @Relationship(inverse: \(inverse)) var owner: Person.ID?
            }
            """,
            expandedSource: """
                struct Pet {
                    var owner: Person.ID?
                }
                """,
            diagnostics: [
                diagnostic(
                    #"the inverse must be a key path literal naming the relationship on the other entity, like \Person.pets"#,
                    line: 2, column: 28)
            ]
        )
    }

    @Test("@Field on a to-many relationship is an error with a fix-it that removes it")
    func fieldOnToMany() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Field(column: "pet_ids") @Relationship var pets: Set<Pet.ID> = []
                @Relationship
                @Field(.indexed)
                var books: [Book.ID]
            }
            """,
            expandedSource: """
                struct Person {
                    var pets: Set<Pet.ID> = []
                    var books: [Book.ID]
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Field does not apply to to-many relationship 'pets': it is not a column of the table",
                    line: 2, column: 5, fixIts: ["Remove '@Field'"]),
                diagnostic(
                    "@Field does not apply to to-many relationship 'books': it is not a column of the table",
                    line: 4, column: 5, fixIts: ["Remove '@Field'"]),
            ],
            applyFixIts: ["Remove '@Field'"],
            fixedSource: """
                @Entity struct Person {
                    @Relationship var pets: Set<Pet.ID> = []
                    @Relationship
                    var books: [Book.ID]
                }
                """
        )
    }

    @Test("A dynamic initial value on a to-one relationship is an error at the value")
    func dynamicInitialValueOnToOne() {
        assertStrataExpansion(
            """
            @Entity struct Pet {
                @Field(.indexed, dynamicInitialValue: { Person.ID(rawValue: 1) }) @Relationship var owner: Person.ID?
            }
            """,
            expandedSource: """
                struct Pet {
                    var owner: Person.ID?
                }
                """,
            diagnostics: [
                diagnostic(
                    "relationship 'owner' cannot have a dynamic initial value: a new object has no target yet; "
                        + "set the relationship in the transaction that creates the object",
                    line: 2, column: 43)
            ]
        )
    }
}
