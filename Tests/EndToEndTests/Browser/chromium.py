"""Debian's chromium, headless, driven through chromium-driver by selenium: the one way the browser tests start it."""
import json

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def start(config, window="1280,1400", scale=1):
    """A browser with a window of `window` CSS pixels ("width,height") at `scale` device pixels each; `config`
    may name other "chromium" and "driver" executables."""
    options = webdriver.ChromeOptions()
    options.binary_location = config.get("chromium", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=" + window, "--force-device-scale-factor=" + str(scale)]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path=config.get("driver", "/usr/bin/chromedriver")), options=options)


def run(config, result, steps, window="1280,1400", scale=1, failure_screenshot=None):
    """Starts the browser, runs `steps(driver)`, which fills `result` and returns the exit code, prints `result` as one
    JSON object for the Swift test that reads it, and quits the browser. An exception is reported in
    `result["error"]` (with a screenshot at `failure_screenshot`, when given) and gives 1."""
    driver = start(config, window, scale)
    try:
        code = steps(driver)
    except Exception as error:  # reported to the Swift test, which fails with it
        result["error"] = f"{type(error).__name__}: {error}"
        code = 1
        if failure_screenshot:
            try:
                driver.save_screenshot(failure_screenshot)
            except Exception:
                pass
    finally:
        driver.quit()
    print(json.dumps(result, ensure_ascii=False))
    return code
