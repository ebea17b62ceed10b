import Foundation
import Testing
import TestSupport

/// Input files that are not plain files: every one is an error naming it (never a hang, never a build that eats
/// the memory, never a story that vanishes without a word).
@Suite struct InputFileTests {
    /// `newsgen check` (or `build`), killed after 20 seconds (status 137): a hang fails the test, never stalls it.
    /// SIGKILL, because newsgen waits out SIGTERM to leave the site whole, and a process stuck opening a FIFO
    /// never gets there.
    static func run(_ command: String, in site: TemporarySite) throws -> ProgramResult {
        try runProgram(URL(fileURLWithPath: "/usr/bin/timeout"), ["-s", "KILL", "20", Repository.newsgenBinary.path, command],
                       in: site.url, environment: BuildFixtures.now)
    }

    static func expectRefused(_ result: ProgramResult, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 137, "newsgen hung", sourceLocation: sourceLocation)
        #expect(result.status == 1, "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(result.standardError.contains(expected), "\(result.standardError)", sourceLocation: sourceLocation)
    }

    static func fifo(_ site: TemporarySite, _ relative: String) throws {
        let path = site.url.appendingPathComponent(relative).path
        try? FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o644) == 0)
    }

    static func link(_ site: TemporarySite, _ relative: String, to target: String) throws {
        let path = site.url.appendingPathComponent(relative).path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    @Test func aFIFOAsTheConfigIsAnErrorNotAHang() throws {
        let site = try BuildFixtures.site()
        try Self.fifo(site, "newsgen.yml")
        Self.expectRefused(try Self.run("check", in: site),
                           "newsgen.yml: error: cannot read: not a regular file but a FIFO; newsgen reads only regular files")
    }

    @Test func aConfigLinkedToDevZeroIsAnErrorNotAllTheMemory() throws {
        let site = try BuildFixtures.site()
        try Self.link(site, "newsgen.yml", to: "/dev/zero")
        Self.expectRefused(try Self.run("build", in: site), "newsgen.yml: error: cannot read: not a regular file but a character device")
    }

    @Test func stringsAndTemplatesMustBeRegularFilesToo() throws {
        let site = try BuildFixtures.site()
        try Self.fifo(site, "templates/strings.yml")
        Self.expectRefused(try Self.run("check", in: site),
                           "templates/strings.yml: error: cannot read the file: not a regular file but a FIFO")
    }

    @Test func aStoryOrConfigPastSixteenMebibytesIsRefused() throws {
        let site = try BuildFixtures.site()
        // Sparse: the size says 17 MiB without writing them.
        let story = site.url.appendingPathComponent("content/world/huge.md").path
        #expect(FileManager.default.createFile(atPath: story, contents: nil))
        #expect(truncate(story, 17 << 20) == 0)
        Self.expectRefused(try Self.run("check", in: site),
                           "content/world/huge.md: error: cannot read: larger than 16 MiB, the most newsgen reads from one file")
    }

    /// A folder of content/ that cannot be read is an error (its stories would vanish from the site). Root reads
    /// any folder whatever its mode, and the tests run as root: then newsgen runs as `nobody` (setpriv), for
    /// whom a folder of mode 000 really cannot be opened, as for an editor whose checkout has one.
    @Test func anUnreadableFolderInContentIsAnError() throws {
        let site = try BuildFixtures.site()
        let folder = site.url.appendingPathComponent("content/world").path
        #expect(chmod(folder, 0) == 0)
        defer { chmod(folder, 0o755) }
        var command = ["-s", "KILL", "20"]
        if geteuid() == 0 {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
                Issue.record("running as root needs setpriv (util-linux) to drop privileges for this test")
                return
            }
            // nobody must reach the site: the temporary folder and its files are world-readable (umask 022).
            command += ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        }
        let result = try runProgram(URL(fileURLWithPath: "/usr/bin/timeout"), command + [Repository.newsgenBinary.path, "check"],
                                    in: site.url, environment: BuildFixtures.now)
        Self.expectRefused(result, "content/world: error: cannot read the folder: Permission denied\n1 error; nothing was written")
    }

    /// A story file that is a link inside content/ is built like the file it leads to; one that leads out of
    /// content/ is an error naming it.
    @Test func linkedStoriesAreFollowedInsideContentAndRefusedOutside() throws {
        let site = try BuildFixtures.site()
        try site.write("content/_shared/storm.txt", """
        ---
        category: World
        published: 2026-11-29T12:00:00Z
        title: Storm warning
        ---
        A storm is coming.
        """)
        try Self.link(site, "content/world/storm.md", to: "../_shared/storm.txt")
        let built = try Self.run("build", in: site)
        #expect(built.status == 0, "\(built.standardError)")
        #expect(try site.read("site/en/2026/11/29/storm/index.html").contains("A storm is coming."))

        try site.write("outside/secret.md", BuildFixtures.draft)
        try Self.link(site, "content/world/secret.md", to: "../../outside/secret.md")
        try Self.link(site, "content/world/gone.md", to: "../_shared/gone.txt")
        try site.write("content/sports/bad.md", "---\ncategory: Sport\npublished: 2026-11-29T10:00:00Z\ntitle: x\n---\nx\n")
        // Every problem of the build at once, in the usual form.
        let refused = try Self.run("build", in: site)
        Self.expectRefused(refused, """
        content/sports/bad.md:2:11: error: unknown category "Sport" (known: World, Sports; did you mean "Sports"?)
        content/world/gone.md: error: a link to ../_shared/gone.txt, which cannot be followed: No such file or directory
        content/world/secret.md: error: a link to ../../outside/secret.md, outside content/; newsgen follows links only to files inside it: copy the file here instead
        3 errors; nothing was written
        """)
        #expect(try site.read("site/en/2026/11/29/storm/index.html").contains("A storm is coming."))
    }
}
