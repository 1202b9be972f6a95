"""report.html of a run of 1,000,000 failures: its size, the time to write it, and how soon it is
interactive in headless chromium (opened from the file system, until its script has drawn the
first page and marked the body ready), then how long a cause filter, a tcId search and a text
search over every vector take.

The run is the demo vendor on ``edge`` (its smallest failing vectors per cause, from the run's
report data), repeated under new tcIds to 1,000,000 vectors, as tests/test_html_report.py builds
its page of a million. Wall-clock times; the machine's load is printed beside them. Target:
interactive within 2 s.

    .venv/bin/python benchmarks/bench_html_report.py [--failures N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tablecert.reports.data import load_report_data  # noqa: E402
from tablecert.reports.html import SIDECAR, failing_vectors, write_html_report  # noqa: E402
from tablecert.vectors.suites import generate  # noqa: E402
from test_html_report import headless_chromium, many  # noqa: E402
from test_reports import run_vendor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--failures", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-text-search", action="store_true",
                        help="leave out the text search over every vector (it loads all 500 chunks; on a machine "
                             "under heavy load it can outlast the driver's script timeout)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate("edge", root / "suite")
        run = run_vendor("tablecert.harness.vendors.demo_vendor:DemoVendor", root / "suite", root / "run")
        data = load_report_data(run)
        rows = many(failing_vectors(data), args.failures)
        t0 = time.perf_counter()
        path = write_html_report(data, root / "report.html", rows)
        written = time.perf_counter() - t0
        sidecar = sorted((root / SIDECAR).glob("*.js")) if (root / SIDECAR).is_dir() else []
        print(f"{args.failures:,} failures: report.html {path.stat().st_size / 1e6:.1f} MB, {len(sidecar)} sidecar "
              f"chunks {sum(p.stat().st_size for p in sidecar) / 1e6:.1f} MB, written in {written:.2f} s "
              f"(load {os.getloadavg()[0]:.1f})")
        browser = headless_chromium()
        ready, filtered, searched, texts = [], [], [], []
        for _ in range(args.repeat):
            browser.get("about:blank")
            t0 = time.perf_counter()
            browser.get(path.as_uri())       # returns once the page's load event fired: its script has run
            WebDriverWait(browser, 120, poll_frequency=0.01).until(
                lambda b: b.find_element("tag name", "body").get_attribute("data-ready"))
            ready.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            Select(browser.find_element("id", "f-cause")).select_by_value("1")
            filtered.append(time.perf_counter() - t0)
            Select(browser.find_element("id", "f-cause")).select_by_value("")
            t0 = time.perf_counter()
            browser.execute_script("const s = document.getElementById('search'); s.value = '100999999';"
                                   "s.dispatchEvent(new Event('input'));")
            WebDriverWait(browser, 60, poll_frequency=0.01).until(
                lambda b: b.execute_script("return document.getElementById('count').textContent").endswith(" of 1"))
            searched.append(time.perf_counter() - t0 - 0.15)     # less the search box's 150 ms debounce
            if args.no_text_search:
                continue
            t0 = time.perf_counter()
            browser.execute_script("const s = document.getElementById('search'); s.value = 'commission';"
                                   "s.dispatchEvent(new Event('input'));")
            WebDriverWait(browser, 300, poll_frequency=0.05).until(
                lambda b: b.execute_script("return document.getElementById('count').textContent").endswith(" of 1") is False
                and b.execute_script("return document.getElementById('count').textContent").startswith("vectors"))
            texts.append(time.perf_counter() - t0 - 0.15)
        print(f"interactive (first page drawn) in {statistics.median(ready):.2f} s median of {args.repeat} "
              f"({', '.join(f'{t:.2f}' for t in ready)}); cause filter {statistics.median(filtered):.2f} s; "
              f"tcId search {statistics.median(searched):.2f} s; text search over every vector (every chunk loaded) "
              f"{f'{statistics.median(texts):.2f} s' if texts else 'not measured'} (load {os.getloadavg()[0]:.1f})")
        browser.quit()


if __name__ == "__main__":
    main()
