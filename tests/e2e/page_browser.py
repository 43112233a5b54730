"""page_browser.py — the page of `seqrep explore --html` in a real browser.

Debian's chromium, headless, driven through its DevTools protocol by
Debian's python3-selenium and chromium-driver (tests/e2e/e2e_page.sh runs
this). The page is opened from file://, keys are pressed and cells hovered
and clicked as a student would, and what the page shows is read back:

- the picture on screen, drawn into a canvas at device pixel ratio 1 and read
  with getImageData, equals pixel for pixel the PNG that the `seqrep plot`
  command the page shows writes (decoded with PIL), for several views (the
  two compared by the SHA-256 of their RGBA bytes, size first);
- the hover text names the two pieces and the value plot's CSV holds;
- a click pins a token: the overlay draws its row and column, the picture
  stays as it was;
- keys whose result the page does not hold say so; c copies (or selects) the
  plot command;
- nothing was logged on the console, and no request left the page (every
  request chromium's Network domain reports is the page itself or a data:
  URI; a proxy and host rules that fail are set besides).

and, given a page of a snapshot series, that [ and ] step through its
snapshots and say where they stop.

Usage: python3 page_browser.py PAGE.html SEQREP WORKDIR [SERIES_PAGE.html]
Prints "ok NAME" / "FAIL NAME" lines, then the page's load time.
"""
import csv
import hashlib
import io
import json
import shlex
import subprocess
import sys
import tempfile
import time

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

PAGE, SEQREP, WORK = sys.argv[1:4]
SERIES = sys.argv[4] if len(sys.argv) > 4 else None
failures = []


def check(name, good, detail=""):
    print(("ok   " if good else "FAIL ") + name + ("" if good else " " + detail))
    if not good:
        failures.append(name)


def browser():
    """Headless chromium at device pixel ratio 1, its console and network logged."""
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--force-device-scale-factor=1",
                "--window-size=1500,1300", "--user-data-dir=" + tempfile.mkdtemp(dir=WORK),
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"]:
        o.add_argument(arg)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


SHOWN_PIXELS = """
const done = arguments[arguments.length - 1], img = document.getElementById("view");
img.decode().then(() => {
  const c = document.createElement("canvas");
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const ctx = c.getContext("2d", {willReadFrequently: true});
  ctx.drawImage(img, 0, 0);
  return crypto.subtle.digest("SHA-256", ctx.getImageData(0, 0, c.width, c.height).data).then((h) =>
    done([c.width, c.height, Array.from(new Uint8Array(h), (b) => b.toString(16).padStart(2, "0")).join("")]));
}).catch((e) => done(["error", 0, String(e)]));
"""


def shown(d):
    """What the page shows: where, status, command, and its picture: width, height and the
    SHA-256 of its RGBA pixels as a canvas at device pixel ratio 1 reads them."""
    text = {k: d.find_element(By.ID, k).text for k in ("where", "status", "command")}
    return text, tuple(d.execute_async_script(SHOWN_PIXELS))


def plot_of(command, name):
    """Run the page's plot command (seqrep for its first word, --out NAME): its PNG's pixels and CSV rows."""
    words = shlex.split(command)
    assert words[0] == "seqrep" and words[-2] == "--out"
    words = [SEQREP] + words[1:-1] + [name + ".png"]
    subprocess.run(words, cwd=WORK, check=True, capture_output=True)
    img = Image.open(WORK + "/" + name + ".png").convert("RGBA")
    rows = list(csv.DictReader(open(WORK + "/" + name + ".csv"))) if name.startswith("attention") else []
    return (img.width, img.height, hashlib.sha256(img.tobytes()).hexdigest()), rows


def same_as_plot(d, name, want_where):
    """The view on screen is want_where and its picture is its plot command's PNG, exactly."""
    text, pixels = shown(d)
    check(name + ": the view is " + want_where, want_where in text["where"], repr(text))
    png, rows = plot_of(text["command"], name)
    check(name + ": the picture equals plot's PNG of the command shown, pixel for pixel", pixels == png,
          "(%s x %s %s against %s x %s %s)" % (pixels + png))
    return text, rows


def press(d, key):
    """Press a key as a student would (chromium's keyboard, not the page's functions)."""
    ActionChains(d, duration=0).send_keys(key).perform()


def status(d):
    return d.find_element(By.ID, "status").text


def hover_cell(d, q, k):
    """Move the mouse over cell (q, k) of the map on screen; the tooltip's text."""
    f = d.execute_script("return PAGE.frames[PAGE.states[seqrepPage.state()].f].grid")
    gx, gy, cell, n = f
    img = d.find_element(By.ID, "view")
    w, h = img.size["width"], img.size["height"]
    x, y = gx + (k + 0.5) * cell, gy + (q + 0.5) * cell
    ActionChains(d, duration=0).move_to_element_with_offset(img, int(x - w / 2), int(y - h / 2)).perform()
    return d.find_element(By.ID, "tip").text, (x, y)


def main():
    started = time.time()
    d = browser()
    print("browser up %.1f s" % (time.time() - started))
    try:
        d.get("file://" + PAGE)
        d.find_element(By.TAG_NAME, "body").click()
        load = d.execute_script("const t = performance.timing; return t.loadEventEnd - t.navigationStart")
        hover_and_pin(d, keys_and_views(d))
        logs(d)
        if SERIES:
            d.get("file://" + SERIES)
            snapshots(d)
    finally:
        d.quit()
    print("page load %d ms (navigation to load event), browser test %.1f s" % (load, time.time() - started))
    sys.exit(1 if failures else 0)


def keys_and_views(d):
    """Keys move through the views as in the window; each picture is plot's."""
    same_as_plot(d, "attention-first", "attention, layer 1, mean over heads, r = 1")
    press(d, "\ue012")  # left
    _, rows = same_as_plot(d, "attention-left", "attention, layer 0, mean over heads, r = 1")
    press(d, "\ue015")  # down
    same_as_plot(d, "attention-down", "attention, layer 0, head 0, r = 1")
    press(d, "m")
    same_as_plot(d, "mask", "mask")
    press(d, "o")
    text, _ = same_as_plot(d, "overview", "overview, layer 0, head 0, r = 1")
    press(d, "R")
    roles, _ = shown(d)
    check("R: the overview with head roles, the overview's plot command", "head roles" in roles["where"]
          and roles["command"] == text["command"], repr(roles))
    press(d, "R")
    press(d, "2")
    same_as_plot(d, "overview-r2", "overview, layer 0, head 0, r = 2")
    press(d, "3")
    check("3: r = 3 was not exported, and the key says so", "r = 3 is not in this page" in status(d), status(d))
    check("3: the view stays", "r = 2" in shown(d)[0]["where"])
    press(d, "l")
    check("l: the log scale was not exported, and the key says so", "one colour scale" in status(d), status(d))
    press(d, "s")
    check("s: a page saves no files, and says so", "saves no files" in status(d), status(d))
    press(d, "c")
    for _ in range(50):  # the clipboard answers later
        if "the plot command" in status(d):
            break
        time.sleep(0.02)
    copied = d.execute_script("return window.getSelection().toString()")
    check("c: the plot command copied, or selected for Ctrl+C", ("copied the plot command" in status(d)) or
          (copied == d.find_element(By.ID, "command").text and "selected" in status(d)), status(d))
    press(d, "1")
    press(d, "a")
    press(d, "o")
    back = shown(d)[0]["where"]
    check("1 a o: back to the map of layer 0, mean over heads", back.startswith("attention, layer 0, mean"), back)
    return rows


def hover_and_pin(d, rows):
    """Hover reads the two pieces and the value of plot's CSV (rows: of the map on screen); a
    click pins a row and column over the picture."""
    q, k = len(rows) - 1, 1
    tip, (x, y) = hover_cell(d, q, k)
    row = rows[q]
    lines = tip.split("\n")
    ok = len(lines) == 3 and row["query_token"] in lines[0] and lines[2].startswith("p = ")
    check("hover: the query piece, the key piece and the value", ok, repr(tip))
    if ok:
        check("hover: the value is plot's CSV's", abs(float(lines[2][4:]) - float(row["k%d" % k])) <= 0.0006,
              "%s against %s" % (lines[2], row["k%d" % k]))
    masked, _ = hover_cell(d, 0, len(rows) - 1)
    check("hover: a masked cell says masked", masked.endswith("masked"), repr(masked))
    _, before = shown(d)
    hover_cell(d, q, k)
    ActionChains(d, duration=0).click().perform()
    check("click: pins the token", "pinned row and column %d" % q in status(d), status(d))
    painted = d.execute_script("""
      const c = document.getElementById("overlay"), g = PAGE.frames[PAGE.states[seqrepPage.state()].f].grid;
      const y = Math.floor(g[1] + arguments[0] * g[2]), x = Math.floor(g[0] + arguments[0] * g[2]);
      const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      const alpha = (i, j) => px[4 * (j * c.width + i) + 3];
      let row = false, col = false;
      for (let i = 0; i < c.width; i++) row = row || alpha(i, y) > 0;
      for (let j = 0; j < c.height; j++) col = col || alpha(x, j) > 0;
      return [row, col, seqrepPage.pinned()];""", q)
    check("click: the overlay outlines the pinned row and column", painted == [True, True, q], repr(painted))
    _, after = shown(d)
    check("click: the picture under the overlay is unchanged", before == after)


def snapshots(d):
    """[ and ] step through the snapshots of a series' page, the layer and head kept."""
    where = lambda: d.find_element(By.ID, "where").text
    check("series: the last snapshot first", where().endswith("step 20 (2 of 2)"), where())
    press(d, "\ue015")  # down: head 0
    press(d, "[")
    check("series: [ shows the snapshot before, same map", where() == "attention, layer 1, head 0, r = 1, "
          "step 10 (1 of 2)", where())
    press(d, "[")
    check("series: [ on the first says so", "snapshots are 1..2" in status(d), status(d))
    press(d, "]")
    check("series: ] the one after", where().endswith("step 20 (2 of 2)"), where())


def logs(d):
    """No console message of level warning or worse; no request but the page and data: URIs."""
    console = [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    check("no console error or warning", not console, repr(console[:3]))
    page, urls, others = "file://" + PAGE, [], []
    for entry in d.get_log("performance"):
        m = json.loads(entry["message"])["message"]
        if m["method"] == "Network.requestWillBeSent":
            p = m["params"]  # the page's requests, and those of the browser's own first tab
            (urls if p.get("documentURL") == page else others).append(p["request"]["url"])
    check("the network log holds the page's own request", page in urls, repr(urls[:3]))
    away = [u for u in urls if u != page and not u.startswith("data:")]
    away += [u for u in others if not u.startswith(("chrome:", "chrome-untrusted:", "about:", "data:"))]
    check("no request leaves the page", not away, repr(away[:5]))


main()
