import Incremental
@testable import News
import NewsFixtures
@testable import Site
import Testing
import TestSupport

/// serve's load takes the stories whose tasks kept their hash from its last load (`LoadedStories`): what it makes
/// must be what a load that takes nothing from anywhere makes, and it must ask for the values of what changed only.
struct LoadedStoriesTests {
    struct Version: Hashable {
        var published: Int
        var title: String
        var slug: String
    }

    static let config = Fixtures.siteConfig()
    static let links = Permalinks(config: config, clock: ReaderClock(timeZone: config.timeZone, languages: config.languages))

    static func parsed(_ name: String, _ version: Version) -> ParsedStory {
        let text = """
            ---
            id: \(version.slug)
            category: World
            published: \(Timestamp(secondsSinceEpoch: Double(version.published)).rfc3339)
            title: { en: "\(version.title)" }
            ---
            <!-- lang: en -->
            Body.
            """
        let (story, problems) = Fixtures.parseStory(text, fileName: version.slug + ".md", config: config)
        precondition(problems.isEmpty, "\(problems)")
        var moved = story!
        moved.sourcePath = "content/" + name   // the file's place, whatever its slug
        return ParsedStory(story: moved, facts: StoryFacts(moved, config: config, links: links, sourceHash: 1), problems: [])
    }

    /// A load of `files` (name → version), with the last load and the files changed since when there is one; the
    /// names of the files whose values it asked for.
    static func load(_ files: [String: Version], previous: LoadedStories? = nil, changed: Set<String> = [])
        -> (LoadedStories, Set<String>) {
        let names = files.keys.sorted { FileSystem.precedes($0, $1) }
        let keys = names.map { Key(StoryRules.story, $0) }
        var asked: Set<String> = []
        var previous = previous
        let loaded = LoadedStories.collect(keys: keys, previous: &previous,
                                           changed: Set(changed.map { Key(StoryRules.story, $0) }), keepTasks: true) {
            asked.insert(names[$0])
            return parsed(names[$0], files[names[$0]]!)
        }
        return (loaded, asked)
    }

    static func summary(_ loaded: LoadedStories) -> [String] {
        zip(loaded.stories, loaded.facts).map { story, facts in
            "\(story.sourcePath) \(story.id) \(story.published.rfc3339) \(story.titles[code: "en"] ?? "") \(facts.urls)"
        }
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func aLoadThatTakesUnchangedStoriesFromTheLastIsWhatALoadFromNothingMakes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var files: [String: Version] = [:]
        var counter = 0
        func newVersion() -> Version {
            counter += 1
            return Version(published: 1_790_000_000 + Int.random(in: 0..<500, using: &random) * 60,
                           title: "Story \(counter)", slug: "story-\(counter)")
        }
        for index in 0..<Int.random(in: 1..<40, using: &random) { files["world/f\(index).md"] = newVersion() }
        var (last, _) = Self.load(files)
        for round in 0..<6 {
            var changed: Set<String> = [], newKeys: Set<String> = []
            for _ in 0..<Int.random(in: 0..<5, using: &random) {
                let name = files.keys.sorted()[Int.random(in: 0..<files.count, using: &random)]
                switch Int.random(in: 0..<5, using: &random) {
                case 0: files[name]!.title += " (updated)"
                case 1: files[name]!.published += Int.random(in: -3000...3000, using: &random) * 60
                case 2:
                    files[name]!.slug = newVersion().slug
                    newKeys.insert(name)
                case 3 where files.count > 1:
                    files[name] = nil
                    continue
                default:
                    let version = newVersion()
                    files["world/n\(counter).md"] = version
                    changed.insert("world/n\(counter).md")
                    newKeys.insert("world/n\(counter).md")
                    continue
                }
                changed.insert(name)
            }
            // Now and then every story moves (the time zone changed, say): more than a take-over is for.
            let everything = round == 4 && seed % 2 == 0
            if everything {
                for name in files.keys { files[name]!.published += 3600 }
                changed.formUnion(files.keys)
            }
            let (loaded, asked) = Self.load(files, previous: last, changed: changed)
            let (fresh, _) = Self.load(files)
            #expect(Self.summary(loaded) == Self.summary(fresh), "seed \(seed)")
            #expect(loaded.taskIndex.names == fresh.taskIndex.names && loaded.taskIndex.byName == fresh.taskIndex.byName,
                    "seed \(seed)")
            if !everything || files.count <= 16 {
                #expect(asked == changed.filter { files[$0] != nil }, "seed \(seed): only what changed is asked for")
            }
            // A new file, or a file with a new id and slug, that is still there.
            let noNewKey = newKeys.allSatisfy { files[$0] == nil }
            #expect(!loaded.keysAsBefore || noNewKey, "seed \(seed)")
            if !everything || files.count <= 16 { #expect(loaded.keysAsBefore == noNewKey, "seed \(seed)") }
            last = loaded
        }
    }

    @Test func aStoryThatTakesAnotherStorysSlugIsCheckedAgainstAll() {
        var files = ["world/a.md": Version(published: 1_790_000_000, title: "A", slug: "a"),
                     "world/b.md": Version(published: 1_790_000_060, title: "B", slug: "b")]
        let (first, _) = Self.load(files)
        #expect(Edition.crossCheck(first.stories).isEmpty)
        files["world/b.md"]!.slug = "a"
        let (second, asked) = Self.load(files, previous: first, changed: ["world/b.md"])
        #expect(asked == ["world/b.md"])
        #expect(!second.keysAsBefore)
        #expect(Edition.crossCheck(second.stories).map(\.message) == ["duplicate story id \"a\" (also used by content/world/a.md); ids must be unique",
                                                                      "duplicate slug \"a\" (also used by content/world/a.md); rename one of the files"])
    }
}
