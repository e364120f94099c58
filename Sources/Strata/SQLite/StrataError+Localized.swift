public import Foundation

/// Foundation's `localizedDescription` of a ``StrataError`` is its message and context (``StrataError/description``),
/// not the generic "The operation could not be completed".
extension StrataError: LocalizedError {
    public var errorDescription: String? { description }
}
