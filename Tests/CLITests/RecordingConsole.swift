import CLI
import Synchronization

/// A console that keeps what a command wrote, for the tests to read.
final class RecordingConsole: Console {
    private let state = Mutex<(out: [String], err: [String])>(([], []))
    init() {}
    func out(_ text: String) { state.withLock { $0.out.append(text) } }
    func err(_ text: String) { state.withLock { $0.err.append(text) } }
    var isInteractive: Bool { false }
    var standardOutput: String { state.withLock { $0.out.joined(separator: "\n") } }
    var standardError: String { state.withLock { $0.err.joined(separator: "\n") } }
}
