/// Help texts in the argument-parser style (OVERVIEW / USAGE / OPTIONS / SUBCOMMANDS).
enum Help {
    static let commandNames = ["new", "serve", "build", "check", "publish", "status", "next-change", "help"]

    static let overview = """
    OVERVIEW: newsgen builds a multilingual breaking-news site from Markdown stories and announces
    breaking stories to phones through Azure Notification Hubs.

    USAGE: newsgen <subcommand> [options]

    OPTIONS:
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      new                     Start a story: write its file in content/ as a draft to fill in.
      serve                   Serve the site locally, rebuilt and reloaded after every change.
      build                   Render the site into site/.
      check                   Run every validation of build and write nothing.
      publish                 Send each new breaking story to the hub as one template notification.
      status                  Show what the hub did with the alerts in the ledger.
      next-change             Print when the site or the alerts next change by themselves.
      help <subcommand>       Show help for a subcommand.

      See 'newsgen help <subcommand>' for detailed help.
    """

    static let usageLines = """
    USAGE: newsgen <subcommand> [options]
      See 'newsgen --help'.
    """

    static let commands: [String: String] = [
        "new": """
        OVERVIEW: Start a story: write content/<category slug>/<slug>.md in the story format, as a draft for
        you to fill in, and print its path.

        The file has the category, published set to now in the site's time zone, breaking: true when asked,
        draft: true, a title for the default language (the --title text, else empty) and a commented-out title
        line for each other language, then one language marker per configured language with an empty body.
        Until the title and the bodies are written, check and build stop at the file with an error at each
        empty one, so the unfinished story can never be published or announced; remove draft: true (and set
        published to the time it goes out) when it is ready.

        It is refused, with nothing written, when check would refuse the story for its name or category: a
        slug that is not a clean URL segment (a clean one is suggested), a slug or id that another story file
        in content/ already has, an unknown category (with did-you-mean). An existing file is never replaced.

        USAGE: newsgen new <slug> --category <name> [--breaking] [--title <text>] [--site <dir>]

        ARGUMENTS:
          <slug>                  The file name without .md: lowercase letters, digits and -, perhaps after
                                  a YYYY-MM-DD- date, which the slug leaves out.

        OPTIONS:
          --category <name>       The story's category, as named in newsgen.yml (required).
          --breaking              Mark the story breaking: publish announces it once it is no draft.
          --title <text>          The title in the default language.
          --site <dir>            The site folder (default: the current folder).
          -h, --help              Show help information.

        Exit status: 0 when the file was written, 1 when the story was refused or the file could not be
        written, 64 for usage errors.

        ENVIRONMENT:
          SOURCE_DATE_EPOCH       "Now" for published (else the system clock).
        """,
        "serve": """
        OVERVIEW: Build the site and serve it on this machine, rebuilding it after every change to newsgen.yml,
        content/, templates/ or media/ and reloading the pages open in browsers.

        The site is built into .newsgen/serve-<port>/ in the site folder (never into site/), with base_url's
        host replaced by this server's address (its path, such as /news/, is kept). A change that does not
        build prints its errors and shows them over the page in the browser; the last good build stays served
        until the change is fixed. A change to the stylesheets alone reloads only the stylesheets. Drafts and
        scheduled stories shown with --drafts and --future carry a banner that build output never has. At
        start, serve removes the folders that stopped serves left in .newsgen/ for other ports.

        The phone preview at /_newsgen/push/ shows, for every breaking story, what publish would do now (send,
        or skip and why) and what each device template in templates/devices/ would show: app name, text,
        link, size against the 4 KB limit, tags and the warnings of publish --dry-run. It reads the ledger and
        never writes it, and needs no hub connection string.

        USAGE: newsgen serve [--port <n>] [--host <address>] [--drafts] [--future] [--site <dir>] [--ledger <path>]

        OPTIONS:
          --port <n>              The first port to try (default: 8080); the next free one is taken when it is
                                  in use.
          --host <address>        The IP address to listen on (default: 127.0.0.1). Any other than a loopback
                                  address prints a warning: others on the network can then see the site.
          --drafts                Show stories marked draft: true, with a "Draft" banner.
          --future                Show stories whose published date is still to come, with a banner saying
                                  when they are scheduled.
          --site <dir>            The site folder (default: the current folder).
          --ledger <path>         The ledger the phone preview reads (default: .newsgen/push-ledger.json).
          -h, --help              Show help information.

        ENVIRONMENT:
          SOURCE_DATE_EPOCH       "Now" for drafts/future decisions and the phone preview.
          NEWSGEN_LOCK_TIMEOUT    Seconds a rebuild waits for a newsgen build of the same site (default: 300).

        Press Ctrl-C to stop.
        """,
        "build": """
        OVERVIEW: Render the site in the current folder (newsgen.yml, content/, templates/) into site/.

        Only files whose bytes changed are rewritten; files that no longer belong to the site are removed.
        All content and template errors are reported before anything is written.

        Builds are incremental: the build cache in .newsgen/ in the site folder lets the next build skip
        unchanged story files and every page whose inputs did not change. A missing, corrupted or outdated
        cache means a full build.

        USAGE: newsgen build [--drafts] [--future] [--clean] [--output <dir>] [--base-url <url>] [--site <dir>] [--quiet]

        OPTIONS:
          --drafts                Include stories marked draft: true.
          --future                Include stories whose published date is still to come.
          --clean                 Ignore the build cache: read every story and render every page (files whose
                                  bytes are unchanged are still not rewritten), then write a new cache.
          --output <dir>          Output folder (default: site/ in the site folder).
          --base-url <url>        Override base_url (e.g. for a preview deployment).
          --site <dir>            The site folder (default: the current folder).
          -q, --quiet             No progress line.
          -h, --help              Show help information.

        ENVIRONMENT:
          SOURCE_DATE_EPOCH       "Now" for drafts/future decisions; the same inputs and the same value
                                  give a byte-identical site.
        """,
        "check": """
        OVERVIEW: Validate the site (config, every story, templates) exactly as build does, writing nothing.
        Every breaking story, whatever its date, is also held to the hub's rules (at most 20 tags, a payload
        within 4 KB for every device template in templates/devices/), as are the device templates themselves.
        The header of every photo in media/ is read (not an image, an unpublished format, over media.max_pixels);
        a photo damaged past its header is found by build. For pull-request CI: exit code 1 and every problem listed when something is wrong.

        USAGE: newsgen check [--drafts] [--future] [--site <dir>] [--base-url <url>]

        OPTIONS:
          --drafts                Count drafts as published.
          --future                Count future stories as published.
          --site <dir>            The site folder (default: the current folder).
          --base-url <url>        Check with this base_url.
          -h, --help              Show help information.
        """,
        "publish": """
        OVERVIEW: Send each new breaking story to Azure Notification Hubs as ONE tagged, localized template
        notification, exactly once (run by CI after the site is deployed).

        A story is announced when it is breaking, not a draft, published, younger than push.max_age (6h by
        default) and the ledger has no record of its id at its push revision. Every accepted send is written to
        the ledger at once; a second run sends nothing.

        USAGE: newsgen publish [--dry-run] [--json] [--check-live] [--live-wait <duration>] [--wait]
                               [--ledger <path>] [--base-url <url>] [--site <dir>]
               newsgen publish --test <story id> [--to <tag expression>] [--json] [--site <dir>]

        OPTIONS:
          --dry-run               Show what would be sent and what each kind of device would show; send and
                                  write nothing.
          --json                  Print the plan (and results) as JSON.
          --check-live            Before sending a story, wait until its page answers 200 in every language.
          --live-wait <duration>  How long --check-live waits (default push.live_wait, 5m), e.g. 90s, 10m.
          --wait                  After sending, ask the hub for each alert's first outcome (for up to 30 s;
                                  Standard tier) and print it.
          --ledger <path>         The ledger file (default .newsgen/push-ledger.json in the site folder).
          --base-url <url>        Override base_url (story URLs in the payload and for --check-live).
          --site <dir>            The site folder (default: the current folder).
          --test <story id>       Try the story's alert on the newsroom's own phones: the hub's test send
                                  (at most 10 registrations, each one's outcome printed) to push.test_tags.
                                  Any story (breaking or not, draft, old); nothing is written to the ledger.
          --to <tag expression>   The audience of --test instead of push.test_tags, e.g. 'newsroom && !World'.
          -h, --help              Show help information.

        ENVIRONMENT:
          NEWSGEN_HUB_CONNECTION_STRING  Endpoint=sb://…;SharedAccessKeyName=…;SharedAccessKey=… (a key with
                                         the Send right; never the apps' Listen key). Never printed.
          NEWSGEN_HUB_NAME               The hub (else push.hub in newsgen.yml, else the EntityPath).
          NEWSGEN_HUB_ENDPOINT           Replaces the endpoint, e.g. http://127.0.0.1:8085/ (plain http only
                                         for loopback).
          SOURCE_DATE_EPOCH              "Now" for deciding what is published and how old it is.
        """,
        "status": """
        OVERVIEW: Show the alerts in the ledger (the last 24 hours by default): when each was sent, its tag
        expression, and the hub's telemetry for it (state and per-platform outcome counts), or the hub's note
        when there is none (Free and Basic hubs keep no telemetry; a new or unknown id has none yet).

        USAGE: newsgen status [<story id>…] [--since <duration>] [--json] [--ledger <path>] [--site <dir>]

        ARGUMENTS:
          <story id>              Only these stories' sends, however old.

        OPTIONS:
          --since <duration>      How far back to look (default 24h), e.g. 90m, 48h.
          --json                  Print the sends and their telemetry as JSON.
          --ledger <path>         The ledger file (default .newsgen/push-ledger.json in the site folder).
          --site <dir>            The site folder (default: the current folder).
          -h, --help              Show help information.

        Exit status: 0 when every question to the hub was answered (a "not available" note included), 1 when
        the config or ledger cannot be read or a request to the hub failed, 64 for usage errors.

        ENVIRONMENT:
          NEWSGEN_HUB_CONNECTION_STRING, NEWSGEN_HUB_NAME, NEWSGEN_HUB_ENDPOINT, as for publish. Never printed.
        """,
        "next-change": """
        OVERVIEW: Print when the site or the alerts next change without anyone editing a file, as RFC 3339
        (UTC), or nothing when nothing is scheduled: the first future story's time, a story leaving the Google
        News sitemap's 48-hour window, a held alert's next budget slot. For a cron that rebuilds, deploys and
        publishes only when something is due.

        USAGE: newsgen next-change [--json] [--ledger <path>] [--site <dir>]

        OPTIONS:
          --json                  Print every upcoming change (time, kind, story) and the next one as JSON.
          --ledger <path>         The ledger file (default .newsgen/push-ledger.json in the site folder).
          --site <dir>            The site folder (default: the current folder).
          -h, --help              Show help information.

        Exit status: 0 when it printed the next change or there is none (then it prints nothing), 1 when the
        site or the ledger cannot be read, 64 for usage errors.

        ENVIRONMENT:
          SOURCE_DATE_EPOCH       "Now" (else the system clock).
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
