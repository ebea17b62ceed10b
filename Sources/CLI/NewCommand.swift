import News
import Site

/// `newsgen new <slug> --category <name>`: writes a new story's file as a draft, for the editor to fill in.
enum NewCommand {
    static let flags = ["--breaking", "--help"]
    static let options = ["--category", "--title", "--site"]

    static func run(_ arguments: [String], environment: [String: String], console: Console) throws(UsageError) -> Int32 {
        let parsed = try ParsedArguments(arguments, command: "new", flags: flags, options: options, positional: 1)
        if parsed.flags.contains("--help") {
            console.out(Help.commands["new"]!)
            return ExitCode.success
        }
        guard let name = parsed.positional.first, !name.isEmpty else {
            throw UsageError(message: "new needs the story's slug, e.g. 'newsgen new quake-off-coast --category World'", command: "new")
        }
        guard let category = parsed.options["--category"] else {
            throw UsageError(message: "new needs --category <name>", command: "new")
        }
        let now: Timestamp
        switch EditionFilter.currentTime(environment: environment) {
        case .success(let value): now = value
        case .failure(let error): return BuildCommand.report(error, console: console)
        }
        let site = parsed.options["--site"] ?? "."
        do throws(SiteError) {
            let path = try NewStory.write(site: site, name: name, category: category, breaking: parsed.flags.contains("--breaking"),
                                          title: parsed.options["--title"], now: now)
            console.out(site == "." ? path : (site.hasSuffix("/") ? site : site + "/") + path)
            return ExitCode.success
        } catch {
            return BuildCommand.report(error, console: console)
        }
    }
}
