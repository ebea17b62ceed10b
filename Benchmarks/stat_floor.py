#!/usr/bin/env python3
"""The least time a one-shot `newsgen build` can take when nothing changed: the file-system looks alone.

    python3 Benchmarks/stat_floor.py --site SITE --output OUT [--newsgen .build/release/newsgen] [--json F]

A build that trusts nothing it has not looked at must, before it can say "nothing changed", take the stamp of every
story file under content/ (an edit keeps its path) and of every folder of the output (a page deleted or replaced by
hand shows only in its folder's stamp). This script lists those paths, then times nothing but the `fstatat` calls
on them from a small C program (compiled here with gcc, so that no interpreter's overhead is counted), on one
thread and on as many threads as the machine has cores, relative to an open descriptor of the root as newsgen does.
With --newsgen it also times `newsgen build --output OUT` on the same site, which must have been built into OUT
already (so that it finds nothing changed), and prints both.

The floor is a lower bound: the listing of content/ (readdir), reading the caches and the process's start come on
top. Standard library only, and gcc.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

PROGRAM = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* argv: root, file of paths (one per line, relative to root), threads, 1 to not follow a final link */
static char **paths; static long count; static int root, flags; static long threads;

static void *look(void *arg) {
    long part = (long)arg, found = 0;
    struct stat info;
    for (long i = part; i < count; i += threads)
        if (fstatat(root, paths[i], &info, flags) == 0) found++;
    return (void *)found;
}

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    FILE *list = fopen(argv[2], "r");
    if (root < 0 || !list) { perror("open"); return 1; }
    threads = atol(argv[3]);
    flags = atoi(argv[4]) ? AT_SYMLINK_NOFOLLOW : 0;
    long capacity = 1024; paths = malloc(capacity * sizeof *paths);
    char line[8192];
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        if (count == capacity) { capacity *= 2; paths = realloc(paths, capacity * sizeof *paths); }
        paths[count++] = strdup(line[0] ? line : ".");
    }
    pthread_t workers[64];
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long t = 0; t < threads; t++) pthread_create(&workers[t], NULL, look, (void *)t);
    long found = 0;
    for (long t = 0; t < threads; t++) { void *n; pthread_join(workers[t], &n); found += (long)n; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%ld %ld %.3f\n", count, found, (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6);
    return 0;
}
"""


def fail(message):
    print(f"stat_floor.py: {message}", file=sys.stderr)
    sys.exit(1)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def git_commit():
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=os.path.dirname(os.path.abspath(__file__)),
                         capture_output=True, text=True)
    return run.stdout.strip() or None


def story_files(site):
    content = os.path.join(site, "content")
    found = []
    for folder, _, names in os.walk(content):
        for name in names:
            if name.endswith(".md"):
                found.append(os.path.relpath(os.path.join(folder, name), content))
    return content, sorted(found)


def output_folders(output):
    found = [""]   # the root, as newsgen records it
    for folder, names, _ in os.walk(output):
        for name in names:
            if not name.startswith(".newsgen"):
                found.append(os.path.relpath(os.path.join(folder, name), output))
    return sorted(found)


def time_stats(program, root, paths, threads, nofollow, runs, scratch):
    listing = os.path.join(scratch, "paths.txt")
    with open(listing, "w") as f:
        f.write("\n".join(paths) + "\n")
    times = []
    for _ in range(runs + 1):   # the first warms the caches of the file system's entries
        out = subprocess.run([program, root, listing, str(threads), "1" if nofollow else "0"],
                             check=True, capture_output=True, text=True).stdout.split()
        if int(out[1]) != int(out[0]):
            fail(f"{int(out[0]) - int(out[1])} of {out[0]} paths under {root} could not be looked at")
        times.append(float(out[2]))
    return statistics.median(times[1:])


def main():
    p = argparse.ArgumentParser(description="Time the stamps a one-shot build must take before it can skip work.")
    p.add_argument("--site", required=True, help="a site folder (with content/)")
    p.add_argument("--output", required=True, help="the folder the site was built into")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--newsgen", help="also time `newsgen build --output OUTPUT` in the site (nothing changed)")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="newsgen-stat-floor-") as scratch:
        program = os.path.join(scratch, "stat-floor")
        source = program + ".c"
        with open(source, "w") as f:
            f.write(PROGRAM)
        subprocess.run(["gcc", "-O2", "-pthread", source, "-o", program], check=True)
        content, stories = story_files(args.site)
        folders = output_folders(args.output)
        if not stories or len(folders) < 2:
            fail("no story files or no output folders: build the site into --output first")
        rows = {}
        for threads in sorted({1, cores}):
            rows[threads] = {
                "story_files_ms": time_stats(program, content, stories, threads, False, args.runs, scratch),
                "output_folders_ms": time_stats(program, args.output, folders, threads, True, args.runs, scratch),
            }
        result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": cpu_model(),
                  "git_commit": git_commit(), "load_before": os.getloadavg(), "stories": len(stories),
                  "output_folders": len(folders), "cores": cores, "threads": rows}
        if args.newsgen:
            walls = []
            for _ in range(args.runs + 1):   # the first, untimed, catches up with a new binary or a recent edit
                started = time.monotonic()
                run = subprocess.run([os.path.abspath(args.newsgen), "build", "--output", os.path.abspath(args.output)],
                                     cwd=args.site, capture_output=True, text=True)
                walls.append((time.monotonic() - started) * 1000)
                if run.returncode != 0 or " 0 written" not in run.stdout:
                    fail(f"newsgen build did not find nothing changed: {run.stdout.strip()} {run.stderr.strip()}")
            result["newsgen_nothing_changed_ms"] = statistics.median(walls[1:])
    print(f"{len(stories)} story files, {len(folders)} output folders, {cores} cores (median of {args.runs} runs)")
    for threads, row in rows.items():
        both = row["story_files_ms"] + row["output_folders_ms"]
        print(f"  {threads} thread(s): story files {row['story_files_ms']:.1f} ms + output folders "
              f"{row['output_folders_ms']:.1f} ms = {both:.1f} ms")
    if "newsgen_nothing_changed_ms" in result:
        print(f"  newsgen build, nothing changed: {result['newsgen_nothing_changed_ms']:.1f} ms (whole process)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
