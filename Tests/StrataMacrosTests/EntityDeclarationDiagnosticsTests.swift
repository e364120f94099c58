import Testing

@Suite("@Entity diagnostics on the declaration")
struct EntityDeclarationDiagnosticsTests {
    @Test(
        "@Entity on anything but a struct is an error at the declaration keyword",
        arguments: [
            ("class", "a class"), ("enum", "an enum"), ("actor", "an actor"), ("protocol", "a protocol"),
        ])
    func notAStruct(keyword: String, kind: String) {
        assertStrataExpansion(
            """
            @Entity
            \(keyword) Person {
            }
            """,
            expandedSource: """
                \(keyword) Person {
                }
                """,
            diagnostics: [diagnostic("@Entity applies to a struct, not to \(kind)", line: 2, column: 1)]
        )
    }

    @Test("A generic struct is an error at its generic parameters")
    func genericStruct() {
        assertStrataExpansion(
            """
            @Entity struct Box<Value> {
                var count: Int = 0
            }
            """,
            expandedSource: """
                struct Box<Value> {
                    var count: Int = 0
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Entity does not support generic structs; declare one non-generic struct per entity",
                    line: 1, column: 19)
            ]
        )
    }

    @Test(
        "An entity name that SQLite cannot take is an error at the name",
        arguments: [
            (#""""#, "the entity name must not be empty"),
            (
                #""Peo\"ple""#,
                #"invalid entity name 'Peo"ple': a name must not contain a double quote or a NUL character"#
            ),
            (
                #""Peo\0ple""#,
                #"invalid entity name 'Peo\0ple': a name must not contain a double quote or a NUL character"#
            ),
            (#""SQLite_people""#, "entity name 'SQLite_people' is reserved: SQLite keeps names starting with 'sqlite_' for itself"),
            ("tableName", "the entity name must be a string literal"),
            (#""\(prefix)people""#, "the entity name must be a string literal"),
        ])
    func invalidEntityName(argument: String, message: String) {
        assertStrataExpansion(
            """
            @Entity(name: \(argument))
            struct Person {
            }
            """,
            expandedSource: """
                struct Person {
                }
                """,
            diagnostics: [diagnostic(message, line: 1, column: 15)]
        )
    }

    @Test("A struct name starting with sqlite_ is an error when no entity name replaces it")
    func reservedTypeName() {
        assertStrataExpansion(
            """
            @Entity struct sqlite_stats {
            }
            """,
            expandedSource: """
                struct sqlite_stats {
                }
                """,
            diagnostics: [
                diagnostic(
                    "entity name 'sqlite_stats' is reserved: SQLite keeps names starting with 'sqlite_' for itself",
                    line: 1, column: 16)
            ]
        )
    }
}
