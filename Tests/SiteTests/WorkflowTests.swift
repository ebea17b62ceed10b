import Foundation
import Testing
import TestSupport
import YAML

/// The CI workflow: valid YAML with the scheduled trigger, whose cheap first job decides from the recorded
/// `next-change` time whether the expensive jobs run.
@Suite struct WorkflowTests {
    static let path = Repository.root.appendingPathComponent(".github/workflows/publish.yml")

    static func workflow() throws -> YAMLNode {
        try #require(try YAMLDocument.parse(try String(contentsOf: path, encoding: .utf8)))
    }

    @Test func theWorkflowRunsOftenOnASchedule() throws {
        let workflow = try Self.workflow()
        let cron = try #require(workflow["on"]?["schedule"]?.sequence?.first?["cron"]?.string)
        #expect(cron == "*/10 * * * *")
        #expect(workflow["on"]?["push"] != nil)
        let jobs = try #require(workflow["jobs"])
        // The expensive jobs wait for the decision; the publish job records the next change for the next look.
        #expect(jobs["build"]?["needs"]?.string == "due")
        #expect(jobs["build"]?["if"]?.string == "needs.due.outputs.due == 'true'")
        #expect(jobs["deploy"]?["needs"]?.string == "build")
        let steps = try #require(jobs["publish"]?["steps"]?.sequence)
        #expect(steps.contains { $0["run"]?.string == "bin/newsgen next-change > .newsgen/next-change" })
        let saved = steps.compactMap { $0["with"]?["path"]?.string }
        #expect(saved.contains(".newsgen/next-change") && saved.contains(".newsgen/push-ledger.json"))
        // The decision job needs no toolchain: no container, no build.
        #expect(jobs["due"]?["container"] == nil)
    }

    /// Runs the decision step's script as the runner would, in a folder with (or without) a recorded time.
    func decide(event: String, recorded: String?) throws -> String {
        let steps = try #require(try Self.workflow()["jobs"]?["due"]?["steps"]?.sequence)
        let script = try #require(steps.first { $0["id"]?.string == "decide" }?["run"]?.string)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".newsgen"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        if let recorded { try Data(recorded.utf8).write(to: folder.appendingPathComponent(".newsgen/next-change")) }
        let output = folder.appendingPathComponent("output")
        let result = try runProgram(URL(fileURLWithPath: "/bin/bash"), ["-e", "-c", script], in: folder,
                                    environment: ["EVENT": event, "GITHUB_OUTPUT": output.path, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 0, "\(result.standardError)")
        return try String(contentsOf: output, encoding: .utf8)
    }

    @Test func theScheduledRunBuildsOnlyWhenTheRecordedChangeIsDue() throws {
        let past = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-60))
        let future = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
        #expect(try decide(event: "schedule", recorded: past + "\n") == "due=true\n")
        #expect(try decide(event: "schedule", recorded: future + "\n") == "due=false\n")
        #expect(try decide(event: "schedule", recorded: "") == "due=false\n")     // next-change printed nothing
        #expect(try decide(event: "schedule", recorded: nil) == "due=true\n")    // never recorded: build once
        #expect(try decide(event: "push", recorded: future) == "due=true\n")     // a merge always builds
    }
}
