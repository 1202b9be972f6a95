"""The JSON Schemas of what a lab archives, shipped with the package (and printed on the docs
site, docs/reference/schemas.md): a run's ``summary.json`` (``tablecert-run-summary/1``, named by
its ``schema`` key), the RNG batteries' ``summary.json`` and ``raw-summary.json`` (named by their
``format`` key), a line of a run's ``failures/*.jsonl`` and the lab site's ``index.json``.

:func:`archived_schema` says which schema a written file falls under; :func:`problems` checks
one against it (fastjsonschema, compiled once per schema). The tests check every such file they
write (tests/conftest.py).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import PurePath
from typing import Any, Callable

import fastjsonschema

FILES = {
    "tablecert-run-summary/1": "run-summary.schema.json",
    "tablecert-rng/2": "rng-summary.schema.json",
    "tablecert-rng-raw/1": "rng-raw-summary.schema.json",
    "tablecert-failure-line/1": "failure-line.schema.json",
    "tablecert-site-index/1": "site-index.schema.json",
}
"""Each schema's name (what a file names in ``schema`` or ``format``) -> its file here."""

FAILURE_LINE = "tablecert-failure-line/1"


def schema(schema_id: str) -> dict[str, Any]:
    """The schema of an id of :data:`FILES`, as shipped."""
    data: dict[str, Any] = json.loads(resources.files(__name__).joinpath(FILES[schema_id]).read_text(encoding="utf-8"))
    return data


@cache
def _validator(schema_id: str) -> Callable[[Any], Any]:
    return fastjsonschema.compile(schema(schema_id))


def archived_schema(path: PurePath, data: Any = None) -> str | None:
    """The schema a file tablecert wrote falls under (``data``: a JSON file's content, read): a
    line of ``failures/*.jsonl`` the failure line's; a JSON document the one it names in
    ``schema`` or ``format``; None for anything else (a file of no archived kind, or naming no
    schema: a run of an earlier release)."""
    if path.suffix == ".jsonl" and path.parent.name == "failures":
        return FAILURE_LINE
    if path.name in ("summary.json", "raw-summary.json", "index.json") and isinstance(data, dict):
        named = data.get("schema", data.get("format"))
        return named if named in FILES else None
    return None


def problems(schema_id: str, data: Any) -> str | None:
    """Why ``data`` is not valid under a schema (the first problem, one line), None when it is."""
    try:
        _validator(schema_id)(data)
    except fastjsonschema.JsonSchemaValueException as err:
        return str(err.message)
    return None


__all__ = ["FILES", "FAILURE_LINE", "archived_schema", "problems", "schema"]
