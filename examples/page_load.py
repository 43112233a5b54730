#!/usr/bin/env python3
"""page_load.py — how long pages of `seqrep explore --html` take to open in a
browser: Debian's headless chromium (python3-selenium, chromium-driver, as
tests/e2e/page_browser.py), each page opened from file:// in a fresh tab,
three times; prints its size, the time from navigation to the load event
(the page's script has run and the first picture is set) and until that
picture is decoded, best and worst of the three.

Usage: /usr/bin/python3 examples/page_load.py PAGE.html [PAGE.html ...]
"""
import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

DECODED = """
const done = arguments[arguments.length - 1];
document.getElementById("view").decode().then(() => done(performance.now()), () => done(-1));
"""


def browser():
    """Headless chromium at device pixel ratio 1, in a temporary profile."""
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--force-device-scale-factor=1",
                "--user-data-dir=" + tempfile.mkdtemp(), "--window-size=1500,1300"]:
        o.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def measure(pages):
    """Per page, the load-event times and the first picture's decoded times of three loads (ms)."""
    d = browser()
    out = []
    try:
        for page in pages:
            loads, shown = [], []
            for _ in range(3):
                d.get("about:blank")
                d.get("file://" + os.path.abspath(page))
                loads.append(d.execute_script(
                    "const t = performance.timing; return t.loadEventEnd - t.navigationStart"))
                shown.append(round(d.execute_async_script(DECODED)))
            out.append((loads, shown))
    finally:
        d.quit()
    return out


def main(pages):
    for page, (loads, shown) in zip(pages, measure(pages)):
        print("%s: %.2f MB, load event %d-%d ms, first picture decoded %d-%d ms" % (
            page, os.path.getsize(page) / 1e6, min(loads), max(loads), min(shown), max(shown)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
