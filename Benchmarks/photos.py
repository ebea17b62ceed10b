#!/usr/bin/env python3
"""Photo processing benchmark: newsgen's media step against Hugo's image processing, same photos, same run.

    swift build -c release --product newsgen
    python3 Benchmarks/photos.py                       # 1,000 photos of 4000×3000
    python3 Benchmarks/photos.py --photos 50 --json /tmp/photos.json
    python3 Benchmarks/photos.py --hugo-photos 100    # Hugo on the first 100 only (it needs ~6 s a photo here)

The photos are generated once with libvips' `vips` command into --photos-dir (a folder beside the clone by default;
never committed): a blurred noise field under a gradient, each photo shifted in brightness and colour so that
every file is different. Both tools get hard links to the same files. Each makes, from every photo, the widths of
newsgen's default `media.widths` (400, 800, 1200, 1600) in JPEG and in WebP and the four crops (16:9 1200×675,
4:3 1200×900, 1:1 1200×1200, 1200×630) with smart cropping (libvips attention; Hugo `Smart`), quality 80.

Cases, each under GNU `/usr/bin/time -v` (wall time and peak memory):
  newsgen cold       `newsgen build` with no media cache and a new output folder
  newsgen nothing    the same again (no photo is encoded)
  newsgen one new    one more photo: only it is processed (the build reports how many photos it made)
  hugo cold          `hugo` with empty resources/_gen and cache folders, on --hugo-photos of the same photos
                     (default: all); the speed-up is then compared per photo
Standard library only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WIDTHS = [400, 800, 1200, 1600]
CROPS = [(1200, 675), (1200, 900), (1200, 1200), (1200, 630)]


def run(command, cwd=None, env=None):
    """Wall seconds, peak RSS (MB) and output of one timed run."""
    timed = ["/usr/bin/time", "-v"] + command
    result = subprocess.run(timed, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"photos.py: {' '.join(command)} failed:\n{result.stdout}\n{result.stderr[-3000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.+)", result.stderr).group(1)
    parts = [float(p) for p in wall.split(":")]
    seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr).group(1)) / 1024
    return seconds, rss, result.stdout + result.stderr


def make_photos(folder, count, width, height):
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, f".base-{width}x{height}.v")
    if not os.path.exists(base):
        with tempfile.TemporaryDirectory() as tmp:
            noise = os.path.join(tmp, "noise.v")
            subprocess.run(["vips", "gaussnoise", noise, str(width // 8), str(height // 8), "--sigma", "60", "--mean", "128"], check=True)
            big = os.path.join(tmp, "big.v")
            subprocess.run(["vips", "resize", noise, big, "8", "--kernel", "cubic"], check=True)
            rgb = os.path.join(tmp, "rgb.v")
            subprocess.run(["vips", "bandjoin", f"{big} {big} {big}", rgb], check=True)
            grad = os.path.join(tmp, "grad.v")
            subprocess.run(["vips", "xyz", grad, str(width), str(height)], check=True)
            g1 = os.path.join(tmp, "g1.v")
            subprocess.run(["vips", "linear", grad, g1, "0.02 0.03", "0"], check=True)
            sum_ = os.path.join(tmp, "sum.v")
            subprocess.run(["vips", "extract_band", g1, os.path.join(tmp, "gx.v"), "0"], check=True)
            subprocess.run(["vips", "add", rgb, os.path.join(tmp, "gx.v"), sum_], check=True)
            subprocess.run(["vips", "cast", sum_, base, "uchar"], check=True)
    missing = [i for i in range(count) if not os.path.exists(os.path.join(folder, f"photo-{i:04d}.jpg"))]
    procs = []
    for i in missing:
        # A different brightness and offset for every photo up to 2,000, so that no two have the same bytes (newsgen
        # makes a content only once). b is never negative: vips would read a leading "-" as an option.
        a = 0.6 + (i % 25) * 0.02
        b = i // 25
        out = os.path.join(folder, f"photo-{i:04d}.jpg")
        procs.append(subprocess.Popen(["vips", "linear", base, out + "[Q=85]", f"{a} {a * 0.95} {a * 1.05}", f"{b} {b + 5} {b - 5}", "--uchar"]))
        if len(procs) >= os.cpu_count():
            for p in procs:
                p.wait()
            procs = []
    for p in procs:
        p.wait()
    return [os.path.join(folder, f"photo-{i:04d}.jpg") for i in range(count)]


def newsgen_site(root, photos):
    site = os.path.join(root, "newsgen-site")
    shutil.rmtree(site, ignore_errors=True)
    os.makedirs(os.path.join(site, "content", "world"))
    os.makedirs(os.path.join(site, "media"))
    shutil.copytree(os.path.join(REPO, "templates"), os.path.join(site, "templates"))
    with open(os.path.join(site, "newsgen.yml"), "w") as f:
        f.write("title: Bench\nbase_url: https://bench.example/\nlanguages:\n  - code: en\n    name: English\n"
                "categories:\n  - name: World\nmedia:\n  widths: [%s]\n  quality: 80\n" % ", ".join(map(str, WIDTHS)))
    with open(os.path.join(site, "content", "world", "photos.md"), "w") as f:
        f.write("---\ncategory: World\npublished: 2026-11-29T08:00:00Z\ntitle: Photos\nimage: /media/photo-0000.jpg\n---\nThe photos.\n")
    for photo in photos:
        os.link(photo, os.path.join(site, "media", os.path.basename(photo)))
    return site


def hugo_site(root, photos):
    site = os.path.join(root, "hugo-site")
    shutil.rmtree(site, ignore_errors=True)
    os.makedirs(os.path.join(site, "assets", "photos"))
    os.makedirs(os.path.join(site, "layouts"))
    with open(os.path.join(site, "config.toml"), "w") as f:
        f.write('baseURL = "https://bench.example/"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]\n'
                '[imaging]\n  quality = 80\n  resampleFilter = "Lanczos"\n')
    ops = []
    for width in WIDTHS:
        ops.append(f'(.Resize "{width}x jpg")')
        ops.append(f'(.Resize "{width}x webp")')
    for width, height in CROPS:
        ops.append(f'(.Fill "{width}x{height} Smart jpg")')
    with open(os.path.join(site, "layouts", "index.html"), "w") as f:
        f.write('{{ range resources.Match "photos/*.jpg" }}' + "".join('{{ with %s }}{{ .RelPermalink }} {{ end }}' % op for op in ops) + "\n{{ end }}\n")
    for photo in photos:
        os.link(photo, os.path.join(site, "assets", "photos", os.path.basename(photo)))
    return site


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", type=int, default=1000)
    parser.add_argument("--size", default="4000x3000")
    parser.add_argument("--photos-dir", default=os.path.join(os.path.dirname(REPO), "bench-photos"))
    parser.add_argument("--root", default=None, help="where the two sites go (default: a temporary folder)")
    parser.add_argument("--newsgen", default=os.path.join(REPO, ".build", "release", "newsgen"))
    parser.add_argument("--skip-hugo", action="store_true")
    parser.add_argument("--hugo-photos", type=int, help="give Hugo only the first N photos (default: all)")
    parser.add_argument("--json")
    args = parser.parse_args()
    width, height = map(int, args.size.split("x"))
    photos = make_photos(args.photos_dir, args.photos + 1, width, height)
    extra = photos.pop()   # the "one new photo"
    root = args.root or tempfile.mkdtemp(prefix="newsgen-photos-")
    results = {"photos": args.photos, "size": args.size, "cases": {}}

    site = newsgen_site(root, photos)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1795953600")
    build = [args.newsgen, "build", "--site", site, "--output", os.path.join(root, "newsgen-out")]
    for name, prepare in [("newsgen cold", None), ("newsgen nothing changed", None),
                          ("newsgen one new photo", lambda: os.link(extra, os.path.join(site, "media", os.path.basename(extra))))]:
        if prepare:
            prepare()
        seconds, rss, output = run(build, env=env)
        made = re.search(r"(\d+) photos? processed", output)
        results["cases"][name] = {"seconds": seconds, "peak_rss_mb": rss, "photos_processed": int(made.group(1)) if made else 0}
        print(f"{name}: {seconds:.2f} s, peak {rss:.0f} MB, {results['cases'][name]['photos_processed']} photos processed", flush=True)
    files = sum(len(f) for _, _, f in os.walk(os.path.join(root, "newsgen-out", "media")))
    results["newsgen_media_files"] = files

    if not args.skip_hugo and shutil.which("hugo"):
        hugo_count = min(args.hugo_photos or len(photos), len(photos))
        hsite = hugo_site(root, photos[:hugo_count])
        cache = os.path.join(root, "hugo-cache")
        shutil.rmtree(cache, ignore_errors=True)
        seconds, rss, _ = run(["hugo", "--quiet", "--source", hsite, "--destination", os.path.join(root, "hugo-out"),
                               "--cacheDir", cache])
        hfiles = sum(len(f) for _, _, f in os.walk(os.path.join(root, "hugo-out", "photos")))
        results["cases"]["hugo cold"] = {"seconds": seconds, "peak_rss_mb": rss, "photos": hugo_count}
        results["hugo_files"] = hfiles
        print(f"hugo cold ({hugo_count} photos): {seconds:.2f} s, peak {rss:.0f} MB ({hfiles} files)", flush=True)
        per_newsgen = results["cases"]["newsgen cold"]["seconds"] / len(photos)
        per_hugo = seconds / hugo_count
        ratio = per_hugo / per_newsgen
        results["speedup_cold_per_photo"] = ratio
        print(f"per photo: newsgen {per_newsgen:.3f} s, Hugo {per_hugo:.3f} s: newsgen is {ratio:.1f}x faster "
              f"(newsgen wrote {files} media files)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    if not args.root:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
