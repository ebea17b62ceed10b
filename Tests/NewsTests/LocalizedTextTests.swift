import Testing
import News

@Suite struct LocalizedTextTests {
    /// Long enough that a length takes two and three bytes.
    let long = String(repeating: "Quake ", count: 30)
    let veryLong = String(repeating: "地震", count: 3_000)

    @Test func givesEachLanguagesTextAndNothingForOthers() {
        let text = LocalizedText(["fr": "Séisme", "en": long, "zh-Hans": veryLong])
        #expect(text[code: "en"] == long)
        #expect(text[code: "fr"] == "Séisme")
        #expect(text[code: "zh-Hans"] == veryLong)
        #expect(text[code: "zh"] == nil)
        #expect(text[code: "e"] == nil)
        #expect(!text.isEmpty)
        #expect(LocalizedText().isEmpty)
        #expect(LocalizedText()[code: "en"] == nil)
        #expect(text.pairs.map(\.code) == ["en", "fr", "zh-Hans"])
        #expect(text.pairs.map(\.text) == [long, "Séisme", veryLong])
    }

    @Test func equalTextsAreEqualWhateverTheOrderTheyWereGivenIn() {
        var a: [String: String] = [:]
        var b: [String: String] = [:]
        for (code, text) in [("en", "Quake"), ("fr", "Séisme"), ("de", "Beben")] { a[code] = text }
        for (code, text) in [("de", "Beben"), ("en", "Quake"), ("fr", "Séisme")] { b[code] = text }
        #expect(LocalizedText(a) == LocalizedText(b))
        #expect(LocalizedText(a).hashValue == LocalizedText(b).hashValue)
        b["fr"] = "Séisme!"
        #expect(LocalizedText(a) != LocalizedText(b))
        #expect(LocalizedText(["en": ""]) != LocalizedText())
    }

    @Test func readsBackWhatItEncodedAndRefusesAnyOtherBytes() {
        let values = ["en": long, "fr": "Séisme", "zh-Hans": veryLong]
        let text = LocalizedText(values)
        let bytes = text.encoded
        #expect(LocalizedText(encoded: bytes[...]) == text)
        #expect(LocalizedText(encoded: [][...]) == LocalizedText())

        // A prefix reads back only where it ends between two pairs, as the text of the pairs before.
        var boundaries: [Int: LocalizedText] = [:]
        var firstPairs: [String: String] = [:]
        for code in ["en", "fr", "zh-Hans"] {
            firstPairs[code] = values[code]
            boundaries[LocalizedText(firstPairs).encoded.count] = LocalizedText(firstPairs)
        }
        for length in 1..<bytes.count {
            #expect(LocalizedText(encoded: bytes[..<length]) == boundaries[length], "prefix of \(length) bytes")
        }
        // Codes out of order or given twice.
        let en = LocalizedText(["en": "a"]).encoded, fr = LocalizedText(["fr": "b"]).encoded
        #expect(LocalizedText(encoded: (fr + en)[...]) == nil)
        #expect(LocalizedText(encoded: (en + en)[...]) == nil)
        #expect(LocalizedText(encoded: (en + fr)[...]) == LocalizedText(["en": "a", "fr": "b"]))
        // A length that runs past the end, and one longer than any length.
        #expect(LocalizedText(encoded: [2, 101, 110, 9, 97][...]) == nil)
        #expect(LocalizedText(encoded: [UInt8](repeating: 0xFF, count: 12)[...]) == nil)
        // Read from within a larger buffer, as a cache reads it.
        let framed = [7, 7] + bytes + [7]
        #expect(LocalizedText(encoded: framed[2..<(2 + bytes.count)]) == text)
    }
}
