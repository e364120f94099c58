import Testing

/// `#Unique` and `#Index` lists that name something other than a stored field, with the message each gets.
let compositeNotStored: [(list: String, message: String)] = [
    (#"[\.name, \.pets]"#, "'pets' is a to-many relationship, not a column: #Unique lists stored fields (attributes, coded fields, to-one relationships)"),
    (#"[\.name, \.petCount]"#, "'petCount' is a derived field, not a column: #Unique lists stored fields (attributes, coded fields, to-one relationships)"),
    (#"[\.name, \.label]"#, "'label' is a computed property, not a column: #Unique lists stored fields (attributes, coded fields, to-one relationships)"),
    (#"[\.name, \.nickname]"#, "'Owner' has no stored property 'nickname'; #Unique lists stored fields (attributes, coded fields, to-one relationships)"),
]

@Suite("#Unique and #Index diagnostics")
struct CompositeDiagnosticsTests {
    /// The struct of the diagnostics tests, with `line` in its body, as `@Entity` leaves it when it
    /// reports a problem (nothing generated, `#Unique` and `#Index` expanded to nothing).
    private static func owner(_ line: String) -> String {
        """
        @Entity struct Owner {
            \(line)
            var name: String = ""
            var city: String = ""
            @Relationship var pets: Set<Pet.ID> = []
            @Derived(count: \\Owner.pets) var petCount: Int = 0
            var label: String { name }
        }
        """
    }

    private static let expanded = """
        struct Owner {
            var name: String = ""
            var city: String = ""
            var pets: Set<Pet.ID> = []
            var petCount: Int = 0
            var label: String { name }
        }
        """

    @Test("A key path to a to-many relationship, a derived field, a computed property or no property is an error at the key path",
        arguments: compositeNotStored)
    func notStored(list: String, message: String) {
        assertStrataExpansion(
            Self.owner("#Unique<Owner>(\(list))"), expandedSource: Self.expanded,
            diagnostics: [diagnostic(message, line: 2, column: 29)])
    }

    @Test("An #Index list names stored fields too")
    func indexNotStored() {
        assertStrataExpansion(
            Self.owner(#"#Index<Owner>([\.pets])"#), expandedSource: Self.expanded,
            diagnostics: [
                diagnostic(
                    "'pets' is a to-many relationship, not a column: #Index lists stored fields (attributes, coded fields, to-one relationships)",
                    line: 2, column: 20)
            ])
    }

    @Test("An empty list, or no list at all, is an error")
    func empty() {
        assertStrataExpansion(
            Self.owner(#"#Unique<Owner>([\.name], [])"#), expandedSource: Self.expanded,
            diagnostics: [diagnostic(#"#Unique needs at least one field in each list, like [\.firstName, \.lastName]"#, line: 2, column: 30)])
        assertStrataExpansion(
            Self.owner("#Index<Owner>()"), expandedSource: Self.expanded,
            diagnostics: [diagnostic(#"#Index needs at least one field in each list, like [\.firstName, \.lastName]"#, line: 2, column: 6)])
    }

    @Test("A field named twice in one list is an error at the second")
    func repeatedField() {
        assertStrataExpansion(
            Self.owner(#"#Unique<Owner>([\.name, \.name])"#), expandedSource: Self.expanded,
            diagnostics: [diagnostic("'name' appears twice in this #Unique list; name each field once", line: 2, column: 29)])
    }

    @Test("A generic argument, or a key path root, other than the entity is an error")
    func foreignType() {
        assertStrataExpansion(
            Self.owner(#"#Unique<Pet>([\.name])"#), expandedSource: Self.expanded,
            diagnostics: [diagnostic("#Unique<Pet> must name the entity that declares it: write #Unique<Owner>", line: 2, column: 12)])
        assertStrataExpansion(
            Self.owner(#"#Index<Owner>([\Pet.name])"#), expandedSource: Self.expanded,
            diagnostics: [
                diagnostic(
                    #"each field of #Index must be a key path literal naming a stored property of 'Owner', like \.email"#,
                    line: 2, column: 20)
            ])
    }

    @Test("An argument that is not an array literal of key path literals is an error")
    func notAList() {
        assertStrataExpansion(
            Self.owner(#"#Unique<Owner>(fields)"#), expandedSource: Self.expanded,
            diagnostics: [
                diagnostic(#"each argument of #Unique must be an array literal of key paths, like [\.firstName, \.lastName]"#, line: 2, column: 20)
            ])
    }

    @Test("A #Unique list with the fields of an earlier one, in any order, and an #Index list repeated are errors")
    func duplicates() {
        assertStrataExpansion(
            Self.owner(#"#Unique<Owner>([\.name, \.city], [\.city, \.name])"#), expandedSource: Self.expanded,
            diagnostics: [
                diagnostic("this #Unique list has the same fields as one declared before; remove one", line: 2, column: 38)
            ])
        assertStrataExpansion(
            Self.owner(#"#Index<Owner>([\.name, \.city], [\.city, \.name], [\.name, \.city])"#), expandedSource: Self.expanded,
            diagnostics: [
                diagnostic("this #Index list is the same as one declared before; remove one", line: 2, column: 55)
            ])
    }

    @Test("#Unique or #Index outside an @Entity struct is an error at the macro")
    func misplaced() {
        assertStrataExpansion(
            """
            struct Plain {
                #Unique<Plain>([\\.name])
                var name: String = ""
            }
            """,
            expandedSource: """
                struct Plain {
                    var name: String = ""
                }
                """,
            diagnostics: [
                diagnostic(
                    "#Unique applies in the body of an @Entity struct, which reads it; the enclosing struct has no @Entity attribute",
                    line: 2, column: 5)
            ])
        assertStrataExpansion(
            """
            extension Plain {
                #Index<Plain>([\\.name, \\.city])
            }
            """,
            expandedSource: """
                extension Plain {
                }
                """,
            diagnostics: [
                diagnostic(
                    "#Index applies in the body of an @Entity struct, which reads it; @Entity does not see an extension: "
                        + "move it into the struct's body",
                    line: 2, column: 5)
            ])
    }

    @Test("#Unique or #Index inside #if in an @Entity struct is an error (it would be left out)")
    func insideIfConfig() {
        assertStrataExpansion(
            """
            @Entity struct Owner {
                #if DEBUG
                #Unique<Owner>([\\.name, \\.city])
                #endif
                var name: String = ""
                var city: String = ""
            }
            """,
            expandedSource: """
                struct Owner {
                    #if DEBUG
                    #Unique<Owner>([\\.name, \\.city])
                    #endif
                    var name: String = ""
                    var city: String = ""
                }
                """,
            diagnostics: [
                diagnostic(
                    "#Unique applies in the body of an @Entity struct, which reads it; @Entity does not read one inside "
                        + "'#if' (every build must have the same constraints): declare it directly in the struct's body",
                    line: 3, column: 5)
            ])
    }
}
