import Testing

@Suite("@Entity diagnostics on property types and defaults")
struct EntityTypeDiagnosticsTests {
    @Test(
        "A type that no column can hold is an error at the type",
        arguments: [
            "(Int, Int)", "() -> Void", "@Sendable () -> Void", "Int??", "Optional<Int?>", "Any", "Any?",
            "AnyObject", "any Error", "some Hashable", "Int.Type", "Codable & Sendable",
        ])
    func unsupportedType(type: String) {
        assertStrataExpansion(
            """
            @Entity struct Holder {
                var value: \(type)
            }
            """,
            expandedSource: """
                struct Holder {
                    var value: \(type)
                }
                """,
            diagnostics: [
                diagnostic(
                    "type '\(type)' cannot be stored in a column; use a DatabaseValueConvertible type, "
                        + "@Coded to store a Codable value as JSON, or @Relationship for entity IDs",
                    line: 2, column: 16)
            ]
        )
    }

    @Test(
        "A collection type is an error at the type with a fix-it inserting @Coded, or @Relationship for IDs",
        arguments: [
            ("[String]", "Coded"), ("[Int]?", "Coded"), ("Array<Int>", "Coded"), ("Swift.Array<Int>", "Coded"),
            ("[String: Int]", "Coded"), ("Dictionary<String, Int>", "Coded"), ("Set<Int>", "Coded"),
            ("Set<Pet.ID>", "Relationship"), ("[EntityID<Book>]", "Relationship"),
        ])
    func collectionType(type: String, attribute: String) {
        assertStrataExpansion(
            """
            @Entity struct Holder {
                @Field(.indexed) var value: \(type)
            }
            """,
            expandedSource: """
                struct Holder {
                    var value: \(type)
                }
                """,
            diagnostics: [
                diagnostic(
                    "type '\(type)' cannot be stored in a column; use a DatabaseValueConvertible type, "
                        + "@Coded to store a Codable value as JSON, or @Relationship for entity IDs",
                    line: 2, column: 33, fixIts: ["Insert '@\(attribute)'"])
            ],
            applyFixIts: ["Insert '@\(attribute)'"],
            fixedSource: """
                @Entity struct Holder {
                    @\(attribute) @Field(.indexed) var value: \(type)
                }
                """
        )
    }

    @Test(
        "A non-optional property without a default is an error with a fix-it for common types",
        arguments: [("Int", "0"), ("String", #""""#), ("Bool", "false"), ("Double", "0"), ("UInt8", "0")])
    func missingDefaultWithFixIt(type: String, value: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                var value: \(type) // the value
            }
            """,
            expandedSource: """
                struct Person {
                    var value: \(type) // the value
                }
                """,
            diagnostics: [
                diagnostic(
                    "stored property 'value' needs a default value or @Field(dynamicInitialValue:) so that Strata can create new objects",
                    line: 2, column: 9, fixIts: ["Insert default value '\(value)'"])
            ],
            applyFixIts: ["Insert default value '\(value)'"],
            fixedSource: """
                @Entity struct Person {
                    var value: \(type) = \(value) // the value
                }
                """
        )
    }

    @Test("A non-optional property of another type without a default is an error without a fix-it")
    func missingDefaultWithoutFixIt() {
        assertStrataExpansion(
            """
            @Entity struct Person {
                @Field(.indexed) var born: Date
            }
            """,
            expandedSource: """
                struct Person {
                    var born: Date
                }
                """,
            diagnostics: [
                diagnostic(
                    "stored property 'born' needs a default value or @Field(dynamicInitialValue:) so that Strata can create new objects",
                    line: 2, column: 26)
            ]
        )
    }

    @Test(
        "A property without a type annotation is an error unless its default is a simple literal",
        arguments: ["Date()", "[1, 2]", "Mood.happy", "x + 1"])
    func needsTypeAnnotation(initialValue: String) {
        assertStrataExpansion(
            """
            @Entity struct Person {
                var value = \(initialValue)
            }
            """,
            expandedSource: """
                struct Person {
                    var value = \(initialValue)
                }
                """,
            diagnostics: [
                diagnostic(
                    "stored property 'value' needs a type annotation; @Entity infers a type only from a string, integer, floating-point or Boolean literal",
                    line: 2, column: 9)
            ]
        )
    }

    @Test("Negative, floating-point and Boolean literals need no type annotation")
    func inferableLiterals() {
        assertStrataExpansion(
            """
            @Entity struct Reading {
                var offset = -3
                var ratio = 1.5
                var below = -0.5
                var valid = true
            }
            """,
            expandedSource: #"""
                struct Reading {
                    var offset = -3
                    var ratio = 1.5
                    var below = -0.5
                    var valid = true

                    typealias ID = Strata.EntityID<Reading>

                    nonisolated var id: Strata.EntityID<Reading> = Strata.EntityID<Reading>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Reading", typeName: "Reading", fields: [
                        Strata.FieldDescription.stored(\Reading.offset, property: "offset", column: "offset", options: [], default: -3),
                        Strata.FieldDescription.stored(\Reading.ratio, property: "ratio", column: "ratio", options: [], default: 1.5),
                        Strata.FieldDescription.stored(\Reading.below, property: "below", column: "below", options: [], default: -0.5),
                        Strata.FieldDescription.stored(\Reading.valid, property: "valid", column: "valid", options: [], default: true),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.offset)
                        encoder.encode(self.ratio)
                        encoder.encode(self.below)
                        encoder.encode(self.valid)
                    }
                }

                nonisolated extension Reading: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.offset = try row.decode(at: 1)
                        self.ratio = try row.decode(at: 2)
                        self.below = try row.decode(at: 3)
                        self.valid = try row.decode(at: 4)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Reading>) -> Strata.EntityMember? {
                        if keyPath == \Reading.id { return .id }
                        if keyPath == \Reading.offset { return .field(0) }
                        if keyPath == \Reading.ratio { return .field(1) }
                        if keyPath == \Reading.below { return .field(2) }
                        if keyPath == \Reading.valid { return .field(3) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Reading>] {
                        [
                            .init(.id, \Strata.EntityID<Reading>.id, \Strata.EntityID<Reading>?.?.id),
                            .init(.field(0), \Strata.EntityID<Reading>.offset, \Strata.EntityID<Reading>?.?.offset),
                            .init(.field(1), \Strata.EntityID<Reading>.ratio, \Strata.EntityID<Reading>?.?.ratio),
                            .init(.field(2), \Strata.EntityID<Reading>.below, \Strata.EntityID<Reading>?.?.below),
                            .init(.field(3), \Strata.EntityID<Reading>.valid, \Strata.EntityID<Reading>?.?.valid),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Reading] {
                        var objects: [Reading] = []
                        while let row = try rows.next() {
                            objects.append(try Reading(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }
}
