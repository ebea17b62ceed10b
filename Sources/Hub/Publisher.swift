import Foundation
import HTTP
import News
import Site

/// How one notification ended.
public enum SendStatus: Sendable {
    case sent(LedgerRecord, attempts: Int)
    case failed(String, attempts: Int)
    /// `--check-live`: a page never answered 200, so nothing was sent.
    case notLive(url: String, detail: String)
}

/// How a test send ended.
public enum TestSendStatus: Sendable {
    case reached(TestSendOutcome, attempts: Int)
    case failed(String, attempts: Int)
}

/// Bounded wait for a story's pages to be served before its alert goes out (phones must never open a 404).
public struct LiveCheck: Sendable {
    public var maximumWait: Double
    public var interval: Double
    public init(maximumWait: Double, interval: Double = 5) {
        self.maximumWait = maximumWait
        self.interval = interval
    }
}

/// Sends notifications: one request per story, retried per `RetryPolicy`, each accepted send recorded in the
/// ledger before it counts. Stories go out concurrently, at most `concurrency` at a time, over one
/// transport (so connections are reused). One story failing does not stop the others.
public struct Publisher: Sendable {
    public var connection: HubConnection
    public var transport: HTTPTransport
    public var ledger: Ledger
    public var policy: RetryPolicy
    public var concurrency: Int
    public var liveCheck: LiveCheck?
    /// Seconds since 1970 from the real clock (tokens and ledger times never use SOURCE_DATE_EPOCH).
    public var clock: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    public var sleep: @Sendable (Double) async -> Void = { seconds in
        try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
    public var jitter: @Sendable () -> Double = { Double.random(in: 0..<1) }

    public init(connection: HubConnection, transport: HTTPTransport, ledger: Ledger, policy: RetryPolicy,
                concurrency: Int, liveCheck: LiveCheck?) {
        self.connection = connection
        self.transport = transport
        self.ledger = ledger
        self.policy = policy
        self.concurrency = max(1, concurrency)
        self.liveCheck = liveCheck
    }

    /// The exact request for a notification (a fresh token each time).
    public func request(for notification: Notification) -> HTTPRequest {
        HTTPRequest(method: "POST", url: connection.messagesURL, headers: Self.headers(notification, authorization: connection.authorization(now: Int(clock()))),
                    body: notification.body)
    }

    /// The headers of a send, in order; `publish --dry-run` shows the same ones with a redacted authorization.
    public static func headers(_ notification: Notification, authorization: String) -> [HTTPHeader] {
        [
            HTTPHeader("Authorization", authorization),
            HTTPHeader("Content-Type", "application/json;charset=utf-8"),
            HTTPHeader("ServiceBusNotification-Format", "template"),
            HTTPHeader("ServiceBusNotification-Tags", notification.tags.headerValue),
            HTTPHeader("x-ms-version", HubConnection.apiVersion),
        ]
    }

    /// Sends every notification; results by story id.
    public func publish(_ notifications: [Notification]) async -> [String: SendStatus] {
        await withTaskGroup(of: (String, SendStatus).self) { group in
            var results: [String: SendStatus] = [:]
            var pending = notifications[...]
            var running = 0
            while !pending.isEmpty || running > 0 {
                while running < concurrency, let next = pending.popFirst() {
                    group.addTask { (next.story.id, await self.deliver(next)) }
                    running += 1
                }
                if let (id, status) = await group.next() {
                    results[id] = status
                    running -= 1
                }
            }
            return results
        }
    }

    func deliver(_ notification: Notification) async -> SendStatus {
        if let liveCheck {
            for page in notification.pageURLs {
                if let problem = await waitUntilLive(page.url, liveCheck) {
                    return .notLive(url: page.url, detail: problem)
                }
            }
        }
        let delivery = await sendRetrying({ request(for: notification) }) {
            ledger.writeFailure.map { "not sent, because the ledger cannot record sends (\($0.message)); fix it and run again" }
        }
        switch delivery {
        case .failed(let reason, let attempts):
            return .failed(reason, attempts: attempts)
        case .accepted(let response, _, let attempts):
            let record = LedgerRecord(
                storyId: notification.story.id, revision: notification.revision,
                sentAt: Timestamp(secondsSinceEpoch: clock().rounded(.down)).rfc3339,
                tags: notification.tags.headerValue, bodySHA256: Ledger.hexSHA256(notification.body),
                hubNotificationId: response?.header("Location").flatMap(Self.notificationID),
                trackingId: response?.header("TrackingId"))
            do {
                try await ledger.record(record)
            } catch {
                return .failed("the hub accepted it, but recording it failed: \(error.message); do not re-run before fixing the ledger, or the alert goes out twice", attempts: attempts)
            }
            return .sent(record, attempts: attempts)
        }
    }

    /// How a request ended once the policy allowed no more attempts.
    enum Delivery {
        case accepted(HTTPResponse?, detail: String, attempts: Int)
        case failed(String, attempts: Int)
    }

    /// Sends `request()` (made afresh for each attempt, for a fresh token) until the policy accepts the answer or
    /// gives up. `stop`, asked before each attempt, ends the loop with its reason.
    func sendRetrying(_ request: () -> HTTPRequest, stop: () -> String? = { nil }) async -> Delivery {
        var attempt = 0
        while true {
            if let reason = stop() { return .failed(reason, attempts: attempt) }
            attempt += 1
            let (outcome, response, detail) = await attemptOnce(request())
            switch policy.decide(attempt: attempt, outcome: outcome, jitter: jitter()) {
            case .success:
                return .accepted(response, detail: detail, attempts: attempt)
            case .retry(let delay):
                await sleep(delay)
            case .giveUp(let reason):
                return .failed(Self.failure(detail, reason, response), attempts: attempt)
            }
        }
    }

    /// One request: how it ended for the retry policy, the answer if there was one, and words for people.
    func attemptOnce(_ request: HTTPRequest) async -> (SendOutcome, HTTPResponse?, String) {
        do {
            let answer = try await transport.send(request)
            var detail = "HTTP \(answer.status)"
            if let tracking = answer.header("TrackingId") { detail += " (tracking id \(tracking))" }
            return (.status(answer.status, retryAfter: answer.header("Retry-After")), answer, detail)
        } catch {
            let transient = ![.invalidURL, .insecureURL, .tls].contains(error.kind)
            return (.networkError(transient: transient), nil, error.description)
        }
    }

    /// The policy's reason starts with the status ("HTTP 403: …"); the detail adds the tracking id.
    static func failure(_ detail: String, _ reason: String, _ response: HTTPResponse?) -> String {
        var explanation = Substring(reason)
        if let response, explanation.hasPrefix("HTTP \(response.status): ") {
            explanation = explanation.dropFirst("HTTP \(response.status): ".count)
        }
        return "\(detail): \(explanation)"
    }

    /// `publish --test`: the hub's test send (`test` in the query), which reaches at most 10 registrations and
    /// answers with each one's outcome. Retried like a real send; never recorded in the ledger, so the real
    /// publish later still sends the story once.
    public func testSend(_ notification: Notification) async -> TestSendStatus {
        let delivery = await sendRetrying {
            var request = request(for: notification)
            request.url = connection.testMessagesURL
            return request
        }
        switch delivery {
        case .failed(let reason, let attempts):
            return .failed(reason, attempts: attempts)
        case .accepted(let response, let detail, let attempts):
            let text = String(decoding: response?.body ?? [], as: UTF8.self)
            guard let answer = TestSendOutcome(xml: text) else {
                return .failed("\(detail): the hub accepted it but did not answer with the outcome of each registration", attempts: attempts)
            }
            return .reached(answer, attempts: attempts)
        }
    }

    /// The last path segment of the `Location` header: the hub's notification id.
    static func notificationID(_ location: String) -> String? {
        let path = location.split(separator: "?").first.map(String.init) ?? location
        return path.split(separator: "/").last.map(String.init)
    }

    /// nil when the URL answered 200 within the wait, else what went wrong last.
    func waitUntilLive(_ url: String, _ check: LiveCheck) async -> String? {
        let deadline = clock() + check.maximumWait
        var last = "no answer"
        while true {
            do {
                let response = try await transport.send(HTTPRequest(method: "GET", url: url))
                if response.status == 200 { return nil }
                last = "HTTP \(response.status)"
            } catch {
                last = error.description
            }
            let remaining = deadline - clock()
            if remaining <= 0 { return "\(last) after waiting \(Int(check.maximumWait)) s" }
            await sleep(min(check.interval, remaining))
        }
    }
}
