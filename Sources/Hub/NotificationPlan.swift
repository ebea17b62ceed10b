import Foundation
import News
import Site

/// One template notification for one story: the tag expression and the properties every device template
/// picks from. Built by `NotificationPlanner`; sent as ONE request by `Publisher`.
///
/// Body properties (all strings, as the hub requires):
/// - `News_<name>` per configured language (`News_English`, `News_French`, `News_Mandarin`): the alert text
///   (`push.text` of that language, else its title; a language without text gets the default language's)
/// - `messageParam`: the default-language text, for apps registered with `{"aps":{"alert":"$(messageParam)"}}`
/// - `Url_<name>` per language: the story's page in that language (deep link); `url`: the default language's
/// - `storyId`, `revision`, `notificationId` (`<storyId>:<revision>`, the same on every retry and re-run:
///   apps de-duplicate and group alerts with it), `category` (main category), `categories` (comma-separated),
///   `published` (RFC 3339)
/// - `image`, only when the story has an image: the absolute URL of its 1200×630 card crop (a JPEG of a few
///   hundred KB, within FCM's 1 MB and APNs' attachment limits), or the image's own URL when it is not a photo of
///   the media folder
/// - `collapseId` (the story id, the same for every revision: an update replaces the earlier alert), `expiresAt`
///   (RFC 3339), `apnsExpiration` (epoch seconds), `ttl` (FCM duration, e.g. `10800s`), `priority` (`high` or
///   `normal`), `apnsPriority` (`10` or `5`), `fcmPriority` (`HIGH` or `NORMAL`)
public struct Notification: Sendable {
    public var story: Story
    public var revision: Int
    public var tags: TagExpression
    /// Property name → value.
    public var properties: [String: String]
    /// Languages whose text was filled from the default language.
    public var filledLanguages: [Language]
    /// The story's page URL per language, in config order (what `--check-live` requests).
    public var pageURLs: [(language: Language, url: String)]

    public var notificationID: String { "\(story.id):\(revision)" }

    /// The largest request body the hub accepts.
    public static let maximumBodyBytes = 64 * 1024

    /// What would be refused in a notification that is otherwise ready to send: a device's payload over the
    /// platforms' 4 KB (`previews` are what each device template makes of it), or a body over the hub's 64 KB.
    public func sizeProblem(previews: [DevicePreview]) -> PlanProblem? {
        // The text of the alert is what makes a payload long: the push text when the story has one, else its title.
        let field = story.push.text.isEmpty ? ["title"] : ["push", "text"]
        let over = previews.filter(\.isOverLimit)
        if !over.isEmpty {
            let list = over.map { "\($0.device) (\($0.bytes) bytes)" }.joined(separator: ", ")
            return PlanProblem(reason: "the payload for \(list) is over the \(DevicePreview.payloadLimit)-byte platform limit; shorten the push text", field: field)
        }
        if body.count > Self.maximumBodyBytes {
            return PlanProblem(reason: "the notification body is \(body.count) bytes, over the hub's \(Self.maximumBodyBytes / 1024) KB limit", field: field)
        }
        return nil
    }

    /// The request body: compact JSON, keys sorted (deterministic bytes, so the ledger's hash is stable).
    public var body: [UInt8] { JSONWriter.bytes(propertiesJSON, mode: .minimal, layout: .compact, sortedKeys: true) }
    /// The body laid out for people (the dry run's preview).
    public var prettyBody: String { JSONWriter.write(propertiesJSON, mode: .minimal, layout: .spaced, sortedKeys: true) }

    private var propertiesJSON: JSONValue { .object(properties.map { ($0.key, .string($0.value)) }) }
}

/// Why a breaking story cannot be announced, and the front-matter field to change (`check` points at its line).
public struct PlanProblem: Error, Sendable, Hashable {
    public var reason: String
    /// A path into the front matter: `["category"]`, `["push", "text"]`.
    public var field: [String]
}

/// What publish does with one breaking story.
public enum PlanEntry: Sendable {
    case send(Notification)
    /// Not announced, on purpose (already sent, too old, draft, scheduled, corrected).
    case skip(Story, reason: String)
    /// Should be announced but cannot be (e.g. a language has no text under `missing_text: fail`).
    case fail(Story, reason: String)
    /// Due, but over the alert budget: a later run sends it when a slot opens (still within `push.max_age`).
    case held(Notification, reason: String, nextSlot: Timestamp)

    public var story: Story {
        switch self {
        case .send(let notification), .held(let notification, _, _): notification.story
        case .skip(let story, _), .fail(let story, _): story
        }
    }
}

/// Turns the breaking stories of an Edition into notifications, checking the ledger and the age limit.
public struct NotificationPlanner: Sendable {
    public let edition: Edition
    public let now: Timestamp
    /// The ledger's records, by `storyId:revision`.
    public let sent: [String: LedgerRecord]
    public init(edition: Edition, now: Timestamp, sent: [String: LedgerRecord]) {
        self.edition = edition
        self.now = now
        self.sent = sent
    }

    var settings: PushSettings { edition.config.push }

    /// One entry per breaking story, oldest first (so the newest alert arrives last and shows on top).
    public func plan() -> [PlanEntry] {
        let links = permalinks()
        return keepToBudget(breakingStories().map { entry(for: $0, links: links) })
    }

    func breakingStories() -> [Story] {
        edition.stories.filter(\.breaking).sorted {
            $0.published.secondsSinceEpoch != $1.published.secondsSinceEpoch
                ? $0.published.secondsSinceEpoch < $1.published.secondsSinceEpoch : $0.id < $1.id
        }
    }

    func permalinks() -> Permalinks {
        let config = edition.config
        let clock = ReaderClock(timeZone: config.timeZone, languages: config.languages)
        return Permalinks(config: config, clock: clock)
    }
    /// Holds the due alerts that `push.budget` has no room for, counting the ledger's sends and, in order, the
    /// alerts this run sends before them. A story marked `push.budget: exempt` goes out anyway (and counts).
    func keepToBudget(_ entries: [PlanEntry]) -> [PlanEntry] {
        guard let budget = settings.budget else { return entries }
        var sends = AlertBudget.sends(from: Array(sent.values))
        return entries.map { entry in
            guard case .send(let notification) = entry else { return entry }
            let tags = notification.tags.tags
            if !notification.story.push.budgetExempt,
               let hold = budget.hold(tags: tags, sends: sends, now: now.secondsSinceEpoch) {
                return .held(notification, reason: Self.describe(hold, budget, story: notification.story, maxAge: settings.maxAge),
                             nextSlot: hold.nextSlot)
            }
            sends.append(CountedSend(time: now.secondsSinceEpoch, tags: tags))
            return entry
        }
    }

    static func describe(_ hold: BudgetHold, _ budget: AlertBudget, story: Story, maxAge: Double) -> String {
        let window = budget.window == 3600 ? "hour" : describe(budget.window)
        let what = hold.tag.map { "\(hold.count) \($0) alerts" } ?? "\(hold.count)"
        var text = "over the alert budget (\(what) in the last \(window), next slot at \(hold.nextSlot.rfc3339))"
        let lastChance = story.published.secondsSinceEpoch + maxAge
        if hold.nextSlot.secondsSinceEpoch > lastChance {
            text += "; push.max_age ends before that, at \(Timestamp(secondsSinceEpoch: lastChance).rfc3339), so it will not be announced unless it is marked push.budget: exempt"
        }
        return text
    }

    func entry(for story: Story, links: Permalinks) -> PlanEntry {
        let revision = story.push.revision
        if story.draft { return .skip(story, reason: "draft") }
        if story.published > now { return .skip(story, reason: "scheduled for \(story.published); not published yet") }
        if let record = sent["\(story.id):\(revision)"] {
            return .skip(story, reason: "already sent (revision \(revision)) at \(record.sentAt)")
        }
        if story.hasCorrection { return .skip(story, reason: "has a correction; corrections are not announced") }
        let age = now.secondsSinceEpoch - story.published.secondsSinceEpoch
        if age > settings.maxAge {
            return .skip(story, reason: "published \(Self.describe(age)) ago, older than push.max_age (\(Self.describe(settings.maxAge))); never announced late")
        }
        switch notification(for: story, links: links) {
        case .success(let notification): return .send(notification)
        case .failure(let problem): return .fail(story, reason: problem.reason)
        }
    }

    /// `publish --test`: the notification of any story (breaking or not, draft or not, old or new, sent or not),
    /// built exactly as the real send would be, addressed to `tags` instead of its categories.
    /// nil when no story has that id.
    public func testEntry(storyID: String, to tags: TagExpression) -> PlanEntry? {
        guard let story = edition.stories.first(where: { $0.id == storyID }) else { return nil }
        switch notification(for: story, links: permalinks()) {
        case .success(var notification):
            notification.tags = tags
            return .send(notification)
        case .failure(let problem):
            return .fail(story, reason: problem.reason)
        }
    }

    /// The story's notification, or why the hub or the config's rules do not allow one.
    func notification(for story: Story, links: Permalinks) -> Result<Notification, PlanProblem> {
        Self.notification(for: story, config: edition.config, now: now, links: links)
    }

    /// The same from the config alone (what `PushCheck`'s task of each story reads).
    static func notification(for story: Story, config: SiteConfig, now: Timestamp, links: Permalinks) -> Result<Notification, PlanProblem> {
        let settings = config.push
        let revision = story.push.revision
        let tags: TagExpression
        do {
            tags = try TagExpression(anyOf: story.categories.map(\.name))
        } catch {
            return .failure(PlanProblem(reason: "its categories do not make a valid tag expression: \(error.message)", field: ["category"]))
        }
        let defaultLanguage = config.defaultLanguage
        func text(_ language: Language) -> String? {
            story.push.text[code: language.code] ?? story.titles[code: language.code]
        }
        guard let defaultText = text(defaultLanguage) else {
            return .failure(PlanProblem(reason: "no \(defaultLanguage.code) text (title or push.text) to announce", field: ["title"]))
        }
        var properties: [String: String] = [:]
        var filled: [Language] = []
        let pageLanguages = config.pageLanguages(of: story)
        for language in config.languages {
            var value = text(language)
            if value == nil {
                if settings.missingText == .fail {
                    return .failure(PlanProblem(reason: "no \(language.code) text (title or push.text) and push.missing_text is fail", field: ["title"]))
                }
                value = defaultText
                filled.append(language)
            }
            properties[settings.propertyPrefix + language.name] = value
            // A language without a page links to the default language's page.
            let pageLanguage = pageLanguages.contains(language) ? language : defaultLanguage
            properties["Url_" + language.name] = links.absolute(links.story(story, pageLanguage))
        }
        properties["messageParam"] = defaultText
        properties["url"] = links.absolute(links.story(story, defaultLanguage))
        properties["storyId"] = story.id
        properties["revision"] = String(revision)
        properties["notificationId"] = "\(story.id):\(revision)"
        properties["category"] = story.categories[0].name
        properties["categories"] = story.categories.map(\.name).joined(separator: ",")
        properties["published"] = story.published.rfc3339
        if let image = story.image {
            let picture = MediaNames.notificationImage(for: image)
            properties["image"] = picture.hasPrefix("/") ? links.absolute(String(picture.dropFirst())) : picture
        }
        for (name, value) in Self.lifeProperties(storyID: story.id, expires: story.push.expires ?? settings.expires,
                                                 priority: settings.priority, now: now) {
            properties[name] = value
        }
        let urls = pageLanguages.map { (language: $0, url: links.absolute(links.story(story, $0))) }
        return .success(Notification(story: story, revision: revision, tags: tags, properties: properties,
                                     filledLanguages: filled, pageURLs: urls))
    }

    /// What device templates need to let an alert expire, replace the earlier alert of the same story, and wake
    /// the phone or not, in the forms the platforms want: APNs `apns-expiration` is epoch seconds, FCM v1 `ttl`
    /// a duration in seconds (`10800s`), APNs priority 10 or 5, FCM `HIGH` or `NORMAL`. The expiry counts from
    /// the send (`now`), so an alert held back by the budget still lives its whole time.
    static func lifeProperties(storyID: String, expires: Double, priority: PushSettings.Priority, now: Timestamp) -> [String: String] {
        let seconds = Int(expires.rounded(.down))
        let expiresAt = Timestamp(secondsSinceEpoch: now.secondsSinceEpoch.rounded(.down) + Double(seconds))
        return [
            "collapseId": storyID,
            "expiresAt": expiresAt.rfc3339,
            "apnsExpiration": String(Int(expiresAt.secondsSinceEpoch)),
            "ttl": "\(seconds)s",
            "priority": priority.rawValue,
            "apnsPriority": priority == .high ? "10" : "5",
            "fcmPriority": priority == .high ? "HIGH" : "NORMAL",
        ]
    }

    static func describe(_ seconds: Double) -> String { DurationText.describe(seconds) }
}
