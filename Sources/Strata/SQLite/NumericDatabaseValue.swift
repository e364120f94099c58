public import Foundation

/// A stored type whose values SQL adds up: what ``SelectTerm/sum(_:as:)`` and
/// ``SelectTerm/average(_:as:)`` accept.
///
/// Strata provides conformances for the types it stores as SQLite integers or reals (`Bool`, every
/// fixed-width integer, `Double`, `Float`, `Date`), for `Decimal` (stored as text, summed and averaged
/// as a `Double`), and for optionals of these. Text, data, UUIDs and URLs are not numbers: summing them
/// would give 0 without a word, so `.sum(\.title)` does not compile. Their minimum, maximum and count
/// remain available.
///
/// A type of your own that stores a number (an enum with an `Int` raw value, an amount in cents) can
/// declare the conformance:
///
/// ```swift
/// enum Priority: Int, NumericDatabaseValue { case low, normal, high }
/// ```
public protocol NumericDatabaseValue: DatabaseValueConvertible {}

extension Optional: NumericDatabaseValue where Wrapped: NumericDatabaseValue {}
extension Bool: NumericDatabaseValue {}
extension Int: NumericDatabaseValue {}
extension Int8: NumericDatabaseValue {}
extension Int16: NumericDatabaseValue {}
extension Int32: NumericDatabaseValue {}
extension Int64: NumericDatabaseValue {}
extension UInt: NumericDatabaseValue {}
extension UInt8: NumericDatabaseValue {}
extension UInt16: NumericDatabaseValue {}
extension UInt32: NumericDatabaseValue {}
extension UInt64: NumericDatabaseValue {}
extension Double: NumericDatabaseValue {}
extension Float: NumericDatabaseValue {}
extension Date: NumericDatabaseValue {}
extension Decimal: NumericDatabaseValue {}
