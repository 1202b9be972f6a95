"""The documentation site (issue 36): it builds with ``mkdocs build --strict`` (no broken link or
anchor, no page left out of the navigation), its command reference has an entry for every
subcommand and every option of the command line's own parsers, nothing it shows is loaded from the
web, and the README stays short and keeps its two set-up commands as the tests run them."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tablecert.reference import arguments, commands, help_text
from waits import HANG

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=HANG,
                          env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def sections(page: str) -> dict[str, str]:
    """The command reference's sections by their anchor: the text from one h2 to the next."""
    parts = re.split(r'<h2 id="([^"]+)"', page)
    return dict(zip(parts[1::2], parts[2::2]))


def test_every_subcommand_and_option_has_its_entry(site: Path) -> None:
    found = sections((site / "reference" / "cli.html").read_text(encoding="utf-8"))
    listed = commands()
    assert len(listed) >= 20 and {"certify", "vectors-generate", "site", "diff"} <= {c.anchor for c in listed}
    for command in listed:
        assert command.anchor in found, f"no entry for tablecert {command.name}"
        text = html.unescape(found[command.anchor])
        assert f"tablecert {command.name}" in text
        for action in arguments(command.parser):
            for option in action.option_strings:
                assert f"<code>{option}</code>" in text, f"tablecert {command.name}: no entry for {option}"
            if action.help:
                assert " ".join(help_text(command.parser, action).replace("`", "").split())[:60] in " ".join(re.sub("<[^>]+>", "", text).split()), (
                    f"tablecert {command.name} {action.dest}: its help is not in the reference")


def test_the_contract_page_is_the_published_contract(site: Path) -> None:
    contract = (REPO / "harness" / "vendor-protocol.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", contract, re.M)
    page = html.unescape(re.sub("<[^>]+>", "", (site / "vendors" / "contract.html").read_text(encoding="utf-8")))
    assert len(headings) > 5
    for heading in headings:
        assert heading.replace("`", "").strip() in page, heading


def test_every_page_is_in_the_navigation_and_nothing_is_loaded_from_the_web(site: Path) -> None:
    pages = {p.relative_to(REPO / "docs").with_suffix(".html") for p in (REPO / "docs").rglob("*.md")}
    built = {p.relative_to(site) for p in site.rglob("*.html")} - {Path("404.html")}
    assert pages == built
    for page in built:
        text = (site / page).read_text(encoding="utf-8")
        loads = re.findall(r'<(?:script|img|iframe)[^>]+src="(https?:[^"]+)"|<link[^>]+rel="stylesheet"[^>]+href="(https?:[^"]+)"',
                           text)
        assert not loads, f"{page} loads {loads} from the web"


def test_the_readme_is_short_and_keeps_its_set_up_commands() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 110
    assert "make demo     #" in readme and "make test     #" in readme and "make docs" in readme
    assert "## Layout" not in readme      # the layers live in docs/internals/layers.md (tests/test_layers.py)


def suite_vectors(suite: str, ops: str = "") -> int:
    sys.path.insert(0, str(REPO / "docs" / "hooks"))
    try:
        from generated import suite_vectors as count
    finally:
        sys.path.pop(0)
    return count(suite, ops)


def test_the_suite_sizes_the_hook_writes_are_the_suites_generated() -> None:
    """The docs hook counts a suite's vectors from its committed manifest (the one every run's
    suite is anchored against): for ``standard`` the figures measured by generating it (issue 53:
    462,578 place_odds and settle vectors, 18,117 others, 424,351 settle) and 480,695 in all."""
    assert (suite_vectors("standard"), suite_vectors("standard", "craps.place_odds,craps.settle"),
            suite_vectors("standard", "not:craps.place_odds,craps.settle"),
            suite_vectors("standard", "craps.settle")) == (480_695, 462_578, 18_117, 424_351)
    with pytest.raises(ValueError, match="holds no op craps.nothing"):
        suite_vectors("edge", "craps.nothing")


EXAMPLE = "craps.place_odds,craps.settle"


def test_the_figures_typed_outside_the_docs_are_the_suites() -> None:
    """The README and the kits' READMEs are read outside the site (no hook): each suite size they
    give is checked against the suites; benchmarks/bench_kits.py's settle count likewise."""
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"`standard` suite ({suite_vectors('standard'):,} vectors)" in readme
    for lang in ("cpp", "csharp", "java", "typescript"):
        text = " ".join((REPO / "kits" / lang / "README.md").read_text(encoding="utf-8").split())
        assert (f"vector of `edge` ({suite_vectors('edge', EXAMPLE):,})" in text
                and f"other ops' {suite_vectors('edge', 'not:' + EXAMPLE):,} vectors" in text
                and f"runs {suite_vectors('standard', EXAMPLE):,} vectors of those two ops" in text
                and f"(the other ops' {suite_vectors('standard', 'not:' + EXAMPLE):,} unsupported)" in text), lang
    bench = " ".join((REPO / "benchmarks" / "bench_kits.py").read_text(encoding="utf-8").split())
    assert f"{suite_vectors('standard', 'craps.settle'):,} cases" in bench


def test_every_page_has_headings_and_a_table_of_contents(site: Path) -> None:
    """Every page holds h2 headings, listed in its table of contents (the theme's right column)."""
    bare = []
    for page in sorted(site.rglob("*.html")):
        name = str(page.relative_to(site))
        if name == "404.html":
            continue
        text = page.read_text(encoding="utf-8")
        start, end = text.find('<nav class="md-nav md-nav--secondary"'), text.find('<div class="md-content"')
        toc = text[start:end] if 0 <= start < end else ""
        heads = re.findall(r'<h2 id="([^"]+)"', text)
        if not heads or not all(f'href="#{h}"' in toc for h in heads):
            bare.append(name)
    assert not bare, f"pages without headings or a table of contents: {bare}"


def page_text(site: Path, page: str) -> str:
    return " ".join(html.unescape(re.sub("<[^>]+>", "", (site / page).read_text(encoding="utf-8"))).split())


def test_the_home_page_shows_the_everyday_commands_and_where_results_are(site: Path) -> None:
    home = page_text(site, "index.html")
    for command in ('tablecert certify --vendor-cmd "tablecert serve-vendor --plugin demo" --suite edge',
                    "tablecert diff runs/demo-3.2.0 runs/reference", "--rerun-failed runs/demo-3.2.0",
                    "tablecert site runs --out runs-site"):
        assert command in home, command
    assert "runs/demo-3.2.0/report.html" in home and "certificate.pdf" in home
    assert "tablecert site RUNS --out SITE" in page_text(site, "labs/commands.html")


def test_the_docs_say_what_ci_runs() -> None:
    """.ci/run runs only make test (which installs the packages and the kits' toolchains first);
    no page says .ci/run runs the toolchains itself."""
    assert re.sub(r"#.*", "", (REPO / ".ci" / "run").read_text(encoding="utf-8")).split() == [
        "set", "-euo", "pipefail", "cd", '"$(dirname', '"$0")/.."', "make", "test"]
    texts = [p.read_text(encoding="utf-8") for p in [REPO / "README.md", REPO / "kits" / "toolchains.sh",
                                                      *(REPO / "docs").rglob("*.md")]]
    for text in texts:
        flat = " ".join(text.split())
        assert not re.search(r"\.ci/run`?\)? runs `?kits/toolchains", flat) and ".ci/run calls it" not in flat
    assert "CI (`.ci/run`) runs only `make test`" in " ".join((REPO / "README.md").read_text(encoding="utf-8").split())


def test_the_search_works_from_the_file_system(site: Path) -> None:
    """Opened from file:// (where the theme's search cannot start its worker), the search box finds
    the page a lab looks for, and its link opens that page."""
    from selenium.webdriver.support.ui import WebDriverWait
    from test_html_report import headless_chromium

    browser = headless_chromium()
    try:
        browser.get((site / "index.html").resolve().as_uri())
        browser.find_element("id", "tc-search").send_keys("sandbox-check")
        links = lambda b: b.execute_script(   # noqa: E731
            "return Array.from(document.querySelectorAll('#tc-search-results a'), a => a.getAttribute('href'))")
        WebDriverWait(browser, 20).until(lambda b: any("vendors/sandbox-check.html" in h for h in links(b)))
        browser.find_element("css selector", '#tc-search-results a[href*="vendors/sandbox-check.html"]').click()
        assert browser.find_element("tag name", "h1").text == "Sandbox check"
        browser.find_element("id", "tc-search").send_keys("zzzz-no-such-word")
        WebDriverWait(browser, 20).until(
            lambda b: b.find_element("id", "tc-search-results").text == "no page matches")
    finally:
        browser.quit()
