// What to do after each send attempt, as the hub's REST API and the official SDKs treat each answer. Pure: the caller measures, sleeps and supplies
// the random jitter, so the whole schedule can be tested without a network or a clock.

/// How one attempt to send ended.
public enum SendOutcome: Sendable, Hashable {
    /// The hub answered with this HTTP status and, if present, the raw `Retry-After` header value.
    case status(Int, retryAfter: String?)
    /// No HTTP answer. `transient` is true for timeouts, refused or reset connections and similar; false for
    /// failures that will repeat (unknown host, TLS certificate problems, bad URL).
    case networkError(transient: Bool)
}

/// The policy's verdict after an attempt.
public enum RetryDecision: Sendable, Hashable {
    /// 201 Created: the hub accepted the send. It is the hub's only success answer; any other 2xx means the request
    /// reached something that is not a notification hub (a proxy, a wrong endpoint), so nothing was announced.
    case success
    /// Wait this many seconds, then try again.
    case retry(after: Double)
    /// Stop; the reason is written for the person running `newsgen publish`.
    case giveUp(reason: String)
}

/// Retry with exponential backoff and "equal jitter", honouring an integer `Retry-After`.
///
/// Retried: 429, 403 with a valid `Retry-After` (legacy throttling), 408, 500, 502, 503, 504 and transient network
/// errors. Never retried: 400, 401, 403 without `Retry-After`, 404, 413 and every other status, including a 2xx
/// other than 201 (sending again to the same wrong endpoint would be lost the same way). The delay after
/// attempt k is `min(maxDelay, baseDelay × 2^(k-1)) × (0.5 + jitter/2)`, or exactly the `Retry-After` seconds
/// (capped at `maxDelay`) when the hub sent an integer. After `maxAttempts` attempts the policy gives up.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, the first one included.
    public var maxAttempts: Int
    /// Seconds before the first retry, before jitter.
    public var baseDelay: Double
    /// Longest wait in seconds, also for `Retry-After`.
    public var maxDelay: Double

    public init(maxAttempts: Int = 4, baseDelay: Double = 1, maxDelay: Double = 60) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Decides what follows `attempt` (1-based: the attempt that just finished), given how it ended and a
    /// random `jitter` in 0..<1 from the caller. Out-of-range inputs are clamped rather than trusted.
    public func decide(attempt: Int, outcome: SendOutcome, jitter: Double) -> RetryDecision {
        let attempt = max(1, attempt)
        let limit = max(1, maxAttempts)

        let retryAfter: Int?
        switch outcome {
        case .status(let code, let header):
            if code == 201 { return .success }
            retryAfter = Self.retryAfterSeconds(header)
            if let reason = Self.finalReason(status: code, hasRetryAfter: retryAfter != nil) {
                return .giveUp(reason: reason)
            }
        case .networkError(let transient):
            guard transient else {
                return .giveUp(
                    reason: "a network error that retrying will not fix (for example an unknown host name or a "
                        + "TLS certificate problem)")
            }
            retryAfter = nil
        }

        if attempt >= limit {
            let last: String
            switch outcome {
            case .status(let code, _): last = "HTTP \(code)"
            case .networkError: last = "a network error (timeout or lost connection)"
            }
            return .giveUp(reason: "gave up after \(attempt) attempt\(attempt == 1 ? "" : "s"); last: \(last)")
        }

        let cap = Self.sanitized(maxDelay)
        if let retryAfter {
            return .retry(after: min(Double(retryAfter), cap))
        }
        var delay = Self.sanitized(baseDelay)
        var doublings = attempt - 1
        while doublings > 0 && delay > 0 && delay < cap {
            delay *= 2
            doublings -= 1
        }
        delay = min(delay, cap)
        let clampedJitter = jitter >= 0 ? min(jitter, 1) : 0  // NaN → 0
        return .retry(after: delay * (0.5 + clampedJitter / 2))
    }

    /// The `Retry-After` value as whole seconds, or nil when absent or not a plain non-negative integer (an
    /// HTTP-date is not supported and counts as absent). Values too large for `Int` saturate.
    public static func retryAfterSeconds(_ header: String?) -> Int? {
        guard let header else { return nil }
        let digits = header.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            .reversed()
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for digit in digits {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - 0x30))
            if overflow1 || overflow2 { return Int.max }
            value = sum
        }
        return value
    }

    /// nil when `status` may be retried; otherwise the plain-words reason for stopping.
    private static func finalReason(status: Int, hasRetryAfter: Bool) -> String? {
        switch status {
        case 429, 408, 500, 502, 503, 504:
            return nil
        case 403 where hasRetryAfter:
            return nil  // legacy throttling signal
        case 400:
            return "HTTP 400: the hub says the request is malformed"
        case 401:
            return "HTTP 401: the hub rejected the signature (wrong key or key name, or the clock is off)"
        case 403:
            return "HTTP 403: this key cannot send; use a key with the Send right "
                + "(the apps' Listen key must never be used here)"
        case 404:
            return "HTTP 404: no such hub at this endpoint (check NEWSGEN_HUB_NAME and the endpoint)"
        case 413:
            return "HTTP 413: the notification is larger than the hub's 64 KB limit"
        case 400...499:
            return "HTTP \(status): the hub refused the request; sending it again will not help"
        case 500...599:
            return "HTTP \(status): the hub failed in a way that retrying will not fix"
        case 200...299:
            return "HTTP \(status): the hub answered \(status), not 201: is NEWSGEN_HUB_ENDPOINT a notification hub?"
        case 100...399:
            return "HTTP \(status): an unexpected answer from the hub (a send succeeds with 201)"
        default:
            return "HTTP \(status): not a valid HTTP status"
        }
    }

    /// Non-negative and finite: NaN and negatives become 0, infinity the largest finite value.
    private static func sanitized(_ seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }
        return min(seconds, Double.greatestFiniteMagnitude)
    }
}
