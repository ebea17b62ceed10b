// `CurlTransport`: all transfers of one transport run on one dedicated thread that drives a curl multi handle.
// The multi handle owns the connection cache, so sequential sends to the same host reuse one connection;
// up to `maxConcurrentTransfers` transfers are in flight at once, the rest wait in a FIFO queue. Nothing blocking
// runs on Swift's cooperative thread pool: `send` only enqueues a job and suspends until the engine resumes it.

internal import CCurl
internal import CCurlShim
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// libcurl-backed transport. Reuses connections (keep-alive) across sends; at most `maxConcurrentTransfers`
/// transfers run at the same time (callers may call send from many tasks; extra calls wait their turn).
public final class CurlTransport: HTTPTransport {
    private let engine: CurlEngine

    public init(timeouts: HTTPTimeouts = .init(), maxConcurrentTransfers: Int = 8) {
        engine = CurlEngine(timeouts: timeouts, maxConcurrent: max(1, maxConcurrentTransfers))
    }

    deinit {
        engine.shutDown()
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let url: ParsedURL
        switch validate(request) {
        case .success(let parsed): url = parsed
        case .failure(let error): throw error
        }
        let id = engine.register()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                engine.enqueue(Job(id: id, request: request, url: url, continuation: continuation))
            }
        } onCancel: {
            engine.cancel(id)
        }
        return try result.get()
    }
}

/// A request waiting for, or running on, the engine thread.
struct Job: Sendable {
    var id: UInt64
    var request: HTTPRequest
    var url: ParsedURL
    var continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>

    func cancelledError() -> HTTPError { otherError("the request was cancelled") }

    func shutDownError() -> HTTPError { otherError("the transport was shut down") }

    /// An `.other` error about this job: host:port, then `text` with every secret of the request removed.
    func otherError(_ text: String) -> HTTPError {
        let secrets = url.secrets + request.headers.map(\.value)
        return HTTPError(kind: .other, message: scrub("\(url.hostPort): \(text)", secrets: secrets))
    }
}

/// State shared between `send` callers and the engine thread (always under the lock).
private struct EngineState: Sendable {
    var nextID: UInt64 = 0
    /// Jobs that are registered and not yet answered.
    var registered: Set<UInt64> = []
    /// Registered jobs whose task was cancelled.
    var cancelled: Set<UInt64> = []
    var queue: [Job] = []
    var shuttingDown = false
    /// Why the engine could not start, if it could not; every job then fails with it.
    var startError: HTTPError? = nil
}

/// Owns the multi handle and the thread that drives it.
///
/// `@unchecked Sendable`: the multi handle, the easy handles and all `Transfer`s are touched only by the engine
/// thread, with one exception that libcurl documents as safe from any thread: `curl_multi_wakeup`. Everything
/// shared with callers lives in `state`, behind its mutex.
final class CurlEngine: @unchecked Sendable {
    private let state = Mutex(EngineState())
    private let multi: UnsafeMutableRawPointer?
    private let timeouts: HTTPTimeouts
    private let maxConcurrent: Int

    // Engine-thread-only state.
    private var inFlight: [UnsafeMutableRawPointer: Transfer] = [:]
    private var idleEasyHandles: [UnsafeMutableRawPointer] = []

    init(timeouts: HTTPTimeouts, maxConcurrent: Int) {
        self.timeouts = timeouts
        self.maxConcurrent = maxConcurrent
        if let error = ensureCurlGlobalInit() {
            multi = nil
            state.withLock { $0.startError = error }
            return
        }
        guard let multi = curl_multi_init() else {
            self.multi = nil
            state.withLock { $0.startError = HTTPError(kind: .other, message: "curl_multi_init failed: out of memory") }
            return
        }
        self.multi = multi
        do {
            // Keep enough idle connections around for every transfer that can run at once.
            try check(newsgen_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, CLong(max(maxConcurrent, 8))),
                      "curl_multi_setopt(CURLMOPT_MAXCONNECTS)")
            try startThread()
        } catch {
            state.withLock { $0.startError = HTTPError(kind: .other, message: error.message) }
        }
    }

    deinit {
        // Runs after the engine thread has exited (the thread holds a strong reference until then).
        for easy in idleEasyHandles { curl_easy_cleanup(easy) }
        if let multi { _ = curl_multi_cleanup(multi) }
    }

    private func startThread() throws(CurlSetupError) {
        let retained = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let engine = Unmanaged<CurlEngine>.fromOpaque(argument).takeRetainedValue()
            engine.run()
            return nil
        }, retained)
        guard status == 0 else {
            Unmanaged<CurlEngine>.fromOpaque(retained).release()
            throw CurlSetupError(message: "pthread_create failed: \(String(cString: strerror(status)))")
        }
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
    }

    // MARK: Caller side (any thread)

    func register() -> UInt64 {
        state.withLock { state in
            state.nextID &+= 1
            state.registered.insert(state.nextID)
            return state.nextID
        }
    }

    func enqueue(_ job: Job) {
        let early: HTTPError? = state.withLock { state in
            if let startError = state.startError { return startError }
            if state.cancelled.contains(job.id) { return job.cancelledError() }
            if state.shuttingDown { return job.shutDownError() }
            state.queue.append(job)
            return nil
        }
        if let early {
            answer(job, .failure(early))
        } else {
            wake()
        }
    }

    func cancel(_ id: UInt64) {
        let known = state.withLock { state in
            guard state.registered.contains(id) else { return false }
            state.cancelled.insert(id)
            return true
        }
        if known { wake() }
    }

    func shutDown() {
        state.withLock { $0.shuttingDown = true }
        wake()
    }

    private func wake() {
        if let multi { _ = curl_multi_wakeup(multi) }
    }

    /// Resumes the caller of `send`; each job is answered exactly once.
    private func answer(_ job: Job, _ result: Result<HTTPResponse, HTTPError>) {
        state.withLock { state in
            state.registered.remove(job.id)
            state.cancelled.remove(job.id)
        }
        job.continuation.resume(returning: result)
    }

    // MARK: Engine thread

    private func run() {
        guard let multi else { return }
        while true {
            // Take new work and cancellations.
            let (admitted, cancelledQueued, cancelledIDs, stop) = state.withLock { state in
                var cancelledQueued: [Job] = []
                if !state.cancelled.isEmpty {
                    cancelledQueued = state.queue.filter { state.cancelled.contains($0.id) }
                    state.queue.removeAll { state.cancelled.contains($0.id) }
                }
                let room = state.shuttingDown ? 0 : max(0, maxConcurrent - inFlight.count)
                let admitted = Array(state.queue.prefix(room))
                state.queue.removeFirst(admitted.count)
                return (admitted, cancelledQueued, state.cancelled, state.shuttingDown)
            }
            for job in cancelledQueued { answer(job, .failure(job.cancelledError())) }
            for transfer in inFlight.values where cancelledIDs.contains(transfer.job.id) {
                finish(transfer, .failure(transfer.job.cancelledError()))
            }
            if stop { break }
            for job in admitted { start(job, multi: multi) }

            // Drive the transfers.
            var running: Int32 = 0
            do {
                try check(curl_multi_perform(multi, &running), "curl_multi_perform")
            } catch {
                failAll(error.message)
            }
            var finishedAny = false
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = inFlight[easy]
                else { continue }
                let code = message.pointee.data.result
                finish(transfer, code == CURLE_OK ? .success(transfer.response()) : .failure(transfer.error(for: code)))
                finishedAny = true
            }
            if finishedAny { continue }  // admit queued jobs before sleeping

            // Sleep until socket activity, a curl timer, or a wakeup from enqueue/cancel/shutDown.
            do {
                try check(curl_multi_poll(multi, nil, 0, 1000, nil), "curl_multi_poll")
            } catch {
                failAll(error.message)
                usleep(10_000)  // do not spin if polling keeps failing
            }
        }

        // Shutting down: answer everything still waiting, release all handles.
        for transfer in Array(inFlight.values) {
            finish(transfer, .failure(transfer.job.shutDownError()))
        }
        let leftovers = state.withLock { state in
            defer { state.queue.removeAll() }
            return state.queue
        }
        for job in leftovers {
            answer(job, .failure(job.shutDownError()))
        }
    }

    private func start(_ job: Job, multi: UnsafeMutableRawPointer) {
        guard let easy = idleEasyHandles.popLast() ?? curl_easy_init() else {
            answer(job, .failure(job.otherError("curl_easy_init failed: out of memory")))
            return
        }
        assert(inFlight[easy] == nil, "an easy handle must never serve two transfers at once")
        let transfer = Transfer(job: job, easy: easy)
        do {
            try transfer.configure(timeouts: timeouts)
            try check(curl_multi_add_handle(multi, easy), "curl_multi_add_handle")
        } catch {
            recycle(easy)
            answer(job, .failure(job.otherError(error.message)))
            return
        }
        inFlight[easy] = transfer
    }

    /// Removes a transfer from the multi handle, returns its easy handle to the pool and answers its caller.
    private func finish(_ transfer: Transfer, _ result: Result<HTTPResponse, HTTPError>) {
        if let multi { _ = curl_multi_remove_handle(multi, transfer.easy) }
        inFlight[transfer.easy] = nil
        recycle(transfer.easy)
        answer(transfer.job, result)
        // `transfer` (header list, URL handle, error buffer) is freed when the last reference goes away here.
    }

    private func recycle(_ easy: UnsafeMutableRawPointer) {
        if idleEasyHandles.count < maxConcurrent {
            curl_easy_reset(easy)
            idleEasyHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    private func failAll(_ message: String) {
        for transfer in Array(inFlight.values) {
            finish(transfer, .failure(transfer.job.otherError(message)))
        }
    }
}
