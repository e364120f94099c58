import Foundation
import Testing
@testable import Strata

/// A type of the user's own that stores a number, declared summable.
enum AggPriority: Int, NumericDatabaseValue { case low, normal, high }

@Entity
struct AggTask {
    var title: String = ""
    var priority: AggPriority = .low
    var hours: Double = 0
}

@Suite("Numeric aggregates")
struct NumericAggregateTests {
    @Test("sum and average take numbers only: text, data, UUIDs and URLs are not numeric values")
    func onlyNumbersAddUp() {
        func isNumeric(_ type: Any.Type) -> Bool { type is any NumericDatabaseValue.Type }
        for type: Any.Type in [Bool.self, Int.self, Int8.self, UInt64.self, Double.self, Float.self, Date.self,
                               Decimal.self, Int?.self, Double?.self, Decimal?.self, AggPriority.self] {
            #expect(isNumeric(type), "\(type)")
        }
        for type: Any.Type in [String.self, String?.self, Data.self, UUID.self, URL.self, AggTask.ID.self] {
            #expect(!isNumeric(type), "\(type)")
        }
        // `.sum(\.title)` and `.average(\.title)` no longer compile; minimum, maximum and count of text still do.
        _ = SelectTerm<AggTask>.minimum(\.title)
        _ = SelectTerm<AggTask>.maximum(\.title)
        _ = SelectTerm<AggTask>.count(\.title)
    }

    @Test("a type that declares itself numeric sums like its raw values")
    func declaredNumericTypeSums() async throws {
        let stack = try await DataStack(Schema("V1", AggTask.self))
        try await stack.perform { tx in
            for priority in [AggPriority.normal, .high, .high] {
                try tx.create(Into<AggTask>()) { $0.priority = priority; $0.hours = 1.5 }
            }
        }
        #expect(try await stack.queryValue(From<AggTask>().select(Int.self, .sum(\.priority))) == 5)
        #expect(try await stack.queryValue(From<AggTask>().select(Double.self, .average(\.hours))) == 1.5)
        await stack.close()
    }
}
