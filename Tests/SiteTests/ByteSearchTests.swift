import Testing
@testable import News
@testable import Site

/// The byte search behind photo and page rewriting answers as a search of the text would.
@Suite struct ByteSearchTests {
    @Test func findsEveryPlaceAndNoneThatIsNotThere() {
        let text = Array("<img src=\"/media/a.jpg\" /> and <img src=\"/media/b.jpg\" />".utf8)
        let needle = Array("<img src=\"/media/".utf8)
        #expect(text.firstIndex(ofBytes: needle) == 0)
        #expect(text.firstIndex(ofBytes: needle, from: 1) == 31)
        #expect(text.firstIndex(ofBytes: needle, from: 32) == nil)
        #expect(text.firstIndex(ofBytes: Array("/>".utf8)) == 24)
        #expect(text.firstIndex(ofBytes: Array(" />".utf8), from: text.count - 3) == text.count - 3, "at the very end")
        #expect(text.firstIndex(ofBytes: Array("/media/c".utf8)) == nil)
        #expect(text.firstIndex(ofBytes: []) == nil)
        #expect([UInt8]().firstIndex(ofBytes: needle) == nil)
        #expect(Array("aaab".utf8).firstIndex(ofBytes: Array("aab".utf8)) == 1, "a partial match before the match")
    }

    @Test func replacesEveryOccurrenceFromLeftToRight() {
        let text = Array("href=\"/media/x\" href=\"/media/y\"".utf8)
        let replaced = text.replacing(bytes: Array("href=\"/media/".utf8), with: Array("href=\"/news/media/".utf8))
        #expect(String(decoding: replaced, as: UTF8.self) == "href=\"/news/media/x\" href=\"/news/media/y\"")
        #expect(Array("aaaa".utf8).replacing(bytes: Array("aa".utf8), with: Array("b".utf8)) == Array("bb".utf8))
        #expect(Array("none".utf8).replacing(bytes: Array("x".utf8), with: Array("y".utf8)) == Array("none".utf8))
    }
}
