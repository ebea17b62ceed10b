#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where a command's words go: stdout for results, stderr for diagnostics and progress.
public protocol Console: Sendable {
    func out(_ text: String)
    func err(_ text: String)
    /// Whether stderr is a terminal (progress is only drawn on a terminal).
    var isInteractive: Bool { get }
}

public struct StandardConsole: Console {
    public init() {}
    public func out(_ text: String) { write(1, text + "\n") }
    public func err(_ text: String) { write(2, text + "\n") }
    public var isInteractive: Bool { isatty(2) == 1 }

    private func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { if errno == EINTR { continue }; return }
            bytes = bytes.dropFirst(count)
        }
    }

    /// Draws a transient progress line on the terminal.
    func progress(_ text: String) { write(2, "\r\u{1B}[2K" + text) }
}
