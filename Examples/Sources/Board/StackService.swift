public import ServiceLifecycle
public import Strata

/// A `DataStack` as a service of a swift-service-lifecycle `ServiceGroup`: it runs until the group
/// shuts down gracefully (or is cancelled), then closes the stack, which first waits for the
/// transactions running or queued.
///
/// Put it *before* the HTTP server in the group's services: a group shuts its services down in reverse
/// order, each after the one after it has returned, so the server stops accepting and finishes its
/// in-flight requests, and only then does the stack close. Strata itself does not depend on
/// swift-service-lifecycle; this type lives in the example for servers to copy.
public struct StackService: Service {
    public let stack: DataStack

    public init(stack: DataStack) { self.stack = stack }

    public func run() async throws {
        // Returns at graceful shutdown; throws when the group is cancelled: close either way.
        try? await gracefulShutdown()
        await stack.close()
    }
}
