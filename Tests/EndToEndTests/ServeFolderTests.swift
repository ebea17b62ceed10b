import Foundation
import Testing
import TestSupport

/// Each port serve runs on gets a whole built site in `.newsgen/serve-<port>/`. A serve that starts removes those of
/// ports no running serve holds (with their output caches), and keeps those of serves that run.
@Suite(.serialized) struct ServeFolderTests {
    @Test func aStartingServeRemovesTheFoldersOfStoppedServesAndKeepsThoseOfRunningOnes() async throws {
        try await offThePool {
            let site = try TemporarySite(files: BuildFixtures.files)
            func folders() -> [String] {
                ((try? FileManager.default.contentsOfDirectory(atPath: site.path + "/.newsgen")) ?? [])
                    .filter { $0.hasPrefix("serve-") && !$0.hasSuffix(".lock") }.sorted()
            }
            func outputCaches() -> Int {
                ((try? FileManager.default.contentsOfDirectory(atPath: site.path + "/.newsgen")) ?? []).filter { $0.hasPrefix("build-") }.count
            }
            let stopped = try ServeProcess(site: site, environment: BuildFixtures.now)
            #expect(stopped.stop() == 0)
            #expect(folders() == ["serve-\(stopped.port)"])
            #expect(outputCaches() == 1)

            let running = try ServeProcess(site: site, environment: BuildFixtures.now)
            defer { running.stop() }
            #expect(folders() == ["serve-\(running.port)"], "the stopped serve's folder is removed")
            #expect(outputCaches() == 1, "and its output cache")
            #expect(running.standardOutput.contains("removed .newsgen/serve-\(stopped.port)/, left by a serve that has stopped"))

            let another = try ServeProcess(site: site, environment: BuildFixtures.now)
            defer { another.stop() }
            #expect(folders() == ["serve-\(running.port)", "serve-\(another.port)"].sorted(), "a running serve's folder is kept")
            #expect(outputCaches() == 2)
            #expect(!another.standardOutput.contains("removed .newsgen"))
            // The running serve still serves its site.
            let page = try LoopbackHTTP.request(port: running.port, method: "GET", path: "/")
            #expect(String(decoding: page, as: UTF8.self).contains("<html"))
        }
    }
    /// A serve that cannot start from the site's trace (here a damaged one) says so after its first build, as
    /// `newsgen build` does, and builds the site all the same.
    @Test func aServeThatCannotUseTheSitesTraceSaysWhyItBuildsEverything() async throws {
        try await offThePool {
            let site = try TemporarySite(files: BuildFixtures.files)
            let built = try newsgen(["build", "--quiet"], in: site, environment: BuildFixtures.now)
            try #require(built.status == 0, "\(built.standardError)")
            try site.write(".newsgen/trace", "not a trace\n")
            let serve = try ServeProcess(site: site, environment: BuildFixtures.now)
            defer { serve.stop() }
            #expect(serve.waitForOutput { $0.contains("built everything again: .newsgen/trace could not be used (not a trace file)") },
                    "\(serve.standardOutput)")
            let page = try LoopbackHTTP.request(port: serve.port, method: "GET", path: "/")
            #expect(String(decoding: page, as: UTF8.self).contains("<html"))
        }
    }
}
