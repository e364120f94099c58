/// A connection's statement trace (``Connection/Options/trace``), for SQLite's C callback.
///
/// While the connection holds the commit gate, the texts wait here and reach the trace once the gate is
/// released (see ``Connection/holdingTrace(_:)``): a slow trace, or one that waits for another access of
/// the stack, never holds up every commit and every read that starts.
///
/// Not `Sendable`: its connection owns it, and SQLite calls the callback only from a statement that
/// connection is running, on the connection's thread.
final class TraceBox {
    private let trace: @Sendable (String) -> Void
    /// The texts recorded while held, in order; `nil` when not held.
    private var held: [String]?

    init(_ trace: @escaping @Sendable (String) -> Void) {
        self.trace = trace
    }

    /// Hands `text` to the trace, or keeps it until ``release()`` while held.
    func record(_ text: String) {
        if held != nil { held?.append(text) } else { trace(text) }
    }

    /// Keeps the texts recorded from now on until ``release()``.
    func hold() {
        if held == nil { held = [] }
    }

    /// Hands the texts kept since ``hold()`` to the trace, in order, and stops keeping them.
    func release() {
        guard let texts = held else { return }
        held = nil
        for text in texts { trace(text) }
    }
}
