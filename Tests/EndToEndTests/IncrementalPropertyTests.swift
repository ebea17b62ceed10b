import Foundation
import Testing
import TestSupport

/// Incremental = clean, by property: random sequences of edits to a 60-story, three-language site, each followed by
/// a plain build and by a clean build of a copy of the sources that shares no cache with it; the two output folders
/// must be the same, byte for byte. CI runs a few fixed seeds; `NEWSGEN_PROPERTY_SEQUENCES=200` runs seeds 1…200,
/// `NEWSGEN_PROPERTY_SEED=17` replays one sequence, `NEWSGEN_PROPERTY_EDITS` sets the edits per sequence (10).
@Suite struct IncrementalPropertyTests {
    static let environment = ProcessInfo.processInfo.environment

    static let seeds: [UInt64] = {
        if let seed = environment["NEWSGEN_PROPERTY_SEED"].flatMap({ UInt64($0) }) { return [seed] }
        let count = environment["NEWSGEN_PROPERTY_SEQUENCES"].flatMap { Int($0) } ?? 3
        return (1...UInt64(max(1, count))).map { $0 }
    }()

    static let editsPerSequence = environment["NEWSGEN_PROPERTY_EDITS"].flatMap { Int($0) } ?? 10

    @Test(arguments: seeds)
    func incrementalBuildEqualsCleanBuildAfterEveryEdit(seed: UInt64) async throws {
        let generated = try GeneratedSite(stories: 60, seed: seed)
        var log: [String] = []
        func problem(_ message: String) {
            let edits = log.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
            Issue.record("seed \(seed) (replay with NEWSGEN_PROPERTY_SEED=\(seed)); edits so far:\n\(edits)\n\(message)")
        }
        let first = try await generated.build()
        try #require(first.status == 0, "seed \(seed): the first build failed: \(first.standardError)")
        for _ in 0..<Self.editsPerSequence {
            if Int.random(in: 0..<8, using: &generated.random) == 0 {
                let before = OutputTree(generated.site)
                let (description, revert) = try generated.applyInvalidEdit()
                log.append(description + " (must fail, then reverted)")
                let failed = try await generated.build()
                if failed.status != 1 || !failed.standardError.contains("error") {
                    return problem("the build of an invalid site did not fail (status \(failed.status)): \(failed.standardError)")
                }
                if let difference = OutputTree.difference(OutputTree(generated.site), before, names: ("after", "before")) {
                    return problem("a failed build changed the output folder: \(difference)")
                }
                try revert()
            }
            log.append(try generated.applyRandomEdit())
            if Int.random(in: 0..<4, using: &generated.random) > 0 { try generated.ageTouchedFiles() }
            generated.touched = []
            let built = try await generated.build()
            if built.status != 0 { return problem("the build failed: \(built.standardError)") }
            if let difference = OutputTree.difference(OutputTree(generated.site), try await generated.cleanTree()) {
                return problem(difference)
            }
        }
        // And the site is as the cache says: one more build has nothing to write.
        let tree = OutputTree(generated.site)
        let again = try await generated.build()
        if !again.standardOutput.contains(", 0 written, ") || !again.standardOutput.contains(", 0 removed ") || OutputTree(generated.site) != tree {
            problem("a build after the last one wrote again: \(again.standardOutput)")
        }
    }
}

/// The edits of the property test. Each describes itself in a line for the failure message, and leaves a site
/// that builds.
enum EditKind: String, CaseIterable {
    case body, title, summary, category, published, updated, breaking, draft, deletion
    case renameSameSlug = "rename (same slug)", renameNewSlug = "rename (new slug)", newStory = "new story"
    case languageBody = "language body", template, partial, strings, config, deviceTemplate = "device template"
    case scheduledStory = "clock passes a scheduled story", newsWindow = "clock passes the news window"
    case photo
}

extension GeneratedSite {
    func randomStory() -> Int { Int.random(in: 0..<stories.count, using: &random) }

    func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }

    /// The slug a story file gives its story: the name without `.md` and a leading `YYYY-MM-DD-`.
    static func slug(_ file: String) -> String {
        let name = String((file as NSString).lastPathComponent.dropLast(3))
        return name.firstMatch(of: /^\d{4}-\d{2}-\d{2}-/).map { String(name[$0.range.upperBound...]) } ?? name
    }

    /// Appends `text` to a file of the site.
    func append(_ relative: String, _ text: String) throws {
        try site.write(relative, try site.read(relative) + text)
        touched.append(relative)
    }

    /// Sets the modification time of the files written since the last build to a moment more than two seconds
    /// ago (each later than the one before), so that the caches trust their stamps from then on.
    func ageTouchedFiles() throws {
        for file in touched where site.exists(file) {
            agedClock += 1
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: agedClock)],
                                                  ofItemAtPath: site.path + "/" + file)
        }
    }

    /// A random edit, applied; its description.
    func applyRandomEdit() throws -> String {
        while true {
            if let description = try apply(pick(EditKind.allCases)) { return description }
        }
    }

    /// Applies one edit of `kind`, or returns nil when it does not apply to the site as it is.
    func apply(_ kind: EditKind) throws -> String? {
        let number = nextNumber + stories.count * 1000 + Int.random(in: 0..<1000, using: &random)   // a fresh mark
        switch kind {
        case .body:
            var story = stories[randomStory()]
            let code = pick(story.bodies.keys.sorted())
            story.bodies[code] = Bool.random(using: &random)
                ? story.bodies[code]! + " Update \(number)."
                : "## Latest \(number)\n\nA new account, revision \(number)."
            try save(story)
            return "\(kind.rawValue): \(story.file) (\(code))"
        case .title:
            var story = stories[randomStory()]
            let code = pick(StoryDraft.languages)
            if code != "en", story.titles[code] != nil, Bool.random(using: &random) {
                story.titles[code] = nil
            } else {
                story.titles[code] = "Title \(number) in \(code)"
            }
            try save(story)
            return "\(kind.rawValue): \(story.file) (\(code): \(story.titles[code] ?? "removed"))"
        case .summary:
            var story = stories[randomStory()]
            let change: String
            switch (story.summaries.isEmpty, Int.random(in: 0..<3, using: &random)) {
            case (true, _):
                story.summaries["en"] = "Summary \(number)."
                change = "added"
            case (false, 0):
                story.summaries = [:]
                change = "removed"
            default:
                let code = pick(StoryDraft.languages)
                story.summaries[code] = "Résumé \(number)"
                change = "\(code) set"
            }
            try save(story)
            return "\(kind.rawValue): \(story.file) (\(change))"
        case .category:
            var story = stories[randomStory()]
            var categories = [pick(ConfigDraft.categories)]
            if Bool.random(using: &random) { categories.append(pick(ConfigDraft.categories.filter { $0 != categories[0] })) }
            guard categories != story.categories else { return nil }
            story.categories = categories
            try save(story)
            return "\(kind.rawValue): \(story.file) → \(categories)"
        case .published:
            var story = stories[randomStory()]
            let old = story.published
            story.published = now + Int.random(in: -(70 * 96)...(3 * 96), using: &random) * 900
            if let updated = story.updated, updated < story.published { story.updated = nil }
            try save(story)
            return "\(kind.rawValue): \(story.file) \(StoryDraft.timestamp(old)) → \(StoryDraft.timestamp(story.published))"
        case .updated:
            var story = stories[randomStory()]
            if story.updated != nil, Bool.random(using: &random) {
                story.updated = nil
            } else {
                story.updated = Int.random(in: story.published...max(story.published, now), using: &random)
            }
            try save(story)
            return "\(kind.rawValue): \(story.file) → \(story.updated.map(StoryDraft.timestamp) ?? "removed")"
        case .breaking:
            var story = stories[randomStory()]
            story.breaking.toggle()
            try save(story)
            return "\(kind.rawValue): \(story.file) → \(story.breaking)"
        case .draft:
            var story = stories[randomStory()]
            story.draft.toggle()
            try save(story)
            return "\(kind.rawValue): \(story.file) → \(story.draft)"
        case .deletion:
            guard stories.count > 40 else { return nil }
            let story = stories.remove(at: randomStory())
            try site.remove(story.file)
            return "\(kind.rawValue): \(story.file)"
        case .renameSameSlug, .renameNewSlug:
            let place = randomStory()
            var story = stories[place]
            let slug = Self.slug(story.file)
            let folder = pick(["world", "sports", "science", "archive"])
            let name = kind == .renameSameSlug
                ? "\(StoryDraft.timestamp(story.published).prefix(10))-\(slug).md"
                : "\(slug.split(separator: "-r").first!)-r\(number).md"
            let file = "content/\(folder)/\(name)"
            guard file != story.file else { return nil }
            // A rename, as git or a shell does it: the file keeps its bytes, time and inode.
            try FileManager.default.createDirectory(atPath: site.path + "/content/" + folder, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: site.path + "/" + story.file, toPath: site.path + "/" + file)
            let old = story.file
            story.file = file
            stories[place] = story
            return "\(kind.rawValue): \(old) → \(file)"
        case .newStory:
            var story = newStory(published: now + Int.random(in: -(3 * 96)...(2 * 96), using: &random) * 900)
            story.breaking = Int.random(in: 0..<3, using: &random) == 0
            if Bool.random(using: &random) { story.bodies[pick(["fr", "zh-Hans"])] = nil }
            try save(story)
            return "\(kind.rawValue): \(story.file) at \(StoryDraft.timestamp(story.published)) in \(story.categories)"
        case .languageBody:
            var story = stories[randomStory()]
            let missing = StoryDraft.languages.filter { story.bodies[$0] == nil }
            if !missing.isEmpty, story.bodies.count == 1 || Bool.random(using: &random) {
                let code = pick(missing)
                story.bodies[code] = "Body \(number) added in \(code)."
                try save(story)
                return "\(kind.rawValue): \(story.file) gains \(code)"
            }
            let code = pick(story.bodies.keys.sorted())
            story.bodies[code] = nil
            try save(story)
            return "\(kind.rawValue): \(story.file) loses \(code)"
        case .template:
            let file = "templates/" + pick(["story", "front", "category", "layout", "root", "404"]) + ".mustache"
            try append(file, "<!-- edit \(number) -->\n")
            return "\(kind.rawValue): \(file)"
        case .partial:
            let file = "templates/partials/" + pick(["header", "footer", "story-card"]) + ".mustache"
            try append(file, "<!-- edit \(number) -->\n")
            return "\(kind.rawValue): \(file)"
        case .strings:
            let key = pick(["latest", "breaking", "by", "published", "updated", "newer", "older", "sections", "skip_link"])
            let text = try site.read("templates/strings.yml")
            let changed = text.replacingOccurrences(of: "\n\(key): { en: ", with: "\n\(key): { en: \(number) ")
            #expect(changed != text, "strings.yml has no \(key)")
            try site.write("templates/strings.yml", changed)
            touched.append("templates/strings.yml")
            return "\(kind.rawValue): \(key) (en)"
        case .config:
            let change: String
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                config.title = "Property News \(number)"
                change = "title \(config.title)"
            case 1:
                config.pageSize = pick([2, 3, 4, 5, 6].filter { $0 != config.pageSize })
                change = "page_size \(config.pageSize)"
            case 2:
                config.frontPageSize = pick([5, 8, 12, 30].filter { $0 != config.frontPageSize })
                change = "front_page_size \(config.frontPageSize)"
            default:
                config.skipMissingLanguages.toggle()
                change = "missing_language \(config.skipMissingLanguages ? "skip" : "fallback")"
            }
            try site.write("newsgen.yml", config.text)
            touched.append("newsgen.yml")
            return "\(kind.rawValue): \(change)"
        case .photo:
            // A photo of media/ added or replaced by another, and shown in a body.
            let file = "media/photo-\(Int.random(in: 0..<3, using: &random)).jpg"
            let source = pick(["quake-coast", "aurora-lapland", "rhine-low-water"])
            try site.write(file, try Data(contentsOf: Repository.root.appendingPathComponent("media/\(source).jpg")))
            touched.append(file)
            var story = stories[randomStory()]
            let code = pick(story.bodies.keys.sorted())
            story.bodies[code] = story.bodies[code]! + "\n\n![Photo \(number)](/\(file))"
            try save(story)
            return "\(kind.rawValue): \(file) from \(source), shown in \(story.file) (\(code))"
        case .deviceTemplate:
            let file = "templates/devices/" + pick(["simple", "fcm-v1", "ios-english", "ios-french", "ios-mandarin"]) + ".json"
            try append(file, "\n")
            return "\(kind.rawValue): \(file) (a blank line more)"
        case .scheduledStory:
            let old = now
            if let next = stories.filter({ !$0.draft && $0.published > now }).min(by: { $0.published < $1.published }) {
                now = next.published + Int.random(in: 0...600, using: &random)
                return "\(kind.rawValue) (\(next.file)): \(StoryDraft.timestamp(old)) → \(StoryDraft.timestamp(now))"
            }
            now += Int.random(in: 1...20, using: &random) * 3600
            return "clock moves on (no scheduled story): \(StoryDraft.timestamp(old)) → \(StoryDraft.timestamp(now))"
        case .newsWindow:
            let old = now
            let window = 48 * 3600
            if let leaving = stories.filter({ !$0.draft && $0.published <= now && $0.published > now - window })
                .min(by: { $0.published < $1.published }) {
                now = leaving.published + window + Int.random(in: 1...600, using: &random)
                return "\(kind.rawValue) of \(leaving.file): \(StoryDraft.timestamp(old)) → \(StoryDraft.timestamp(now))"
            }
            now += window + 60
            return "clock moves on 48 hours (no recent story): \(StoryDraft.timestamp(old)) → \(StoryDraft.timestamp(now))"
        }
    }

    /// An edit whose build must fail: a story with an unknown category, or an unknown front-matter key. Returns
    /// its description and what puts the story back.
    func applyInvalidEdit() throws -> (String, () throws -> Void) {
        let story = stories[randomStory()]
        let text = story.text
        let (broken, what) = Bool.random(using: &random)
            ? (text.replacingOccurrences(of: "\ncategory: ", with: "\ncategory: Wrld\n# was: "), "unknown category Wrld")
            : (text.replacingOccurrences(of: "\npublished: ", with: "\npublishd: "), "front-matter key publishd")
        try site.write(story.file, broken)
        return ("invalid: \(story.file) (\(what))", { [self] in try save(story) })
    }
}
