"""Results in the browser (issue 36): report.html in every run folder and the lab's site over many.

Two builds of the demo vendor on ``edge``: 3.2.0 with its three bugs, and 3.2.1 with the
commission bug fixed (``FixedCommission`` of tests/rerun_vendors.py). Without a browser: the page is the same
bytes for the same run, holds every cause with its shared factor, each cause's smallest failing
vectors field by field (the demo's commission one commission unit high, as its docstring
publishes), the replay line, and shows a hostile vendor's name as text. The site lists both builds
and its diff page says the commission cause was fixed and the other two are still failing. In
Debian's chromium (headless, driven by selenium through chromium-driver; installed by
.ci/system-packages): the pages open without console errors, and the cause filter, the op filter,
the search and the pager change what is shown, on the real run and on a page past the inline
limit, its vectors in sidecar chunks (a page of 1,000,000 failures, and how fast it becomes
interactive, is benchmarks/bench_html_report.py's).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tablecert.harness.vendors.demo_vendor import DemoVendor
from tablecert.reports import write_reports
from tablecert.reports.data import load_report_data
from tablecert.reports.html import CHUNK_ROWS, COLUMN_BASE, EMBEDDED_ROWS, NOT_ANALYSED, SIDECAR, FailingVector, failing_vectors, how_they_differ, replay_command, write_html_report
from tablecert.reports.site import write_site
from test_reports import run_vendor
from waits import HANG


class HostileName(DemoVendor):
    name = "Demo</script><script>document.title='owned'</script>\u202e<b>x"


@pytest.fixture(scope="module")
def runs(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lab's folder of runs: the two builds, each with its PDFs and report.html."""
    root = tmp_path_factory.mktemp("runs")
    for name, spec in (("demo-3.2.0", "tablecert.harness.vendors.demo_vendor:DemoVendor"),
                       ("demo-3.2.1", "rerun_vendors:FixedCommission")):
        run_vendor(spec, edge, root / name)
        write_reports(root / name)
    return root


def test_report_html_is_the_same_bytes_for_the_same_run(runs: Path, tmp_path: Path) -> None:
    first = (runs / "demo-3.2.0" / "report.html").read_bytes()
    copy = tmp_path / "copy"
    shutil.copytree(runs / "demo-3.2.0", copy)
    write_reports(copy)
    assert (copy / "report.html").read_bytes() == first
    assert b"http://" not in first and b"https://" not in first       # nothing from the network


def test_a_run_folder_holds_only_names_the_harness_knows_as_its_own(runs: Path) -> None:
    """Everything the reports write into a run folder is a name the harness counts as its own, so a
    folder of a run that concluded is never refused as "not a run folder" (RUN_FOLDER_NAMES)."""
    from tablecert.harness.record.run_folder import RUN_FOLDER_NAMES

    names = {p.name for p in (runs / "demo-3.2.0").iterdir()}
    assert "report.html" in names and names <= RUN_FOLDER_NAMES, names - RUN_FOLDER_NAMES


def test_a_link_at_report_html_is_replaced_not_followed(runs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(runs / "demo-3.2.0", copy)
    precious = tmp_path / "precious.html"
    precious.write_bytes(b"the lab's own file\n")
    (copy / "report.html").unlink()
    (copy / "report.html").symlink_to(precious)
    write_reports(copy)
    assert precious.read_bytes() == b"the lab's own file\n"
    assert not (copy / "report.html").is_symlink() and b"NOT CERTIFIED" in (copy / "report.html").read_bytes()


def embedded(page: str) -> tuple[dict[str, Any], list[list[Any]]]:
    """The page's index and its vectors' lines (inline chunks), repeated strings looked up."""
    index = json.loads(re.search(r'<script type="application/json" id="index">(.*?)</script>', page, re.S).group(1))
    index["cause"] = [ord(c) - COLUMN_BASE for c in index["cause"]]
    index["op"] = [ord(c) - COLUMN_BASE for c in index["op"]]
    index["tc"] = list(itertools.accumulate(index["tc"]))
    chunks = re.findall(r'<script type="text/plain" class="chunk" data-chunk="\d+">(.*?)</script>', page, re.S)
    strings = index["strings"]
    rows = []
    for line in "\n".join(chunks).split("\n"):
        file, replay, differences, expected, actual, case, config = json.loads(line)
        rows.append([strings[file], strings[replay], [(strings[p], e, a) for p, e, a in differences], expected, actual,
                     case, strings[config]])
    return index, rows


def test_the_page_holds_causes_factors_vectors_field_by_field_and_the_replay_line(runs: Path) -> None:
    page = (runs / "demo-3.2.0" / "report.html").read_text(encoding="utf-8")
    assert "NOT CERTIFIED" in page
    # the demo's three bugs (harness/vendors/demo_vendor.py's docstring), each a cause with its factor
    assert "commission one commission unit high" in page and "commission_rounding = down" in page
    assert "total_win too high" in page and "player bonus hand labelled wrongly" in page
    index, rows = embedded(page)
    assert len(rows) == len(index["tc"]) == len(index["cause"]) >= 3
    commission = [r for r, op in zip(rows, index["op"]) if index["ops"][op] == "craps.place_odds"]
    assert commission
    for file, replay, differences, expected, actual, case, config in commission:
        assert replay.endswith(".jsonl") and file.endswith(".jsonl.gz"), (replay, file)
        [(path, oracle, vendor)] = differences
        unit = json.loads(config)["commission_unit"]
        assert path == "commission" and int(vendor) - int(oracle) == unit       # one commission unit high
        assert json.loads(expected)["commission"] == int(oracle)
    assert re.search(r'REPLAY = "[^"]+";', page) and '" < failures/" + S[d[1]]' in page


def test_the_page_lists_every_failing_vector_under_its_cause(runs: Path) -> None:
    """Not only each cause's smallest: every failure run.db holds, each once, under the cause the
    analysis (summary.json's causes, as the findings count them) filed it under."""
    from tablecert.harness.store import open_reader

    page = (runs / "demo-3.2.0" / "report.html").read_text(encoding="utf-8")
    index, rows = embedded(page)
    with open_reader(runs / "demo-3.2.0" / "run.db") as db:
        stored = sorted((f.file, f.op, f.tc_id) for f in db.failures())
    listed = sorted((row[0], index["ops"][op], tc) for row, op, tc in zip(rows, index["op"], index["tc"]))
    assert listed == stored and len(stored) > 3 * 3            # more than the three smallest of three causes
    causes = json.loads((runs / "demo-3.2.0" / "summary.json").read_text())["causes"]["causes"]
    assert [index["cause"].count(i) for i in range(len(causes))] == [c["failed"] for c in causes]
    assert index["cause"] == sorted(index["cause"])            # cause by cause, most severe first


def test_failures_past_the_analysis_window_are_listed_under_a_last_cause(runs: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablecert.harness.answers import causes
    from tablecert.harness.record.seal import run_key, seal_folder

    monkeypatch.setattr(causes, "CAUSE_WINDOW", 5)
    run = shutil.copytree(runs / "demo-3.2.0", tmp_path / "run")
    seal_folder(run, run_key())     # the analysis is made (and kept) when the run is sealed: with the window of 5
    data = load_report_data(run)
    page = write_html_report(data, tmp_path / "report.html").read_text(encoding="utf-8")
    index, rows = embedded(page)
    last = len(data.causes.causes)
    assert data.causes.not_analysed == len(rows) - 5 > 0
    assert index["cause"].count(last) == data.causes.not_analysed and NOT_ANALYSED in page


@pytest.mark.parametrize(("meta", "line"), [
    ({"adapter": "subprocess", "target": ["/opt/acme/bin/craps engine", "--stdio"]}, "'/opt/acme/bin/craps engine' --stdio"),
    ({"adapter": "python", "target": "demo"}, "tablecert serve-vendor --plugin demo"),
    ({"adapter": "http", "target": "http://10.0.0.5:8080/"}, "VENDOR"),
    ({}, "VENDOR"),
])
def test_the_replay_line_starts_the_vendor_the_run_started(meta: dict[str, Any], line: str) -> None:
    assert replay_command(meta) == line


def cells(page: str, table: str, column: int) -> list[str]:
    """The text of one column of a table of the page, row by row (the header row left out)."""
    body = re.search(rf'<table id="{table}">(.*?)</table>', page, re.S).group(1)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)[1:]
    return [re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[column]).strip() for row in rows]


def test_every_cause_says_how_its_values_differ(runs: Path) -> None:
    """The "how the values differ" cell is filled for every kind of cause: the demo's two amount
    causes by their measure, its label cause (the joker hands) by what each label was answered as
    (summary.json's transitions, the demo's two straights labelled wrongly among them); a hand
    suite's label cause (no detail, transitions only), a cause with only its smallest failures and
    one with neither, built from those, likewise."""
    page = (runs / "demo-3.2.0" / "report.html").read_text(encoding="utf-8")
    how = cells(page, "causes", 5)
    causes = json.loads((runs / "demo-3.2.0" / "summary.json").read_text())["causes"]["causes"]
    assert len(how) == len(causes) == 3 and all(how)
    for text, cause in zip(how, causes):
        if cause["kind"] == "amount":
            assert text == cause["detail"] != ""
        else:
            assert cause["detail"] == "" and cause["transitions"]
            for change, n in cause["transitions"].items():
                assert f"{change.replace(' -> ', ' answered as ')} ({n:,})" in html_text(text)
    label = next(c for c in load_report_data(runs / "demo-3.2.0").causes.causes if c.kind == "label")
    hands = replace(label, detail="", examples=[], transitions=[("four_of_a_kind -> none", 7)] * 8)
    assert how_they_differ(hands) == "; ".join(["four_of_a_kind answered as none (7)"] * 6) + "; and 2 more (summary.json lists them)"
    first = label.examples[0]
    assert how_they_differ(replace(label, transitions=[])) == (
        f"e.g. tcId {first.tc_id}: {first.differences[0].path} {json.dumps(first.differences[0].expected)} answered as "
        f"{json.dumps(first.differences[0].actual)}")
    assert how_they_differ(replace(label, transitions=[], examples=[])) == "label: see its vectors below"


def html_text(text: str) -> str:
    import html

    return html.unescape(text)


PARTIAL = "partial_vendor:CrapsOnly"
CRAPS = "craps.odds_limits,craps.place_odds,craps.settle"


def certify_partial(edge: Path, out: Path, *more: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-plugin", PARTIAL, "--suite", "edge",
                           "--suite-dir", str(edge), *more, "--out", str(out)],
                          capture_output=True, text=True, timeout=HANG, env=env)


def pdf_text(path: Path, *pages: str) -> str:
    return " ".join(subprocess.run(["pdftotext", *pages, str(path), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())


def test_a_partial_implementation_is_told_the_require_line_that_certifies_it(edge: Path, tmp_path: Path) -> None:
    """A vendor declaring only the craps ops, on edge with every op required: NOT CERTIFIED, and the
    terminal, report.html and findings.pdf name the ops missing and the --require line that would
    certify what it declared (the findings on page 1); run with that line it is CERTIFIED FOR 3 OF 6
    OPS (exit 0). The same
    run folder given another command is refused naming the command that started its run."""
    first = certify_partial(edge, tmp_path / "all")
    assert first.returncode == 1, first.stderr
    missing = "required ops not tested (not declared in the vendor's hello): paigow.player_bonus, paigow.banker_bonus, paigow.settle"
    hint = (f"to certify what it declares, run again with --require {CRAPS} (the certificate then says CERTIFIED FOR 3 "
            "OF 6 OPS and names the ops not tested)")
    assert f"why: {missing}; {hint}" in first.stdout
    page = html_text(re.sub(r"<[^>]+>", "", (tmp_path / "all" / "report.html").read_text(encoding="utf-8")))
    assert f"{missing}; {hint}" in page
    findings = pdf_text(tmp_path / "all" / "findings.pdf", "-f", "1", "-l", "1")     # on page 1
    assert f"--require {CRAPS}" in findings and "paigow.banker_bonus" in findings
    scoped = certify_partial(edge, tmp_path / "craps", "--require", CRAPS)
    assert scoped.returncode == 0, scoped.stdout + scoped.stderr
    assert "CERTIFIED FOR 3 OF 6 OPS" in pdf_text(tmp_path / "craps" / "certificate.pdf")
    again = certify_partial(edge, tmp_path / "all", "--require", CRAPS)
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1
    assert again.stderr.strip().endswith(
        f"holds a run already (run.db): give a new --out, or --resume to continue that run (its command was: "
        f"tablecert certify --vendor-plugin {PARTIAL} --suite edge --out {tmp_path / 'all'})"), again.stderr


def test_the_replay_line_is_copied_whole_in_the_browser(runs: Path, browser: Any) -> None:
    """A failing vector's replay line is shown whole (wrapped in its box, not cut) and its copy
    button puts that line, and nothing else, on the clipboard or in the selection."""
    open_page(browser, runs / "demo-3.2.0" / "report.html")
    line = browser.find_element("css selector", ".vec code.replay")
    text = line.text
    assert text.endswith(".jsonl") and " < failures/" in text
    assert browser.execute_script("var e = arguments[0]; return e.scrollWidth <= e.clientWidth + 1", line)
    button = browser.find_element("css selector", ".vec button.copy")
    button.click()
    assert browser.execute_script("return window.getSelection().toString()") == text
    assert button.text in ("copied", "selected: Ctrl+C")


def test_search_matches_the_words_of_the_causes(runs: Path, browser: Any) -> None:
    """"joker" finds the vectors whose hands hold the joker (cards ``JK``) and those of the cause
    every one of whose failures has one; a hand name as words ("three of a kind") finds the
    vectors whose answers name that label (``three_of_a_kind``)."""
    from selenium.webdriver.support.ui import WebDriverWait

    open_page(browser, runs / "demo-3.2.0" / "report.html")
    index, rows = embedded((runs / "demo-3.2.0" / "report.html").read_text(encoding="utf-8"))
    joker = {str(tc) for tc, row in zip(index["tc"], rows) if '"JK"' in row[5]}
    assert joker
    search = browser.find_element("id", "search")
    search.send_keys("joker")
    WebDriverWait(browser, 10).until(lambda b: set(shown_tc_ids(b)) == joker)
    three = {str(tc) for tc, row in zip(index["tc"], rows) if "three_of_a_kind" in json.dumps(row)}
    assert three
    search.clear()
    search.send_keys("three of a kind")
    WebDriverWait(browser, 10).until(lambda b: set(shown_tc_ids(b)) == three)


def test_a_hostile_vendor_name_is_shown_as_text(edge: Path, tmp_path: Path) -> None:
    run = run_vendor(f"{__name__}:HostileName", edge, tmp_path / "hostile")
    write_reports(run)
    page = (run / "report.html").read_text(encoding="utf-8")
    assert "</script><script>document.title" not in page and "\u202e" not in page
    assert "&lt;/script&gt;&lt;script&gt;document.title=" in page and "\\u202e" in page


def test_the_site_lists_both_builds_and_the_fix_between_them(runs: Path, tmp_path: Path) -> None:
    pages = write_site(runs, tmp_path / "site")
    assert [p.name for p in pages] == ["index.html", "vendor-demo-craps-pai-gow.html", "diff-demo-craps-pai-gow-1.html",
                                       "index.json"]
    again = write_site(runs, tmp_path / "again")
    assert [p.read_bytes() for p in pages] == [p.read_bytes() for p in again]
    vendor = pages[1].read_text(encoding="utf-8")
    assert vendor.index("3.2.0 (3.2.0+demo") < vendor.index("3.2.1 (3.2.1+demo")
    diff = pages[2].read_text(encoding="utf-8")
    fixed = diff[diff.index('data-status="fixed"'):]
    still = diff[diff.index('data-status="still failing"'):diff.index('data-status="fixed"')]
    assert "commission one commission unit high" in fixed.split("</table>")[0]
    assert "total_win too high" in still and "player bonus hand labelled wrongly" in still
    assert "nothing regressed" in diff
    for link in re.findall(r'href="([^"]+report\.html)"', vendor):
        assert (pages[1].parent / link).resolve().is_file(), link


def test_site_refuses_a_folder_without_runs_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "tablecert", "site", str(tmp_path), "--out", str(tmp_path / "s")],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no run folder" in done.stderr, done.stderr



def test_the_scope_is_tables_not_json(runs: Path) -> None:
    """Every op of the suite with whether the lab required it and whether it was tested, and the
    bets and table features with their vectors (summary.json's scope), as rows, not JSON lists."""
    page = (runs / "demo-3.2.0" / "report.html").read_text(encoding="utf-8")
    scope = json.loads((runs / "demo-3.2.0" / "summary.json").read_text())["scope"]
    part = page[page.index('<div id="scope-detail">'):page.index("</div>", page.index('<div id="scope-detail">'))]
    rows = re.findall(r"<tr><td><code>([^<]+)</code></td><td>(yes|no)</td><td>(yes|no)", part)
    assert rows == [(op, "yes", "yes") for op in scope["suite_ops"]]
    features = dict(re.findall(r"<tr><td><code>([^<]+)</code></td><td>([\d,]+)</td></tr>", part))
    assert features == {k: f"{v:,}" for k, v in scope["features_certified"].items()} and "bet:dont_pass" in features
    assert "[&#39;" not in part and "[&quot;" not in part and '["' not in part


def test_an_rng_folder_gets_its_tables_in_report_html(tmp_path: Path) -> None:
    """``tablecert rng`` writes report.html beside its PDF: the outcome battery's tests (a vendor
    that cuts the deck instead of shuffling rejected on decks.cut_check, as test_rng_cli shows),
    then, once ``--raw --scaling`` ran in the same folder, the raw battery and the exact scaling
    (w % 6 short of 1/6 by 2/(3 * 2^32), as test_rng_raw works out)."""
    from test_rng_cli import run_rng
    from test_rng_raw import run_raw

    from tablecert.reports.rng_html import rng_page

    out = tmp_path / "rng"
    done = run_rng(out, "biased", "decks_cut_sometimes", "4", extra=("--rolls", "0", "--decks", "5000", "--quiet"))
    assert done.returncode == 1 and "report.html" in done.stdout, done.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    summary = json.loads((out / "summary.json").read_text())
    rejected = re.findall(r'<tr class="fail"><td><code>([^<]+)</code>', page)
    assert rejected == summary["failed"] and "decks.cut_check" in rejected
    assert len(re.findall(r"<tr(?: class=\"fail\")?><td><code>", page)) == len(summary["tests"])
    assert 'id="raw-tests"' not in page
    done, raw = run_raw(out, "modulo-die")
    assert done.returncode == 1
    page = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="rng-tests"' in page and 'id="raw-tests"' in page
    die = re.search(r'<table id="raw-scaling">.*?<tr class="fail"><td>die \(6\)</td>.*?<td class="n">([^<]+)</td><td class="n">0</td><td>fail</td>',
                    page, re.S)
    assert die and die.group(1) == raw["scaling"][0]["max_deviation"] == str(Fraction(2, 3 << 32))
    assert rng_page(out) == (out / "report.html").read_bytes()              # from the summaries alone


# -- in a real browser
def many(rows: Iterable[FailingVector], n: int) -> list[FailingVector]:
    """``n`` failing vectors: the run's own, again and again under new tcIds (a run of n failures)."""
    rows = list(rows)
    return [replace(rows[i % len(rows)], tc_id=100_000_000 + i) for i in range(n)]


def headless_chromium() -> Any:
    """Debian's chromium, headless, driven through chromium-driver (its console messages kept)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, "chromium and chromium-driver are missing: bash .ci/system-packages installs them"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


@pytest.fixture(scope="module")
def browser() -> Any:
    session = headless_chromium()
    yield session
    session.quit()


def open_page(browser: Any, path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(path.resolve().as_uri())
    if path.name.startswith("report"):
        WebDriverWait(browser, 60).until(lambda b: b.find_element("tag name", "body").get_attribute("data-ready"))
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def count(browser: Any) -> str:
    return browser.execute_script("return document.getElementById('count').textContent")


def shown_tc_ids(browser: Any) -> list[str]:
    """The tcIds of the vectors drawn, read in one script (a redraw between reads leaves no stale element)."""
    heads = browser.execute_script("return Array.from(document.querySelectorAll('.vec h3'), h => h.textContent)")
    return [re.match(r"tcId (\d+)", h).group(1) for h in heads]


def test_report_html_in_the_browser_filters_and_searches(runs: Path, browser: Any) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    open_page(browser, runs / "demo-3.2.0" / "report.html")
    index, _ = embedded((runs / "demo-3.2.0" / "report.html").read_text(encoding="utf-8"))
    total = len(index["tc"])
    assert total > 50                                                      # every failing vector, 50 a page
    assert count(browser) == f"vectors 1\u201350 of {total}" and shown_tc_ids(browser) == [str(t) for t in index["tc"][:50]]
    browser.find_element("id", "next").click()
    assert shown_tc_ids(browser) == [str(t) for t in index["tc"][50:100]]
    browser.find_elements("css selector", "tr.cause")[0].click()          # the first cause's vectors
    first = [i for i, c in enumerate(index["cause"]) if c == 0]
    assert count(browser).endswith(f"of {len(first)}")
    assert shown_tc_ids(browser) == [str(index["tc"][i]) for i in first[:50]]
    Select(browser.find_element("id", "f-cause")).select_by_value("")
    Select(browser.find_element("id", "f-op")).select_by_visible_text("paigow.settle")
    settle = [i for i, op in enumerate(index["op"]) if index["ops"][op] == "paigow.settle"]
    assert shown_tc_ids(browser) == [str(index["tc"][i]) for i in settle[:50]]
    Select(browser.find_element("id", "f-op")).select_by_value("")
    target = str(next(t for t in reversed(index["tc"]) if index["tc"].count(t) == 1))
    browser.find_element("id", "search").send_keys(target)
    WebDriverWait(browser, 10).until(lambda b: shown_tc_ids(b) == [target])
    assert "< failures/" in browser.find_element("css selector", ".vec code.replay").text


def test_the_site_in_the_browser(runs: Path, browser: Any, tmp_path: Path) -> None:
    pages = write_site(runs, tmp_path / "site")
    for page in pages:
        open_page(browser, page)
    open_page(browser, pages[0])
    browser.find_element("link text", "Demo Craps & Pai Gow").click()
    assert browser.find_element("tag name", "h1").text == "Demo Craps & Pai Gow"
    browser.find_elements("link text", "report.html")[-1].click()
    assert browser.find_element("tag name", "body").get_attribute("data-ready") == "1"
    assert "3.2.1" in browser.title


# Past EMBEDDED_ROWS the vectors' lines go to sidecar chunks; one chunk and one row more make the
# last chunk a single row. The page of 1,000,000 (500 chunks) is benchmarks/bench_html_report.py's.
MANY = EMBEDDED_ROWS + CHUNK_ROWS + 1


@pytest.mark.slow
def test_a_page_of_sidecar_chunks_filters_and_pages(runs: Path, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    data = load_report_data(runs / "demo-3.2.0")
    rows = many(failing_vectors(data), MANY)
    page = write_html_report(data, tmp_path / "report-many.html", rows)
    assert len(list((tmp_path / SIDECAR).glob("*.js"))) == MANY // CHUNK_ROWS + 1      # its vectors' lines beside it
    open_page(browser, page)
    order = sorted(range(len(rows)), key=lambda i: rows[i].cause)       # cause by cause, each in run order
    assert count(browser) == f"vectors 1\u201350 of {MANY:,}"
    assert shown_tc_ids(browser) == [str(rows[i].tc_id) for i in order[:50]]
    browser.find_element("id", "next").click()
    assert count(browser) == f"vectors 51\u2013100 of {MANY:,}"
    assert shown_tc_ids(browser) == [str(rows[i].tc_id) for i in order[50:100]]
    Select(browser.find_element("id", "f-cause")).select_by_value("0")
    per_cause = sum(1 for r in rows if r.cause == 0)
    assert count(browser) == f"vectors 1\u201350 of {per_cause:,}"
    browser.find_element("id", "search").send_keys(str(rows[-1].tc_id))                 # the last vector's tcId
    WebDriverWait(browser, 30).until(lambda b: count(b) in ("vectors 1\u20131 of 1", "no vector matches"))
    assert (count(browser) == "vectors 1\u20131 of 1") == (rows[-1].cause == 0)
