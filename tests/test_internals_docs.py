"""The internals pages name modules that exist (issue 52: docs/internals/pipeline.md pointed to
modules that had moved). Every ``*.py`` a page of docs/internals/ names must be there: a path
(``harness/run/judging.py``) from the repository's root; a bare file name (``judging.py``) in one of
the folders the same paragraph (or table row) names (``harness/run/``, or a path's folder). Every
folder named must exist too, from the root or inside another folder the paragraph names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted((REPO / "docs" / "internals").glob("*.md"))
PY = re.compile(r"(?<![\w./-])((?:[\w-]+/)*[\w-]+\.py)\b")
FOLDER = re.compile(r"(?<![\w./-])((?:[\w-]+/)+)(?![\w-])")


def paragraphs(text: str) -> list[str]:
    """Blank-line paragraphs; each table row a paragraph of its own."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        rows = [line for line in block.splitlines() if line.lstrip().startswith("|")]
        out += rows if rows else [block]
    return out


def missing(text: str) -> list[str]:
    """What ``text`` (one page) names that does not exist, one line each."""
    problems = []
    for paragraph in paragraphs(text):
        files = PY.findall(paragraph)
        folders = {f for f in FOLDER.findall(paragraph) if not f.startswith(("http", "www"))}
        folders |= {f.rsplit("/", 1)[0] + "/" for f in files if "/" in f}
        # a folder is named from the root, or inside another folder of the paragraph (`harness/`: `run/`)
        found = {f for f in folders if (REPO / f).is_dir()}
        found |= {p + f for f in folders - found for p in found if (REPO / p / f).is_dir()}
        problems += [f"folder {f}" for f in sorted(folders) if not any(g.endswith(f) for g in found)]
        folders = found
        for name in files:
            if name.rsplit("/", 1)[-1].removesuffix(".py").isupper():
                continue                                   # a placeholder: benchmarks/NAME.py
            if "/" in name:
                if not (REPO / name).is_file():
                    problems.append(name)
            elif not any((REPO / folder / name).is_file() for folder in folders | {""}):
                problems.append(f"{name} (in none of {', '.join(sorted(folders)) or 'no folder named'})")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_module_an_internals_page_names_exists(page: Path) -> None:
    assert not missing(page.read_text(encoding="utf-8")), missing(page.read_text(encoding="utf-8"))


def test_the_check_finds_a_module_that_moved() -> None:
    """The check can fail: the paragraph of pipeline.md as it was at c5237c0 names harness/run/'s
    ``instance.py`` and ``vectors.py``, which had moved to harness/instance/."""
    before = ("goes through `harness/run/`: a `VendorInstance` (`instance.py`: open, greet), "
              "`judge(instance, unit)` (`judging.py`, with `vectors.py` for vector batches) and one "
              "`Recorder` (`recorder.py`), `harness/run/gone.py`")
    assert missing(before) == ["instance.py (in none of harness/run/)", "vectors.py (in none of harness/run/)",
                               "harness/run/gone.py"]
