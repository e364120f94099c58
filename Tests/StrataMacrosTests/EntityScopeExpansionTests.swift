import Testing

@Suite("@Entity expansion in its scope: Self, conditional defaults, enclosing extensions and generic types, raw identifiers")
struct EntityScopeExpansionTests {
    @Test("Self in dynamic initial values and @Coded closures names the entity in the scope enum, not the enum")
    func selfInScopeEnum() {
        assertStrataExpansion(
            #"""
            @Entity struct Ticket {
                @Field(dynamicInitialValue: { Self.newCode() }) var code: String
                @Coded(encode: { Self.format($0) }, decode: { Self.parse($0) }) var stamp: Stamp = Self.zero
                @Field(dynamicInitialValue: { MemoryLayout<Self>.size }) var size: Int
                @Field(dynamicInitialValue: {
                    enum Local {
                        static let name = "\(Self.self)"
                    }
                    return Local.name
                }) var label: String
            }
            """#,
            expandedSource: #"""
                struct Ticket {
                    var code: String
                    var stamp: Stamp = Self.zero
                    var size: Int
                    var label: String

                    typealias ID = Strata.EntityID<Ticket>

                    nonisolated var id: Strata.EntityID<Ticket> = Strata.EntityID<Ticket>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Ticket", typeName: "Ticket", fields: [
                        Strata.FieldDescription.stored(\Ticket.code, property: "code", column: "code", options: [], hasDynamicInitialValue: true).initialValues(_StrataScope.code),
                        Strata.FieldDescription.coded(\Ticket.stamp, encode: { Self.format($0) }, property: "stamp", column: "stamp", options: [], default: Self.zero),
                        Strata.FieldDescription.stored(\Ticket.size, property: "size", column: "size", options: [], hasDynamicInitialValue: true).initialValues(_StrataScope.size),
                        Strata.FieldDescription.stored(\Ticket.label, property: "label", column: "label", options: [], hasDynamicInitialValue: true).initialValues(_StrataScope.label),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.code)
                        encoder.encode(Self._StrataScope.stamp.encode(self.stamp))
                        encoder.encode(self.size)
                        encoder.encode(self.label)
                    }

                    nonisolated enum _StrataScope {
                        static let code = Strata.DynamicInitialValue(\Ticket.code, { Ticket.newCode() })
                        static let stamp = Strata.CodedClosures(\Ticket.stamp, encode: { Ticket.format($0) }, decode: { Ticket.parse($0) })
                        static let size = Strata.DynamicInitialValue(\Ticket.size, { MemoryLayout<Ticket>.size })
                        static let label = Strata.DynamicInitialValue(\Ticket.label, {
                            enum Local {
                                static let name = "\(Self.self)"
                            }
                            return Local.name
                        })
                    }
                }

                nonisolated extension Ticket: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.code = try row.decode(at: 1)
                        self.stamp = try Self._StrataScope.stamp.decode(row.decode(at: 2))
                        self.size = try row.decode(at: 3)
                        self.label = try row.decode(at: 4)
                    }

                    init(newObject: Strata.NewObject) {
                        self.code = Self._StrataScope.code.make()
                        self.size = Self._StrataScope.size.make()
                        self.label = Self._StrataScope.label.make()
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Ticket>) -> Strata.EntityMember? {
                        if keyPath == \Ticket.id { return .id }
                        if keyPath == \Ticket.code { return .field(0) }
                        if keyPath == \Ticket.stamp { return .field(1) }
                        if keyPath == \Ticket.size { return .field(2) }
                        if keyPath == \Ticket.label { return .field(3) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Ticket>] {
                        [
                            .init(.id, \Strata.EntityID<Ticket>.id, \Strata.EntityID<Ticket>?.?.id),
                            .init(.field(0), \Strata.EntityID<Ticket>.code, \Strata.EntityID<Ticket>?.?.code),
                            .init(.field(1), \Strata.EntityID<Ticket>.stamp, \Strata.EntityID<Ticket>?.?.stamp),
                            .init(.field(2), \Strata.EntityID<Ticket>.size, \Strata.EntityID<Ticket>?.?.size),
                            .init(.field(3), \Strata.EntityID<Ticket>.label, \Strata.EntityID<Ticket>?.?.label),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Ticket] {
                        var objects: [Ticket] = []
                        while let row = try rows.next() {
                            objects.append(try Ticket(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test(
        "A struct without an access modifier takes the one its enclosing extension gives its members",
        arguments: [
            ("public ", "", "public "), ("package ", "", "package "), ("private ", "", ""), ("fileprivate ", "", ""),
            ("", "", ""), ("public ", "internal ", ""), ("", "public ", "public "),
        ])
    func accessFromExtension(extensionModifier: String, structModifier: String, access: String) {
        assertStrataExpansion(
            """
            \(extensionModifier)extension Library {
                @Entity \(structModifier)struct Book {
                    var title: String = ""
                }
            }
            """,
            expandedSource: #"""
                \#(extensionModifier)extension Library {
                    \#(structModifier)struct Book {
                        var title: String = ""

                        \#(access)typealias ID = Strata.EntityID<Book>

                        \#(access)nonisolated var id: Strata.EntityID<Book> = Strata.EntityID<Book>.unsaved

                        \#(access)nonisolated static let entityDescription = Strata.EntityDescription(name: "Book", typeName: "Book", fields: [
                            Strata.FieldDescription.stored(\Book.title, property: "title", column: "title", options: [], default: ""),
                        ])

                        \#(access)nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                            encoder.encode(self.title)
                        }
                    }
                }

                nonisolated extension Library.Book: Strata.Entity {
                    \#(access)init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.title = try row.decode(at: 1)
                    }

                    \#(access)init(newObject: Strata.NewObject) {}

                    \#(access)static func member(for keyPath: Swift.PartialKeyPath<Library.Book>) -> Strata.EntityMember? {
                        if keyPath == \Library.Book.id { return .id }
                        if keyPath == \Library.Book.title { return .field(0) }
                        return nil
                    }

                    \#(access)static func navigableMembers() -> [Strata.NavigableMember<Library.Book>] {
                        [
                            .init(.id, \Strata.EntityID<Library.Book>.id, \Strata.EntityID<Library.Book>?.?.id),
                            .init(.field(0), \Strata.EntityID<Library.Book>.title, \Strata.EntityID<Library.Book>?.?.title),
                        ]
                    }

                    \#(access)static func decodeAll(_ rows: Strata.RowSequence) throws -> [Library.Book] {
                        var objects: [Library.Book] = []
                        while let row = try rows.next() {
                            objects.append(try Library.Book(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("A struct nested in a type inside a public extension keeps the internal default of that type's members")
    func accessInsideTypeInExtension() {
        assertStrataExpansion(
            """
            public extension Library {
                enum Shelf {
                    @Entity struct Book {
                        var title: String = ""
                    }
                }
            }
            """,
            expandedSource: #"""
                public extension Library {
                    enum Shelf {
                        struct Book {
                            var title: String = ""

                            typealias ID = Strata.EntityID<Book>

                            nonisolated var id: Strata.EntityID<Book> = Strata.EntityID<Book>.unsaved

                            nonisolated static let entityDescription = Strata.EntityDescription(name: "Book", typeName: "Book", fields: [
                                Strata.FieldDescription.stored(\Book.title, property: "title", column: "title", options: [], default: ""),
                            ])

                            nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                                encoder.encode(self.title)
                            }
                        }
                    }
                }

                nonisolated extension Library.Shelf.Book: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.title = try row.decode(at: 1)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Library.Shelf.Book>) -> Strata.EntityMember? {
                        if keyPath == \Library.Shelf.Book.id { return .id }
                        if keyPath == \Library.Shelf.Book.title { return .field(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Library.Shelf.Book>] {
                        [
                            .init(.id, \Strata.EntityID<Library.Shelf.Book>.id, \Strata.EntityID<Library.Shelf.Book>?.?.id),
                            .init(.field(0), \Strata.EntityID<Library.Shelf.Book>.title, \Strata.EntityID<Library.Shelf.Book>?.?.title),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Library.Shelf.Book] {
                        var objects: [Library.Shelf.Book] = []
                        while let row = try rows.next() {
                            objects.append(try Library.Shelf.Book(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test("A default written as an if or switch expression is described as the call of a closure returning it")
    func conditionalDefaults() {
        assertStrataExpansion(
            #"""
            @Entity struct Plan {
                var limit: Int = if Self.isPro { 100 } else { 10 }
                var tier: String = switch Self.level { case 0: "free"; default: "paid" }
                @Coded var tags: [String] = if Self.isPro { ["pro"] } else { [] }
                @Coded(encode: { $0.hex }, decode: { Color(hex: $0) }) var tint: Color = if Self.isPro { .gold } else { .gray }
                var plain: Int = Self.isPro ? 1 : 0
            }
            """#,
            expandedSource: #"""
                struct Plan {
                    var limit: Int = if Self.isPro { 100 } else { 10 }
                    var tier: String = switch Self.level { case 0: "free"; default: "paid" }
                    var tags: [String] = if Self.isPro { ["pro"] } else { [] }
                    var tint: Color = if Self.isPro { .gold } else { .gray }
                    var plain: Int = Self.isPro ? 1 : 0

                    typealias ID = Strata.EntityID<Plan>

                    nonisolated var id: Strata.EntityID<Plan> = Strata.EntityID<Plan>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Plan", typeName: "Plan", fields: [
                        Strata.FieldDescription.stored(\Plan.limit, property: "limit", column: "limit", options: [], default: { if Self.isPro { 100 } else { 10 } }()),
                        Strata.FieldDescription.stored(\Plan.tier, property: "tier", column: "tier", options: [], default: { switch Self.level { case 0: "free"; default: "paid" } }()),
                        Strata.FieldDescription.coded(\Plan.tags, property: "tags", column: "tags", options: [], default: { if Self.isPro { ["pro"] } else { [] } }()),
                        Strata.FieldDescription.coded(\Plan.tint, encode: { $0.hex }, property: "tint", column: "tint", options: [], default: { if Self.isPro { .gold } else { .gray } }()),
                        Strata.FieldDescription.stored(\Plan.plain, property: "plain", column: "plain", options: [], default: Self.isPro ? 1 : 0),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(self.limit)
                        encoder.encode(self.tier)
                        encoder.encodeJSON(self.tags)
                        encoder.encode(Self._StrataScope.tint.encode(self.tint))
                        encoder.encode(self.plain)
                    }

                    nonisolated enum _StrataScope {
                        static let tint = Strata.CodedClosures(\Plan.tint, encode: { $0.hex }, decode: { Color(hex: $0) })
                    }
                }

                nonisolated extension Plan: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.limit = try row.decode(at: 1)
                        self.tier = try row.decode(at: 2)
                        self.tags = try row.decodeJSON(at: 3)
                        self.tint = try Self._StrataScope.tint.decode(row.decode(at: 4))
                        self.plain = try row.decode(at: 5)
                    }

                    init(newObject: Strata.NewObject) {}

                    static func member(for keyPath: Swift.PartialKeyPath<Plan>) -> Strata.EntityMember? {
                        if keyPath == \Plan.id { return .id }
                        if keyPath == \Plan.limit { return .field(0) }
                        if keyPath == \Plan.tier { return .field(1) }
                        if keyPath == \Plan.tags { return .field(2) }
                        if keyPath == \Plan.tint { return .field(3) }
                        if keyPath == \Plan.plain { return .field(4) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Plan>] {
                        [
                            .init(.id, \Strata.EntityID<Plan>.id, \Strata.EntityID<Plan>?.?.id),
                            .init(.field(0), \Strata.EntityID<Plan>.limit, \Strata.EntityID<Plan>?.?.limit),
                            .init(.field(1), \Strata.EntityID<Plan>.tier, \Strata.EntityID<Plan>?.?.tier),
                            .init(.field(2), \Strata.EntityID<Plan>.tags, \Strata.EntityID<Plan>?.?.tags),
                            .init(.field(3), \Strata.EntityID<Plan>.tint, \Strata.EntityID<Plan>?.?.tint),
                            .init(.field(4), \Strata.EntityID<Plan>.plain, \Strata.EntityID<Plan>?.?.plain),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Plan] {
                        var objects: [Plan] = []
                        while let row = try rows.next() {
                            objects.append(try Plan(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }

    @Test(
        "A struct nested in a generic type or function is an error at @Entity",
        arguments: [
            ("struct Box<T> {", "Box<T>"), ("enum Box<T: Hashable> {", "Box<T: Hashable>"),
            ("class Box<T, U> {", "Box<T, U>"), ("func box<T>(_ value: T) {", "box<T>"),
        ])
    func nestedInGeneric(opening: String, generic: String) {
        assertStrataExpansion(
            """
            \(opening)
                @Entity struct Item {
                    var n = 0
                }
            }
            """,
            expandedSource: """
                \(opening)
                    struct Item {
                        var n = 0
                    }
                }
                """,
            diagnostics: [
                diagnostic(
                    "@Entity does not support a struct nested in generic '\(generic)'; declare the entity outside it",
                    line: 2, column: 5)
            ]
        )
    }

    @Test("A raw identifier property with @Coded closures and a dynamic initial value names its members between backticks")
    func rawIdentifier() {
        assertStrataExpansion(
            #"""
            @Entity struct Theme {
                @Field(dynamicInitialValue: { Color.red }) @Coded(encode: { $0.hex }, decode: { Color(hex: $0) }) var `tint color`: Color
            }
            """#,
            expandedSource: #"""
                struct Theme {
                    var `tint color`: Color

                    typealias ID = Strata.EntityID<Theme>

                    nonisolated var id: Strata.EntityID<Theme> = Strata.EntityID<Theme>.unsaved

                    nonisolated static let entityDescription = Strata.EntityDescription(name: "Theme", typeName: "Theme", fields: [
                        Strata.FieldDescription.coded(\Theme.`tint color`, encode: { $0.hex }, property: "tint color", column: "tint color", options: []).initialValues(_StrataScope.`tint color_initialValue`, encodedBy: _StrataScope.`tint color`),
                    ])

                    nonisolated func encodeFields(to encoder: inout Strata.FieldEncoder) {
                        encoder.encode(Self._StrataScope.`tint color`.encode(self.`tint color`))
                    }

                    nonisolated enum _StrataScope {
                        static let `tint color` = Strata.CodedClosures(\Theme.`tint color`, encode: { $0.hex }, decode: { Color(hex: $0) })
                        static let `tint color_initialValue` = Strata.DynamicInitialValue(\Theme.`tint color`, { Color.red })
                    }
                }

                nonisolated extension Theme: Strata.Entity {
                    init(row: Strata.Row) throws {
                        self.id = try row.decodeID(at: 0)
                        self.`tint color` = try Self._StrataScope.`tint color`.decode(row.decode(at: 1))
                    }

                    init(newObject: Strata.NewObject) {
                        self.`tint color` = Self._StrataScope.`tint color_initialValue`.make()
                    }

                    static func member(for keyPath: Swift.PartialKeyPath<Theme>) -> Strata.EntityMember? {
                        if keyPath == \Theme.id { return .id }
                        if keyPath == \Theme.`tint color` { return .field(0) }
                        return nil
                    }

                    static func navigableMembers() -> [Strata.NavigableMember<Theme>] {
                        [
                            .init(.id, \Strata.EntityID<Theme>.id, \Strata.EntityID<Theme>?.?.id),
                            .init(.field(0), \Strata.EntityID<Theme>.`tint color`, \Strata.EntityID<Theme>?.?.`tint color`),
                        ]
                    }

                    static func decodeAll(_ rows: Strata.RowSequence) throws -> [Theme] {
                        var objects: [Theme] = []
                        while let row = try rows.next() {
                            objects.append(try Theme(row: row))
                        }
                        return objects
                    }
                }
                """#
        )
    }
}
