#!/usr/bin/env python3
"""Drives Debian's chromium (through chromium-driver and selenium) against a running `newsgen serve`.

Given a story page and its file, it opens the page, changes the story's title in the file and waits for the
page to show the new title by itself (the reload event); breaks the story and waits for the error overlay; fixes
it and waits for the overlay to go; then opens the phone preview and reads each device's rendered text.
Screenshots go to the artifacts folder. Prints one JSON object; exits with 1 when a step fails.
"""
import json
import os
import sys
import time

import chromium
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import WebDriverWait


def main():
    config = json.loads(sys.argv[1])
    artifacts = config["artifacts"]
    os.makedirs(artifacts, exist_ok=True)
    result = {"steps": []}

    def steps(driver):
        # A reload replaces the page while a condition reads it: an element found just before is then stale, and
        # the condition is simply asked again.
        wait = WebDriverWait(driver, 30, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,))

        def text_of(d, selector):
            # Read in the page in one step: an element handle taken just before a reload can fail with an error
            # other than a stale element ("Node with given id does not belong to the document", chromium 156).
            return d.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;",
                                    selector)

        def headline(d):
            return text_of(d, "h1") or ""

        story_file = config["story_file"]
        original = open(story_file, encoding="utf-8").read()
        driver.get(config["story_url"])
        wait.until(lambda d: config["old_title"] in headline(d))
        # The page's event stream is open before the file changes (the script connects as the page loads).
        wait.until(lambda d: d.execute_script("return document.querySelector('script[data-build]') !== null"))
        time.sleep(0.3)
        marker = driver.execute_script("window.__newsgenMarker = 1; return window.__newsgenMarker;")
        with open(story_file, "w", encoding="utf-8") as handle:
            handle.write(original.replace(config["old_title"], config["new_title"]))
        started = time.monotonic()
        wait.until(lambda d: config["new_title"] in headline(d))
        reloaded = driver.execute_script("return window.__newsgenMarker === undefined;")
        result["steps"].append({"step": "new title shown", "seconds": round(time.monotonic() - started, 3),
                                "reloaded": reloaded, "marker": marker})
        driver.save_screenshot(os.path.join(artifacts, "serve-story.png"))

        broken = open(story_file, encoding="utf-8").read()
        with open(story_file, "w", encoding="utf-8") as handle:
            handle.write(broken.replace(config["category_line"], config["bad_category_line"]))
        text = wait.until(lambda d: text_of(d, "#newsgen-problems"))
        result["steps"].append({"step": "overlay", "text": text})
        if config["error_location"] not in text:
            raise AssertionError("the overlay does not name " + config["error_location"] + ": " + text)
        driver.save_screenshot(os.path.join(artifacts, "serve-story-error.png"))
        with open(story_file, "w", encoding="utf-8") as handle:
            handle.write(broken)
        wait.until(lambda d: d.execute_script("return document.getElementById('newsgen-problems') === null;")
                   and config["new_title"] in headline(d))
        result["steps"].append({"step": "overlay cleared"})

        driver.get(config["push_url"])
        texts = {}
        for device, expected in config["devices"].items():
            selector = f'#story-{config["story_id"]} article[data-device="{device}"] .alert-text'
            texts[device] = wait.until(lambda d: text_of(d, selector))
        result["devices"] = texts
        driver.save_screenshot(os.path.join(artifacts, "serve-push.png"))
        missing = {d: t for d, t in config["devices"].items() if texts.get(d) != t}
        if missing:
            raise AssertionError("device texts differ: expected " + json.dumps(missing, ensure_ascii=False) + ", found " + json.dumps(texts, ensure_ascii=False))
        return 0

    return chromium.run(config, result, steps, failure_screenshot=os.path.join(artifacts, "serve-failure.png"))


if __name__ == "__main__":
    sys.exit(main())
