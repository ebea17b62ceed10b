import Synchronization

/// In the newsgen process, what a command loaded and planned (the edition, the output folder's cache, the build's
/// tables of 30,000 paths) is left for the process exit to release. Freeing it string by string costs tens of
/// milliseconds after every command, and the operating system takes the whole heap back at once. In a process
/// that runs commands in turn (the tests), nothing is kept.
public enum ProcessExit {
    private static let releasesAtExit = Atomic<Bool>(false)
    private static let kept = Mutex<[any Sendable]>([])

    /// Called by a process that exits when its command is done.
    public static func releaseValuesAtExit() { releasesAtExit.store(true, ordering: .relaxed) }

    public static func keep(_ value: any Sendable) {
        guard releasesAtExit.load(ordering: .relaxed) else { return }
        kept.withLock { $0.append(value) }
    }
}
