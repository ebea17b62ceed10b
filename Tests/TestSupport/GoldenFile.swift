import Foundation

/// Golden-file comparison for rendered output (pages, help texts, payloads).
///
/// Golden files are small, reviewed and committed. After an intended change, record them again with
/// `NEWSGEN_RECORD_GOLDEN=1 swift test --filter …` and review the diff before committing. Without the
/// variable a missing golden file is a failure, never a silent recording.
public enum GoldenFile {
    /// The environment variable that switches the tests to recording.
    public static let recordVariable = "NEWSGEN_RECORD_GOLDEN"

    public static var isRecording: Bool {
        let value = ProcessInfo.processInfo.environment[recordVariable] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// Compares `actual` with the golden file at `url`, or writes it there when recording.
    /// Returns nil when they match (or the file was recorded), otherwise a message that shows the first
    /// differing line of each side and how to re-record.
    public static func problem(_ actual: String, golden url: URL) -> String? {
        if isRecording {
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(actual.utf8).write(to: url)
                return nil
            } catch {
                return "could not record \(url.path): \(error)"
            }
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return "golden file \(url.path) is missing; record it with \(recordVariable)=1 swift test and review it"
        }
        let expected = String(decoding: data, as: UTF8.self)
        if expected == actual { return nil }
        let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let got = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var line = 0
        while line < min(want.count, got.count), want[line] == got[line] { line += 1 }
        let wantLine = line < want.count ? String(want[line]) : "<end of file>"
        let gotLine = line < got.count ? String(got[line]) : "<end of file>"
        return """
        output differs from \(url.lastPathComponent) at line \(line + 1):
          golden: \(wantLine)
          actual: \(gotLine)
        if the change is intended, re-record with \(recordVariable)=1 and review the diff
        """
    }
}
