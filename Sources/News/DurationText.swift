/// Durations as editors write them in newsgen.yml and on the command line: `6h`, `90m`, `30s`, `1h30m`.
public enum DurationText {
    /// Seconds, or nil when the text is not such a duration.
    public static func seconds(_ text: String) -> Double? { Fields.parseDuration(text) }

    /// For people: `45 min`, `6 h`, `1 h 30 min`, `3 days`.
    public static func describe(_ seconds: Double) -> String {
        let minutes = Int(seconds / 60)
        if minutes < 60 { return "\(minutes) min" }
        if minutes >= 48 * 60 { return "\(minutes / (24 * 60)) days" }
        if minutes % 60 == 0 { return "\(minutes / 60) h" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }
}
