import Testing

@Suite("@Entity diagnostics on coded and derived fields and attribute combinations")
struct CodedDerivedDiagnosticsTests {
    @Test(
        "Two attributes that say how a property is stored are an error at the second, with a fix-it removing it",
        arguments: [
            ("@Coded", "@Relationship", "Int = 0", "@Relationship cannot be combined with @Coded"),
            ("@Relationship", "@Coded", "Set<Item.ID> = []", "@Coded cannot be combined with @Relationship"),
            ("@Coded", #"@Derived(count: \Holder.items)"#, "Int = 0", "@Derived cannot be combined with @Coded"),
            (#"@Derived(count: \Holder.items)"#, "@Coded", "Int = 0", "@Coded cannot be combined with @Derived"),
            ("@Relationship", #"@Derived(count: \Holder.items)"#, "Set<Item.ID> = []", "@Derived cannot be combined with @Relationship"),
        ])
    func conflictingAttributes(first: String, second: String, type: String, message: String) {
        let removal = "Remove '\(second.prefix { $0 != "(" })'"
        assertStrataExpansion(
            """
            @Entity struct Holder {
                @Relationship var items: Set<Item.ID>
                \(first) \(second) var value: \(type)
            }
            """,
            expandedSource: """
                struct Holder {
                    var items: Set<Item.ID>
                    var value: \(type)
                }
                """,
            diagnostics: [
                diagnostic(
                    message + " on property 'value': a property is a relationship, a coded field or a derived field, not two of them",
                    line: 3, column: 6 + first.count, fixIts: [removal])
            ],
            applyFixIts: [removal],
            fixedSource: """
                @Entity struct Holder {
                    @Relationship var items: Set<Item.ID>
                    \(first) var value: \(type)
                }
                """
        )
    }

    @Test("The same attribute twice is an error at the second, with a fix-it removing it")
    func duplicateAttribute() {
        assertStrataExpansion(
            """
            @Entity struct Holder {
                @Coded
                @Coded var tags: [String] = []
                @Relationship(deleteRule: .cascade) @Strata.Relationship var pets: Set<Pet.ID>
            }
            """,
            expandedSource: """
                struct Holder {
                    var tags: [String] = []
                    @Strata.Relationship var pets: Set<Pet.ID>
                }
                """,
            diagnostics: [
                diagnostic(
                    "property 'tags' has more than one @Coded attribute; remove one", line: 3, column: 5,
                    fixIts: ["Remove '@Coded'"]),
                diagnostic(
                    "property 'pets' has more than one @Relationship attribute; remove one", line: 4, column: 41,
                    fixIts: ["Remove '@Strata.Relationship'"]),
            ],
            applyFixIts: ["Remove '@Coded'", "Remove '@Strata.Relationship'"],
            fixedSource: """
                @Entity struct Holder {
                    @Coded
                    var tags: [String] = []
                    @Relationship(deleteRule: .cascade) var pets: Set<Pet.ID>
                }
                """
        )
    }

    @Test("@Coded with one closure of the pair is an error at the attribute")
    func incompleteCodedPair() {
        assertStrataExpansion(
            """
            @Entity struct Theme {
                @Coded(encode: { $0.hex }) var tint: Color = .red
            }
            """,
            expandedSource: """
                struct Theme {
                    var tint: Color = .red
                }
                """,
            diagnostics: [
                diagnostic("@Coded needs both encode: and decode:, or neither to store the value as JSON", line: 2, column: 5)
            ]
        )
    }

    @Test(
        "@Coded on a type that can never be Codable is an error at the type",
        arguments: ["() -> Void", "(Int, Int)", "any Error", "Any", "[Int]??", "Int.Type"])
    func uncodableType(type: String) {
        assertStrataExpansion(
            """
            @Entity struct Holder {
                @Coded var value: \(type)
            }
            """,
            expandedSource: """
                struct Holder {
                    var value: \(type)
                }
                """,
            diagnostics: [
                diagnostic(
                    "type '\(type)' cannot be stored by @Coded as JSON; use a Codable type, or give encode: and decode: closures",
                    line: 2, column: 23)
            ]
        )
    }

    @Test("A non-optional @Coded property without a default is an error with the usual message")
    func codedMissingDefault() {
        assertStrataExpansion(
            """
            @Entity struct Holder {
                @Coded var tags: [String]
            }
            """,
            expandedSource: """
                struct Holder {
                    var tags: [String]
                }
                """,
            diagnostics: [
                diagnostic(
                    "stored property 'tags' needs a default value or @Field(dynamicInitialValue:) so that Strata can create new objects",
                    line: 2, column: 16)
            ]
        )
    }

    @Test(
        "@Derived over something other than a to-many relationship of the same struct is an error at the key path",
        arguments: [
            (#"count: \Person.toys"#, 21, "'Person' declares no to-many relationship 'toys'; "),
            (#"count: \Person.owner"#, 21, "'owner' is not a to-many relationship; "),
            (#"sum: \Pet.age, over: \Person.name"#, 35, "'name' is not a to-many relationship; "),
            (#"count: \Person.total"#, 21, "'total' is not a to-many relationship; "),
        ])
    func notToMany(arguments: String, column: Int, message: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                var name: String = ""
                @Relationship var owner: Person.ID?
                @Derived(\(arguments)) var total: Int = 0
            }
            """,
            expandedSource: """
                struct Person {
                    var name: String = ""
                    var owner: Person.ID?
                    var total: Int = 0
                }
                """,
            diagnostics: [
                diagnostic(
                    message + "@Derived is computed over a @Relationship of 'Person' whose type is a Set or an Array of IDs",
                    line: 4, column: column)
            ]
        )
    }

    @Test(
        "@Derived over a key path that does not start at the struct is an error at the key path",
        arguments: [#"\Pet.pets"#, #"\Person.pets.count"#, #"\.pets"#])
    func foreignRelationship(keyPath: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Relationship var pets: Set<Pet.ID>
                @Derived(count: \(keyPath)) var total: Int = 0
            }
            """,
            expandedSource: """
                struct Person {
                    var pets: Set<Pet.ID>
                    var total: Int = 0
                }
                """,
            diagnostics: [
                diagnostic(
                    #"a derived field is computed over a to-many relationship of 'Person', the struct that declares it; write \Person.<relationship>"#,
                    line: 3, column: 21)
            ]
        )
    }

    @Test("@Derived arguments that are not key path literals are errors at the arguments")
    func notKeyPaths() {
        assertStrataExpansion(
            #"""
            @Entity struct Person {
                @Relationship var pets: Set<Pet.ID>
                @Derived(count: path) var count: Int = 0
                @Derived(sum: path, over: other) var total: Int = 0
                @Derived(maximum: \.age, over: \Person.pets) var oldest: Int?
            }
            """#,
            expandedSource: """
                struct Person {
                    var pets: Set<Pet.ID>
                    var count: Int = 0
                    var total: Int = 0
                    var oldest: Int?
                }
                """,
            diagnostics: [
                diagnostic(
                    #"the 'count:' argument must be a key path literal naming a to-many relationship of this struct, like \Person.pets"#,
                    line: 3, column: 21),
                diagnostic(
                    #"the 'sum:' argument must be a key path literal naming an attribute of the related entity, like \Pet.age"#,
                    line: 4, column: 19),
                diagnostic(
                    #"the 'over:' argument must be a key path literal naming a to-many relationship of this struct, like \Person.pets"#,
                    line: 4, column: 31),
                diagnostic(
                    #"the 'maximum:' argument must be a key path literal naming an attribute of the related entity, like \Pet.age"#,
                    line: 5, column: 23),
            ]
        )
    }

    @Test(
        "A derived count of a type other than an integer is an error with a fix-it to Int",
        arguments: ["Double", "Int?", "String"])
    func countNotInteger(type: String) {
        assertStrataExpansion(
            #"""
            @Entity struct Person {
                @Relationship var pets: Set<Pet.ID>
                @Derived(count: \Person.pets) var petCount: \#(type)
            }
            """#,
            expandedSource: """
                struct Person {
                    var pets: Set<Pet.ID>
                    var petCount: \(type)
                }
                """,
            diagnostics: [
                diagnostic(
                    "derived count 'petCount' must have an integer type, such as Int", line: 3, column: 49,
                    fixIts: ["Replace '\(type)' with 'Int'"])
            ],
            applyFixIts: ["Replace '\(type)' with 'Int'"],
            fixedSource: #"""
                @Entity struct Person {
                    @Relationship var pets: Set<Pet.ID>
                    @Derived(count: \Person.pets) var petCount: Int
                }
                """#
        )
    }

    @Test(
        "A non-optional derived minimum or maximum is an error with a fix-it that makes it optional",
        arguments: ["minimum", "maximum"])
    func extremumNotOptional(function: String) {
        assertStrataExpansion(
            #"""
            @Entity struct Person {
                @Relationship var pets: Set<Pet.ID>
                @Derived(\#(function): \Pet.age, over: \Person.pets) var value: Int = 0
            }
            """#,
            expandedSource: """
                struct Person {
                    var pets: Set<Pet.ID>
                    var value: Int = 0
                }
                """,
            diagnostics: [
                diagnostic(
                    "derived \(function) 'value' must be optional: it is nil when there are no related objects",
                    line: 3, column: 57 + function.count, fixIts: ["Replace 'Int' with 'Int?'"])
            ],
            applyFixIts: ["Replace 'Int' with 'Int?'"],
            fixedSource: #"""
                @Entity struct Person {
                    @Relationship var pets: Set<Pet.ID>
                    @Derived(\#(function): \Pet.age, over: \Person.pets) var value: Int? = 0
                }
                """#
        )
    }

    @Test("Derived fields without a type annotation are errors at the name when their literal does not fit")
    func derivedWithoutAnnotation() {
        assertStrataExpansion(
            #"""
            @Entity struct Person {
                @Relationship var pets: Set<Pet.ID>
                @Derived(count: \Person.pets) var petCount = 1.5
                @Derived(minimum: \Pet.age, over: \Person.pets) var youngest = 0
            }
            """#,
            expandedSource: """
                struct Person {
                    var pets: Set<Pet.ID>
                    var petCount = 1.5
                    var youngest = 0
                }
                """,
            diagnostics: [
                diagnostic("derived count 'petCount' must have an integer type, such as Int", line: 3, column: 39),
                diagnostic(
                    "derived minimum 'youngest' must be optional: it is nil when there are no related objects",
                    line: 4, column: 57),
            ]
        )
    }

    @Test("@Field on a derived field, with or without a dynamic initial value, is an error with a fix-it removing it")
    func fieldOnDerived() {
        assertStrataExpansion(
            #"""
            @Entity struct Person {
                @Relationship var pets: Set<Pet.ID>
                @Derived(count: \Person.pets) @Field(dynamicInitialValue: { 0 }) var petCount: Int
            }
            """#,
            expandedSource: """
                struct Person {
                    var pets: Set<Pet.ID>
                    var petCount: Int
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Field does not apply to derived field 'petCount': it is not a column of the table",
                    line: 3, column: 35, fixIts: ["Remove '@Field'"])
            ],
            applyFixIts: ["Remove '@Field'"],
            fixedSource: #"""
                @Entity struct Person {
                    @Relationship var pets: Set<Pet.ID>
                    @Derived(count: \Person.pets) var petCount: Int
                }
                """#
        )
    }
}
