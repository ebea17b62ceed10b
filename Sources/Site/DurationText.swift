/// Durations as editors write them in newsgen.yml and on the command line: `6h`, `90m`, `30s`, `1h30m`.
public enum DurationText {
    /// Seconds, or nil when the text is not such a duration.
    public static func seconds(_ text: String) -> Double? { Fields.parseDuration(text) }
}
