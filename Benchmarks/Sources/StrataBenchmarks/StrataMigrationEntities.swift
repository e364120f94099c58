import Foundation
import Strata

// Version 2 of `Item` for each part of workload m, each in a namespace of its own (so the entities,
// all named "Item", do not clash), as an app keeps its shipped versions. Version 1 is the harness's
// `Item` (StrataEntities.swift).

/// m1: a new field with a default.
enum AddFieldV2 {
    @Entity(name: "Item")
    struct Item {
        var name: String = ""
        @Field(.indexed) var age: Int = 0
        var score: Double = 0
        var created: Date = Date(timeIntervalSinceReferenceDate: 0)
        var rating: Int = 0
    }
}

/// m2: `age` renamed to `years` and widened to `Double`, still indexed.
enum RebuildV2 {
    @Entity(name: "Item")
    struct Item {
        var name: String = ""
        @Field(.indexed) var years: Double = 0
        var score: Double = 0
        var created: Date = Date(timeIntervalSinceReferenceDate: 0)
    }
}

/// m3: the same fields as version 1; the step's transform changes the values.
enum TransformV2 {
    @Entity(name: "Item")
    struct Item {
        var name: String = ""
        @Field(.indexed) var age: Int = 0
        var score: Double = 0
        var created: Date = Date(timeIntervalSinceReferenceDate: 0)
    }
}

extension MigrationPart {
    /// The schema history a Strata app declares for this part: V1, the harness's `Item`, then V2.
    var strataHistory: SchemaHistory {
        switch self {
        case .addField:
            SchemaHistory(StrataBench.schema, Schema("V2", AddFieldV2.Item.self))
        case .rebuild:
            SchemaHistory(
                StrataBench.schema, Schema("V2", RebuildV2.Item.self),
                steps: [MigrationStep(from: "V1", to: "V2", .renameField("Item", from: "age", to: "years"))])
        case .transform:
            SchemaHistory(
                StrataBench.schema, Schema("V2", TransformV2.Item.self),
                steps: [
                    MigrationStep(
                        from: "V1", to: "V2",
                        .transform(TransformV2.Item.self) { old, item in
                            item.name = ItemTransform.name(try old.value("name", as: String.self))
                            item.score = ItemTransform.score(item.score)
                        })
                ])
        }
    }
}
