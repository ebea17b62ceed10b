import Foundation
import Testing
@testable import News
@testable import Site
import TestSupport

/// A file's stamp (size, time, inode) stands for its bytes only when the file had not changed for two seconds when
/// the stamp was taken: on a file system with a coarse clock (two seconds on FAT), a change made just after the look
/// can leave the stamp as it was. However long the build then takes, that stamp does not become trustworthy: neither
/// the trace of parsed stories nor the record that lets the next build do nothing may rely on it.
@Suite struct StampTrustTests {
    static let now = Timestamp(secondsSinceEpoch: 1_795_964_400)   // 2026-11-29T15:00:00Z
    static let story = "content/science/fast-double-pulsar.md"
    static let page = "site/en/2026/11/24/fast-double-pulsar/index.html"

    /// A build as `newsgen build` makes it (see `SiteBuild.run`), from `snapshot` when given (taken earlier).
    static func build(_ site: TemporarySite, from given: InputSnapshot? = nil) throws {
        let lock = try BuildLock.acquire(site: site.path, output: nil, timeout: 10) { _ in }
        defer { lock.release() }
        let options = BuildOptions(filter: EditionFilter(now: now))
        let survey = OutputSurvey.start(lock: lock, clean: false)
        let snapshot = given ?? InputSnapshot.take(directory: site.path, baseURLOverride: nil)
        if SiteBuilder.upToDate(snapshot, survey: survey, options: options) != nil { return }
        let edition = try Edition.load(directory: site.path, cache: .readWrite(lock), snapshot: snapshot)
        _ = try SiteBuilder.build(edition, options: options, lock: lock, survey: survey)
    }

    static func setModified(_ site: TemporarySite, _ path: String, _ time: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: site.path + "/" + path)
    }

    @Test func aStampTakenWithinTwoSecondsOfAChangeIsNotTrustedLater() throws {
        let site = try TemporarySite.sample()
        let content = site.path + "/content"
        let changed = Date(timeIntervalSinceNow: -1)
        for file in FileManager.default.enumerator(atPath: content)?.compactMap({ $0 as? String }) ?? []
        where file.hasSuffix(".md") {
            try Self.setModified(site, "content/" + file, changed)
        }
        // The look happens less than 2 s after the change (on a slow machine too), the build ends more than 2 s after.
        let snapshot = InputSnapshot.take(directory: site.path, baseURLOverride: nil)
        Thread.sleep(forTimeInterval: 1.5)
        try Self.build(site, from: snapshot)
        #expect(try site.read(Self.page).contains("A natural laboratory"))

        // A change just after that look, in the same tick of a coarse clock: same size, same time, same inode.
        let file = site.path + "/" + Self.story
        let stamp = try #require(FileStamp.of(file))
        let text = try site.read(Self.story)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data(text.replacingOccurrences(of: "A natural laboratory", with: "A natural LABORATORY").utf8))
        try handle.close()
        try Self.setModified(site, Self.story, changed)
        #expect(FileStamp.of(file) == stamp)

        // The next look trusts the stamp (the file is old by now), but the last build did not: the change is built.
        try Self.build(site)
        #expect(try site.read(Self.page).contains("A natural LABORATORY"))
    }

    /// The same for the files of `media/`, whose hashes the media cache keeps by stamp: a file listed within two
    /// seconds of its change is read again next time, however long the build took.
    @Test func aMediaFileListedWithinTwoSecondsOfAChangeIsReadAgain() throws {
        let site = try TemporarySite.sample()
        let path = "media/season-notes.txt"
        try site.write(path, "Ozone season: first readings.\n")
        let changed = Date(timeIntervalSinceNow: -1)
        try Self.setModified(site, path, changed)
        do {
            let lock = try BuildLock.acquire(site: site.path, output: nil, timeout: 10) { _ in }
            defer { lock.release() }
            let edition = try Edition.load(directory: site.path, cache: .readWrite(lock))   // lists media/
            Thread.sleep(forTimeInterval: 1.5)
            _ = try SiteBuilder.build(edition, options: BuildOptions(filter: EditionFilter(now: Self.now)), lock: lock)
        }
        #expect(try site.read("site/" + path) == "Ozone season: first readings.\n")
        let file = site.path + "/" + path
        let stamp = try #require(FileStamp.of(file))
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data("Ozone season: final readings.\n".utf8))
        try handle.close()
        try Self.setModified(site, path, changed)
        #expect(FileStamp.of(file) == stamp)
        try Self.build(site)
        #expect(try site.read("site/" + path) == "Ozone season: final readings.\n")
    }

    /// The same with the stamp taken when the file was already two seconds old: then it is trusted, and the next
    /// build has nothing to do (the reason the stamp rule exists).
    @Test func aStampTakenLaterIsTrusted() throws {
        let site = try TemporarySite.sample()
        let content = site.path + "/content"
        for file in FileManager.default.enumerator(atPath: content)?.compactMap({ $0 as? String }) ?? []
        where file.hasSuffix(".md") {
            try Self.setModified(site, "content/" + file, Date(timeIntervalSinceNow: -2.5))
        }
        try Self.build(site)
        try FileManager.default.removeItem(atPath: site.path + "/.newsgen/trace")
        try Self.build(site)
        #expect(!site.exists(".newsgen/trace"), "the second build loaded the stories")
    }
}
