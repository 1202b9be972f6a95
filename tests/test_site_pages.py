"""The lab's site gives every vendor a page of its own (issue 47).

Page names come from the vendor's name, folded to lower-case letters, digits and dashes: a failing
"ACME-GAMING" and a certified "acme gaming" once shared ``vendor-acme-gaming.html``, which showed
the pass badge for both. Each run folder here is what the site reads of it (``run.db`` present,
``summary.json`` with the vendor, suite and verdict), so the names and verdicts are the test's own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tablecert.reports.site import write_site

NAMES = {"ACME-GAMING": "fail", "acme gaming": "pass", "Acme_Gaming!": "incomplete", "acme.gaming": "pass",
         "Lone Vendor": "fail"}


def _runs(root: Path, names: dict[str, str]) -> Path:
    for i, (name, verdict) in enumerate(names.items()):
        run = root / f"run-{i}"
        run.mkdir(parents=True)
        (run / "run.db").write_bytes(b"")
        (run / "summary.json").write_text(json.dumps({
            "vendor": {"name": name, "version": "1.0", "build": f"b{i}"}, "suite": "edge", "verdict": verdict,
            "finished": f"2026-01-0{i + 1}T00:00:00+00:00", "totals": {"fail": 3 if verdict == "fail" else 0}}))
    return root


def _badges(page: str) -> list[str]:
    return re.findall(r'<span class="badge v-([a-z]+)">', page)


def test_names_differing_only_in_case_and_punctuation_get_pages_of_their_own(tmp_path: Path) -> None:
    pages = write_site(_runs(tmp_path / "runs", NAMES), tmp_path / "site")
    vendor_pages = [p for p in pages if p.name.startswith("vendor-")]
    assert len(vendor_pages) == len(NAMES) == len({p.name for p in vendor_pages})
    shown = {}
    for page in vendor_pages:
        text = page.read_text(encoding="utf-8")
        title = re.search(r"<h1>(.*?)</h1>", text, re.S)
        assert title is not None
        shown[page.name] = (title.group(1), _badges(text))
    for name, verdict in NAMES.items():       # each name's own page, with its own verdict only
        own = [(page, badges) for page, (title, badges) in shown.items() if title.strip() == name]
        assert len(own) == 1 and own[0][1] == [verdict], (name, shown)
    index = pages[0].read_text(encoding="utf-8")
    links = re.findall(r'<a href="(vendor-[^"]+\.html)">', index)
    assert sorted(links) == sorted(p.name for p in vendor_pages)
    assert "vendor-lone-vendor.html" in links       # a name no other shares keeps its plain page


def test_page_names_are_unique_and_the_same_for_the_same_names() -> None:
    from tablecert.reports.site import page_slugs

    names = [*NAMES, "", "!!!", "vendor", "acme-gaming-" + "0" * 8]
    got = page_slugs(names)
    assert len(set(got.values())) == len(names)
    assert got == page_slugs(list(reversed(names)))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", s) for s in got.values()), got
    docs = " ".join((Path(__file__).parents[1] / "docs" / "labs" / "browser.md").read_text().split())
    two = page_slugs(["ACME-GAMING", "acme gaming"])      # the page names docs/labs/browser.md gives
    assert (f'"ACME-GAMING" gets `vendor-{two["ACME-GAMING"]}.html`, "acme gaming" `vendor-{two["acme gaming"]}.html`'
            in docs), two
