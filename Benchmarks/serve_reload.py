#!/usr/bin/env python3
"""How quickly `newsgen serve` tells an open page about a saved story: the time from a story file's save to
the reload event reaching a connected client (Server-Sent Events on /_newsgen/events), over N edits.

    swift build -c release --product newsgen
    python3 Benchmarks/serve_reload.py                    # 10,000 stories, 20 edits
    python3 Benchmarks/serve_reload.py --n 1000 --edits 20 --json results.json

Each edit appends one sentence to the English body of a different story (as an editor's save: the whole
file written again), then waits for the next `reload` event; edits are 0.5 s apart. The corpus is the one of
Benchmarks/run.py (gen_corpus.py), generated into --work unless --no-gen. serve gets SOURCE_DATE_EPOCH = the
corpus's fixed "now". Standard library only.
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen_corpus as corpus  # noqa: E402


class Listener(threading.Thread):
    """A client of the event stream: the monotonic time at which each event arrived."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(f"GET /_newsgen/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        self.events = []
        self.lock = threading.Lock()

    def run(self):
        pending = b""
        while True:
            data = self.sock.recv(65536)
            if not data:
                return
            arrived = time.monotonic()
            pending += data.replace(b"\r", b"")
            while b"\n\n" in pending:
                block, pending = pending.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"event: "):
                        with self.lock:
                            self.events.append((line[7:].decode(), arrived))

    def wait(self, name, after, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for event, arrived in self.events[after:]:
                    if event == name:
                        return arrived
            time.sleep(0.0005)
        return None

    def count(self):
        with self.lock:
            return len(self.events)


def main():
    p = argparse.ArgumentParser(description="Time from saving a story to the reload event in newsgen serve.")
    p.add_argument("--n", type=int, default=10000, help="stories in the corpus")
    p.add_argument("--edits", type=int, default=20)
    p.add_argument("--newsgen", default=os.path.join(REPO, ".build", "release", "newsgen"))
    p.add_argument("--work", default="/tmp/newsgen-serve-bench", help="where the corpus is generated")
    p.add_argument("--no-gen", action="store_true", help="reuse the corpus already in --work")
    p.add_argument("--json", help="write every measured edit here")
    args = p.parse_args()

    site = os.path.join(args.work, "newsgen")
    if not args.no_gen or not os.path.exists(site):
        print(f"generating {args.n} stories into {args.work}", file=sys.stderr)
        corpus.generate(args.n, args.work, forms=("newsgen",))
    stories = [corpus.make_story(k) for k in range(args.n)]
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(int(corpus.NOW.timestamp())))
    serve = subprocess.Popen([args.newsgen, "serve", "--port", "0"], cwd=site, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = []
    try:
        port = None
        started = time.monotonic()
        while port is None:
            line = serve.stdout.readline()
            if not line:
                sys.exit("serve ended before it served: " + "".join(output))
            output.append(line)
            found = re.match(r"serving http://127\.0\.0\.1:(\d+)/", line)
            if found:
                port = int(found.group(1))
        first_build = time.monotonic() - started
        threading.Thread(target=lambda: [output.append(l) for l in serve.stdout], daemon=True).start()
        listener = Listener(port)
        listener.start()
        if listener.wait("hello", 0) is None:
            sys.exit("no hello event")
        latencies = []
        for i in range(args.edits):
            story = stories[(args.n // 2 + 37 * i) % args.n]
            path = corpus.newsgen_story_path(site, story)
            seen = listener.count()
            with open(path, encoding="utf-8") as f:
                text = f.read()
            marker = "\n<!-- lang: fr -->"
            text = text.replace(marker, f"\nEdit {i} at {time.time():.3f}.\n{marker}", 1)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            saved = time.monotonic()
            arrived = listener.wait("reload", seen)
            if arrived is None:
                sys.exit(f"no reload event after edit {i}: " + "".join(output[-5:]))
            latencies.append(arrived - saved)
            time.sleep(0.5)
        builds = [int(m.group(1)) for m in (re.search(r" in (\d+) ms$", l.strip()) for l in output[-args.edits:]) if m]
        result = {
            "stories": args.n, "edits": args.edits, "first_build_s": round(first_build, 3),
            "median_ms": round(statistics.median(latencies) * 1000, 1),
            "min_ms": round(min(latencies) * 1000, 1), "max_ms": round(max(latencies) * 1000, 1),
            "latencies_ms": [round(x * 1000, 1) for x in latencies],
            "rebuild_ms_as_printed": builds,
            "load_average": os.getloadavg(),
        }
        print(f"N={args.n}: save → reload event, median {result['median_ms']} ms "
              f"(min {result['min_ms']}, max {result['max_ms']}) over {args.edits} edits; "
              f"rebuild as serve printed it, median {statistics.median(builds) if builds else '?'} ms; "
              f"first build {result['first_build_s']} s")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(result, f, indent=2)
    finally:
        serve.send_signal(2)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            serve.kill()


if __name__ == "__main__":
    main()
