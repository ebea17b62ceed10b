import Incremental
@testable import News
import NewsFixtures
@testable import Site
import Testing

/// What the trace keeps of a parsed story reads back as the same story, the alert settings included.
@Suite struct StoryCodecTests {
    static func story(_ push: String) -> String {
        "---\ncategory: World\npublished: 2026-11-29T14:05:00Z\nbreaking: true\ntitle: Quake\npush:\n\(push)---\nBody.\n"
    }

    @Test(arguments: ["  expires: 45m\n", "  revision: 3\n", "  budget: exempt\n"])
    func aKeptStoryReadsBackWhole(push: String) throws {
        let story = try #require(Fixtures.parseStory(Self.story(push), withBodies: false).0)
        var writer = ByteWriter()
        StoryCodec.write(story, &writer)
        var reader = ByteReader(writer.bytes)
        #expect(StoryCodec.read(&reader) == story)
    }

    @Test func bytesThatDoNotAddUpReadAsNoStory() throws {
        let story = try #require(Fixtures.parseStory(Fixtures.story, withBodies: false).0)
        var writer = ByteWriter()
        StoryCodec.write(story, &writer)
        var reader = ByteReader(Array(writer.bytes.dropLast(3)))
        #expect(StoryCodec.read(&reader) == nil)
    }

    /// Numbers of the cache files read back whatever their size and sign; the small ones a build writes most
    /// (counts, lengths) take one byte; one cut short reads as nothing.
    @Test func numbersReadBackAndSmallOnesTakeOneByte() {
        let values = [0, 1, -1, 63, -64, 64, 127, 128, 300, -300, 1 << 40, Int.max, Int.min]
        var writer = ByteWriter()
        for value in values { writer.int(value) }
        var reader = ByteReader(writer.bytes)
        #expect(values.map { _ in reader.int() } == values)
        #expect(reader.atEnd)
        for small in [0, 1, -1, 63, -64] {
            var one = ByteWriter()
            one.int(small)
            #expect(one.bytes.count == 1)
        }
        var long = ByteWriter()
        long.int(1 << 40)
        var cut = ByteReader(Array(long.bytes.dropLast()))
        #expect(cut.int() == nil)
    }
}
