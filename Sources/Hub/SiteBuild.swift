import News
import Site

/// One build of a site into its locked output folder, the way `newsgen build` makes it: the output folder is looked
/// at while the site loads, a build that has nothing to do stops before loading a story, the site is loaded with
/// the hub's check of each breaking story, held to the hub's rules, and built. The one entry point for whatever
/// builds a site: `newsgen build`, and `newsgen serve` in its own process.
public enum SiteBuild {
    /// `lock`: from `BuildLock.acquire` for this site and `options.output`, held by the caller until this returns.
    /// `session`: what the last build with it kept in memory, and what changed since (see `BuildSession`); the
    /// edition this build loaded is then `session.edition`.
    public static func run(site: String, baseURLOverride: String?, options: BuildOptions, lock: BuildLock,
                           session: BuildSession? = nil,
                           progress: (@Sendable (Int, Int) -> Void)? = nil) throws(SiteError) -> BuildReport {
        let survey = session?.survey(lock: lock, clean: options.clean) ?? OutputSurvey.start(lock: lock, clean: options.clean)
        // What the site is made from, as the file system shows it: when the output folder holds a build of exactly
        // that, with the same flags, and the time has not moved past anything, there is nothing to do.
        let snapshot = session?.snapshot(directory: site, baseURLOverride: baseURLOverride)
            ?? InputSnapshot.take(directory: site, baseURLOverride: baseURLOverride)
        if let report = SiteBuilder.upToDate(snapshot, survey: survey, options: options) {
            session?.built(with: survey, edition: nil)
            return report
        }
        // The site and the hub each know their own rules (the Site module knows nothing of the hub's).
        let edition = try PushCheck.loadEdition(directory: site, baseURLOverride: baseURLOverride,
                                                cache: options.clean ? .rebuild(lock) : .readWrite(lock), snapshot: snapshot,
                                                session: session)
        let report = try SiteBuilder.build(edition, options: options, lock: lock, survey: survey, session: session,
                                            progress: progress)
        session?.built(with: survey, edition: edition)
        return report
    }
}
