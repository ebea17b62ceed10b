@testable import Site
import Testing

/// A build of `serve` takes over the last build's facts of each story whose metadata did not change (see
/// `StoryFacts.Table`): what it takes over and what it makes again must be what it would have made from scratch.
struct StoryFactsTests {
    static let config = Fixtures.siteConfig()

    static func story(_ file: String, published: String = "2026-11-29T10:00:00Z", category: String = "World",
                      french: Bool = true) -> Story {
        let text = """
            ---
            category: \(category)
            published: \(published)
            title: { en: The \(file) story, fr: L’article \(file) }
            ---
            <!-- lang: en -->
            Body.
            \(french ? "\n<!-- lang: fr -->\nCorps.\n" : "")
            """
        var (story, problems) = Fixtures.parseStory(text, fileName: file + ".md", config: config)
        precondition(problems.isEmpty, "\(problems)")
        story!.metadataHash = StoryCodec.metadataHash(story!)   // as the engine's story rule sets it
        return story!
    }

    static func links(_ config: SiteConfig) -> Permalinks {
        Permalinks(config: config, clock: ReaderClock(timeZone: config.timeZone, languages: config.languages))
    }

    @Test func whatIsTakenOverOrMadeAgainIsWhatAFreshBuildMakes() {
        let links = Self.links(Self.config)
        let before = [Self.story("a"), Self.story("b", published: "2026-11-28T10:00:00Z"), Self.story("c")]
        let previous = StoryFacts.Table(stories: before, config: Self.config, links: links, previous: nil)
        let edits: [(String, [Story])] = [
            ("nothing", before),
            ("a new date that moves a story", [Self.story("b", published: "2026-11-30T10:00:00Z"), before[0], before[2]]),
            ("a language taken out", [before[0], before[1], Self.story("c", french: false)]),
            ("another category", [before[0], Self.story("b", published: "2026-11-28T10:00:00Z", category: "Sports"), before[2]]),
            ("a story added and one removed", [Self.story("d"), before[0], before[2]]),
        ]
        for (edit, stories) in edits {
            let taken = StoryFacts.Table(stories: stories, config: Self.config, links: links, previous: previous)
            let fresh = StoryFacts.Table(stories: stories, config: Self.config, links: links, previous: nil)
            #expect(taken.stories == fresh.stories, "\(edit)")
        }
    }

    /// The facts of an earlier build are taken over exactly when the story's metadata is the same: here the earlier
    /// table was made with other URLs, which only a story it takes over keeps.
    @Test func onlyAStoryWithTheSameMetadataIsTakenOver() {
        var elsewhere = Self.config
        elsewhere.timeZone = "Pacific/Kiritimati"   // UTC+14: every story's date, and so its URL, is a day later
        let before = [Self.story("a"), Self.story("b")]
        let previous = StoryFacts.Table(stories: before, config: Self.config, links: Self.links(elsewhere), previous: nil)
        let edited = Self.story("b", published: "2026-11-29T10:00:00Z", french: false)
        let table = StoryFacts.Table(stories: [before[0], edited], config: Self.config, links: Self.links(Self.config),
                                     previous: previous)
        #expect(previous.stories[0].urls != StoryFacts(before[0], config: Self.config, links: Self.links(Self.config)).urls)
        #expect(table.stories[0] == previous.stories[0])
        #expect(table.stories[1] == StoryFacts(edited, config: Self.config, links: Self.links(Self.config)))
        #expect(table.stories[1].bodyLanguages == 1, "English only")
        #expect(table.stories[1].pageLanguages == (Self.config.missingLanguage == .fallback ? 0b111 : 1))
    }
}

/// serve's load takes the last load's stories as proof that no id or slug is taken twice only while every story
/// has the id and slug of the story at its place there.
struct CrossCheckTests {
    @Test func aDuplicateIsFoundWhateverTheLastLoadHeld() {
        let a = StoryFactsTests.story("a"), b = StoryFactsTests.story("b")
        let before = [a, b]
        #expect(Edition.crossCheck(before, before: before).isEmpty)
        var sameSlug = StoryFactsTests.story("c")
        sameSlug.slug = a.slug
        var sameID = StoryFactsTests.story("d")
        sameID.id = b.id
        for (change, stories) in [("a slug taken twice", [a, sameSlug]), ("an id taken twice, one story more", [a, b, sameID]),
                                  ("the stories in another order, then a duplicate", [sameSlug, a])] {
            #expect(!Edition.crossCheck(stories, before: before).isEmpty, "\(change)")
            #expect(!Edition.crossCheck(stories).isEmpty, "\(change)")
        }
    }
}
