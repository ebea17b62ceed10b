import News
import Site

/// One accepted send as the alert budget counts it.
public struct CountedSend: Sendable, Hashable {
    /// Seconds since 1970.
    public var time: Double
    public var tags: [String]

    public init(time: Double, tags: [String]) {
        self.time = time
        self.tags = tags
    }
}

/// Why a due alert waits, and until when.
public struct BudgetHold: Sendable, Hashable {
    /// Sends in the window (of `tag`, when the budget counts per tag).
    public var count: Int
    /// The tag whose budget is full; nil for the overall budget.
    public var tag: String?
    /// The first moment the alert fits.
    public var nextSlot: Timestamp
}

extension AlertBudget {
    /// The ledger's sends as the budget counts them. The ledger is the only record of what went out, so it is
    /// what the budget counts; a record whose time cannot be read is left out rather than guessed.
    public static func sends(from records: [LedgerRecord]) -> [CountedSend] {
        records.compactMap { record in
            guard case .success(let time) = Timestamp.parse(record.sentAt) else { return nil }
            let tags = (try? TagExpression(parsing: record.tags))?.tags ?? []
            return CountedSend(time: time.secondsSinceEpoch, tags: tags)
        }
    }

    /// nil when an alert to `tags` fits at `now`; else how full the budget is and when the alert fits.
    ///
    /// The window is rolling and open at its far end: a send exactly `window` ago no longer counts. Sends
    /// later than `now` (a clock that was ahead) count, so a wrong clock never lets more alerts through. Per tag,
    /// the alert waits while any of its tags is full, until every one of them has a free slot.
    public func hold(tags: [String], sends: [CountedSend], now: Double) -> BudgetHold? {
        let recent = sends.filter { $0.time > now - window }
        var hold: BudgetHold?
        for scope in perTag ? tags.map(Optional.some) : [nil] {
            let times = recent.filter { send in scope.map { send.tags.contains($0) } ?? true }.map(\.time).sorted()
            guard times.count >= alerts else { continue }
            // The alert fits once all but `alerts - 1` of these sends have left the window.
            let slot = times[times.count - alerts] + window
            if hold == nil || slot > hold!.nextSlot.secondsSinceEpoch {
                hold = BudgetHold(count: times.count, tag: scope, nextSlot: Timestamp(secondsSinceEpoch: slot))
            }
        }
        return hold
    }
}
