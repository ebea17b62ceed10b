/// A 64-bit content hash that is the same in every process and on every run, unlike Swift's `Hasher`, which is
/// seeded per process: hashes outlive the process in the trace file.
///
/// 64 bits, not 128: the engine only ever compares a result's hash with the one recorded for the same key, so a
/// wrong reuse needs an edit whose new result collides with its own previous result (a chance of 2⁻⁶⁴ per re-run
/// task), and the trace, which holds two hashes per dependency, stays half the size. It is not cryptographic:
/// nobody gains anything by forging a collision in their own build.
///
/// The mixing is the single-lane round and the final avalanche of xxHash64, a word at a time.
public struct ContentHasher: Sendable {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var state: UInt64

    public init(seed: UInt64 = 0) {
        state = seed &+ Self.prime5
    }

    public mutating func combine(_ word: UInt64) {
        var lane = word &* Self.prime2
        lane = (lane << 31 | lane >> 33) &* Self.prime1
        state ^= lane
        state = (state << 27 | state >> 37) &* Self.prime1 &+ Self.prime4
    }

    /// Combines the bytes and their count, so that ("ab", "c") and ("a", "bc") differ.
    public mutating func combine(_ bytes: some Collection<UInt8>) {
        combine(UInt64(bytes.count))
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            let raw = UnsafeRawBufferPointer(buffer)
            var offset = 0
            while offset + 8 <= raw.count {
                combine(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
            if offset < raw.count { combine(Self.tail(raw[offset...])) }
        }
        if contiguous != nil { return }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(8)
        for byte in bytes {
            chunk.append(byte)
            if chunk.count == 8 {
                combine(Self.tail(chunk))
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if !chunk.isEmpty { combine(Self.tail(chunk)) }
    }

    private static func tail(_ bytes: some Collection<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for (index, byte) in bytes.enumerated() { word |= UInt64(byte) << (UInt64(index) * 8) }
        return word
    }

    public mutating func combine(_ text: String) {
        combine(text.utf8)
    }

    public mutating func combine(_ value: Int) { combine(UInt64(bitPattern: Int64(value))) }

    public mutating func combine(_ value: Bool) { combine(value ? 1 as UInt64 : 2) }

    public mutating func combine(_ value: Double) { combine(value.bitPattern) }

    public var value: UInt64 {
        var h = state
        h ^= h >> 33
        h = h &* Self.prime2
        h ^= h >> 29
        h = h &* Self.prime3
        h ^= h >> 32
        return h
    }

    public static func hash(_ bytes: some Collection<UInt8>) -> UInt64 {
        var hasher = ContentHasher()
        hasher.combine(bytes)
        return hasher.value
    }

    public static func hash(_ text: String) -> UInt64 {
        hash(text.utf8)
    }
}
