import Foundation
import TestSupport

/// One story file of a generated site, as the tests edit it: every front-matter field they change, and a body per
/// language (`en`, `fr`, `zh-Hans`; at least one).
struct StoryDraft {
    static let languages = ["en", "fr", "zh-Hans"]

    /// Relative to the site folder.
    var file: String
    var id: String
    var categories: [String]
    /// Seconds since 1970.
    var published: Int
    var updated: Int?
    var breaking = false
    var draft = false
    var titles: [String: String]
    var summaries: [String: String] = [:]
    var bodies: [String: String]

    var text: String {
        func texts(_ values: [String: String]) -> String {
            "{ " + Self.languages.compactMap { code in values[code].map { "\(code): \"\($0)\"" } }.joined(separator: ", ") + " }"
        }
        var lines = ["---", "id: \(id)",
                     "category: " + (categories.count == 1 ? categories[0] : "[" + categories.joined(separator: ", ") + "]"),
                     "published: " + Self.timestamp(published)]
        if let updated { lines.append("updated: " + Self.timestamp(updated)) }
        if breaking { lines.append("breaking: true") }
        if draft { lines.append("draft: true") }
        lines.append("title: " + texts(titles))
        if !summaries.isEmpty { lines.append("summary: " + texts(summaries)) }
        lines.append("---")
        for code in Self.languages {
            guard let body = bodies[code] else { continue }
            lines += ["<!-- lang: \(code) -->", body, ""]
        }
        return lines.joined(separator: "\n")
    }

    static func timestamp(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

/// The site config the tests edit (`newsgen.yml`): three languages, the categories World, Sports and Science.
struct ConfigDraft {
    static let categories = ["World", "Sports", "Science"]

    var title = "Property News"
    var pageSize = 4
    var frontPageSize = 12
    var skipMissingLanguages = false

    var text: String {
        FixtureConfig.threeLanguages(
            title: "{ en: \"\(title)\", fr: \"Les \(title)\", zh-Hans: \"\(title) 新闻\" }",
            categories: FixtureConfig.worldAndSports + "\n  - name: Science\n    title: { en: Science, fr: Sciences, zh-Hans: 科学 }",
            extra: "page_size: \(pageSize)\nfront_page_size: \(frontPageSize)\nmissing_language: \(skipMissingLanguages ? "skip" : "fallback")")
    }
}

/// A generated news site on disk and the drafts it was written from: `count` stories in three languages and three
/// categories spread over the 75 days before `now` (a few within the Google News 48 hours, a few scheduled up to
/// 60 hours ahead), some breaking, some drafts, some in two categories, some missing a language; the repository's
/// theme (with its device templates).
final class GeneratedSite {
    let site: TemporarySite
    var stories: [StoryDraft] = []
    var config = ConfigDraft()
    /// "Now" for the builds (`SOURCE_DATE_EPOCH`): 2026-11-29T15:00:00Z to start with; it only moves forward.
    var now = 1_795_964_400
    var random: SplitMix64
    /// The number of the next new story (ids and slugs are `story-<number>`).
    var nextNumber = 0
    /// The files written since the last build (relative to the site folder).
    var touched: [String] = []
    /// The modification time the last aged file was given (`ageTouchedFiles`): an hour before the test began, and on.
    var agedClock = Date().timeIntervalSince1970.rounded() - 3600

    var environment: [String: String] { ["SOURCE_DATE_EPOCH": String(now)] }

    init(stories count: Int, seed: UInt64) throws {
        random = SplitMix64(seed: seed)
        site = try TemporarySite()
        try site.write("newsgen.yml", config.text)
        for place in 0..<count {
            let published: Int
            switch place % 12 {
            case 0: published = now + Int.random(in: 1...240, using: &random) * 900   // scheduled
            case 1, 2: published = now - Int.random(in: 0...190, using: &random) * 900   // within the news window
            default: published = now - Int.random(in: 0...(75 * 96), using: &random) * 900
            }
            var story = newStory(published: published)
            story.breaking = place % 6 == 3
            story.draft = place % 17 == 5
            if place % 4 == 1 { story.bodies["fr"] = nil }
            if place % 5 == 2 { story.bodies["zh-Hans"] = nil }
            if place % 19 == 7 { story.bodies["en"] = nil }
            if place % 3 == 0 { story.summaries = ["en": "What story \(story.id) is about."] }
            if place % 7 == 0 { story.summaries["fr"] = "De quoi parle \(story.id)." }
            if place % 4 == 2, published < now { story.updated = Int.random(in: published...now, using: &random) }
            try save(story)
        }
    }

    /// A new story, World, Sports or Science (sometimes two of them), with a body in every language.
    func newStory(published: Int) -> StoryDraft {
        defer { nextNumber += 1 }
        let id = "story-\(nextNumber)"
        var categories = [ConfigDraft.categories.randomElement(using: &random)!]
        if Int.random(in: 0..<5, using: &random) == 0 {
            categories.append(ConfigDraft.categories.filter { $0 != categories[0] }.randomElement(using: &random)!)
        }
        return StoryDraft(
            file: "content/\(categories[0].lowercased())/\(id).md", id: id, categories: categories, published: published,
            titles: ["en": "Story \(nextNumber): news of the day", "fr": "Article \(nextNumber) : l’actualité", "zh-Hans": "报道\(nextNumber)"],
            bodies: ["en": "The *first* report of story \(nextNumber).", "fr": "Le premier récit de l’article \(nextNumber).",
                     "zh-Hans": "报道\(nextNumber)的正文。"])
    }

    /// Writes the story's file (a new one, or over its old text).
    func save(_ story: StoryDraft) throws {
        if let place = stories.firstIndex(where: { $0.id == story.id }) { stories[place] = story } else { stories.append(story) }
        try site.write(story.file, story.text)
        touched.append(story.file)
    }

    func build(_ extra: [String] = []) async throws -> ProgramResult {
        try await offThePool { [site, environment] in try newsgen(["build", "--quiet"] + extra, in: site, environment: environment) }
    }

    /// The output of a clean build of the site as it is now, in another folder with no cache.
    func cleanTree() async throws -> OutputTree {
        try await offThePool { [site, environment] in try cleanBuild(of: site, environment: environment) }
    }
}
