"""MkDocs hook: the pages that are generated, not typed, filled in at build time.

A page holding ``<!-- generated: NAME -->`` gets NAME's text in its place:

* ``cli``: every command and option, from the command line's own parsers
  (:func:`tablecert.reference.reference_markdown`);
* ``run-folder``: what a run folder holds and summary.json's fields, from the docstring of the
  module that writes them (``tablecert.harness.record.outputs``), and run.db's tables from
  ``tablecert.harness.store.schema``'s;
* ``benchmarks``: each script of ``benchmarks/`` with the first paragraph of its docstring;
* ``vectors SUITE [OPS]``: how many vectors the release's suite holds (its committed manifest,
  ``vectors/golden/SUITE.manifest.json``, which every run's suite is anchored against), of the
  comma-separated ``OPS`` only, or of every op but those with ``not:OPS``; written ``462,578``.
"""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _docstring(module: str) -> str:
    return importlib.import_module(module).__doc__ or ""


def _benchmarks() -> str:
    rows = ["| script | what it measures |", "|---|---|"]
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        first = " ".join(doc.split("\n\n")[0].split()).replace("|", "\\|")
        rows.append(f"| `benchmarks/{path.name}` | {first} |")
    return "\n".join(rows) + "\n"


def suite_vectors(suite: str, ops: str = "") -> int:
    """The vectors of a release suite (its expected view), of ``ops`` only (``a,b``) or of every op
    but ``not:a,b``."""
    manifest = json.loads((ROOT / "vectors" / "golden" / f"{suite}.manifest.json").read_text(encoding="utf-8"))
    files = [f for f in manifest["files"] if f["view"] == "expected"]
    named = set(ops.removeprefix("not:").split(",")) if ops else set()
    unknown = named - {f["op"] for f in files}
    if unknown:
        raise ValueError(f"docs: the {suite} suite holds no op {', '.join(sorted(unknown))}")
    keep = (lambda op: op not in named) if ops.startswith("not:") else (lambda op: not named or op in named)
    return sum(f["numberOfTests"] for f in files if keep(f["op"]))


def _generated(name: str) -> str:
    if name == "cli":
        from tablecert.reference import reference_markdown

        return reference_markdown()
    if name == "run-folder":
        return _docstring("tablecert.harness.record.outputs")
    if name == "run-db":
        return _docstring("tablecert.harness.store.schema")
    if name == "benchmarks":
        return _benchmarks()
    if name.startswith("vectors "):
        return f"{suite_vectors(*name.split()[1:]):,}"
    raise ValueError(f"docs: no generated text named {name!r}")


def on_post_build(config) -> None:  # noqa: ANN001 (mkdocs' hook signature)
    """The search plugin's index again as a script (``search/search_index.js``), which a page opened
    from the file system can load (a fetch or a worker cannot): docs/assets/offline-search.js
    searches it there."""
    folder = Path(config["site_dir"]) / "search"
    index = (folder / "search_index.json").read_text(encoding="utf-8")
    (folder / "search_index.js").write_text("window.tablecertSearch = " + index.replace("</", "<\\/") + ";\n",
                                            encoding="utf-8")


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (mkdocs' hook signature)
    while "<!-- generated: " in markdown:
        start = markdown.index("<!-- generated: ")
        end = markdown.index(" -->", start)
        name = markdown[start + len("<!-- generated: "):end]
        markdown = markdown[:start] + _generated(name) + markdown[end + len(" -->"):]
    return markdown
