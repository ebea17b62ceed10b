import News
import Incremental

/// The story files of a site as tasks of the incremental engine.
///
/// A story task parses one file of `content/` and works out its `StoryFacts`; it reads that file, the config and the
/// URL scheme only through the engine's `Fetch`, so the engine knows everything a parsed story is made from. The parsed story is kept in the trace
/// (`<site>/.newsgen/trace`) as `StoryCodec` bytes: the next process takes a story whose file has the same stamp
/// from there, without reading or parsing the file.
enum StoryRules {
    /// Input: a file of the site, by its path relative to the site folder; its value is the file's bytes.
    static let file = "file"
    /// `newsgen.yml`, parsed (what the story parser needs of it: languages, categories, the time zone).
    static let config = "config"
    /// A story file, by its path relative to `content/`: a `ParsedStory`.
    static let story = "story"
    /// The site's URL scheme (`Permalinks`), made from the config.
    static let links = "links"
    /// Input: a command-line option that changes what the site is made of (`base-url`), "" when not given.
    static let option = "option"
    /// Input: the names of the files in a folder of the site (sorted), by its path relative to the site folder.
    static let folder = "folder"

    /// The trace's file, relative to the site folder (as messages show it).
    static let traceFile = BuildCache.storyCacheFolder + "/trace"
    static func tracePath(site: String) -> String { site + "/" + traceFile }

    static let rules: [String: Rule] = [
        config: Rule(keeping: .memory) { _, fetch in
            let bytes = try fetch.value(Key(file, Edition.configFile), as: [UInt8].self)
            var problems: [Diagnostic] = []
            guard let text = String(validating: bytes, as: UTF8.self),
                  let config = SiteConfig.parse(text, path: Edition.configFile, diagnostics: &problems) else {
                // Edition.load found it valid a moment ago.
                throw FileSystem.Failure(path: Edition.configFile, reason: "the file changed while the site was being built; run the build again")
            }
            return Output(config, hash: ContentHasher.hash(bytes))
        },
        links: Rule(keeping: .memory) { _, fetch in
            let config = try fetch.value(Key(config), as: SiteConfig.self)
            // Dates in URLs need the time zone only: no language's date formats (see `ReaderClock`) are made here.
            let links = Permalinks(config: config, clock: ReaderClock(timeZone: config.timeZone, languages: []))
            return Output(links, hash: try fetch.hash(of: Key(StoryRules.config)))   // made from the config alone
        },
        story: Rule(keeping: .bytes(codec)) { key, fetch in
            let config = try fetch.value(Key(config), as: SiteConfig.self)
            let links = try fetch.value(Key(links), as: Permalinks.self)
            let path = Edition.contentFolder + "/" + key.name
            let bytes = try fetch.value(Key(file, path), as: [UInt8].self)
            let name = String(key.name.split(separator: "/").last ?? Substring(key.name))
            // Bodies are read again for the pages that show them, so that memory does not grow with the archive.
            let (story, problems) = StoryParser(config: config).parse(bytes: bytes, path: path, fileName: name, withBodies: false)
            guard let story, problems.isEmpty else {
                let parsed = ParsedStory(story: nil, facts: nil, problems: problems)
                return Output(parsed, hash: parsed.hash)
            }
            let facts = StoryFacts(story, config: config, links: links, sourceHash: ContentHasher.hash(bytes))
            let parsed = ParsedStory(story: story, facts: facts, problems: [])
            return Output(parsed, hash: parsed.hash)
        },
    ]

    /// A story with problems is not kept (it encodes to no bytes, which do not decode): it is parsed again.
    static let codec = Codec(ParsedStory.self, encode: { parsed in
        guard let story = parsed.story, let facts = parsed.facts else { return [] }
        var writer = ByteWriter()
        StoryCodec.write(story, &writer)
        facts.write(&writer)
        // Copied at its size: the engine keeps these bytes for as long as it lives, and a buffer grown while writing
        // carries up to as much again unused.
        return writer.bytes.withUnsafeBufferPointer { Array($0) }
    }, decode: { bytes in
        var reader = ByteReader(bytes)
        guard !bytes.isEmpty, let story = StoryCodec.read(&reader), let facts = StoryFacts.read(&reader),
              reader.atEnd else { return nil }
        return ParsedStory(story: story, facts: facts, problems: [])
    })
}

/// What parsing a story file gave: the story with its facts, or the problems that keep it out.
struct ParsedStory: Sendable {
    var story: Story?
    var facts: StoryFacts?
    var problems: [Diagnostic]

    /// Covers everything the story and its facts hold, its file's hash included.
    var hash: UInt64 {
        var hasher = ContentHasher()
        if let story {
            var writer = ByteWriter()
            StoryCodec.write(story, &writer)
            facts?.write(&writer)
            hasher.combine(writer.bytes)
        }
        for problem in problems { hasher.combine(problem.description) }
        return hasher.value
    }
}

/// Work that another module adds to loading a site, done by the same engine run as the stories and kept in the
/// same trace (the hub's check of each breaking story): `rules` holds a rule of `kind`, named like a story task (the
/// file's path under `content/`), for each story that `applies` to, and any rules it reads. Such a rule reads the
/// story and the rest of the site through `SiteTasks`.
public struct StoryCheck: Sendable {
    public let kind: String
    public let rules: [String: Rule]
    public let applies: @Sendable (Story) -> Bool

    public init(kind: String, rules: [String: Rule], applies: @escaping @Sendable (Story) -> Bool) {
        self.kind = kind
        self.rules = rules
        self.applies = applies
    }
}

/// How a `StoryCheck`'s rules read the site: everything through their `Fetch`, so the engine knows what they used.
public enum SiteTasks {
    /// The story of a story task's name (its file's path under `content/`), nil when the file has problems.
    public static func story(_ name: String, _ fetch: Fetch) throws -> Story? {
        try fetch.value(Key(StoryRules.story, name), as: ParsedStory.self).story
    }

    /// `newsgen.yml` as the build sees it: with the `--base-url` override, when one was given.
    public static func config(_ fetch: Fetch) throws -> SiteConfig {
        var config = try fetch.value(Key(StoryRules.config), as: SiteConfig.self)
        let override = try fetch.value(Key(StoryRules.option, "base-url"), as: String.self)
        if !override.isEmpty { config.baseURL = override.hasSuffix("/") ? override : override + "/" }
        return config
    }

    /// The names of the files in a folder of the site (relative to the site folder), sorted; none when it is missing.
    public static func files(in folder: String, _ fetch: Fetch) throws -> [String] {
        try fetch.value(Key(StoryRules.folder, folder), as: [String].self)
    }

    /// The bytes of a file of the site (relative to the site folder).
    public static func bytes(of path: String, _ fetch: Fetch) throws -> [UInt8] {
        try fetch.value(Key(StoryRules.file, path), as: [UInt8].self)
    }
}

/// The engine's inputs: files and folders of the site folder, and the options that change what it is made of.
///
/// A file's hash is its stamp (size, time, inode), which costs no read, unless the file had changed within two
/// seconds of the look that took the stamp (`FileStamp.settled`): a later change within the file system's clock
/// tick could keep the same stamp, so such a file is hashed by its bytes (and found changed once more when its stamp
/// becomes old enough).
struct SiteFiles: InputProvider {
    let root: String
    /// The story files as the listing of `content/` found them (paths relative to `content/`).
    let listed: FileSystem.SourceListing
    let options: [String: String]
    /// A stamp stands for the bytes when the file is older than this (see `FileStamp.settled`).
    let trustedBefore: Int64

    /// `listedAt`: when `listed` was looked at (taken before the look). Files not in it are looked at later, when
    /// a task reads them, so the same time is on the safe side for them.
    init(root: String, listed: FileSystem.SourceListing, listedAt: Int64, options: [String: String]) {
        self.root = root
        self.listed = listed
        self.options = options
        trustedBefore = FileStamp.settled(before: listedAt)
    }

    func provides(_ kind: String) -> Bool {
        kind == StoryRules.file || kind == StoryRules.folder || kind == StoryRules.option
    }

    func hash(of input: Key) throws -> UInt64 {
        if input.kind == StoryRules.option || input.kind == StoryRules.folder { return try read(input).hash }
        guard let stamp = try stamp(input) else { return try read(input).hash }
        return Self.hash(stamp)
    }

    func read(_ input: Key) throws -> Output {
        if input.kind == StoryRules.option {
            let value = options[input.name] ?? ""
            return Output(value, hash: ContentHasher.hash(value))
        }
        if input.kind == StoryRules.folder {
            // Regular files, and links to them, not hidden: what the site's loaders take from a folder.
            let names = FileSystem.entries(of: root + "/" + input.name)
                .filter { !$0.hasPrefix(".") && FileStamp.of(root + "/" + input.name + "/" + $0) != nil }.sorted()
            var hasher = ContentHasher()
            for name in names { hasher.combine(name) }
            return Output(names, hash: hasher.value)
        }
        let stamp = try stamp(input)   // before the read: a change after it is found next time
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readInput(root + "/" + input.name)
        } catch {
            throw FileSystem.Failure(path: input.name, reason: "cannot read: \(error.reason)")
        }
        return Output(bytes, hash: stamp.map(Self.hash) ?? ContentHasher.hash(bytes))
    }

    /// The file's stamp when it is old enough to stand for the bytes; nil when the bytes must be hashed.
    private func stamp(_ input: Key) throws -> FileStamp? {
        guard input.kind == StoryRules.file else {
            throw FileSystem.Failure(path: input.name, reason: "\(input.kind) is not an input of the site")
        }
        let content = Edition.contentFolder + "/"
        guard let stamp = (input.name.hasPrefix(content) ? listed.stamp(of: input.name.dropFirst(content.count)) : nil)
                ?? FileStamp.of(root + "/" + input.name) else {
            throw FileSystem.Failure(path: input.name, reason: "cannot read: no such file")
        }
        return stamp.modified < trustedBefore ? stamp : nil
    }

    static func hash(_ stamp: FileStamp) -> UInt64 {
        var hasher = ContentHasher(seed: 1)   // apart from the hashes of bytes
        hasher.combine(UInt64(bitPattern: Int64(stamp.size)))
        hasher.combine(UInt64(bitPattern: stamp.modified))
        hasher.combine(stamp.inode)
        return hasher.value
    }
}
