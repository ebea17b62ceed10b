import Foundation
import HTTP
import Hub
import News
import Site

/// `newsgen publish`: each new breaking story → one tagged, localized template notification, exactly once.
enum PublishCommand {
    static let flags = ["--dry-run", "--json", "--check-live", "--wait", "--help"]
    static let options = ["--site", "--ledger", "--base-url", "--live-wait", "--test", "--to"]

    static func run(_ arguments: [String], environment: [String: String], console: Console) async throws(UsageError) -> Int32 {
        let parsed = try ParsedArguments(arguments, command: "publish", flags: flags, options: options)
        if parsed.flags.contains("--help") {
            console.out(Help.commands["publish"]!)
            return ExitCode.success
        }
        var liveWait: Double?
        if let text = parsed.options["--live-wait"] {
            guard let seconds = DurationText.seconds(text) else {
                throw UsageError(message: "--live-wait needs a duration such as 90s or 5m, found '\(text)'", command: "publish")
            }
            liveWait = seconds
        }
        let dryRun = parsed.flags.contains("--dry-run")
        let json = parsed.flags.contains("--json")
        let testStory = parsed.options["--test"]
        if testStory == nil, parsed.options["--to"] != nil {
            throw UsageError(message: "--to names the audience of a test send; give it with --test <story id>", command: "publish")
        }
        if testStory != nil, let other = ["--dry-run", "--check-live", "--wait"].first(where: parsed.flags.contains) {
            throw UsageError(message: "\(other) cannot be combined with --test (a test send goes out at once, to the test audience only)", command: "publish")
        }

        let now: Timestamp
        switch EditionFilter.currentTime(environment: environment) {
        case .success(let value): now = value
        case .failure(let error): console.err(error.description); return ExitCode.failure
        }
        let edition: Edition
        do {
            // Only a build writes the build cache (under its lock); publish reads it.
            edition = try Edition.load(directory: parsed.options["--site"] ?? ".", baseURLOverride: parsed.options["--base-url"],
                                       cache: .read)
        } catch {
            console.err(error.description)
            return ExitCode.failure
        }
        let devices = DeviceCatalog.load(edition)
        if !devices.problems.isEmpty {
            for problem in devices.problems { console.err(problem.description) }
            console.err("nothing was sent")
            return ExitCode.failure
        }

        let ledgerPath = ledgerFile(parsed.options["--ledger"], edition: edition)
        if let testStory {
            return await TestSendCommand.run(storyID: testStory, audience: parsed.options["--to"], edition: edition, devices: devices.kinds,
                                       now: now, ledgerPath: ledgerPath, environment: environment, json: json, console: console)
        }
        let ledger: Ledger
        do {
            ledger = dryRun ? try Ledger.read(path: ledgerPath) : try Ledger.openForSending(path: ledgerPath)
        } catch {
            console.err("error: \(error.message)")
            return ExitCode.failure
        }

        var connection: HubConnection?
        var connectionNote: String?
        do {
            connection = try HubConnection.resolve(environment: environment, configuredHub: edition.config.push.hub)
        } catch {
            // A dry run needs no secrets: without a connection string its preview shows placeholders. Anything set
            // but wrong is refused as a real run refuses it, so the preview never shows what would not happen.
            guard dryRun, error.isMissingConnectionString else {
                console.err("error: \(error.message); nothing was sent")
                return ExitCode.failure
            }
            connectionNote = error.message
        }

        let plan = PublishPlan(edition: edition, now: now, sent: ledger.byKey, devices: devices.kinds)
        let (entries, previews) = (plan.entries, plan.previews)

        let settings = edition.config.push
        var results: [String: SendStatus] = [:]
        var telemetry: [String: TelemetryAnswer]?
        if !dryRun, let connection {
            let notifications = entries.compactMap { entry -> Hub.Notification? in
                if case .send(let notification) = entry { return notification }
                return nil
            }
            if !notifications.isEmpty {
                do {
                    try ledger.proveWritable()
                } catch {
                    console.err("error: the ledger cannot be written (\(error.message)); nothing was sent")
                    return ExitCode.failure
                }
                let transport = CurlTransport(timeouts: HTTPTimeouts(connect: settings.connectTimeout, total: settings.timeout),
                                              maxConcurrentTransfers: settings.concurrency)
                let checkLive = parsed.flags.contains("--check-live")
                let publisher = Publisher(connection: connection, transport: transport, ledger: ledger,
                                          policy: RetryPolicy(maxAttempts: settings.attempts), concurrency: settings.concurrency,
                                          liveCheck: checkLive ? LiveCheck(maximumWait: liveWait ?? settings.liveWait, interval: min(5, liveWait ?? 5)) : nil)
                results = await publisher.publish(notifications)
                if parsed.flags.contains("--wait") {
                    let reader = TelemetryReader(connection: connection, transport: transport)
                    telemetry = await firstOutcomes(results, reader: reader)
                }
            }
        }

        let report = PublishReport(entries: entries, previews: previews, results: results, dryRun: dryRun, now: now,
                                   ledgerPath: ledgerPath, connection: connection, connectionNote: connectionNote,
                                   defaultLanguage: edition.config.defaultLanguage, telemetry: telemetry)
        console.out(json ? report.json() : report.text())
        return report.hasFailures ? ExitCode.failure : ExitCode.success
    }
}

/// `publish --wait`: the hub's first outcome for each sent story that has a notification id, by story id;
/// all are asked at once, each for at most 30 seconds.
func firstOutcomes(_ results: [String: SendStatus], reader: TelemetryReader) async -> [String: TelemetryAnswer] {
    await withTaskGroup(of: (String, TelemetryAnswer).self) { group in
        for (story, status) in results {
            guard case .sent(let record, _) = status, let id = record.hubNotificationId else { continue }
            group.addTask { (story, await reader.wait(id, polling: TelemetryPolling(maximumWait: 30))) }
        }
        var answers: [String: TelemetryAnswer] = [:]
        for await (story, answer) in group { answers[story] = answer }
        return answers
    }
}
