import Foundation
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One build at a time: builds of one site, or into one output folder, never interleave, and each says what it did.
@Suite struct BuildLockTests {
    /// A site of `count` stories in three languages and two categories, a few minutes apart.
    static func site(count: Int) throws -> TemporarySite {
        var files = ["newsgen.yml": BuildFixtures.config]
        for number in 0..<count {
            let category = number % 3 == 0 ? "Sports" : "World"
            let minute = number % 60, hour = 10 + (number / 60) % 12, day = 1 + number / 720
            let time = "2026-11-\(day < 10 ? "0" : "")\(day)T\(hour):\(minute < 10 ? "0" : "")\(minute):00Z"
            files["content/\(category.lowercased())/story-\(number).md"] = """
            ---
            category: \(category)
            published: \(time)
            breaking: \(number % 50 == 0)
            title: { en: "Story \(number) & more", fr: "Article \(number)", zh-Hans: "报道\(number)" }
            summary: { en: "What happened in story \(number)." }
            ---
            <!-- lang: en -->
            Body of story \(number), with *emphasis*.

            <!-- lang: fr -->
            Corps de l’article \(number).

            <!-- lang: zh-Hans -->
            报道\(number)的正文。
            """
        }
        return try TemporarySite(files: files)
    }

    /// The output folder's files but for the lock file (the tests write their own process id into it).
    static func pages(_ site: TemporarySite) -> [String: Data] {
        site.snapshot("site").filter { $0.key != ".newsgen-lock" }
    }

    /// Runs the given newsgen commands at the same moment, each in its own process. The waiting happens on Dispatch
    /// threads, not on the test's own: a blocked thread of Swift's small concurrency pool would stall other tests.
    static func together(_ commands: [[String]], in site: TemporarySite) async throws -> [ProgramResult] {
        let results = await withCheckedContinuation { (done: CheckedContinuation<[Result<ProgramResult, any Error>], Never>) in
            DispatchQueue.global().async {
                let results = Mutex([Result<ProgramResult, any Error>?](repeating: nil, count: commands.count))
                DispatchQueue.concurrentPerform(iterations: commands.count) { index in
                    let result = Result { try newsgen(commands[index], in: site, environment: BuildFixtures.now) }
                    results.withLock { $0[index] = result }
                }
                done.resume(returning: results.withLock { $0 }.map { $0! })
            }
        }
        return try results.map { try $0.get() }
    }

    /// "built 500 stories into site/: 1543 files, 1543 written, 0 unchanged, 0 removed in 812 ms" → (files, written).
    static func counts(_ summary: String) -> (files: Int, written: Int)? {
        guard let match = summary.firstMatch(of: /: (\d+) files, (\d+) written, (\d+) unchanged/) else { return nil }
        return (Int(match.output.1)!, Int(match.output.2)!)
    }

    @Test(arguments: [["build"], ["build", "--clean"]])
    func twoBuildsStartedTogetherLeaveTheCleanBuildsSite(_ other: [String]) async throws {
        let site = try Self.site(count: 500)
        let results = try await Self.together([["build", "--quiet"], other + ["--quiet"]], in: site)
        var totalWritten = 0
        var files: Int?
        for result in results {
            #expect(result.status == 0, "\(result.standardError)")
            let counted = try #require(Self.counts(result.standardOutput), "\(result.standardOutput)")
            totalWritten += counted.written
            files = files ?? counted.files
            #expect(files == counted.files)
            // The one that waited says for whom; nothing else is on stderr.
            for line in result.standardError.split(separator: "\n") {
                #expect(line.contains(#/^waiting for another newsgen \(process \d+\), which is building the (site|output folder) /#), "\(line)")
            }
        }
        // The first build wrote every file, the second found them all as they should be, whichever came first.
        #expect(totalWritten == files)

        let clean = try newsgen(["build", "--quiet", "--clean", "--output", site.path + "/clean"], in: site, environment: BuildFixtures.now)
        #expect(clean.status == 0, "\(clean.standardError)")
        let built = site.snapshot("site"), expected = site.snapshot("clean")
        #expect(built.count == expected.count)
        #expect(built == expected)
        // And the build cache is right: the next build has nothing to do, and still nothing is missing.
        let again = try newsgen(["build", "--quiet"], in: site, environment: BuildFixtures.now)
        #expect(Self.counts(again.standardOutput)?.written == 0, "\(again.standardOutput)")
        try site.remove("site/zh-hans")
        let healed = try newsgen(["build", "--quiet"], in: site, environment: BuildFixtures.now)
        #expect(healed.status == 0)
        #expect(site.snapshot("site") == expected)
    }

    /// Holds `path` with flock as another newsgen would (its process id in the file) until `release` is called.
    final class HeldLock: @unchecked Sendable {
        // @unchecked: the descriptor is written once in init and closed once by release.
        private let fd: Int32
        init(_ path: String) throws {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            fd = open(path, O_RDWR | O_CREAT, 0o644)
            #expect(fd >= 0)
            #expect(flock(fd, LOCK_EX) == 0)
            let text = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        func release() { close(fd) }
    }

    @Test func aBuildThatCannotGetTheLockGivesUpAndChangesNothing() throws {
        let site = try Self.site(count: 5)
        #expect(try newsgen(["build"], in: site, environment: BuildFixtures.now).status == 0)
        try site.write("content/world/story-1.md", try site.read("content/world/story-1.md").replacingOccurrences(of: "Body of story", with: "New body of story"))
        let before = Self.pages(site)
        for lockFile in [".newsgen/lock", "site/.newsgen-lock"] {
            let held = try HeldLock(site.path + "/" + lockFile)
            defer { held.release() }
            let result = try newsgen(["build"], in: site, environment: BuildFixtures.now.merging(["NEWSGEN_LOCK_TIMEOUT": "0.3"]) { $1 })
            #expect(result.status == 1)
            #expect(result.standardError.contains("waiting for another newsgen (process \(getpid()))"), "\(result.standardError)")
            #expect(result.standardError.contains("another newsgen (process \(getpid())) still holds the lock on the \(lockFile.hasPrefix("site") ? "output folder" : "site") "), "\(result.standardError)")
            #expect(result.standardError.contains("after waiting 0.3 s"))
            #expect(result.standardError.hasSuffix("1 error; nothing was written\n"))
            #expect(Self.pages(site) == before)
        }
        let bad = try newsgen(["build"], in: site, environment: BuildFixtures.now.merging(["NEWSGEN_LOCK_TIMEOUT": "soon"]) { $1 })
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("NEWSGEN_LOCK_TIMEOUT must be a number of seconds, found 'soon'"))
    }

    @Test func aBuildWaitsForTheLockAndThenBuilds() throws {
        let site = try Self.site(count: 5)
        let held = try HeldLock(site.path + "/.newsgen/lock")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.6) { held.release() }
        let started = Date()
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(Date().timeIntervalSince(started) >= 0.5)
        #expect(result.standardError == "waiting for another newsgen (process \(getpid())), which is building the site \(site.url.resolvingSymlinksInPath().path)\n"
                || result.standardError == "waiting for another newsgen (process \(getpid())), which is building the site \(site.path)\n",
                "\(result.standardError)")
        #expect(Self.counts(result.standardOutput)?.written == Self.counts(result.standardOutput)?.files)
    }

    @Test func aFailedFirstBuildLeavesNoOutputFolderAndNoLockBehind() throws {
        let site = try Self.site(count: 2)
        try site.write("content/world/bad.md", "---\ncategory: Wrld\npublished: 2026-11-29T14:05:00Z\ntitle: Bad\n---\nBody.\n")
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        #expect(result.status == 1)
        #expect(!site.exists("site"))
        // A lock file that stays in the site is harmless: the kernel released the lock with the process.
        try site.remove("content/world/bad.md")
        #expect(try newsgen(["build"], in: site, environment: BuildFixtures.now.merging(["NEWSGEN_LOCK_TIMEOUT": "0"]) { $1 }).status == 0)
    }

    /// When renaming files into place fails part way, the message says the output is mixed, not that nothing was
    /// written; the next build (once the fault is gone) finishes the job.
    @Test func aCommitThatFailsPartWaySaysSo() throws {
        let site = try Self.site(count: 5)
        #expect(try newsgen(["build"], in: site, environment: BuildFixtures.now).status == 0)
        // Every page lists the site title: a new title changes every page. An immutable file cannot be replaced, even
        // by root; the pages sorted before it are replaced first.
        try site.write("newsgen.yml", BuildFixtures.config.replacingOccurrences(of: "Test News", with: "Test Newsroom"))
        let stuck = site.path + "/site/en/index.html"
        let attribute = try runProgram(URL(fileURLWithPath: "/usr/bin/chattr"), ["+i", stuck])
        try #require(attribute.status == 0, "this test needs chattr +i (root, on ext4 or a file system with immutable files): \(attribute.standardError)")
        let result = try newsgen(["build"], in: site, environment: BuildFixtures.now)
        _ = try runProgram(URL(fileURLWithPath: "/usr/bin/chattr"), ["-i", stuck])
        #expect(result.status == 1)
        #expect(result.standardError.contains("cannot write the output"), "\(result.standardError)")
        #expect(result.standardError.contains(/1 error; \d+ output files were already replaced or removed, so the output is part old, part new: build again once the problem is solved\n$/),
                "\(result.standardError)")
        #expect(!result.standardError.contains("nothing was written"))
        let again = try newsgen(["build", "--quiet"], in: site, environment: BuildFixtures.now)
        #expect(again.status == 0, "\(again.standardError)")
        let clean = try newsgen(["build", "--quiet", "--clean", "--output", site.path + "/clean"], in: site, environment: BuildFixtures.now)
        #expect(clean.status == 0)
        #expect(site.snapshot("site") == site.snapshot("clean"))
    }
}
