import Foundation
import Incremental
@testable import News
import NewsFixtures
@testable import Site
import Testing
import TestSupport

/// Each story's facts (URLs, page files, languages, category places) are made by its task of the engine and kept in
/// the trace with it (see `StoryFacts`): those a load gives, made now or taken from the trace, must be what the story
/// and the config make afresh, after every kind of edit they depend on.
struct StoryFactsTests {
    static func load(_ site: TemporarySite) throws -> Edition {
        let lock = try BuildLock.acquire(site: site.path, output: nil, timeout: 10) { _ in }
        defer { lock.release() }   // after the trace is written
        return try Edition.load(directory: site.path, cache: .readWrite(lock))
    }

    static func problems(_ edition: Edition, site: TemporarySite) throws -> [String] {
        let config = edition.config
        let links = Permalinks(config: config, clock: ReaderClock(timeZone: config.timeZone, languages: config.languages))
        var problems = edition.facts.count == edition.stories.count ? [] : ["\(edition.facts.count) facts"]
        for (story, facts) in zip(edition.stories, edition.facts) {
            let source = ContentHasher.hash(Array(try site.read(story.sourcePath).utf8))
            if facts != StoryFacts(story, config: config, links: links, sourceHash: source) {
                problems.append(story.sourcePath)
            }
        }
        return problems
    }

    @Test func theFactsALoadGivesAreWhatTheStoryAndTheConfigMake() throws {
        let site = try TemporarySite.sample()
        let pulsar = "content/science/fast-double-pulsar.md"
        let edits: [(String, () throws -> Void)] = [
            ("nothing (from the trace)", {}),
            ("the time zone, which moves every URL's date", {
                try site.write("newsgen.yml", try site.read("newsgen.yml").replacingOccurrences(
                    of: "timezone: Europe/Paris", with: "timezone: Pacific/Kiritimati"))
            }),
            ("a story's date", {
                try site.write(pulsar, try site.read(pulsar).replacingOccurrences(
                    of: "published: 2026-11-24T18:00:00+08:00", with: "published: 2026-11-21T23:30:00+00:00"))
            }),
            ("a language taken out of a story", {
                let text = try site.read(pulsar)
                let french = try #require(text.range(of: "<!-- lang: fr -->"))
                let mandarin = try #require(text.range(of: "<!-- lang: zh-Hans -->"))
                try site.write(pulsar, String(text[..<french.lowerBound]) + String(text[mandarin.lowerBound...]))
            }),
        ]
        var before = try Self.load(site)
        #expect(try Self.problems(before, site: site) == [], "first load")
        for (edit, apply) in edits {
            try apply()
            let edition = try Self.load(site)
            #expect(try Self.problems(edition, site: site) == [], "\(edit)")
            if edit.hasPrefix("the time zone") {
                let factsBefore = Dictionary(uniqueKeysWithValues: zip(before.stories.map(\.sourcePath), before.facts))
                let moved = zip(edition.stories, edition.facts).filter { factsBefore[$0.sourcePath] != $1 }.count
                #expect(moved > 0, "the URLs moved")
            }
            before = edition
        }
    }
}
