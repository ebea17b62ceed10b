/// Help texts in the argument-parser style (OVERVIEW / USAGE / OPTIONS / SUBCOMMANDS).
enum Help {
    static let commandNames = ["build", "check", "publish", "help"]

    static let overview = """
    OVERVIEW: newsgen builds a multilingual breaking-news site from Markdown stories and announces
    breaking stories to phones through Azure Notification Hubs.

    USAGE: newsgen <subcommand> [options]

    OPTIONS:
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      build                   Render the site into site/.
      check                   Run every validation of build and write nothing.
      publish                 Send each new breaking story to the hub as one template notification.
      help <subcommand>       Show help for a subcommand.

      See 'newsgen help <subcommand>' for detailed help.
    """

    static let usageLines = """
    USAGE: newsgen <subcommand> [options]
      See 'newsgen --help'.
    """

    static let commands: [String: String] = [
        "build": """
        OVERVIEW: Render the site in the current folder (newsgen.yml, content/, templates/) into site/.

        Only files whose bytes changed are rewritten; files that no longer belong to the site are removed.
        All content and template errors are reported before anything is written.

        USAGE: newsgen build [--drafts] [--future] [--output <dir>] [--base-url <url>] [--site <dir>] [--quiet]

        OPTIONS:
          --drafts                Include stories marked draft: true.
          --future                Include stories whose published date is still to come.
          --output <dir>          Output folder (default: site/ in the site folder).
          --base-url <url>        Override base_url (e.g. for a preview deployment).
          --site <dir>            The site folder (default: the current folder).
          --quiet                 No progress line.
          -h, --help              Show help information.

        ENVIRONMENT:
          SOURCE_DATE_EPOCH       "Now" for drafts/future decisions; the same inputs and the same value
                                  give a byte-identical site.
        """,
        "check": """
        OVERVIEW: Validate the site (config, every story, templates) exactly as build does, writing nothing.
        For pull-request CI: exit code 1 and every problem listed when something is wrong.

        USAGE: newsgen check [--drafts] [--future] [--site <dir>] [--base-url <url>]

        OPTIONS:
          --drafts                Count drafts as published.
          --future                Count future stories as published.
          --site <dir>            The site folder (default: the current folder).
          --base-url <url>        Check with this base_url.
          -h, --help              Show help information.
        """,
        "help": """
        OVERVIEW: Show help for a subcommand.

        USAGE: newsgen help [<subcommand>]
        """,
    ]

    /// The USAGE paragraph of a help text, shown after a usage error.
    static func usageSection(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("USAGE:") }) else { return usageLines }
        return lines[start] + "\n  See '--help' for the options."
    }
}
