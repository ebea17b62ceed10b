"""Debian's chromium, headless, driven through chromium-driver by selenium: the one way the browser tests start it."""
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
