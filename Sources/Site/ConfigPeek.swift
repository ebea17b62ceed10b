import News
extension Edition {
    /// The site's `newsgen.yml` as it is now, read and checked but nothing else loaded: what `serve` needs before
    /// each build to keep `base_url`'s path under its own address. The config's problems are thrown as `load`
    /// throws them.
    public static func loadConfig(directory: String) throws(SiteError) -> SiteConfig {
        var diagnostics: [Diagnostic] = []
        let (config, _) = loadConfig(root: FileSystem.absolute(directory), diagnostics: &diagnostics)
        guard let config, diagnostics.isEmpty else { throw SiteError(diagnostics) }
        return config
    }
}
