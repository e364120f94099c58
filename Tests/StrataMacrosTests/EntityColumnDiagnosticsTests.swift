import Testing

@Suite("@Entity diagnostics on columns and field options")
struct EntityColumnDiagnosticsTests {
    @Test(
        "A column name that SQLite cannot take is an error at the name",
        arguments: [
            (#""""#, "the column name must not be empty"),
            (
                #""full\"name""#,
                #"invalid column name 'full"name': a name must not contain a double quote or a NUL character"#
            ),
            (
                #""full\0name""#,
                #"invalid column name 'full\0name': a name must not contain a double quote or a NUL character"#
            ),
            ("columnName", "the column name must be a string literal"),
            (#""\(prefix)name""#, "the column name must be a string literal"),
        ])
    func invalidColumnName(argument: String, message: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Field(column: \(argument)) var name: String = ""
            }
            """,
            expandedSource: """
                struct Person {
                    var name: String = ""
                }
                """,
            diagnostics: [diagnostic(message, line: 2, column: 20)]
        )
    }

    @Test("Two fields with the same column name, compared without case, are an error at the second")
    func duplicateColumn() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                var name: String = ""
                @Field(column: "NAME") var fullName: String = ""
                var Name: String = ""
            }
            """,
            expandedSource: """
                struct Person {
                    var name: String = ""
                    var fullName: String = ""
                    var Name: String = ""
                }
                """,
            diagnostics: [
                diagnostic(
                    "column 'NAME' is already used by property 'name' (column names are case-insensitive)",
                    line: 3, column: 20),
                diagnostic(
                    "column 'Name' is already used by property 'name' (column names are case-insensitive)",
                    line: 4, column: 9),
            ]
        )
    }

    @Test("The column name id, in any case, is reserved for the ID column")
    func reservedColumn() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Field(column: "Id") var legacyID: Int = 0
                var ID: Int = 0
            }
            """,
            expandedSource: """
                struct Person {
                    var legacyID: Int = 0
                    var ID: Int = 0
                }
                """,
            diagnostics: [
                diagnostic("column name 'Id' is reserved for the entity's ID column", line: 2, column: 20),
                diagnostic("column name 'ID' is reserved for the entity's ID column", line: 3, column: 9),
            ]
        )
    }

    @Test(
        "A field option not written as .unique or .indexed is an error at the option",
        arguments: [".primaryKey", "options", "FieldOption.index", "Other.unique", ".unique()"])
    func invalidFieldOption(option: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Field(\(option)) var name: String = ""
            }
            """,
            expandedSource: """
                struct Person {
                    var name: String = ""
                }
                """,
            diagnostics: [
                diagnostic("'\(option)' is not a field option; write .unique or .indexed", line: 2, column: 12)
            ]
        )
    }
}
