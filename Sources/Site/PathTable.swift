/// A set of paths, each with its place (the order it was added in), looked up by a `Digest` of its UTF-8 bytes.
///
/// A rebuild at 10,000 stories looks up its 31,000 output paths several times (in the build cache, among the
/// files it writes, among the files it keeps). With `Set<String>` and `[String: …]` each lookup ran the standard
/// library's SipHash over the whole path, about a tenth of the rebuild; `Digest` costs a few instructions per
/// 8 bytes. Two paths with the same digest are told apart by comparing them.
struct PathTable: Sendable {
    /// The paths, by place.
    private(set) var paths: [String] = []
    private var digests: [UInt64] = []
    /// Open addressing: a place plus one, or 0 for an empty slot. Always at most half full.
    private var slots: [Int32] = []

    init(minimumCapacity: Int = 0) {
        reserve(minimumCapacity)
    }

    init(_ paths: some Sequence<String>) {
        for path in paths { insert(path) }
    }

    var count: Int { paths.count }
    var isEmpty: Bool { paths.isEmpty }

    static func digest(_ path: String) -> UInt64 {
        var digest = Digest()
        digest.add(path)
        return digest.value
    }

    /// The place of `path`, if it is in the table.
    func place(of path: String) -> Int? {
        guard !slots.isEmpty else { return nil }
        let digest = Self.digest(path)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: digest) & mask
        while slots[slot] != 0 {
            let place = Int(slots[slot]) - 1
            if digests[place] == digest && paths[place] == path { return place }
            slot = (slot + 1) & mask
        }
        return nil
    }

    func contains(_ path: String) -> Bool { place(of: path) != nil }

    /// Adds `path` unless it is there: whether it was added, and its place either way.
    @discardableResult
    mutating func insert(_ path: String) -> (inserted: Bool, place: Int) {
        if paths.count + 1 > slots.count / 2 { reserve(max(16, (paths.count + 1) * 2)) }
        let digest = Self.digest(path)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: digest) & mask
        while slots[slot] != 0 {
            let place = Int(slots[slot]) - 1
            if digests[place] == digest && paths[place] == path { return (false, place) }
            slot = (slot + 1) & mask
        }
        paths.append(path)
        digests.append(digest)
        slots[slot] = Int32(paths.count)
        return (true, paths.count - 1)
    }

    /// Room for `count` paths without growing.
    mutating func reserve(_ count: Int) {
        var size = 16
        while size < count * 2 { size *= 2 }
        guard size > slots.count else { return }
        paths.reserveCapacity(count)
        digests.reserveCapacity(count)
        slots = [Int32](repeating: 0, count: size)
        let mask = size - 1
        for (place, digest) in digests.enumerated() {
            var slot = Int(truncatingIfNeeded: digest) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(place + 1)
        }
    }
}
