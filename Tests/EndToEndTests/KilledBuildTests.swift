import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A build killed (SIGKILL) at any moment is repaired by the next plain build.
@Suite struct KilledBuildTests {
    /// When the build is killed: as soon as it started, once the staging folder appears (rendering), once the output
    /// cache is gone (it is removed right before files are renamed into place: the commit), once the first entry of
    /// a new output folder is in place, or after a share of the time such a build takes.
    enum Moment: Sendable, CustomStringConvertible {
        case atStart, stagingAppears, outputCacheRemoved, firstEntryInPlace
        case share(Double)

        var description: String {
            switch self {
            case .atStart: "right after the start"
            case .stagingAppears: "when the staging folder appears"
            case .outputCacheRemoved: "when the output cache is removed (the commit begins)"
            case .firstEntryInPlace: "when the first entry of the new output folder is in place"
            case .share(let share): "after \(Int(share * 100))% of a build's time"
            }
        }
    }

    static let shares: [Moment] = [0.1, 0.3, 0.5, 0.7, 0.9].map { .share($0) }

    /// The build to kill: the first one (no output folder yet), one after a template edit (every page is written
    /// again) or one after a story edit and a new story (a few pages).
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case first = "first build", template = "after a template edit", stories = "after story edits"
        var testDescription: String { rawValue }
    }

    /// Runs newsgen build in the site and kills it at `moment`; whether it was still running then.
    static func killedBuild(_ site: TemporarySite, _ environment: [String: String], at moment: Moment, duration: Double) throws -> Bool {
        let process = Process()
        process.executableURL = Repository.newsgenBinary
        process.arguments = ["build", "--quiet"]
        process.currentDirectoryURL = site.url
        process.environment = environment.merging(["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let caches = site.path + "/.newsgen"
        let outputCache = (try? FileManager.default.contentsOfDirectory(atPath: caches))?.first { $0.hasPrefix("build-") }
        let output = site.path + "/site"
        let started = Date()
        try process.run()
        func reached() -> Bool {
            switch moment {
            case .atStart: return true
            case .stagingAppears: return FileManager.default.fileExists(atPath: output + "/.newsgen-staging")
            case .outputCacheRemoved: return outputCache.map { !FileManager.default.fileExists(atPath: caches + "/" + $0) } ?? true
            case .firstEntryInPlace:
                return ((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).contains { !$0.hasPrefix(".newsgen") }
            case .share(let share): return Date().timeIntervalSince(started) >= share * duration
            }
        }
        while process.isRunning, !reached(), Date().timeIntervalSince(started) < 30 { usleep(100) }
        let running = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return running
    }

    /// Prepares the site for a build of `kind` (the `number`-th).
    static func prepare(_ generated: GeneratedSite, _ kind: Kind, _ number: Int) throws {
        switch kind {
        case .first:
            for folder in ["site", ".newsgen"] where generated.site.exists(folder) { try generated.site.remove(folder) }
        case .template:
            try generated.append("templates/partials/footer.mustache", "<!-- edit \(number) -->\n")
        case .stories:
            var story = generated.stories[number % generated.stories.count]
            story.bodies = story.bodies.mapValues { $0 + " Edit \(number)." }
            try generated.save(story)
            try generated.save(generated.newStory(published: generated.now - 3600 * (number + 1)))
        }
    }

    @Test(arguments: Kind.allCases)
    func aKilledBuildIsRepairedByTheNextPlainBuild(_ kind: Kind) async throws {
        let generated = try GeneratedSite(stories: 60, seed: 31)
        try #require(try await generated.build().status == 0)
        // How long such a build takes, to kill later ones at shares of it.
        try Self.prepare(generated, kind, 0)
        let started = Date()
        try #require(try await generated.build().status == 0)
        let duration = Date().timeIntervalSince(started)
        var moments: [Moment] = [.atStart, .stagingAppears] + Self.shares
        // The commit of a first build is short: two tries at it.
        moments += kind == .first ? [.firstEntryInPlace, .firstEntryInPlace] : [.outputCacheRemoved]
        var interrupted = 0
        for (number, moment) in moments.enumerated() {
            try Self.prepare(generated, kind, number + 1)
            if try await offThePool({ [site = generated.site, environment = generated.environment] in
                try Self.killedBuild(site, environment, at: moment, duration: duration)
            }) { interrupted += 1 }
            try await DamageRepairTests.expectRepaired(generated, after: "a build \(kind.rawValue) killed \(moment) (of \(Int(duration * 1000)) ms)")
        }
        // Many moments fall inside the build (how many depends on the machine's load); a build too quick to be
        // caught would make this test pass for nothing.
        #expect(interrupted >= moments.count / 3, "only \(interrupted) of \(moments.count) builds were still running when killed")
    }
}
