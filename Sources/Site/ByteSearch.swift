import News
extension Array where Element == UInt8 {
    /// Where `needle` first occurs at or after `start`, comparing bytes. For searches that run over every rendered
    /// page or body: Foundation's `range(of:)` compares Unicode-aware and the standard library's generic
    /// `firstRange(of:)` is far slower than this loop.
    public func firstIndex(ofBytes needle: [UInt8], from start: Int = 0) -> Int? {
        guard let first = needle.first, count >= needle.count, start <= count - needle.count else { return nil }
        var index = start
        while index <= count - needle.count {
            if self[index] == first, self[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// Every occurrence of `old` replaced by `new`, from left to right.
    public func replacing(bytes old: [UInt8], with new: [UInt8]) -> [UInt8] {
        guard var found = firstIndex(ofBytes: old) else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(count + new.count)
        var position = 0
        while true {
            out += self[position..<found]
            out += new
            position = found + old.count
            guard let next = firstIndex(ofBytes: old, from: position) else { break }
            found = next
        }
        out += self[position...]
        return out
    }
}
