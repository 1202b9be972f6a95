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
