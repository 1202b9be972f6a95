"""Checking a suite folder: ``lint`` (is it well made?) and ``verify`` (is it what the manifest
says, byte for byte?).

``lint`` validates the manifest and every line of every vector file against the JSON Schemas in
``schemas/``, and checks what a schema cannot: tcIds unique and in order, group ids unique, the
footer's counts, one op per file matching the manifest, every flag defined in the file's notes,
every clause id known to the oracle's registers, prompt and expected views agreeing on tcIds.
``verify`` recomputes every file's sha256 and size and names each file that differs, is missing,
or is not listed, and reads each vector file's header: a file of another schema or schema version,
view, suite or op than its manifest entry is refused even when its digest matches.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import fastjsonschema
import numpy as np

from tablecert.oracle.hands import BANKER_LABELS, PLAYER_LABELS
from tablecert.oracle.names import HAND_OPS
from tablecert.oracle.register import clauses, interpretations
from tablecert.vectors.lines import SUITE_LINE_BYTES, LineTooLong, bounded_lines
from tablecert.vectors.writer import MANIFEST_OPS, VECTOR_OPS, file_digest


class SuiteCheckError(ValueError):
    """A suite folder that cannot be read at all (no manifest, not JSON)."""


Validator = Callable[[Any], Any]


OP_ENUMS = {"manifest": MANIFEST_OPS, "vector": VECTOR_OPS}
"""What a schema's ``"x-tablecert-ops"`` marker stands for: the op registry it is filled from."""


@cache
def schema(name: str) -> dict[str, Any]:
    """A schema file, its ``op`` enums filled from the op registry (:data:`OP_ENUMS`)."""
    text = resources.files("tablecert.vectors").joinpath("schemas", name).read_text(encoding="utf-8")
    return _with_ops(json.loads(text))


def _with_ops(node: Any) -> Any:
    if isinstance(node, dict):
        if "x-tablecert-ops" in node:
            return {"enum": list(OP_ENUMS[node["x-tablecert-ops"]])}
        return {key: _with_ops(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_with_ops(item) for item in node]
    return node


@cache
def validator(name: str, definition: str | None = None) -> Validator:
    """A compiled validator (fastjsonschema) for a schema file, or for one of its definitions
    (vector lines are checked against the definition their ``type`` names, which is several
    times faster than trying every branch of the ``oneOf``)."""
    whole = schema(name)
    if definition is not None:
        whole = {"$id": whole["$id"], "$ref": f"#/definitions/{definition}", "definitions": whole["definitions"]}
    return fastjsonschema.compile(whole)


def load_manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SuiteCheckError(f"{path}: no manifest (is this a suite folder?)") from None
    except (OSError, ValueError) as err:
        raise SuiteCheckError(f"{path}: unreadable manifest: {err}") from None
    return manifest


def _first_error(v: Validator, obj: Any) -> str | None:
    try:
        v(obj)
    except fastjsonschema.JsonSchemaValueException as err:
        got = f", got {json.dumps(err.value)[:60]}" if isinstance(err.value, (str, int, float, bool)) else ""
        return err.message[:200] + got
    return None


def _iter_json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    with gzip.open(path, "rb") as f:
        for n, line in bounded_lines(f, path.name, SUITE_LINE_BYTES):
            yield n, json.loads(line.decode("utf-8"))


def lint_file(path: Path, view: str, op: str, problems: list[str], known_clauses: set[str]) -> list[int]:
    """Lint one vector file; returns its tcIds (for the cross-view check)."""
    schema_name = f"vector-line.{view}.schema.json"
    line_types = ("header", "group", "test", "footer")
    tc_ids: list[int] = []
    tg_ids: set[int] = set()
    header: dict[str, Any] | None = None
    footer: dict[str, Any] | None = None
    name = path.name
    try:
        for n, obj in _iter_json_lines(path):
            where = f"{name}:{n}"
            if footer is not None:
                problems.append(f"{where}: line after the footer")
                break
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind not in line_types:
                problems.append(f"{where}: schema: a line must be an object whose type is one of {', '.join(line_types)}")
                continue
            bad = _first_error(validator(schema_name, kind), obj)
            if bad:
                problems.append(f"{where}: schema: {bad}")
                continue
            if n == 1 and kind != "header":
                problems.append(f"{where}: the first line must be the header")
            if kind == "header":
                if n != 1:
                    problems.append(f"{where}: a second header")
                header = obj
                if obj["op"] != op:
                    problems.append(f"{where}: op {obj['op']} but the manifest says {op} (one op per file)")
            elif kind == "group":
                if obj["tgId"] in tg_ids:
                    problems.append(f"{where}: duplicate tgId {obj['tgId']}")
                tg_ids.add(obj["tgId"])
            elif kind == "test":
                if not tg_ids:
                    problems.append(f"{where}: test before any group")
                tc = obj["tcId"]
                if tc_ids and tc <= tc_ids[-1]:
                    problems.append(f"{where}: tcId {tc} not above the previous {tc_ids[-1]} (duplicate or out of order)")
                tc_ids.append(tc)
                if view == "expected" and header is not None:
                    for flag in obj["flags"]:
                        if flag not in header["notes"]:
                            problems.append(f"{where}: flag {flag!r} not defined in the header's notes")
                    for cid in obj["clauses"]:
                        if cid not in known_clauses:
                            problems.append(f"{where}: unknown clause id {cid!r}")
            else:
                footer = obj
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as err:
        problems.append(f"{name}: not a readable gzip file: {err}")
        return tc_ids
    except LineTooLong as err:
        problems.append(str(err))
        return tc_ids
    except ValueError as err:
        problems.append(f"{name}: a line is not JSON: {err}")
        return tc_ids
    if footer is None:
        problems.append(f"{name}: no footer (file cut short?)")
    else:
        if footer["numberOfTests"] != len(tc_ids):
            problems.append(f"{name}: footer says {footer['numberOfTests']} tests, file holds {len(tc_ids)}")
        if footer["numberOfGroups"] != len(tg_ids):
            problems.append(f"{name}: footer says {footer['numberOfGroups']} groups, file holds {len(tg_ids)}")
    return tc_ids


def lint(folder: Path, progress: Callable[[str], None] | None = None) -> list[str]:
    """Every problem found in a suite folder, one line each (empty: the suite is well made)."""
    manifest = load_manifest(folder)
    problems: list[str] = []
    bad = _first_error(validator("manifest.schema.json"), manifest)
    if bad:
        return [f"manifest.json: schema: {bad}"]
    known = set(clauses()) | set(interpretations())
    ids: dict[tuple[str, str], list[int]] = {}
    total_by_view: dict[str, int] = {}
    for entry in manifest["files"]:
        path = folder / entry["path"]
        if progress:
            progress(entry["path"])
        if not path.is_file():
            problems.append(f"{entry['path']}: listed in the manifest but missing")
            continue
        if entry["path"].endswith(".jsonl.gz"):
            tc = lint_file(path, entry["view"], entry["op"], problems, known)
            if len(tc) != entry["numberOfTests"]:
                problems.append(f"{entry['path']}: manifest says {entry['numberOfTests']} tests, file holds {len(tc)}")
            ids[(entry["view"], entry["path"].split("/", 1)[1])] = tc
        else:
            problems += lint_hand_file(path, entry)
        total_by_view[entry["view"]] = total_by_view.get(entry["view"], 0) + entry["numberOfTests"]
    for (view, name), tc in ids.items():
        if view == "prompt" and ("expected", name) in ids and ids[("expected", name)] != tc:
            problems.append(f"{name}: prompt and expected views hold different tcIds")
    for view, total in total_by_view.items():
        if total != manifest["numberOfTests"]:
            problems.append(f"manifest.json: numberOfTests {manifest['numberOfTests']} but the {view} files hold {total}")
    return problems


def _header_problem(path: Path, entry: dict[str, Any], suite: str) -> str | None:
    """What is wrong with a vector file's header line for its manifest entry, or None."""
    try:
        with gzip.open(path, "rb") as f:
            header = json.loads(next(bounded_lines(f, path.name, SUITE_LINE_BYTES), (0, b""))[1].decode("utf-8"))
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError) as err:
        return f"unreadable header: {err}"
    if not isinstance(header, dict) or header.get("type") != "header":
        return "the first line is not a header"
    if header.get("schema") != "tablecert-vectors" or header.get("schemaVersion") != 1:
        return (f"schema {header.get('schema')!r} version {header.get('schemaVersion')!r}; this tablecert reads "
                "'tablecert-vectors' version 1")
    for field, want in (("view", entry.get("view")), ("suite", suite), ("op", entry.get("op"))):
        if header.get(field) != want:
            return f"header {field} {header.get(field)!r}, the manifest says {want!r}"
    bad = _first_error(validator(f"vector-line.{entry['view']}.schema.json", "header"), header)
    return f"header: schema: {bad}" if bad else None


def verify(folder: Path, progress: Callable[[str], None] | None = None) -> list[str]:
    """Files whose bytes differ from the manifest, are missing, or are not listed (one line each)."""
    manifest = load_manifest(folder)
    bad = _first_error(validator("manifest.schema.json"), manifest)
    if bad:
        return [f"manifest.json: schema: {bad}"]
    problems = []
    listed = set()
    for entry in manifest["files"]:
        listed.add(entry["path"])
        path = folder / entry["path"]
        if progress:
            progress(entry["path"])
        if not path.is_file():
            problems.append(f"{entry['path']}: missing")
            continue
        sha, size = file_digest(path)
        if size != entry["size"]:
            problems.append(f"{entry['path']}: size {size}, manifest says {entry['size']}")
        elif sha != entry["sha256"]:
            problems.append(f"{entry['path']}: sha256 {sha} differs from the manifest's {entry['sha256']} (file altered)")
        elif entry["path"].endswith(".jsonl.gz"):
            bad = _header_problem(path, entry, manifest["suite"])
            if bad:
                problems.append(f"{entry['path']}:1: {bad}")
    for view in ("prompt", "expected"):
        if (folder / view).is_dir():
            for path in sorted((folder / view).iterdir()):
                rel = f"{view}/{path.name}"
                if rel not in listed:
                    problems.append(f"{rel}: not listed in the manifest")
    return problems


def lint_hand_file(path: Path, entry: dict[str, Any]) -> list[str]:
    """Problems of one hand-suite file (descriptor schema and range; stream length and codes)."""
    # Imported here, one way (hand_suite never imports checks): the hand stream imports the
    # numba labeller, 0.57 s that every other user of the checks (a refused certify among them)
    # would pay.
    from tablecert.vectors.hand_stream import suite_first_position, suite_size  # lazy: 125 ms of Ray run start (bench_startup.py, at rest)
    from tablecert.vectors.hand_suite import DESCRIPTOR, LABELS

    name = entry["path"]
    if path.name == DESCRIPTOR:
        try:
            desc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            return [f"{name}: not JSON: {err}"]
        bad = _first_error(validator("hand-stream.schema.json"), desc)
        if bad:
            return [f"{name}: schema: {bad}"]
        problems = []
        if desc["firstPosition"] != suite_first_position(desc["suite"]) or desc["numberOfHands"] != suite_size(desc["suite"]):
            problems.append(f"{name}: range does not match the {desc['suite']} suite")
        if entry["numberOfTests"] != desc["numberOfHands"] * len(HAND_OPS):
            problems.append(f"{name}: manifest test count {entry['numberOfTests']} is not 2 x {desc['numberOfHands']} hands")
        return problems
    if path.name == LABELS:
        size = path.stat().st_size
        if size % 2:
            return [f"{name}: odd length {size}: a stream is two bytes per hand"]
        data = np.fromfile(path, dtype=np.uint8).reshape(-1, 2)
        problems = []
        if (data[:, 0] >= len(PLAYER_LABELS)).any():
            problems.append(f"{name}: a player label code outside 0..{len(PLAYER_LABELS) - 1}")
        if (data[:, 1] >= len(BANKER_LABELS)).any():
            problems.append(f"{name}: a banker label code outside 0..{len(BANKER_LABELS) - 1}")
        return problems
    return [f"{name}: not a file of a hand suite"]
