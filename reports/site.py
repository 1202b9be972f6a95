"""A lab's static view over a folder of run folders (``tablecert site RUNS --out SITE``).

Every run folder under RUNS (a folder holding ``run.db`` and ``summary.json``) is read through
what the run wrote for its readers: ``summary.json`` (verdict, vendor, suite, causes) and, between
two consecutive builds of one vendor on one suite, :func:`tablecert.reports.run_diff.run_diff`
(what ``tablecert diff`` prints). The site is plain HTML files, style inline, no script, no
network: ``index.html`` (every vendor, its builds and latest verdict; the same as data in
``index.json``, schema ``tablecert-site-index/1`` shipped in tablecert/schemas/), one page per vendor (its
builds in order with their verdicts, and each cause's failing vectors across the builds), one
diff page per two consecutive builds, and links to each run's ``report.html``. The same run
folders give the same bytes (nothing from the clock; builds ordered by the time each run
finished, then by folder).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from tablecert.harness.lab_files import write_atomically
from tablecert.harness.vendor_text import for_terminal
from tablecert.reports.html import REPORT_NAME, environment
from tablecert.reports.run_diff import RunDiff, RunDiffError, run_diff
from tablecert import __version__

TEXT_SHOWN = 200
INDEX_SCHEMA = "tablecert-site-index/1"


class SiteError(ValueError):
    """RUNS or SITE that cannot be used (not a folder, no run folder in it, SITE a file)."""


@dataclass(frozen=True)
class Build:
    """One run folder as the site lists it."""

    path: Path
    vendor: str               # the implementation's name (what groups builds)
    version: str
    build: str
    suite: str
    suite_sha256: str
    verdict: str
    finished: str
    failed: int
    causes: dict[str, int]    # cause title -> failing vectors
    faults: int
    rerun: bool = False       # a rerun of failed vectors (certify --rerun-failed): never certified

    @property
    def label(self) -> str:
        return f"{self.version} ({self.build})" + (": a rerun of failed vectors, never certified" if self.rerun else "")


def _text(value: Any) -> str:
    return for_terminal("" if value is None else value, TEXT_SHOWN)


def read_build(run_dir: Path) -> Build:
    """A run folder's entry, from its summary.json."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise SiteError(f"{run_dir / 'summary.json'}: not readable as a run summary ({err})") from None
    vendor = summary.get("vendor") or {}
    causes = (summary.get("causes") or {}).get("causes") or []
    totals = summary.get("totals") or {}
    return Build(run_dir, _text(vendor.get("name") or "?"), _text(vendor.get("version") or "?"),
                 _text(vendor.get("build") or "?"), _text(summary.get("suite") or "?"),
                 str(summary.get("suite_manifest_sha256") or ""), str(summary.get("verdict") or "incomplete"),
                 str(summary.get("finished") or summary.get("started") or ""), int(totals.get("fail") or 0),
                 {_text(c.get("cause")): int(c.get("failed") or 0) for c in causes},
                 int((summary.get("fault_totals") or {}).get("count") or 0), isinstance(summary.get("rerun_of"), dict))


def find_runs(runs: Path) -> list[Build]:
    """Every run folder under ``runs`` (its own ``suite/`` copies left out), read."""
    if not runs.is_dir():
        raise SiteError(f"{runs}: not a folder of run folders")
    found = sorted({db.parent for db in runs.rglob("run.db") if (db.parent / "summary.json").is_file()})
    if not found:
        raise SiteError(f"{runs}: holds no run folder (a folder with run.db and summary.json)")
    return [read_build(path) for path in found]


def by_vendor(builds: list[Build]) -> dict[str, list[Build]]:
    """The builds of each vendor, oldest first (by when the run finished, then by folder)."""
    out: dict[str, list[Build]] = {}
    for b in sorted(builds, key=lambda b: (b.vendor, b.finished, str(b.path))):
        out.setdefault(b.vendor, []).append(b)
    return out


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "vendor"


def page_slugs(vendors: list[str]) -> dict[str, str]:
    """Each vendor's page name, unique by construction: its :func:`slug` when no other vendor's
    name gives the same one, else the slug and the first hex digits of the sha256 of its exact
    name, as many as make it unique (names that differ only in case or punctuation, "ACME-GAMING"
    and "acme gaming", get pages of their own). A vendor's page keeps its name as long as no new
    vendor's name collides with it; the same names give the same pages."""
    by_slug: dict[str, list[str]] = {}
    for vendor in sorted(vendors):
        by_slug.setdefault(slug(vendor), []).append(vendor)
    taken = {base for base, names in by_slug.items() if len(names) == 1}
    out = {names[0]: base for base, names in by_slug.items() if len(names) == 1}
    for base, names in sorted(by_slug.items()):
        if len(names) == 1:
            continue
        digests = {name: hashlib.sha256(name.encode("utf-8")).hexdigest() for name in names}
        for width in range(8, 65):
            chosen = {name: f"{base}-{digest[:width]}" for name, digest in digests.items()}
            if len(set(chosen.values())) == len(names) and not taken & set(chosen.values()):
                break
        else:
            raise SiteError(f"vendor names whose sha256 digests collide: {', '.join(map(repr, names))}")
        taken.update(chosen.values())
        out.update(chosen)
    return out


@dataclass(frozen=True)
class Step:
    """Two consecutive builds of one vendor and what changed (None: not comparable, and why)."""

    old: Build
    new: Build
    page: str
    diff: RunDiff | None
    why_not: str = ""


def steps(page_slug: str, builds: list[Build]) -> list[Step]:
    """The steps between consecutive builds of the vendor whose pages are named ``page_slug``
    (:func:`page_slugs`: its diff pages ``diff-SLUG-I.html`` are then unique too, I having no dash)."""
    out = []
    for i, (old, new) in enumerate(zip(builds, builds[1:]), start=1):
        page = f"diff-{page_slug}-{i}.html"
        try:
            out.append(Step(old, new, page, run_diff(old.path, new.path)))
        except RunDiffError as err:
            out.append(Step(old, new, page, None, _text(err)))
    return out


def write_site(runs: Path, out: Path) -> list[Path]:
    """The site's pages into ``out`` (made); returns them, index first."""
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out}: exists and is not a folder")
    vendors = by_vendor(find_runs(runs))
    out.mkdir(parents=True, exist_ok=True)
    site = out.resolve()

    def link(build: Build) -> str:
        return Path(os.path.relpath(build.path.resolve() / REPORT_NAME, site)).as_posix()

    env = environment()
    pages: dict[str, str] = {}
    names = page_slugs(list(vendors))
    histories = {vendor: steps(names[vendor], builds) for vendor, builds in vendors.items()}
    pages["index.html"] = env.get_template("site_index.html.j2").render(
        vendors=vendors, slug=names.__getitem__, link=link, version=__version__)

    def add(name: str, text: str) -> None:
        if name in pages:         # never: page_slugs makes every name unique
            raise AssertionError(f"two site pages named {name}")
        pages[name] = text

    for vendor, builds in vendors.items():
        causes = sorted({c for b in builds for c in b.causes}, key=lambda c: (-max(b.causes.get(c, 0) for b in builds), c))
        add(f"vendor-{names[vendor]}.html", env.get_template("site_vendor.html.j2").render(
            vendor=vendor, builds=builds, causes=causes, steps=histories[vendor], link=link, version=__version__))
        for step in histories[vendor]:
            add(step.page, env.get_template("site_diff.html.j2").render(
                vendor=vendor, step=step, link=link, slug=names.__getitem__, version=__version__, text=_text))
    add("index.json", index_json(vendors, histories, link, names))
    return [write_atomically(out / name, text.encode("utf-8")) for name, text in pages.items()]


def index_json(vendors: dict[str, list[Build]], histories: dict[str, list[Step]], link: Any,
               names: dict[str, str]) -> str:
    """``index.json``: what ``index.html`` lists, for a lab's scripts: each vendor, its page, its
    builds (every :class:`Build` field but the folder, and the link to the run's report) and its
    diff pages; deterministic, as the pages are."""
    vendors_out = [{"vendor": vendor, "page": f"vendor-{names[vendor]}.html",
                    "builds": [{"report": link(b), **{f.name: getattr(b, f.name) for f in fields(Build) if f.name != "path"}}
                               for b in builds],
                    "diffs": [step.page for step in histories[vendor]]}
                   for vendor, builds in vendors.items()]
    return json.dumps({"schema": INDEX_SCHEMA, "tablecert": __version__, "vendors": vendors_out}, indent=2,
                      ensure_ascii=False) + "\n"
