#!/usr/bin/env python3
"""Opens pages with photos in Debian's chromium (through chromium-driver and selenium) and checks them as a reader
would see them.

For each page it scrolls every `figure.photo` into view (cards' photos load lazily) and checks that the photo
loaded, that the browser took a WebP candidate from the `<source>`, that the candidate is not narrower than the
photo is drawn (so `sizes` tells the truth), that it is drawn in the proportions of its `width`/`height`
attributes, that it has alt text (and the expected alt text and credit where given), and that the page moved no more
than a cumulative layout shift of 0.1 while its photos came in (the width and height reserve their room). On a
story page the lead photo is fetched first (`fetchpriority="high"`, never lazy). A screenshot of each page goes
to the artifacts folder. Prints one JSON object; exits with 1 when a check fails.
"""
import json
import os
import sys

import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# Records layout shifts from the page's start (buffered), as Chrome reports them.
WATCH_SHIFTS = """
window.__shifts = 0;
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) { if (!entry.hadRecentInput) window.__shifts += entry.value; }
}).observe({type: 'layout-shift', buffered: true});
"""

DESCRIBE = """
const img = arguments[0];
const source = img.parentElement.querySelector('source');
const candidates = (source ? source.getAttribute('srcset') : img.getAttribute('srcset') || '')
  .split(',').map(s => s.trim().split(/\\s+/)).map(([url, w]) => [new URL(url, document.baseURI).href, parseInt(w)]);
const chosen = candidates.find(([url]) => url === img.currentSrc);
const caption = img.closest('figure').querySelector('figcaption');
return {complete: img.complete, naturalWidth: img.naturalWidth, naturalHeight: img.naturalHeight,
        drawnWidth: img.getBoundingClientRect().width, drawnHeight: img.getBoundingClientRect().height,
        ratio: window.devicePixelRatio, currentSrc: img.currentSrc, chosenWidth: chosen ? chosen[1] : null,
        largestWidth: Math.max(...candidates.map(([, w]) => w)),
        width: parseInt(img.getAttribute('width')), height: parseInt(img.getAttribute('height')),
        alt: img.getAttribute('alt'), loading: img.getAttribute('loading'),
        fetchpriority: img.getAttribute('fetchpriority'), credit: caption ? caption.innerText.trim() : ''};
"""


def check_page(driver, wait, page, artifacts):
    driver.get(page["url"])
    driver.execute_script(WATCH_SHIFTS)
    photos = driver.find_elements(By.CSS_SELECTOR, "figure.photo img")
    if len(photos) < page.get("min_photos", 1):
        raise AssertionError(f'{page["url"]}: {len(photos)} photos, expected at least {page.get("min_photos", 1)}')
    found = []
    for photo in photos:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", photo)
        wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0;", photo))
        found.append(driver.execute_script(DESCRIBE, photo))
    driver.execute_script("window.scrollTo(0, 0);")
    driver.save_screenshot(os.path.join(artifacts, page["screenshot"]))
    shifts = driver.execute_script("return window.__shifts;")
    problems = []
    for index, photo in enumerate(found):
        where = f'{page["url"]} photo {index + 1} ({photo["currentSrc"]})'
        if not photo["currentSrc"].endswith(".webp"):
            problems.append(f"{where}: the browser did not take the WebP source")
        # naturalWidth is the candidate's width divided by its density (what `sizes` said): the file's own width is
        # the candidate's `w`, which must cover what the screen draws unless no larger one exists.
        needed = min(photo["drawnWidth"] * photo["ratio"], photo["largestWidth"])
        if photo["chosenWidth"] is None:
            problems.append(f"{where}: the browser took a file that is not one of the srcset's")
        elif photo["chosenWidth"] + 1 < needed:
            problems.append(f'{where}: a {photo["chosenWidth"]} px wide file drawn on {needed:.0f} device pixels')
        if not photo["width"] or not photo["height"]:
            problems.append(f"{where}: no width and height to reserve its room")
        elif abs(photo["drawnHeight"] * photo["width"] - photo["drawnWidth"] * photo["height"]) > 2 * photo["width"]:
            problems.append(f'{where}: drawn {photo["drawnWidth"]:.0f}×{photo["drawnHeight"]:.0f}, not in the proportions of {photo["width"]}×{photo["height"]}')
        if not photo["alt"]:
            problems.append(f"{where}: no alt text")
    if page.get("alt") and found[0]["alt"] != page["alt"]:
        problems.append(f'{page["url"]}: the lead photo\'s alt is {found[0]["alt"]!r}, expected {page["alt"]!r}')
    if page.get("credit") and found[0]["credit"] != page["credit"]:
        problems.append(f'{page["url"]}: the lead photo\'s credit is {found[0]["credit"]!r}, expected {page["credit"]!r}')
    if page.get("lead") and (found[0]["fetchpriority"] != "high" or found[0]["loading"] == "lazy"):
        problems.append(f'{page["url"]}: the lead photo is not fetched first ({found[0]})')
    if shifts > 0.1:
        problems.append(f'{page["url"]}: the page moved while its photos loaded (layout shift {shifts:.3f})')
    return {"url": page["url"], "photos": found, "layout_shift": shifts}, problems


def main():
    config = json.loads(sys.argv[1])
    artifacts = config["artifacts"]
    os.makedirs(artifacts, exist_ok=True)
    result = {"pages": [], "problems": []}

    def steps(driver):
        wait = WebDriverWait(driver, 30, poll_frequency=0.05)
        for page in config["pages"]:
            seen, problems = check_page(driver, wait, page, artifacts)
            result["pages"].append(seen)
            result["problems"] += problems
        return 1 if result["problems"] else 0

    # A desktop window by default; a phone's narrow, dense screen with "window": "412,915" and "scale": 2.
    return chromium.run(config, result, steps, window=config.get("window", "1280,1400"), scale=config.get("scale", 1))

if __name__ == "__main__":
    sys.exit(main())
