#!/usr/bin/env python3
"""Instructions a rebuild costs, counted by callgrind, at several archive sizes.

    (cd Benchmarks/Callgrind && swift build -c release)
    python3 Benchmarks/callgrind.py --sizes 1000,10000,100000

Wall time on a shared two-core machine drifts by up to 2x within an hour; instruction counts drift far less, on an
otherwise idle machine (beside a compile, a waiting thread's spinning is counted too: run it alone). So this answers "does a one-story rebuild
cost what changed, or what the archive holds?" with figures that can be compared across sizes and sessions.

For each size: a corpus from gen_corpus.py (made once under --corpus-root and reused), a cold build under
callgrind with its instrumentation off, then, each counted by callgrind: a rebuild with nothing changed and a
rebuild after one story's English body changed (the story in the middle of the archive, as run.py edits it). The
output folder lives under --out-root (tmpfs by default). The binary is Benchmarks/Callgrind's newsgen-callgrind, the same command line
as newsgen with a main that valgrind can run (see its main.swift); it is copied without its debug information,
which valgrind 3.19 refuses to read. Every build gets SOURCE_DATE_EPOCH = the corpus's fixed "now".

Prints a table and, with --json, writes the figures. Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_corpus as corpus  # noqa: E402

TOTALS = re.compile(r"^summary:\s+(\d+)", re.M)


def fail(message):
    print(f"callgrind.py: {message}", file=sys.stderr)
    sys.exit(1)


def stripped_binary(build_dir):
    source = os.path.join(build_dir, "newsgen-callgrind")
    if not os.path.exists(source):
        fail(f"{source} is missing: run (cd Benchmarks/Callgrind && swift build -c release) first")
    target = os.path.join(tempfile.mkdtemp(prefix="newsgen-callgrind-"), "newsgen-callgrind")
    shutil.copy2(source, target)
    subprocess.run(["strip", "--strip-debug", target], check=True)
    return target


def count(binary, site, output, env, scratch):
    """The instructions of one `newsgen build` under callgrind, and its summary line."""
    out_file = os.path.join(scratch, "callgrind.out")
    started = time.monotonic()
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                          binary, "build", "--site", site, "--output", output],
                         env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if run.returncode != 0:
        fail(f"the build under callgrind failed ({run.returncode}):\n{run.stderr[-3000:]}")
    with open(out_file, encoding="utf-8", errors="replace") as f:
        found = TOTALS.search(f.read())
    if not found:
        fail(f"no instruction total in {out_file}")
    os.remove(out_file)
    summary = next((line for line in run.stdout.splitlines() if line.startswith("built ")), "")
    return int(found.group(1)), summary, seconds


def measure(args, binary, n):
    site_root = os.path.join(args.corpus_root, f"c{n}")
    site = os.path.join(site_root, "newsgen")
    if not os.path.exists(os.path.join(site, "newsgen.yml")):
        print(f"generating {n} stories into {site_root}", file=sys.stderr)
        corpus.generate(n, site_root, args.seed, forms=("newsgen",))
    env = dict(os.environ)
    env["SOURCE_DATE_EPOCH"] = str(corpus.NOW_EPOCH)
    output = tempfile.mkdtemp(prefix=f"callgrind-{n}-", dir=args.out_root)
    scratch = tempfile.mkdtemp(prefix="callgrind-out-")
    rows = []
    try:
        # A cold build first, under callgrind too but with its instrumentation off (about as fast as valgrind goes):
        # newsgen trusts only caches written by the same binary, and under valgrind the process's /proc/self/exe is
        # the valgrind tool's, so a cache written outside callgrind would be ignored and every measured rebuild would
        # be a full one.
        # Then a rebuild, not counted either: story files changed in the seconds before a build (a corpus just made)
        # are read for their bytes rather than trusted by their stamp, and this one records their stamps.
        for extra in (["--clean"], []):
            subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null", "-q",
                            binary, "build", "--site", site, "--output", output, "--quiet", *extra], env=env, check=True)
        instructions, summary, seconds = count(binary, site, output, env, scratch)
        rows.append({"n": n, "case": "nothing changed", "instructions": instructions, "summary": summary,
                     "seconds_under_valgrind": round(seconds, 1)})
        story = corpus.make_story(n // 2, args.seed)
        path = corpus.newsgen_story_path(site, story)
        original = open(path, encoding="utf-8").read()
        try:
            corpus.append_to_english_body(path, None, "Update: the figures were confirmed on Friday evening.")
            instructions, summary, seconds = count(binary, site, output, env, scratch)
            rows.append({"n": n, "case": "one story's body changed", "instructions": instructions,
                         "summary": summary, "seconds_under_valgrind": round(seconds, 1)})
        finally:
            corpus.put(path, original)
    finally:
        shutil.rmtree(output, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="1000,10000", help="comma list of story counts")
    p.add_argument("--build-dir", default=os.path.join(HERE, "Callgrind", ".build", "release"))
    p.add_argument("--corpus-root", default=os.path.join(tempfile.gettempdir(), "newsgen-callgrind-corpus"))
    p.add_argument("--out-root", default="/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir())
    p.add_argument("--seed", default=corpus.SEED)
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args()
    if shutil.which("valgrind") is None:
        fail("valgrind is not installed (Debian: apt-get install valgrind)")
    binary = stripped_binary(args.build_dir)
    rows = []
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            rows += measure(args, binary, n)
    finally:
        shutil.rmtree(os.path.dirname(binary), ignore_errors=True)
    print("| stories | case | instructions | per story of the archive |")
    print("| ---: | --- | ---: | ---: |")
    for row in rows:
        print(f"| {row['n']:,} | {row['case']} | {row['instructions']:,} | {row['instructions'] / row['n']:,.0f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
