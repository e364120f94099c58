/// A wake-up for one waiting task, with a timeout: signals that come while nobody waits are kept, as
/// one, so a wake-up is never lost and a burst of them wakes the waiter once.
///
/// Waiting suspends the task (no thread is held); a timed wait sleeps in a task of its own, which a
/// signal cancels.
final class WakeSignal: Sendable {
    private struct State {
        var isSignalled = false
        var waiter: CheckedContinuation<Bool, Never>?
        /// Tells a timeout of an earlier wait from one of the current wait.
        var generation: UInt64 = 0
        var timer: Task<Void, Never>?
    }

    private let state = Locked(State())

    /// Wakes the waiter, or the next one to wait. Safe from any thread; never blocks.
    func signal() {
        let (waiter, timer) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, Task<Void, Never>?) in
            guard let waiter = state.waiter else {
                state.isSignalled = true
                return (nil, nil)
            }
            defer {
                state.waiter = nil
                state.timer = nil
            }
            return (waiter, state.timer)
        }
        timer?.cancel()
        waiter?.resume(returning: true)
    }

    /// Takes a pending signal without waiting: whether there was one.
    func take() -> Bool {
        state.withLock { state in
            defer { state.isSignalled = false }
            return state.isSignalled
        }
    }

    /// Waits for a signal (`true`) or for `timeout` to pass (`false`); without a timeout, for a signal
    /// only. One task waits at a time. A cancelled task stops waiting at once, with `false`.
    func wait(timeout: Duration?) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let signalled = state.withLock { state -> Bool in
                    if state.isSignalled {
                        state.isSignalled = false
                        return true
                    }
                    state.generation += 1
                    state.waiter = continuation
                    if let timeout {
                        let generation = state.generation
                        state.timer = Task { [weak self] in
                            guard (try? await Task.sleep(for: timeout)) != nil else { return }
                            self?.timeOut(generation)
                        }
                    }
                    return false
                }
                if signalled {
                    continuation.resume(returning: true)
                } else if Task.isCancelled {
                    // Cancelled before the waiter was stored: the handler found nothing to resume.
                    timeOut(nil)
                }
            }
        } onCancel: {
            timeOut(nil)
        }
    }

    /// Resumes the waiter with `false`: the waiter of `generation`, or whichever waits when `nil`.
    private func timeOut(_ generation: UInt64?) {
        let (waiter, timer) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, Task<Void, Never>?) in
            guard let waiter = state.waiter, generation == nil || generation == state.generation else { return (nil, nil) }
            defer {
                state.waiter = nil
                state.timer = nil
            }
            return (waiter, state.timer)
        }
        if generation == nil { timer?.cancel() }
        waiter?.resume(returning: false)
    }
}
