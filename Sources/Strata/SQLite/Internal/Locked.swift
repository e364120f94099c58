#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `pthread_mutex_t`: the lock of Strata's internal state.
///
/// Why not the standard library's `Mutex`: on Linux it locks with futexes inside the prebuilt
/// Synchronization library, which ThreadSanitizer cannot see, so every access to state it guards is
/// reported as a race (a false positive, checked with a two-thread program). ThreadSanitizer
/// intercepts `pthread_mutex_lock`, so with this lock a report is a real race. Uncontended, the two
/// cost the same.
///
/// `@unchecked Sendable`: the value is only reached inside ``withLock(_:)``, under the mutex, so
/// threads never touch it at the same time; the mutex lives at a fixed heap address for the lock's
/// whole life.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, under the lock.
    @inline(__always)
    func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

extension Locked {
    /// Takes the lock and lets it go: whatever the last holder did before it let go is then seen to
    /// come before what the caller does next.
    ///
    /// For a task that awaited a continuation resumed by a thread right after it let go of this lock:
    /// the continuation orders the two already, but when it is resumed before the task reaches its
    /// `await`, the Swift runtime orders them with an atomic load that ThreadSanitizer does not see
    /// (swiftlang/swift#57803). Passing through the lock makes the order one it sees.
    func synchronize() {
        // The mutex alone: `withLock` would also make an exclusive access to the value, and a value of
        // no size (`Locked(())`) sits at the mutex pointer's address, where ThreadSanitizer then sees
        // that access race with this method's read of the pointer.
        pthread_mutex_lock(mutex)
        pthread_mutex_unlock(mutex)
    }
}

extension Locked where Value == Bool {
    /// Sets the flag, and returns whether this call did (it was clear): the first caller takes it.
    func takeOnce() -> Bool {
        withLock { taken in
            defer { taken = true }
            return !taken
        }
    }
}
