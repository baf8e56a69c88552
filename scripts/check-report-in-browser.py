#!/usr/bin/env python3
"""Opens a latlab HTML report in a real headless browser (Chromium driven by Selenium through
chromedriver) and checks what a reader sees:

- the page logs nothing to the console;
- no text of any plot (SVG) lies outside its plot, and no two texts of a plot overlap;
- the first screen opens with the machine line, then the verdict table first of all tables;
- every figure a run needs is drawn in that run's section (the list below, written from the
  issue that asked for them, not from the renderer's code);
- screenshots of the first screen and of one figure per study are written beside the report.

Usage:
  scripts/check-report-in-browser.py REPORT.html [--shots DIR]
  scripts/check-report-in-browser.py --selftest     (a page with a clipped title must fail,
                                                     the same page without it must pass)
Exit: 0 ok, 1 check failed, 77 no browser or Selenium here (the check did not run).
Debian: apt-get install chromium chromium-driver python3-selenium
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

# Figures each kind of run must show: (experiment, its config "experiment" or None) -> ids.
NEEDED = {
    ("rt", None): ["fig-001-8", "fig-001-11"],
    ("udp", None): ["fig-002-gaps", "fig-002-dejitter"],
    ("display", "ops"): ["fig-003-ops"],
    ("display", "cache"): ["fig-003-4", "fig-003-banner"],
    ("display", "pipeline"): ["fig-000-stages", "fig-000-speed"],
    ("display", "latency"): ["fig-keys"],
    ("display", "capacity"): ["fig-capacity"],
    ("stall", "cpu"): ["fig-003-5"],
    ("stall", "net"): ["fig-003-6"],
    ("boot", "measure"): ["fig-004-1", "fig-004-gantt"],
    ("startup", "measure"): ["fig-004-launch"],
    ("startup", "preload"): ["fig-004-preload"],
}
# One figure per study for the screenshots.
SHOTS = ["fig-001-11", "fig-002-gaps", "fig-003-4", "fig-000-stages", "fig-004-launch"]

# Runs in the page: every SVG's texts against the SVG's box, and against each other.
GEOMETRY_JS = r"""
const out = {outside: [], overlap: [], svgs: 0};
const svgs = document.querySelectorAll('svg');
out.svgs = svgs.length;
const where = (el) => {
  const f = el.closest('figure');
  const h = f && f.querySelector('h4');
  return h ? h.textContent.slice(0, 80) : '(no figure title)';
};
for (const svg of svgs) {
  // Open any <details> around it so its geometry is laid out.
  for (let d = svg.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true;
}
for (const svg of svgs) {
  const box = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
  const rects = texts.map(t => t.getBoundingClientRect());
  rects.forEach((r, i) => {
    if (r.width === 0 && r.height === 0) return;
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
      out.outside.push(`${where(svg)}: "${texts[i].textContent}" reaches outside its plot`);
    }
  });
  for (let i = 0; i < rects.length; i++) {
    for (let j = i + 1; j < rects.length; j++) {
      const a = rects[i], b = rects[j];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1 && w * h > 4) {
        out.overlap.push(`${where(svg)}: "${texts[i].textContent}" overlaps "${texts[j].textContent}"`);
      }
    }
  }
}
return out;
"""

STRUCTURE_JS = r"""
const first = document.querySelector('h2');
const firstTable = document.querySelector('table');
const runs = [...document.querySelectorAll('section.run')].map(s => ({
  anchor: s.id, experiment: s.dataset.experiment, kind: s.dataset.kind || null,
  figures: [...s.querySelectorAll('figure[data-figure]')].map(f => f.dataset.figure),
}));
return {
  machine: !!document.querySelector('#machine') && document.querySelector('#machine').textContent.trim().length > 0,
  firstH2: first ? first.id : null,
  firstTable: firstTable ? firstTable.id : null,
  runs,
};
"""


def driver():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None, "Selenium is not installed (Debian: python3-selenium)"
    chromedriver = shutil.which("chromedriver")
    if not chromedriver:
        return None, "chromedriver is not installed (Debian: chromium-driver)"
    opts = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1000", "--disable-background-networking", "--no-first-run"]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(chromedriver), options=opts), None


def check(d, path, shots=None, structure=True):
    """Problems found in the page at `path` (empty: it passed)."""
    problems = []
    t0 = time.monotonic()
    d.get("file://" + os.path.abspath(path))
    load_s = time.monotonic() - t0
    if shots:
        os.makedirs(shots, exist_ok=True)
        d.save_screenshot(os.path.join(shots, "first-screen.png"))
    for entry in d.get_log("browser"):
        problems.append(f"console: {entry.get('level')} {entry.get('message')}")
    g = d.execute_script(GEOMETRY_JS)
    if g["svgs"] == 0:
        problems.append("no plots (<svg>) in the page")
    problems += g["outside"] + g["overlap"]
    if structure:
        s = d.execute_script(STRUCTURE_JS)
        if not s["machine"]:
            problems.append("the first screen has no machine line (#machine)")
        if s["firstH2"] != "verdicts":
            problems.append(f"the first section is '{s['firstH2']}', not the verdict table's ('verdicts')")
        if s["firstTable"] != "verdict-table":
            problems.append(f"the first table is '{s['firstTable']}', not the verdict table")
        for run in s["runs"]:
            need = NEEDED.get((run["experiment"], run["kind"]), [])
            for f in need:
                if f not in run["figures"]:
                    problems.append(f"{run['anchor']} ({run['experiment']} {run['kind'] or ''}) lacks figure {f}")
        if shots:
            from selenium.webdriver.common.by import By
            for f in SHOTS:
                els = d.find_elements(By.CSS_SELECTOR, f'figure[data-figure="{f}"]')
                if els:
                    d.execute_script("arguments[0].scrollIntoView()", els[0])
                    els[0].screenshot(os.path.join(shots, f + ".png"))
    return problems, g["svgs"], load_s


CLIPPED = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body>
<h2 id="x">plot</h2><figure><h4>a plot</h4>
<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100" viewBox="0 0 300 100">
<rect width="300" height="100" fill="white"/>
<text x="20" y="50" font-size="12">inside</text>
{title}
</svg></figure></body></html>"""


def selftest(d):
    """A plot whose title runs out of it must be caught; the same plot without it must pass."""
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "clipped.html")
        good = os.path.join(tmp, "clean.html")
        long_title = '<text x="150" y="14" font-size="14" text-anchor="middle">ient CPU (emulated: it idles in proportion to its work): wire rate and dropped frames</text>'
        with open(bad, "w") as f:
            f.write(CLIPPED.replace("{title}", long_title))
        with open(good, "w") as f:
            f.write(CLIPPED.replace("{title}", ""))
        p_bad, _, _ = check(d, bad, structure=False)
        p_good, _, _ = check(d, good, structure=False)
    if not any("reaches outside its plot" in p for p in p_bad):
        print("check-report: SELFTEST FAILED — a clipped title was not caught", file=sys.stderr)
        return 1
    if p_good:
        print("check-report: SELFTEST FAILED — a clean plot was refused: " + "; ".join(p_good), file=sys.stderr)
        return 1
    print(f"check-report: selftest ok — the clipped title was caught ({p_bad[0]}), the clean page passed")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", nargs="?")
    ap.add_argument("--shots", help="directory for the screenshots (default: beside the report)")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if not a.selftest and not a.report:
        ap.error("give a report, or --selftest")
    d, why = driver()
    if d is None:
        print(f"check-report: SKIPPED — {why}", file=sys.stderr)
        return 77
    try:
        if a.selftest:
            return selftest(d)
        if not os.path.isfile(a.report):
            print(f"check-report: no such file '{a.report}'", file=sys.stderr)
            return 1
        shots = a.shots or os.path.splitext(os.path.abspath(a.report))[0] + "-shots"
        problems, svgs, load_s = check(d, a.report, shots=shots)
    finally:
        d.quit()
    if problems:
        print(f"check-report: FAILED — {len(problems)} problem(s):", file=sys.stderr)
        for p in problems[:60]:
            print("  " + p, file=sys.stderr)
        return 1
    size = os.path.getsize(a.report)
    print(f"check-report: ok — {svgs} plots, no text outside or overlapping, verdict table first, "
          f"every needed figure drawn; {size / 1e6:.1f} MB, loaded in {load_s:.2f} s; screenshots in {shots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
