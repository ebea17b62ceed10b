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
}
