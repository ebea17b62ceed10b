#!/usr/bin/env python3
"""newsgen speed benchmark: newsgen against Hugo on the same generated news.

    swift build -c release --product newsgen
    python3 Benchmarks/run.py                         # sizes 1000 and 10000, 3 timed runs each
    python3 Benchmarks/run.py --sizes 1000 --runs 5 --json results.json

Needs GNU time and Hugo (Debian: `sudo apt-get install -y time hugo`); without Hugo the
Hugo cases and the ratios are left out. Every case gets one untimed warm-up run, then
--runs timed runs under `/usr/bin/time -v`; the table shows the median (min-max for the
wall time). Edits, new stories and removing old outputs happen between runs and are
not timed. Outputs go to --out-root, a tmpfs (/dev/shm) by default, so the figures
measure the generators rather than the disk. Every newsgen build gets
SOURCE_DATE_EPOCH = the corpus's fixed "now".

Cases: newsgen cold (--clean, new output folder), rebuild with nothing changed, after one story's
body changed, after one new story; Hugo cold, rebuild with nothing changed, after one
article changed, after one new article; `newsgen publish --dry-run` with one new breaking
story and publishing 200 stories to the loopback hub double with 20 ms latency against
one-request-at-a-time sending (skipped while `newsgen help publish` fails).
Standard library only.
"""
import argparse
import base64
import datetime
import hashlib
import hmac
import http.client
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen_corpus as corpus  # noqa: E402

SUMMARY = re.compile(r"built (\d+) stories into .*: (\d+) files, (\d+) written, (\d+) unchanged, (\d+) removed in (.+)$",
                     re.M)
# The targets, for the "target" column: cold against Hugo at every size (issue 5), rebuilds at N=10,000 and
# N=100,000 (issue 12; at 100,000 stories Hugo is not run, and the cold build's peak memory has a limit of its own).
COLD_WALL_SHARE = 1 / 5
COLD_RSS_SHARE = 1 / 10
HUB_SPEEDUP = 5
REBUILD_LIMITS_S = {  # N -> case -> limit
    10000: {"newsgen rebuild, nothing changed": 0.1, "newsgen rebuild, 1 story's body changed": 0.15,
            "newsgen rebuild, 1 new story": 0.15, "newsgen publish --dry-run, 1 new breaking story": 0.3},
    100000: {"newsgen rebuild, nothing changed": 0.3, "newsgen rebuild, 1 story's body changed": 0.3},
}
COLD_RSS_LIMIT_MIB = {100000: 1024}


def fail(message):
    print(f"run.py: {message}", file=sys.stderr)
    sys.exit(2)


# ------------------------------------------------------------------ measuring
def timed(argv, env=None, cwd=None):
    """One run of argv under GNU time -v: wall/user/sys seconds, peak RSS in MiB, stdout."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.monotonic()
        proc = subprocess.run(["/usr/bin/time", "-v", "-o", report.name, *argv], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        elapsed = time.monotonic() - started
        text = report.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}:\n{proc.stderr[-3000:]}{proc.stdout[-1000:]}")

    def field(label):
        match = re.search(re.escape(label) + r": ([\d.:]+)", text)
        if not match:
            raise RuntimeError(f"GNU time printed no '{label}' line:\n{text}")
        return match.group(1)
    # GNU time's wall clock has 10 ms steps; the monotonic clock around it includes fork/exec
    # of time itself (~1 ms), so it is the finer figure.
    return {"wall": elapsed, "user": float(field("User time (seconds)")), "sys": float(field("System time (seconds)")),
            "rss_mib": int(field("Maximum resident set size (kbytes)")) / 1024, "stdout": proc.stdout}


def newsgen_counts(stdout):
    match = SUMMARY.search(stdout)
    if not match:
        return {}
    stories, files, written, unchanged, removed, reported = match.groups()
    return {"stories": int(stories), "files": int(files), "written": int(written), "unchanged": int(unchanged),
            "removed": int(removed), "reported_time": reported.strip()}


def summarise(case, tool, runs, extra=None):
    def med(key):
        return statistics.median(r[key] for r in runs)
    row = {"case": case, "tool": tool, "runs": len(runs),
           "wall": med("wall"), "wall_min": min(r["wall"] for r in runs), "wall_max": max(r["wall"] for r in runs),
           "user": med("user"), "sys": med("sys"), "cpu": med("user") + med("sys"), "rss_mib": med("rss_mib"),
           "all_runs": [{k: v for k, v in r.items() if k != "stdout"} for r in runs]}
    counts = [r["counts"] for r in runs if r.get("counts")]
    if counts:
        row["counts"] = counts[-1]
        row["written_per_run"] = [c["written"] for c in counts]
    if extra:
        row.update(extra)
    line = (f"  {case:44s} wall {row['wall']:7.3f} s [{row['wall_min']:.3f}-{row['wall_max']:.3f}]"
            f"  cpu {row['cpu']:7.2f} s  rss {row['rss_mib']:7.1f} MiB")
    if counts:
        c = counts[-1]
        line += f"  files {c['files']} written {c['written']} unchanged {c['unchanged']} removed {c['removed']}"
    print(line, flush=True)
    return row


def skipped(case, tool, reason):
    print(f"  {case:44s} SKIPPED: {reason}", flush=True)
    return {"case": case, "tool": tool, "skipped": reason}


class Outputs:
    """A new output folder for each cold run, under one root."""

    def __init__(self, root):
        self.root, self.count = root, 0
        if os.path.exists(root):
            shutil.rmtree(root)
        os.makedirs(root)
        self.tmpfs = filesystem_type(root) == "tmpfs"

    def new(self, name):
        self.count += 1
        return os.path.join(self.root, f"{name}-{self.count}")

    def drop(self, path):
        # On tmpfs deleting is cheap and keeps memory use down. On a disk the delete is left
        # to the end: on ext4 with online discard, files created right after a big delete
        # were seen to cost ~1 ms of kernel time each, which would land on the next build.
        if self.tmpfs and os.path.isdir(path):
            shutil.rmtree(path)


def filesystem_type(path):
    best, kind = "", "?"
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            mount = fields[1]
            if (path == mount or path.startswith(mount.rstrip("/") + "/")) and len(mount) > len(best):
                best, kind = mount, fields[2]
    return kind


def repeat(args, command, before=None, after=None):
    """`args.warmup` untimed runs, then `args.runs` timed ones. command(i) gives argv, env."""
    runs = []
    for i in range(args.warmup + args.runs):
        if before:
            before(i)
        argv, env = command(i)
        result = timed(argv, env)
        result["counts"] = newsgen_counts(result["stdout"])
        if after:
            after(i, result)
        if i >= args.warmup:
            runs.append(result)
    return runs


# ------------------------------------------------------------------ newsgen cases
def newsgen_env():
    env = dict(os.environ)
    env["SOURCE_DATE_EPOCH"] = str(corpus.NOW_EPOCH)
    return env


def publish_available(newsgen):
    return subprocess.run([newsgen, "help", "publish"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def bench_newsgen(args, n, site, outs):
    rows = []
    env = newsgen_env()

    def build(output, *extra):
        return [args.newsgen, "build", "--site", site, "--output", output, "--quiet", *extra], env

    folders = []

    def cold(i):
        if folders:
            outs.drop(folders[-1])
        folders.append(outs.new(f"newsgen-{n}"))
        # --clean: no build cache is used (every story is read and parsed, every page rendered); a new one is written.
        return build(folders[-1], "--clean")
    rows.append(summarise("newsgen cold (--clean, new output folder)", "newsgen", repeat(args, cold)))
    site_out = folders[-1]

    rows.append(summarise("newsgen rebuild, nothing changed", "newsgen", repeat(args, lambda i: build(site_out))))

    story = corpus.make_story(n // 2, args.seed)
    path = corpus.newsgen_story_path(site, story)
    original = open(path, encoding="utf-8").read()

    def edit(i):
        corpus.append_to_english_body(path, None, f"Update {i}: the figures were confirmed on Friday evening.")
    try:
        rows.append(summarise("newsgen rebuild, 1 story's body changed", "newsgen",
                              repeat(args, lambda i: build(site_out), before=edit)))
    finally:
        corpus.put(path, original)

    added = []

    def add(i):
        extra = corpus.make_story(n + i, args.seed, published=corpus.NOW - datetime.timedelta(seconds=60 + i))
        added.append(corpus.write_newsgen_story(site, extra))
    try:
        rows.append(summarise("newsgen rebuild, 1 new story", "newsgen",
                              repeat(args, lambda i: build(site_out), before=add)))
    finally:
        for p in added:
            os.remove(p)
    return rows, site_out


def bench_publish_dry_run(args, n, site):
    case = "newsgen publish --dry-run, 1 new breaking story"
    if not publish_available(args.newsgen):
        return skipped(case, "newsgen", "not available yet (`newsgen help publish` fails in this binary)")
    env = newsgen_env()
    for key in ("NEWSGEN_HUB_CONNECTION_STRING", "NEWSGEN_HUB_NAME", "NEWSGEN_HUB_ENDPOINT"):
        env.pop(key, None)
    ledger = os.path.join(tempfile.mkdtemp(prefix="newsgen-bench-ledger-"), "ledger.json")
    added = []

    def add(i):
        story = corpus.make_story(n + 100 + i, args.seed, published=corpus.NOW - datetime.timedelta(seconds=30 + i),
                                  breaking=True)
        added.append(corpus.write_newsgen_story(site, story))
    try:
        return summarise(case, "newsgen", repeat(
            args, lambda i: ([args.newsgen, "publish", "--dry-run", "--site", site, "--ledger", ledger], env),
            before=add))
    except RuntimeError as error:
        return skipped(case, "newsgen", f"publish is present but the run failed: {str(error)[:400]}")
    finally:
        for p in added:
            os.remove(p)


# ------------------------------------------------------------------ hub cases
HUB_KEY = "YmVuY2gtc2VuZC1rZXktbm90LWEtc2VjcmV0LTEyMzQ="
HUB_RULE = "DefaultFullSharedAccessSignature"
HUB_NAME = "newsgen-bench"


class HubDouble:
    """Tests/HubDouble/hub_double.py on 127.0.0.1 with an ephemeral port."""

    def __init__(self, script):
        self.config = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        installations = [{"installationId": f"phone-{l}", "platform": "fcmv1", "pushChannel": f"token-{l}",
                          "tags": list(corpus.CATEGORIES),
                          "templates": {"news": {"body": json.dumps(
                              {"message": {"notification": {"title": f"$(News_{corpus.HUB_NAME[l]})"}}})}}}
                         for l in corpus.LANGS]
        json.dump({"hub": HUB_NAME, "tier": "standard", "installations": installations,
                   "rules": [{"name": HUB_RULE, "key": HUB_KEY, "rights": ["Listen", "Manage", "Send"]}]},
                  self.config)
        self.config.close()
        self.proc = subprocess.Popen([sys.executable, script, "--config", self.config.name, "--port", "0"],
                                     stdout=subprocess.PIPE, text=True, start_new_session=True)
        line = self.proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "LISTENING":
            self.close()
            raise RuntimeError(f"the hub double did not start (first line {line!r})")
        self.port = int(line[1])
        self.base = f"http://127.0.0.1:{self.port}"

    def control(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + "/_control/" + path, data=data,
                                         method="GET" if body is None else "POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read() or b"null")

    def close(self):
        if getattr(self, "proc", None) and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
        os.unlink(self.config.name)


def sas_token(resource, key_name, key, lifetime=3600):
    sr = urllib.parse.quote(resource.lower(), safe="")
    se = str(int(time.time()) + lifetime)
    digest = hmac.new(key.encode(), f"{sr}\n{se}".encode(), hashlib.sha256).digest()
    sig = urllib.parse.quote(base64.b64encode(digest).decode(), safe="")
    return f"SharedAccessSignature sr={sr}&sig={sig}&se={se}&skn={key_name}"


def send_sequentially(hub, stories):
    """The reference: one template send per story, one at a time, each on a new connection."""
    path = f"/{HUB_NAME}/messages/?api-version=2020-06"
    started = time.monotonic()
    for story in stories:
        body = json.dumps({f"News_{corpus.HUB_NAME[l]}": story["text"][l]["title"] for l in corpus.LANGS},
                          ensure_ascii=False).encode()
        connection = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=30)
        connection.request("POST", path, body=body, headers={
            "Authorization": sas_token(f"http://127.0.0.1:{hub.port}/{HUB_NAME}", HUB_RULE, HUB_KEY),
            "Content-Type": "application/json;charset=utf-8", "ServiceBusNotification-Format": "template",
            "ServiceBusNotification-Tags": story["category"]})
        reply = connection.getresponse()
        reply.read()
        connection.close()
        if reply.status != 201:
            raise RuntimeError(f"the hub double answered {reply.status} to a sequential send")
    return time.monotonic() - started


def bench_hub(args, work):
    rows = []
    script = os.path.join(REPO, "Tests", "HubDouble", "hub_double.py")
    case_seq = f"reference: {args.hub_stories} sends one at a time, new connection each"
    case_pub = f"newsgen publish, {args.hub_stories} stories to the hub double"
    if not os.path.exists(script):
        return [skipped(case_seq, "python", f"{script} is missing"), skipped(case_pub, "newsgen", "no hub double")]
    stories = [corpus.make_story(k, args.seed, published=corpus.NOW - datetime.timedelta(seconds=5 * (k + 1)),
                                 breaking=True) for k in range(args.hub_stories)]
    hub = HubDouble(script)
    try:
        runs = []
        for i in range(args.warmup + args.runs):
            hub.control("reset", {})
            hub.control("latency", {"ms": args.hub_latency_ms})
            wall = send_sequentially(hub, stories)
            if i >= args.warmup:
                runs.append(wall)
        seq = statistics.median(runs)
        rows.append({"case": case_seq, "tool": "python", "runs": len(runs), "wall": seq, "wall_min": min(runs),
                     "wall_max": max(runs), "latency_ms": args.hub_latency_ms})
        print(f"  {case_seq:44s} wall {seq:7.3f} s [{min(runs):.3f}-{max(runs):.3f}]", flush=True)

        if not publish_available(args.newsgen):
            rows.append(skipped(case_pub, "newsgen", "not available yet (`newsgen help publish` fails in this binary)"))
            return rows
        site = os.path.join(work, f"publish-{args.hub_stories}")
        if os.path.exists(site):
            shutil.rmtree(site)
        corpus.write_newsgen(site, stories, args.templates)
        env = newsgen_env()
        env.update({"NEWSGEN_HUB_CONNECTION_STRING":
                    f"Endpoint=sb://127.0.0.1:{hub.port}/;SharedAccessKeyName={HUB_RULE};SharedAccessKey={HUB_KEY}",
                    "NEWSGEN_HUB_NAME": HUB_NAME, "NEWSGEN_HUB_ENDPOINT": hub.base + "/"})
        ledgers = tempfile.mkdtemp(prefix="newsgen-bench-ledger-")
        checks = []

        def prepare(i):
            hub.control("reset", {})
            hub.control("latency", {"ms": args.hub_latency_ms})

        def command(i):
            return [args.newsgen, "publish", "--site", site, "--ledger", os.path.join(ledgers, f"run-{i}.json")], env

        def verify(i, result):
            sends = [r for r in hub.control("requests") if r.get("method") == "POST" and "/messages" in r.get("path", "")]
            accepted = [r for r in sends if r.get("status") == 201]
            titles = [json.loads(r["body"]).get("News_English") if r.get("body") else None for r in accepted]
            checks.append({"sends": len(sends), "accepted": len(accepted), "distinct": len(set(titles)),
                           "connections": hub.control("stats").get("connections")})
        try:
            row = summarise(case_pub, "newsgen", repeat(args, command, before=prepare, after=verify),
                            {"hub_checks": checks[args.warmup:]})
            row["speedup_vs_sequential"] = seq / row["wall"]
            rows.append(row)
            for c in checks[args.warmup:]:
                if c["accepted"] != args.hub_stories:
                    print(f"  WARNING: the hub accepted {c['accepted']} of {args.hub_stories} sends ({c})", flush=True)
        except RuntimeError as error:
            rows.append(skipped(case_pub, "newsgen", f"publish is present but the run failed: {str(error)[:400]}"))
        finally:
            shutil.rmtree(ledgers, ignore_errors=True)
    finally:
        hub.close()
    return rows


# ------------------------------------------------------------------ Hugo cases
def bench_hugo(args, n, site, outs):
    rows = []
    folders = []

    def hugo(output, *extra):
        return ["hugo", "--quiet", "-s", site, "-d", output, *extra], None

    def cold(i):
        shutil.rmtree(os.path.join(site, "resources"), ignore_errors=True)
        if folders:
            outs.drop(folders[-1])
        folders.append(outs.new(f"hugo-{n}"))
        return hugo(folders[-1], "--gc", "--ignoreCache")
    rows.append(summarise("hugo cold (--gc --ignoreCache, new folder)", "hugo", repeat(args, cold)))
    out = folders[-1]
    rows[-1]["files"] = sum(len(f) for _, _, f in os.walk(out))
    rows.append(summarise("hugo rebuild, nothing changed", "hugo", repeat(args, lambda i: hugo(out))))

    story = corpus.make_story(n // 2, args.seed)
    path = corpus.hugo_story_path(site, story, "en")
    original = open(path, encoding="utf-8").read()

    def edit(i):
        corpus.append_to_english_body(None, path, f"Update {i}: the figures were confirmed on Friday evening.")
    try:
        rows.append(summarise("hugo rebuild, 1 article changed", "hugo", repeat(args, lambda i: hugo(out), before=edit)))
    finally:
        corpus.put(path, original)

    added = []

    def add(i):
        extra = corpus.make_story(n + i, args.seed, published=corpus.NOW - datetime.timedelta(seconds=60 + i))
        added.extend(corpus.write_hugo_story(site, extra))
    try:
        rows.append(summarise("hugo rebuild, 1 new article", "hugo", repeat(args, lambda i: hugo(out), before=add)))
    finally:
        for p in added:
            os.remove(p)
    return rows


# ------------------------------------------------------------------ report
PAIRS = {  # newsgen case -> (Hugo case it is compared with, target)
    "newsgen cold (--clean, new output folder)": ("hugo cold (--gc --ignoreCache, new folder)", "cold"),
    "newsgen rebuild, nothing changed": ("hugo rebuild, nothing changed", "rebuild"),
    "newsgen rebuild, 1 story's body changed": ("hugo rebuild, 1 article changed", "rebuild"),
    "newsgen rebuild, 1 new story": ("hugo rebuild, 1 new article", "rebuild"),
    "newsgen publish --dry-run, 1 new breaking story": (None, "rebuild"),
}


def verdict(row, hugo, n, sequential):
    kind = PAIRS.get(row["case"], (None, None))[1]
    if row["case"].startswith("newsgen publish,") and sequential:
        speedup = sequential["wall"] / row["wall"]
        return f"≥ {HUB_SPEEDUP}× faster: {speedup:.1f}× {'✅' if speedup >= HUB_SPEEDUP else '❌'}"
    if kind == "cold" and hugo:
        wall_ok = row["wall"] <= hugo["wall"] * COLD_WALL_SHARE
        rss_ok = row["rss_mib"] <= hugo["rss_mib"] * COLD_RSS_SHARE
        return (f"wall ≤ {hugo['wall'] * COLD_WALL_SHARE:.2f} s {'✅' if wall_ok else '❌'}, "
                f"RSS ≤ {hugo['rss_mib'] * COLD_RSS_SHARE:.0f} MiB {'✅' if rss_ok else '❌'}")
    if kind == "cold" and n in COLD_RSS_LIMIT_MIB:
        limit = COLD_RSS_LIMIT_MIB[n]
        return f"RSS ≤ {limit} MiB {'✅' if row['rss_mib'] <= limit else '❌'}"
    if kind == "rebuild":
        limit = REBUILD_LIMITS_S.get(n, {}).get(row["case"])
        if limit is None:
            return ""
        note = f"≤ {limit} s {'✅' if row['wall'] <= limit else '❌'}"
        if row["case"] == "newsgen rebuild, nothing changed" and row.get("counts"):
            note += f"; no file rewritten {'✅' if row['counts']['written'] == 0 else '❌'}"
        return note
    return ""


def markdown_table(n, rows, title=None):
    by_case = {r["case"]: r for r in rows}
    sequential = next((r for r in rows if r["case"].startswith("reference:") and "wall" in r), None)
    title = title or f"N = {n:,} stories × 3 languages ({3 * n:,} story pages)"
    lines = [f"### {title}", "",
             "| case | wall s, median (min–max) | CPU s user+sys | peak RSS MiB | files written / total "
             "| newsgen ÷ Hugo wall | newsgen ÷ Hugo RSS | target |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['case']} | skipped: {r['skipped']} | | | | | | |")
            continue
        cpu = f"{r['cpu']:.2f} ({r['user']:.2f}+{r['sys']:.2f})" if "cpu" in r else "–"
        rss = f"{r['rss_mib']:.0f}" if "rss_mib" in r else "–"
        files = "–"
        if r.get("counts"):
            c = r["counts"]
            files = f"{c['written']} / {c['files']}"
        elif r.get("files"):
            files = f"all / {r['files']}"
        elif r["tool"] == "hugo":
            files = "all"
        ratio_wall = ratio_rss = ""
        hugo = by_case.get(PAIRS.get(r["case"], (None,))[0] or "")
        if hugo and "wall" in hugo:
            ratio_wall = f"{r['wall'] / hugo['wall']:.2f}"
            ratio_rss = f"{r['rss_mib'] / hugo['rss_mib']:.2f}"
        name = f"**{r['case']}**" if r["tool"] == "newsgen" else r["case"]
        lines.append(f"| {name} | {r['wall']:.3f} ({r['wall_min']:.3f}–{r['wall_max']:.3f}) | {cpu} | {rss} | {files} "
                     f"| {ratio_wall} | {ratio_rss} | {verdict(r, hugo, n, sequential) if r['tool'] == 'newsgen' else ''} |")
    return "\n".join(lines) + "\n"


def environment(args):
    def run(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True, cwd=REPO).stdout.strip()
        except OSError:
            return ""
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    mem = next((int(line.split()[1]) // 1024 for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": cpu, "cpus": os.cpu_count(), "mem_mib": mem, "kernel": platform.release(),
            "newsgen": args.newsgen, "newsgen_version": run([args.newsgen, "--version"]),
            "git_commit": run(["git", "rev-parse", "--short", "HEAD"]),
            "git_dirty": bool(run(["git", "status", "--porcelain", "--untracked-files=no"])),
            "hugo": run(["hugo", "version"]) if shutil.which("hugo") else None,
            "out_root": args.out_root, "out_fs": filesystem_type(args.out_root), "work_fs": filesystem_type(args.work)}


def loadavg():
    return open("/proc/loadavg").read().split()[:3]


def main():
    p = argparse.ArgumentParser(description="Time newsgen and Hugo on the same generated news.")
    p.add_argument("--sizes", default="1000,10000", help="comma list of story counts")
    p.add_argument("--runs", type=int, default=3, help="timed runs per case (the median is reported)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs before the timed ones")
    p.add_argument("--newsgen", default=os.path.join(REPO, ".build", "release", "newsgen"),
                   help="newsgen binary (default: the release build in this clone)")
    p.add_argument("--work", default="/tmp/newsgen-bench", help="where corpora are generated")
    p.add_argument("--out-root", default="/dev/shm/newsgen-bench", help="build outputs (a tmpfs by default)")
    p.add_argument("--seed", default=corpus.SEED)
    p.add_argument("--templates", default=os.path.join(REPO, "templates"),
                   help="newsgen theme copied into the corpus (must suit the newsgen binary)")
    p.add_argument("--no-gen", action="store_true", help="reuse corpora already in --work")
    p.add_argument("--no-hugo", action="store_true", help="leave out the Hugo cases")
    p.add_argument("--hub-stories", type=int, default=200)
    p.add_argument("--hub-latency-ms", type=int, default=20)
    p.add_argument("--no-hub", action="store_true", help="leave out the hub cases")
    p.add_argument("--json", help="write every measured run here")
    p.add_argument("--markdown", help="write the tables here")
    p.add_argument("--keep", action="store_true", help="keep the build outputs")
    args = p.parse_args()
    args.newsgen = os.path.abspath(args.newsgen)
    args.templates = os.path.abspath(args.templates)
    args.work, args.out_root = os.path.abspath(args.work), os.path.abspath(args.out_root)

    if not os.path.exists("/usr/bin/time"):
        fail("GNU time is needed (/usr/bin/time); on Debian: sudo apt-get install -y time")
    if not os.access(args.newsgen, os.X_OK):
        fail(f"no newsgen binary at {args.newsgen}; build it with `swift build -c release --product newsgen` "
             "in the repository, or pass --newsgen PATH")
    use_hugo = not args.no_hugo and shutil.which("hugo") is not None
    if not args.no_hugo and not use_hugo:
        print("note: hugo is not installed, so the Hugo cases and ratios are left out "
              "(on Debian: sudo apt-get install -y hugo)", file=sys.stderr)

    os.makedirs(args.work, exist_ok=True)
    outs = Outputs(args.out_root)
    env = environment(args)
    print(json.dumps(env, ensure_ascii=False), flush=True)
    results = {"env": env, "args": vars(args), "sizes": []}
    tables = []
    for n in (int(s) for s in args.sizes.split(",")):
        tree = os.path.join(args.work, f"corpus-{n}")
        if args.no_gen and os.path.isdir(os.path.join(tree, "newsgen")):
            # Reused corpus: give it the theme of the binary being measured (themes change with newsgen).
            theme = os.path.join(tree, "newsgen", "templates")
            shutil.rmtree(theme, ignore_errors=True)
            shutil.copytree(args.templates, theme)
        if not args.no_gen or not os.path.isdir(os.path.join(tree, "newsgen")):
            started = time.monotonic()
            stories = corpus.generate(n, tree, args.seed, args.templates,
                                      forms=("newsgen", "hugo") if use_hugo else ("newsgen",))
            print(f"generated {n} stories ({sum(s['breaking'] for s in stories)} breaking) in "
                  f"{time.monotonic() - started:.1f} s into {tree}", flush=True)
        load_before = loadavg()
        print(f"N={n}  load average before: {' '.join(load_before)}", flush=True)
        rows, _ = bench_newsgen(args, n, os.path.join(tree, "newsgen"), outs)
        rows.append(bench_publish_dry_run(args, n, os.path.join(tree, "newsgen")))
        if use_hugo:
            rows += bench_hugo(args, n, os.path.join(tree, "hugo"), outs)
        load_after = loadavg()
        table = markdown_table(n, rows)
        table += f"\nLoad average (1/5/15 min) before: {' '.join(load_before)}, after: {' '.join(load_after)}.\n"
        print("\n" + table, flush=True)
        tables.append(table)
        results["sizes"].append({"n": n, "load_before": load_before, "load_after": load_after, "rows": rows})
        if args.json:  # after every size, so a long run leaves something behind
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(results, f, indent=1, ensure_ascii=False, default=str)
    if not args.no_hub:
        print(f"publish to the loopback hub double ({args.hub_latency_ms} ms added latency per request)", flush=True)
        rows = bench_hub(args, args.work)
        title = (f"Publish: {args.hub_stories} breaking stories to the loopback hub double, "
                 f"{args.hub_latency_ms} ms added latency per request")
        table = markdown_table(args.hub_stories, rows, title)
        print("\n" + table, flush=True)
        tables.append(table)
        results["hub"] = rows
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(results, f, indent=1, ensure_ascii=False, default=str)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write("\n".join(tables))
    if not args.keep:
        shutil.rmtree(args.out_root, ignore_errors=True)


if __name__ == "__main__":
    main()
