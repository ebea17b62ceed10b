import Hub
import Site

/// One build of a site into its locked output folder, the way `newsgen build` makes it: the output folder is looked
/// at while the site loads, a build that has nothing to do stops before loading a story, the site is loaded with
/// the hub's check of each breaking story, held to the hub's rules, and built. The entry point for anything that
/// builds in-process too (a preview server).
public enum SiteBuild {
    /// `lock`: from `BuildLock.acquire` for this site and `options.output`, held by the caller until this returns.
    public static func run(site: String, baseURLOverride: String?, options: BuildOptions, lock: BuildLock,
                           progress: (@Sendable (Int, Int) -> Void)? = nil) throws(SiteError) -> BuildReport {
        defer { Edition.finishCacheWrites() }   // the trace of parsed stories, written while the build goes on
        let survey = OutputSurvey.start(lock: lock, clean: options.clean)
        // What the site is made from, as the file system shows it: when the output folder holds a build of exactly
        // that, with the same flags, and the time has not moved past anything, there is nothing to do.
        let snapshot = InputSnapshot.take(directory: site, baseURLOverride: baseURLOverride)
        if let report = SiteBuilder.upToDate(snapshot, survey: survey, options: options) { return report }
        // The site and the hub each know their own rules (the Site module knows nothing of the hub's).
        let edition = try PushCheck.loadEdition(directory: site, baseURLOverride: baseURLOverride,
                                                cache: options.clean ? .rebuild(lock) : .readWrite(lock), snapshot: snapshot)
        return try SiteBuilder.build(edition, options: options, lock: lock, survey: survey, progress: progress)
    }
}
