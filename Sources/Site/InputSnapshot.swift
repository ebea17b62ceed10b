import Incremental

/// What a build of a site is made from, as the file system shows it before anything is parsed: the config file's
/// bytes, every file of the theme, every story file's path and stamp (size, modification time, inode) and the
/// newsgen binary. Its `key` is the same for two looks at the site exactly when none of these changed (story files
/// by their stamps, which the trace of parsed stories trusts in the same way).
///
/// `newsgen build` takes it first: when the output folder's cache says the last build was made from the same key
/// (with the same flags, at a time the output cannot have changed since) and the output folder is as that build
/// left it, there is nothing to do, and no story is loaded at all. Otherwise `Edition.load` goes on from it.
public struct InputSnapshot: Sendable {
    /// The site folder (absolute).
    let root: String
    let configBytes: [UInt8]?
    /// The story files (relative to `content/`, sorted) with their stamps; nil when there is no content folder.
    let storyFiles: FileSystem.SourceListing?
    /// `Edition.themeDigest` of the site's theme, as it was when the snapshot was taken.
    let themeDigest: UInt64
    /// A hash of everything above, the theme's files and the binary.
    let key: UInt64
    /// The newest modification time among the story files (nanoseconds since 1970).
    let newestModification: Int64
    /// When the story files were looked at (nanoseconds since 1970, taken before the look): their stamps stand for
    /// their bytes only when they are older than that (see `FileStamp.settled`).
    let takenAt: Int64

    /// Looks at the site in `directory`. Never fails: what cannot be read is part of the key as such, and
    /// `Edition.load` reports it.
    public static func take(directory: String, baseURLOverride: String?) -> InputSnapshot {
        let root = FileSystem.absolute(directory)
        let content = root + "/" + Edition.contentFolder
        let takenAt = BuildCache.nowNanoseconds()
        return make(root: root, configBytes: try? FileSystem.readInput(root + "/" + Edition.configFile),
                    storyFiles: FileSystem.isDirectory(content) ? Edition.storyFiles(in: content) : nil,
                    themeDigest: Edition.themeDigest(root: root), baseURLOverride: baseURLOverride, takenAt: takenAt)
    }

    /// The snapshot of these looks at the site (as `take` makes them, or as a `BuildSession` keeps them up to date).
    /// `takenAt`: when the story files' stamps were taken, or (for a snapshot kept up to date) when the changed ones were.
    static func make(root: String, configBytes: [UInt8]?, storyFiles: FileSystem.SourceListing?, themeDigest: UInt64,
                     baseURLOverride: String?, takenAt: Int64) -> InputSnapshot {
        var digest = ContentHasher()
        digest.combine("inputs")
        digest.combine(BuildCache.executableIdentity)
        digest.combine(configBytes ?? [0xFF, 0xFE])
        digest.combine(baseURLOverride ?? "")
        digest.combine(baseURLOverride != nil)
        digest.combine(themeDigest)
        digest.combine(MediaLibrary.listingDigest(root: root))
        var newest: Int64 = 0
        digest.combine(storyFiles?.files.count ?? -1)
        // What cannot be listed is part of the key: a build that found it cannot be skipped as "nothing changed".
        for problem in storyFiles?.problems ?? [] {
            digest.combine(problem.path)
            digest.combine(problem.reason)
        }
        for (path, stamp) in storyFiles?.files ?? [] {
            digest.combine(path)
            digest.combine(stamp.size)
            digest.combine(UInt64(bitPattern: stamp.modified))
            digest.combine(stamp.inode)
            newest = max(newest, stamp.modified)
        }
        return InputSnapshot(root: root, configBytes: configBytes, storyFiles: storyFiles, themeDigest: themeDigest,
                             key: digest.value, newestModification: newest, takenAt: takenAt)
    }
}
