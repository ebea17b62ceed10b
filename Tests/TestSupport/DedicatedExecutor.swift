import Dispatch

/// Runs a test's async work on a thread of its own instead of Swift's cooperative pool, which has one thread per
/// core: on a 2-core machine two end-to-end tests waiting for child processes hold the whole pool, and a test that
/// measures how quickly a timeout fires would measure that wait instead.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: the only stored property is a serial DispatchQueue, which is thread-safe.
    private let queue: DispatchQueue

    public init(label: String = "newsgen.tests.dedicated") {
        queue = DispatchQueue(label: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// `body` with its awaits resumed on a `DedicatedExecutor`, for tests whose assertions are about elapsed time. An
/// unstructured task the body starts does not inherit the preference: start it with
/// `Task(executorPreference: executor)`, with the executor `body` is given.
public func onDedicatedThread<T: Sendable>(_ body: (DedicatedExecutor) async throws -> T) async rethrows -> T {
    let executor = DedicatedExecutor()
    return try await withTaskExecutorPreference(executor) { try await body(executor) }
}
