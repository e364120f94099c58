import Testing

@Suite("@Entity diagnostics on properties")
struct EntityPropertyDiagnosticsTests {
    @Test("A let property is an error with a fix-it that makes it a var")
    func letProperty() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                let name: String = ""
            }
            """,
            expandedSource: """
                struct Person {
                    let name: String = ""
                }
                """,
            diagnostics: [
                diagnostic(
                    "stored property 'name' must be a 'var': Strata assigns every field when it reads an object",
                    line: 2, column: 5, fixIts: ["Replace 'let' with 'var'"])
            ],
            applyFixIts: ["Replace 'let' with 'var'"],
            fixedSource: """
                @Entity struct Person {
                    var name: String = ""
                }
                """
        )
    }

    @Test("A property named id, stored or computed, is an error because @Entity provides it")
    func reservedID() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                var id: Int = 0
            }
            @Entity struct Pet {
                var id: String { "pet" }
            }
            """,
            expandedSource: """
                struct Person {
                    var id: Int = 0
                }
                struct Pet {
                    var id: String { "pet" }
                }
                """,
            diagnostics: [
                diagnostic("property 'id' is reserved: @Entity provides 'id', the object's EntityID", line: 2, column: 9),
                diagnostic("property 'id' is reserved: @Entity provides 'id', the object's EntityID", line: 5, column: 9),
            ]
        )
    }

    @Test("A lazy property is an error at the lazy modifier")
    func lazyProperty() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                lazy var score: Int = 0
            }
            """,
            expandedSource: """
                struct Person {
                    lazy var score: Int = 0
                }
                """,
            diagnostics: [
                diagnostic(
                    "lazy property 'score' is not supported by @Entity; use a stored property with a default value or a computed property",
                    line: 2, column: 5)
            ]
        )
    }

    @Test("Several properties in one declaration are an error with a fix-it that splits them, types and all")
    func multipleBindings() {
        assertStrataExpansion(
            """
            @Entity struct Size {
                var width, height: Double
                var unit = "cm", scale: Int = 1 // metric
            }
            """,
            expandedSource: """
                struct Size {
                    var width, height: Double
                    var unit = "cm", scale: Int = 1 // metric
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Entity needs one stored property per declaration; declare each property on its own line",
                    line: 2, column: 9, fixIts: ["Declare each property on its own line"]),
                diagnostic(
                    "@Entity needs one stored property per declaration; declare each property on its own line",
                    line: 3, column: 9, fixIts: ["Declare each property on its own line"]),
            ],
            applyFixIts: ["Declare each property on its own line"],
            fixedSource: """
                @Entity struct Size {
                    var width: Double
                    var height: Double
                    var unit = "cm"
                    var scale: Int = 1 // metric
                }
                """
        )
    }

    @Test("A tuple pattern is an error at the pattern")
    func tuplePattern() {
        assertStrataExpansion(
            """
            @Entity struct Point {
                var (x, y): (Int, Int) = (0, 0)
            }
            """,
            expandedSource: """
                struct Point {
                    var (x, y): (Int, Int) = (0, 0)
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Entity needs one named stored property per declaration; declare each property on its own line",
                    line: 2, column: 9)
            ]
        )
    }

    @Test("A stored property inside #if is an error, a computed one is not")
    func storedPropertyInIfConfig() {
        assertStrataExpansion(
            """
            @Entity struct Settings {
                #if DEBUG
                var verbose: Bool = false
                var label: String { "debug" }
                #endif
            }
            """,
            expandedSource: """
                struct Settings {
                    #if DEBUG
                    var verbose: Bool = false
                    var label: String { "debug" }
                    #endif
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Entity does not support stored properties inside '#if'; every build must store the same columns",
                    line: 3, column: 5)
            ]
        )
    }

    @Test("Two @Field attributes on one property are an error at the second")
    func duplicateFieldAttribute() {
        assertStrataExpansion(
            """
            @Entity struct Product {
                @Field(.unique) @Field(.indexed) var code: String = ""
            }
            """,
            expandedSource: """
                struct Product {
                    var code: String = ""
                }
                """,
            diagnostics: [
                diagnostic(
                    "property 'code' has more than one @Field attribute; merge them into one", line: 2, column: 21)
            ]
        )
    }
}
