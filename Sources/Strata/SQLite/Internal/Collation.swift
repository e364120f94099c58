internal import CSQLite
import Foundation

/// Text collations Strata registers on every connection, for sort descriptors that compare strings
/// the way Foundation does.
enum Collation {
    /// `localizedStandardCompare`: Finder-like order (case-insensitive, numbers by value).
    static let localized = "strata_localized"
    /// `compare(_:options: .caseInsensitive)`.
    static let caseInsensitive = "strata_caseless"

    static func register(on db: OpaquePointer) {
        sqlite3_create_collation_v2(db, localized, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            Collation.compare(leftCount, left, rightCount, right) { $0.localizedStandardCompare($1) }
        }, nil)
        sqlite3_create_collation_v2(db, caseInsensitive, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            Collation.compare(leftCount, left, rightCount, right) { $0.compare($1, options: .caseInsensitive) }
        }, nil)
    }

    private static func compare(
        _ leftCount: Int32, _ left: UnsafeRawPointer?, _ rightCount: Int32, _ right: UnsafeRawPointer?,
        _ comparison: (String, String) -> ComparisonResult
    ) -> Int32 {
        let lhs = left.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(leftCount)), as: UTF8.self) } ?? ""
        let rhs = right.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(rightCount)), as: UTF8.self) } ?? ""
        switch comparison(lhs, rhs) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    /// The collation for a Foundation string comparator, or an error when SQL cannot sort that way.
    static func named(for comparator: String.StandardComparator) -> Result<String?, StrataError> {
        if comparator == .lexical { return .success(nil) }
        #if canImport(Darwin)
        if comparator == .localizedStandard || comparator == .localized { return .success(localized) }
        #endif
        return .failure(StrataError(
            .unsupportedQuery,
            "This SortDescriptor string comparator cannot be translated to SQL; use .lexical (or, on Apple "
                + "platforms, .localized / .localizedStandard), or OrderBy with a key path."))
    }
}
