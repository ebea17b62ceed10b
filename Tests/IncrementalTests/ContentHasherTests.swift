import Incremental
import Testing

/// The one content hash (traces, caches, fingerprints): any change of any byte, at any length, changes it.
@Suite struct ContentHasherTests {
    @Test func everyByteCountsAtEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...140) + [1000, 4099] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let digest = ContentHasher.hash(bytes)
            #expect(ContentHasher.hash(bytes) == digest)
            var seen: Set<UInt64> = [digest]
            for place in Set([0, length / 2, length - 1, length - 9, length - 33, 31, 32, 63, 64]) where place >= 0 && place < length {
                var changed = bytes
                changed[place] ^= 1 << UInt8(place % 8)
                #expect(seen.insert(ContentHasher.hash(changed)).inserted, "length \(length), byte \(place)")
            }
            #expect(seen.insert(ContentHasher.hash(bytes + [0])).inserted, "length \(length) + a zero byte")
        }
    }

    @Test func wordsInTheirPlaces() {
        // Two runs that hold the same words in another order are told apart.
        let a = (0..<128).map { UInt8($0) }
        let b = Array(a[32..<64] + a[0..<32] + a[64...])
        #expect(ContentHasher.hash(a) != ContentHasher.hash(b))
        var one = ContentHasher()
        one.combine("ab")
        one.combine("c")
        var other = ContentHasher()
        other.combine("a")
        other.combine("bc")
        #expect(one.value != other.value)
    }
}
