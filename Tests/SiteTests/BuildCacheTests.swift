import Foundation
import Testing
@testable import News
@testable import Site

/// The kept feed texts: read back as written, and none at all from a damaged file.
@Suite struct FeedEntriesCacheTests {
    @Test func keptTextsRoundTripAndADamagedFileIsNoCache() throws {
        let site = FileManager.default.temporaryDirectory.appendingPathComponent("newsgen-feeds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: site) }
        let texts: [UInt64: FeedBodyText] = [
            1: FeedBodyText(summary: "A quake struck.", html: "<p>A quake <em>struck</em>.</p>\n"),
            42: FeedBodyText(summary: "地震", html: nil),
            .max: FeedBodyText(summary: "", html: ""),
        ]
        BuildCache.save(FeedEntries.encode(texts), to: FeedEntries.path(site: site))
        #expect(FeedEntries.loadAll(site: site) == texts)
        var bytes = try FileSystem.read(FeedEntries.path(site: site))
        bytes[bytes.count / 2] ^= 0x20
        try FileSystem.write(bytes, to: FeedEntries.path(site: site))
        #expect(FeedEntries.loadAll(site: site).isEmpty)
        #expect(FeedEntries.loadAll(site: site + "/none").isEmpty)
    }
}
