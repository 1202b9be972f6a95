"""Reading a suite folder as a stream of batches: the prompt and expected views in lockstep,
cut into batches of at most ``batch_size`` cases that never span two groups.

Vector-set files are read in a fixed order (edge parts before domain parts, then by name), so a
run is reproducible and a resumed run meets the same batches. Hand-stream suites produce their
cases from the canonical hand order (compiled enumeration, see :mod:`tablecert.harness.run.hand_runner`)
and their expected answers from the label stream.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from tablecert.harness.model import Batch
from tablecert.oracle.names import HAND_CLAUSES, HAND_SUITES
from tablecert.vectors.checks import load_manifest
from tablecert.vectors.lines import SUITE_LINE_BYTES, LineTooLong, bounded_lines

__all__ = ["HAND_CLAUSES", "Batch", "SuiteReadError", "count_cases", "iter_batches", "json_line", "vector_set_files"]


_decode = msgspec.json.Decoder().decode


def json_line(line: bytes) -> Any:
    """What ``json.loads(line)`` gives (or raises), decoded by msgspec (C, several times faster)
    when it accepts the line: for the text both accept, both give the same value (ints of any size
    as ints, floats correctly rounded, the last of a repeated key in its first place). msgspec
    refuses what it decodes otherwise or not at all: NaN and Infinity, numbers out of a float's
    range, ints too long for it, lone surrogates, a byte-order mark, other encodings; those lines
    go to ``json.loads``. ``tests/test_json_line.py`` compares both on generated JSON texts."""
    try:
        return _decode(line)
    except (msgspec.DecodeError, RecursionError):
        return json.loads(line)


class SuiteReadError(ValueError):
    """A suite folder that cannot be run (missing view, views that disagree)."""


def vector_set_files(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The expected-view vector-set entries in run order: edge parts first, then by name."""
    entries = [f for f in manifest["files"] if f["view"] == "expected" and f["path"].endswith(".jsonl.gz")]
    return sorted(entries, key=lambda f: (f["path"].endswith(".domain.jsonl.gz"), f["path"]))


def count_cases(suite_dir: Path) -> int:
    manifest = load_manifest(suite_dir)
    return int(manifest["numberOfTests"])


def iter_batches(suite_dir: Path, batch_size: int) -> Iterator[Batch]:
    """Every batch of a vector-set suite, in run order. (A hand suite's batches are made from its
    hand stream: :func:`tablecert.harness.run.hand_runner.hand_suite_batches`.)"""
    manifest = load_manifest(suite_dir)
    if "prompt" not in manifest["views"] or "expected" not in manifest["views"]:
        raise SuiteReadError(f"{suite_dir}: a run needs both the prompt and the expected view")
    if manifest["suite"] in HAND_SUITES:
        raise SuiteReadError(f"{suite_dir}: a hand suite ({manifest['suite']}) has no vector files; its batches are "
                             "made from its hand stream (harness.run.hand_runner.hand_suite_batches)")
    for entry in vector_set_files(manifest):
        name = entry["path"].split("/", 1)[1]
        yield from _file_batches(suite_dir / "prompt" / name, suite_dir / "expected" / name, name, entry["op"], batch_size)


def _file_batches(prompt_path: Path, expected_path: Path, name: str, op: str, batch_size: int) -> Iterator[Batch]:
    """The batches of one vector file; a file that cannot be read to its end (a truncated or
    corrupt gzip, a line that is not JSON) is a SuiteReadError naming it."""
    try:
        yield from _read_file_batches(prompt_path, expected_path, name, op, batch_size)
    except SuiteReadError:
        raise
    except LineTooLong as err:
        raise SuiteReadError(str(err)) from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError, KeyError) as err:
        raise SuiteReadError(f"{name}: cannot be read: {type(err).__name__}: {err}") from None


def _read_file_batches(prompt_path: Path, expected_path: Path, name: str, op: str, batch_size: int) -> Iterator[Batch]:
    with gzip.open(prompt_path, "rb") as pf, gzip.open(expected_path, "rb") as ef:
        batch: Batch | None = None
        lines = zip(bounded_lines(pf, f"prompt/{name}", SUITE_LINE_BYTES),
                    bounded_lines(ef, f"expected/{name}", SUITE_LINE_BYTES))
        for (n, pline), (_, eline) in lines:
            p, e = json_line(pline), json_line(eline)
            if p.get("type") != e.get("type") or p.get("tcId", p.get("tgId")) != e.get("tcId", e.get("tgId")):
                raise SuiteReadError(f"{name}:{n}: prompt and expected views disagree")
            if p["type"] == "group":
                if batch and batch.cases:
                    yield batch
                config = p["config"]        # each batch its own copy: marking may change what it sends
                batch = Batch(name, op, p["tgId"], config, [], [], [], [], [], [])
            elif p["type"] == "test":
                if batch is None:
                    raise SuiteReadError(f"{name}:{n}: test before any group")
                if len(batch.cases) >= batch_size:
                    yield batch
                    batch = Batch(name, op, batch.tg_id, config, [], [], [], [], [], [])
                batch.tc_ids.append(p["tcId"])
                batch.cases.append(p["case"])
                batch.expected.append(e["expected"])
                batch.flags.append(e["flags"])
                batch.clauses.append(e["clauses"])
                batch.comments.append(str(e.get("comment", "")))  # type: ignore[union-attr]
        if batch and batch.cases:
            yield batch


