import Synchronization

/// A set of paths, each with its place (the order it was added in): the build cache's entries, the files a
/// build wrote and the files it keeps are lists of paths looked up by path.
struct PathTable: Sendable {
    /// The paths, by place.
    private(set) var paths: [String] = []
    private var places: [String: Int] = [:]

    init(minimumCapacity: Int = 0) {
        reserve(minimumCapacity)
    }

    init(_ paths: some Collection<String>) {
        reserve(paths.count)
        for path in paths { insert(path) }
    }

    var count: Int { paths.count }
    var isEmpty: Bool { paths.isEmpty }

    /// The place of `path`, if it is in the table.
    func place(of path: String) -> Int? { places[path] }

    func contains(_ path: String) -> Bool { places[path] != nil }

    /// Adds `path` unless it is there: whether it was added, and its place either way.
    @discardableResult
    mutating func insert(_ path: String) -> (inserted: Bool, place: Int) {
        if let place = places[path] { return (false, place) }
        places[path] = paths.count
        paths.append(path)
        return (true, paths.count - 1)
    }

    /// Room for `count` paths without growing.
    mutating func reserve(_ count: Int) {
        paths.reserveCapacity(count)
        places.reserveCapacity(count)
    }
}

/// Paths in the order a build listed them, indexed by path only when one is looked up: a rebuild lists its files as
/// the last one did and finds each one's entry at the same place, so the index of 30,000 paths is mostly never made
/// (making it was a third of reading the output cache). Where a path is listed twice, its first place is found.
struct ListedPaths: Sendable {
    let paths: [String]
    private let index = Index()

    private final class Index: Sendable {
        let table = Mutex<PathTable?>(nil)
    }

    init(_ paths: [String] = []) { self.paths = paths }

    var count: Int { paths.count }
    var isEmpty: Bool { paths.isEmpty }

    func place(of path: String) -> Int? {
        let table = index.table.withLock { table in
            if table == nil { table = PathTable(paths) }
            return table!
        }
        return table.place(of: path)
    }

    func contains(_ path: String) -> Bool { place(of: path) != nil }
}
