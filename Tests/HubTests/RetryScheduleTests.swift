import Hub
import Testing

@Suite("RetryPolicy")
struct RetryScheduleTests {
    let policy = RetryPolicy()

    @Test("defaults")
    func defaults() {
        #expect(policy == RetryPolicy(maxAttempts: 4, baseDelay: 1, maxDelay: 60))
    }

    @Test("201 is success on any attempt")
    func success() {
        #expect(policy.decide(attempt: 1, outcome: .status(201, retryAfter: nil), jitter: 0.3) == .success)
        #expect(policy.decide(attempt: 4, outcome: .status(201, retryAfter: "5"), jitter: 0.3) == .success)
    }

    @Test("any other 2xx is a failure that is never retried, on any attempt, whatever Retry-After says")
    func otherSuccessCodesAreFailures() {
        for code in [200, 202, 204, 299] {
            let expected = RetryDecision.giveUp(
                reason: "HTTP \(code): the hub answered \(code), not 201: is NEWSGEN_HUB_ENDPOINT a notification hub?")
            for attempt in [1, 2, 4] {
                #expect(policy.decide(attempt: attempt, outcome: .status(code, retryAfter: nil), jitter: 0.3) == expected)
                #expect(policy.decide(attempt: attempt, outcome: .status(code, retryAfter: "1"), jitter: 0.3) == expected)
            }
        }
    }

    @Test("the full default schedule for a retryable status, three jitter values")
    func defaultSchedule() {
        // (attempt, jitter, expected decision) for HTTP 503 without Retry-After.
        let table: [(Int, Double, RetryDecision)] = [
            (1, 0.0, .retry(after: 0.5)), (2, 0.0, .retry(after: 1)), (3, 0.0, .retry(after: 2)),
            (1, 0.5, .retry(after: 0.75)), (2, 0.5, .retry(after: 1.5)), (3, 0.5, .retry(after: 3)),
            (1, 0.75, .retry(after: 0.875)), (2, 0.75, .retry(after: 1.75)), (3, 0.75, .retry(after: 3.5)),
            (4, 0.0, .giveUp(reason: "gave up after 4 attempts; last: HTTP 503")),
            (4, 0.9, .giveUp(reason: "gave up after 4 attempts; last: HTTP 503")),
            (9, 0.9, .giveUp(reason: "gave up after 9 attempts; last: HTTP 503")),
        ]
        for (attempt, jitter, expected) in table {
            #expect(
                policy.decide(attempt: attempt, outcome: .status(503, retryAfter: nil), jitter: jitter) == expected,
                "attempt \(attempt), jitter \(jitter)")
        }
    }

    @Test("the delay doubles until maxDelay caps it")
    func capped() {
        let long = RetryPolicy(maxAttempts: 10, baseDelay: 1, maxDelay: 60)
        let expected: [Double] = [1, 2, 4, 8, 16, 32, 60, 60, 60]
        for (index, full) in expected.enumerated() {
            #expect(
                long.decide(attempt: index + 1, outcome: .status(500, retryAfter: nil), jitter: 0)
                    == .retry(after: full / 2))
            #expect(
                long.decide(attempt: index + 1, outcome: .networkError(transient: true), jitter: 0.5)
                    == .retry(after: full * 0.75))
        }
        #expect(
            long.decide(attempt: 10, outcome: .status(500, retryAfter: nil), jitter: 0)
                == .giveUp(reason: "gave up after 10 attempts; last: HTTP 500"))
        let slow = RetryPolicy(maxAttempts: 5, baseDelay: 2.5, maxDelay: 8)
        #expect(slow.decide(attempt: 1, outcome: .status(429, retryAfter: nil), jitter: 0) == .retry(after: 1.25))
        #expect(slow.decide(attempt: 2, outcome: .status(429, retryAfter: nil), jitter: 0) == .retry(after: 2.5))
        #expect(slow.decide(attempt: 3, outcome: .status(429, retryAfter: nil), jitter: 0) == .retry(after: 4))
        #expect(slow.decide(attempt: 4, outcome: .status(429, retryAfter: nil), jitter: 0) == .retry(after: 4))
    }

    @Test("every retryable status is retried")
    func retryable() {
        for code in [429, 408, 500, 502, 503, 504] {
            #expect(
                policy.decide(attempt: 1, outcome: .status(code, retryAfter: nil), jitter: 0) == .retry(after: 0.5),
                "\(code)")
        }
        #expect(policy.decide(attempt: 2, outcome: .networkError(transient: true), jitter: 0) == .retry(after: 1))
        #expect(
            policy.decide(attempt: 4, outcome: .networkError(transient: true), jitter: 0)
                == .giveUp(reason: "gave up after 4 attempts; last: a network error (timeout or lost connection)"))
    }

    @Test("Retry-After in integer seconds replaces the backoff, capped at maxDelay")
    func retryAfter() {
        let table: [(Int, String?, RetryDecision)] = [
            (429, "7", .retry(after: 7)),
            (429, " 12\t", .retry(after: 12)),
            (429, "0", .retry(after: 0)),
            (429, "120", .retry(after: 60)),
            (429, "99999999999999999999999999", .retry(after: 60)),
            (503, "3", .retry(after: 3)),
            (403, "30", .retry(after: 30)),
            // Not integer seconds: treated as absent.
            (429, "Wed, 21 Oct 2015 07:28:00 GMT", .retry(after: 0.5)),
            (429, "1.5", .retry(after: 0.5)),
            (429, "-3", .retry(after: 0.5)),
            (429, "", .retry(after: 0.5)),
            (429, "+3", .retry(after: 0.5)),
            (429, "٣", .retry(after: 0.5)),
        ]
        for (code, header, expected) in table {
            #expect(
                policy.decide(attempt: 1, outcome: .status(code, retryAfter: header), jitter: 0) == expected,
                "\(header ?? "nil")")
        }
        #expect(
            policy.decide(attempt: 4, outcome: .status(429, retryAfter: "1"), jitter: 0)
                == .giveUp(reason: "gave up after 4 attempts; last: HTTP 429"))
        #expect(RetryPolicy.retryAfterSeconds("42") == 42)
        #expect(RetryPolicy.retryAfterSeconds(nil) == nil)
        #expect(RetryPolicy.retryAfterSeconds("4 2") == nil)
    }

    @Test("statuses that are never retried, with their reasons")
    func neverRetried() {
        let sendRight =
            "HTTP 403: this key cannot send; use a key with the Send right (the apps' Listen key must never be used here)"
        let table: [(Int, String?, String)] = [
            (400, nil, "HTTP 400: the hub says the request is malformed"),
            (401, nil, "HTTP 401: the hub rejected the signature (wrong key or key name, or the clock is off)"),
            (401, "5", "HTTP 401: the hub rejected the signature (wrong key or key name, or the clock is off)"),
            (403, nil, sendRight),
            (403, "Wed, 21 Oct 2015 07:28:00 GMT", sendRight),
            (404, nil, "HTTP 404: no such hub at this endpoint (check NEWSGEN_HUB_NAME and the endpoint)"),
            (413, nil, "HTTP 413: the notification is larger than the hub's 64 KB limit"),
            (409, nil, "HTTP 409: the hub refused the request; sending it again will not help"),
            (410, "1", "HTTP 410: the hub refused the request; sending it again will not help"),
            (501, nil, "HTTP 501: the hub failed in a way that retrying will not fix"),
            (505, nil, "HTTP 505: the hub failed in a way that retrying will not fix"),
            (302, nil, "HTTP 302: an unexpected answer from the hub (a send succeeds with 201)"),
            (100, nil, "HTTP 100: an unexpected answer from the hub (a send succeeds with 201)"),
            (0, nil, "HTTP 0: not a valid HTTP status"),
            (-1, nil, "HTTP -1: not a valid HTTP status"),
            (Int.max, nil, "HTTP \(Int.max): not a valid HTTP status"),
        ]
        for (code, header, reason) in table {
            for attempt in [1, 3, 4] {
                #expect(
                    policy.decide(attempt: attempt, outcome: .status(code, retryAfter: header), jitter: 0.5)
                        == .giveUp(reason: reason), "\(code) attempt \(attempt)")
            }
        }
        #expect(
            policy.decide(attempt: 1, outcome: .networkError(transient: false), jitter: 0)
                == .giveUp(
                    reason: "a network error that retrying will not fix (for example an unknown host name or a TLS "
                        + "certificate problem)"))
    }

    @Test("odd inputs are clamped, never trapped")
    func oddInputs() {
        #expect(policy.decide(attempt: 0, outcome: .status(503, retryAfter: nil), jitter: 0) == .retry(after: 0.5))
        #expect(
            policy.decide(attempt: Int.min, outcome: .status(503, retryAfter: nil), jitter: 0) == .retry(after: 0.5))
        #expect(policy.decide(attempt: 1, outcome: .status(503, retryAfter: nil), jitter: .nan) == .retry(after: 0.5))
        #expect(policy.decide(attempt: 1, outcome: .status(503, retryAfter: nil), jitter: -4) == .retry(after: 0.5))
        #expect(policy.decide(attempt: 1, outcome: .status(503, retryAfter: nil), jitter: 7) == .retry(after: 1))
        let huge = RetryPolicy(maxAttempts: Int.max, baseDelay: 1, maxDelay: 60)
        #expect(
            huge.decide(attempt: Int.max - 1, outcome: .status(503, retryAfter: nil), jitter: 0) == .retry(after: 30))
        let zero = RetryPolicy(maxAttempts: Int.max, baseDelay: 0, maxDelay: 60)
        #expect(
            zero.decide(attempt: Int.max - 1, outcome: .status(503, retryAfter: nil), jitter: 0) == .retry(after: 0))
        let unbounded = RetryPolicy(maxAttempts: Int.max, baseDelay: 1, maxDelay: .infinity)
        #expect(
            unbounded.decide(attempt: 5000, outcome: .status(503, retryAfter: nil), jitter: 0)
                == .retry(after: Double.greatestFiniteMagnitude / 2))
        let negative = RetryPolicy(maxAttempts: -3, baseDelay: -1, maxDelay: .nan)
        #expect(
            negative.decide(attempt: 1, outcome: .status(503, retryAfter: nil), jitter: 0)
                == .giveUp(reason: "gave up after 1 attempt; last: HTTP 503"))
        let single = RetryPolicy(maxAttempts: 2, baseDelay: -1, maxDelay: .nan)
        #expect(single.decide(attempt: 1, outcome: .status(503, retryAfter: "9"), jitter: 0) == .retry(after: 0))
    }
}
