import News
import Site

/// A moment when the site or the alerts change without anyone editing a file.
public struct ScheduledChange: Sendable, Hashable {
    public enum Kind: String, Sendable {
        /// A story's `published` time arrives: it appears on the site (and, if breaking, its alert is due).
        case storyAppears = "story-appears"
        /// A story leaves the Google News sitemap's 48-hour window.
        case leavesNewsWindow = "leaves-news-window"
        /// A held alert's next budget slot opens.
        case budgetSlot = "budget-slot"
    }
    public var time: Timestamp
    public var kind: Kind
    public var storyID: String
}

/// `newsgen next-change`: a pure function of the loaded edition, the ledger and now.
public enum NextChange {
    /// Every change still to come (strictly after `now`) that is known today, earliest first.
    public static func upcoming(edition: Edition, sent: [String: LedgerRecord], now: Timestamp) -> [ScheduledChange] {
        var changes: [ScheduledChange] = []
        for story in edition.stories where !story.draft {
            if story.published > now {
                // In UTC, whatever offset the editor wrote: scripts compare these.
                changes.append(ScheduledChange(time: Timestamp(secondsSinceEpoch: story.published.secondsSinceEpoch),
                                               kind: .storyAppears, storyID: story.id))
            } else if NewsSitemap.isRecent(story.published, now: now) {
                // The first whole second at which a build no longer lists it.
                let leaves = (story.published.secondsSinceEpoch + NewsSitemap.window).rounded(.down) + 1
                changes.append(ScheduledChange(time: Timestamp(secondsSinceEpoch: leaves), kind: .leavesNewsWindow, storyID: story.id))
            }
        }
        let maxAge = edition.config.push.maxAge
        for entry in NotificationPlanner(edition: edition, now: now, sent: sent).plan() {
            // A slot after the story's push.max_age would find it no longer due: that is no change.
            guard case .held(let notification, _, let slot) = entry,
                  slot.secondsSinceEpoch <= notification.story.published.secondsSinceEpoch + maxAge else { continue }
            changes.append(ScheduledChange(time: slot, kind: .budgetSlot, storyID: notification.story.id))
        }
        return changes.sorted {
            $0.time.secondsSinceEpoch != $1.time.secondsSinceEpoch ? $0.time.secondsSinceEpoch < $1.time.secondsSinceEpoch
                : ($0.kind.rawValue, $0.storyID) < ($1.kind.rawValue, $1.storyID)
        }
    }

    /// The first of them, or nil when nothing is scheduled.
    public static func next(edition: Edition, sent: [String: LedgerRecord], now: Timestamp) -> ScheduledChange? {
        upcoming(edition: edition, sent: sent, now: now).first
    }
}
