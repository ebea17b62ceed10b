import CLI
import Dispatch

// newsgen's own main is async, so its main thread parks in Dispatch's `sigsuspend`, which valgrind 3.19 (Debian 12)
// cannot run: it stops with an internal SIGSEGV before the first instruction of newsgen's. Here the main thread waits
// on a semaphore instead while the same `CLI.main` runs as a task; it ends the process with the command's exit code.
Task.detached { await CLI.main() }
DispatchSemaphore(value: 0).wait()
