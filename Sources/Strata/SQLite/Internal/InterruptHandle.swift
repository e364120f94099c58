internal import CSQLite
import Synchronization

/// Interrupts a connection's statements from another thread, reliably, and only while its owner allows.
///
/// `sqlite3_interrupt` alone is lost when it lands between two statements (it only stops statements
/// that are running). So the handle also raises a flag that the connection's progress handler reads
/// every few hundred virtual-machine steps: a statement that starts after the cancellation stops too.
///
/// The owner *arms* the handle around the part of an access that may be interrupted (a transaction's
/// body, a read) and *disarms* it afterwards, which also lowers the flag. An interruption asked for
/// while the handle is disarmed does nothing, so a cancellation that arrives late can never stop a
/// commit, or an access by another task that uses the connection next.
///
/// `@unchecked Sendable`: it holds the connection pointer, which SQLite documents as safe to pass to
/// `sqlite3_interrupt` from any thread while the connection is open (the owner keeps it open while a
/// handle is armed, and an interrupt when nothing runs is a no-op), and a `Sendable` flag.
struct InterruptHandle: @unchecked Sendable {
    let handle: OpaquePointer
    let flag: InterruptFlag

    /// Allows ``interrupt()`` until ``disarm()``.
    func arm() {
        flag.isArmed.withLock { $0 = true }
    }

    /// Interrupts the running statement and those that start until ``disarm()``, if the handle is armed.
    func interrupt() {
        flag.isArmed.withLock { isArmed in
            guard isArmed else { return }
            flag.raised.store(true, ordering: .releasing)
            sqlite3_interrupt(handle)
        }
    }

    /// Ends the interruptible part and lowers the flag; later calls to ``interrupt()`` do nothing.
    func disarm() {
        flag.isArmed.withLock { isArmed in
            isArmed = false
            flag.raised.store(false, ordering: .releasing)
        }
    }
}

/// The flag an ``InterruptHandle`` raises and the progress handler reads.
final class InterruptFlag: Sendable {
    let raised = Atomic<Bool>(false)
    let isArmed = Locked(false)
}
