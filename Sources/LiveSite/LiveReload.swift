import HTTPServer
import Site
import Synchronization

/// The open pages of `serve`, each listening on `/_newsgen/events` (Server-Sent Events), and what they are told:
/// - `hello` when a page connects: the number of the build being served, so that a page made by an earlier build
///   reloads at once; then `problems` if the last build failed;
/// - `reload` after a build (`style` instead when only stylesheets changed);
/// - `problems` when a build failed: the errors, one `file:line:col: error: …` line each, for the overlay.
final class LiveReload: Sendable {
    private struct State {
        var pages: [EventStream] = []
        var build = 0
        var problems: [String]?
    }
    private let state = Mutex(State())

    /// A new page's stream, already told where things stand.
    func connect() -> EventStream {
        let stream = EventStream()
        state.withLock { state in
            state.pages.removeAll { !$0.isOpen }
            state.pages.append(stream)
            stream.send(Self.event("hello", [("build", .integer(state.build))]))
            if let problems = state.problems { stream.send(Self.problemsEvent(problems)) }
        }
        return stream
    }

    var build: Int { state.withLock { $0.build } }

    /// Build `number` is served: pages reload (only their stylesheets when `styleOnly`).
    func built(_ number: Int, styleOnly: Bool) {
        broadcast { state in
            state.build = number
            state.problems = nil
            return Self.event(styleOnly ? "style" : "reload", [("build", .integer(number))])
        }
    }

    /// The last build failed with `problems`; the site of the build before stays served.
    func failed(_ problems: [String]) {
        broadcast { state in
            state.problems = problems
            return Self.problemsEvent(problems)
        }
    }

    func closeAll() {
        let pages = state.withLock { state in
            defer { state.pages = [] }
            return state.pages
        }
        for page in pages { page.close() }
    }

    var openPages: Int { state.withLock { $0.pages.filter(\.isOpen).count } }

    private func broadcast(_ change: (inout State) -> String) {
        state.withLock { state in
            let message = change(&state)
            state.pages.removeAll { !$0.isOpen }
            for page in state.pages { page.send(message) }
        }
    }

    static func problemsEvent(_ problems: [String]) -> String {
        event("problems", [("problems", .array(problems.map { .string($0) }))])
    }

    /// One event: its name and its data as one line of JSON.
    static func event(_ name: String, _ data: [(String, JSONValue)]) -> String {
        "event: \(name)\ndata: \(JSONWriter.write(.object(data), mode: .htmlScript, layout: .compact))\n\n"
    }
}

/// The script `serve` adds to every page it serves (never to files `build` writes): it listens for the events
/// above, reloads the page or its stylesheets, and shows a failed build's errors over the page until a build
/// succeeds.
enum LiveScript {
    static let path = "/_newsgen/live.js"
    static let eventsPath = "/_newsgen/events"

    /// The element added before `</body>`; `build`: the build that made the page.
    static func tag(build: Int) -> String {
        "<script src=\"\(path)\" data-build=\"\(build)\"></script>"
    }

    static let source = """
        (function () {
          "use strict";
          var me = document.currentScript;
          var build = Number(me && me.getAttribute("data-build"));
          var overlay = null;
          function clear() { if (overlay) { overlay.remove(); overlay = null; } }
          function show(problems) {
            clear();
            overlay = document.createElement("div");
            overlay.id = "newsgen-problems";
            overlay.setAttribute("role", "alert");
            overlay.style.cssText = "position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:2rem;" +
              "background:rgba(20,20,20,.92);color:#fff;font:14px/1.5 ui-monospace,monospace;white-space:pre-wrap";
            var head = document.createElement("strong");
            head.textContent = "The last change did not build; this page is from the last good build.\\n\\n";
            head.style.color = "#ff8080";
            overlay.appendChild(head);
            var list = document.createElement("div");
            list.className = "newsgen-problem-list";
            list.textContent = problems.join("\\n");
            overlay.appendChild(list);
            document.body.appendChild(overlay);
          }
          function restyle() {
            clear();
            var links = document.querySelectorAll('link[rel="stylesheet"]');
            for (var i = 0; i < links.length; i++) {
              var url = new URL(links[i].href);
              url.searchParams.set("newsgen-build", String(Date.now()));
              links[i].href = url.toString();
            }
          }
          var events = new EventSource("\(eventsPath)");
          events.addEventListener("hello", function (e) {
            if (JSON.parse(e.data).build !== build) { location.reload(); }
          });
          events.addEventListener("reload", function () { location.reload(); });
          events.addEventListener("style", function (e) { build = JSON.parse(e.data).build; restyle(); });
          events.addEventListener("problems", function (e) { show(JSON.parse(e.data).problems); });
        })();

        """
}
