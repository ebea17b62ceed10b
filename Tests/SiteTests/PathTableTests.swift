import Testing
@testable import News
@testable import Site

/// The path table answers as `Set<String>` would, keeps the order paths were added in, and grows.
@Suite struct PathTableTests {
    @Test func answersLikeASetAndKeepsPlaces() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["en", "fr", "zh-hans", "2026", "11", "29", "quake", "index.html", "国际", "page", "1", ""]
        var table = PathTable()
        var reference: [String: Int] = [:]
        for _ in 0..<5000 {
            let path = (0..<Int.random(in: 1...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined(separator: "/")
            let (inserted, place) = table.insert(path)
            #expect(inserted == (reference[path] == nil), "\(path)")
            if inserted { reference[path] = place }
            #expect(reference[path] == place)
        }
        #expect(table.count == reference.count)
        for (path, place) in reference {
            #expect(table.place(of: path) == place)
            #expect(table.paths[place] == path)
        }
        #expect(!table.contains("not/there/index.html"))
        #expect(PathTable().place(of: "") == nil)
        var small = PathTable(minimumCapacity: 2)
        #expect(small.insert("").inserted && !small.insert("").inserted && small.contains(""))
    }
}
