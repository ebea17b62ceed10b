import Foundation
import Testing
@testable import Site

/// The change detector of the build cache: any change of any byte, at any length, changes the digest.
@Suite struct DigestTests {
    @Test func everyByteCountsAtEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...140) + [1000, 4099] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let digest = Digest.of(bytes)
            #expect(Digest.of(bytes) == digest)
            var seen: Set<UInt64> = [digest]
            for place in Set([0, length / 2, length - 1, length - 9, length - 33, 31, 32, 63, 64]) where place >= 0 && place < length {
                var changed = bytes
                changed[place] ^= 1 << UInt8(place % 8)
                #expect(seen.insert(Digest.of(changed)).inserted, "length \(length), byte \(place)")
            }
            #expect(seen.insert(Digest.of(bytes + [0])).inserted, "length \(length) + a zero byte")
        }
    }

    @Test func wordsInTheirPlaces() {
        // Two long runs that hold the same words in other lanes are told apart.
        let a = (0..<128).map { UInt8($0) }
        let b = Array(a[32..<64] + a[0..<32] + a[64...])
        #expect(Digest.of(a) != Digest.of(b))
        var one = Digest()
        one.add("ab")
        one.add("c")
        var other = Digest()
        other.add("a")
        other.add("bc")
        #expect(one.value != other.value)
    }
}

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

/// Caches are tied to the binary that wrote them, found from the memory map of the process.
@Suite struct ExecutableIdentityTests {
    @Test func theFileMappedAtAnAddress() {
        let maps = Array("""
        55d0c0a00000-55d0c0a20000 r--p 00000000 fd:01 1234567                    /usr/local/bin/news gen
        55d0c0a20000-55d0c0b90000 r-xp 00020000 fd:01 1234567                    /usr/local/bin/news gen
        7f12a0000000-7f12a0021000 rw-p 00000000 00:00 0
        7f12a4000000-7f12a41c0000 r-xp 00028000 fd:01 2345678                    /usr/lib/x86_64-linux-gnu/libc.so.6
        7ffd1b3f0000-7ffd1b411000 rw-p 00000000 00:00 0                          [stack]
        """.utf8)
        #expect(BuildCache.file(holding: 0x55d0_c0a2_0000, maps: maps) == "/usr/local/bin/news gen")
        #expect(BuildCache.file(holding: 0x55d0_c0b8_ffff, maps: maps) == "/usr/local/bin/news gen")
        #expect(BuildCache.file(holding: 0x7f12_a400_1000, maps: maps) == "/usr/lib/x86_64-linux-gnu/libc.so.6")
        #expect(BuildCache.file(holding: 0x7f12_a000_0010, maps: maps) == nil)   // anonymous memory
        #expect(BuildCache.file(holding: 0x7ffd_1b3f_0010, maps: maps) == nil)   // [stack]
        #expect(BuildCache.file(holding: 0x1000, maps: maps) == nil)
        #expect(BuildCache.file(holding: 0x1000, maps: []) == nil)
    }
}
