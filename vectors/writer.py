"""Write vector sets: stream groups from a generator, ask the oracle for each expected answer,
and write the prompt view (inputs only) and the expected view (answers and metadata) as
deterministic gzip JSON Lines, one file per (op, profile) and view.

Every file is a sequence of lines with a ``type``:

* ``header``: schema name and version, view, suite, op, profile (id and sha256), generator;
  in the expected view also ``notes`` (every flag and the bug class it catches);
* ``group``: ``tgId`` and, in the prompt view, the ``config`` sent with its cases; in the
  expected view the group's ``comment``;
* ``test``: ``tcId`` and, in the prompt view, the ``case``; in the expected view ``comment``,
  ``flags``, ``clauses`` and ``expected`` (``{"result": {...}}`` or ``{"error": CODE}``);
* ``footer``: ``numberOfGroups`` and ``numberOfTests``.

The prompt view is built only from the generator's inputs, never from an answer, so nothing the
lab keeps can reach a vendor. Files are byte-identical for the same inputs: keys in a fixed
order, no timestamps (gzip ``mtime`` 0, no file name).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import IO, Any

from tablecert import __version__
from tablecert.oracle.craps_round import RoundConfig, rules_read
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle.live_stations import SUITE_ORACLE
from tablecert.oracle.names import HAND_FILE
from tablecert.oracle.vendor import OPS
from tablecert.vectors.house_depth import HouseDepth
from tablecert.vectors.model import VectorGroup
from tablecert.vectors.lines import SUITE_LINE_BYTES, bounded_lines

SCHEMA = "tablecert-vectors"
SCHEMA_VERSION = 1
VIEWS = ("prompt", "expected")


VECTOR_OPS = (*OPS, *SUITE_ORACLE)
"""The op registry of vector files: every op the oracle answers a vector of (the wager ops of
:data:`tablecert.oracle.vendor.OPS`, then the live suite's table ops). The schemas' ``op`` enums are
filled from it (:func:`tablecert.vectors.checks.validator`), so a new op is written, linted and
verified without a second list to update."""
MANIFEST_OPS = (*VECTOR_OPS, HAND_FILE)
"""The ops a manifest entry may name: a vector file's, or a hand suite's stream."""

ROUND_OPS = ("craps.round",)
"""Ops whose flags are in ``round_notes.toml`` (besides ``notes.toml``)."""


def _notes_file(name: str) -> dict[str, dict[str, str]]:
    return tomllib.loads(resources.files("tablecert.vectors").joinpath(name).read_text(encoding="utf-8"))


@cache
def notes() -> dict[str, dict[str, str]]:
    """Every flag and its bug class, from ``notes.toml``, ``round_notes.toml`` and ``live_notes.toml``."""
    return {**_round_notes(), **_notes_file("live_notes.toml")}


@cache
def _round_notes() -> dict[str, dict[str, str]]:
    return {**_notes_file("notes.toml"), **_notes_file("round_notes.toml")}


@cache
def header_notes(op: str) -> dict[str, dict[str, str]]:
    """The notes an ``op`` file's expected header carries: ``notes.toml``'s, for the round ops
    ``round_notes.toml``'s too, and for the live tables' ops also ``live_notes.toml``'s."""
    if op in SUITE_ORACLE:
        return notes()
    return _round_notes() if op in ROUND_OPS else _notes_file("notes.toml")


def dumps(obj: Any) -> str:
    """The one JSON encoding of every line: compact, keys in insertion order, UTF-8 as is."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def open_gzip_text(path: Path) -> IO[str]:
    """A deterministic gzip text stream: no file name and mtime 0 in the gzip header."""
    raw = open(path, "wb")
    gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6)
    stream = _ClosingText(gz, raw)
    return stream


class _ClosingText:
    """Buffered text writer over a GzipFile that closes the underlying file too."""

    FLUSH_AT = 1 << 16

    def __init__(self, gz: gzip.GzipFile, raw: IO[bytes]) -> None:
        self._gz, self._raw = gz, raw
        self._buffer: list[str] = []
        self._buffered = 0

    def write(self, text: str) -> int:
        self._buffer.append(text)
        self._buffered += len(text)
        if self._buffered >= self.FLUSH_AT:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self._buffer:
            self._gz.write("".join(self._buffer).encode("utf-8"))
            self._buffer.clear()
            self._buffered = 0

    def close(self) -> None:
        self.flush()
        self._gz.close()
        self._raw.close()

    def __enter__(self) -> _ClosingText:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def expected_answer(handle: Any, parsed_config: Any, case: Any) -> dict[str, Any]:
    """The oracle's answer to one case, as stored in the expected view."""
    try:
        return {"result": handle(parsed_config, case)}
    except CaseError as err:
        return {"error": err.code}


def _tallied_answer(depth: HouseDepth, config: RoundConfig, case: Any) -> dict[str, Any]:
    """A round's expected answer, its play tallied in ``depth`` by the house rules it read."""
    try:
        result, read = rules_read(config, case)
    except CaseError as err:
        depth.add(config, frozenset())
        return {"error": err.code}
    depth.add(config, read)
    return {"result": result}


@dataclass(frozen=True)
class WrittenFile:
    path: str            # relative to the suite folder, '/'-separated
    view: str
    op: str
    profile: str
    tests: int
    groups: int


def write_vector_set(out_dir: Path, suite: str, op: str, profile_id: str, profile_sha256: str,
                     groups: Iterable[VectorGroup], views: tuple[str, ...] = VIEWS, part: str = "",
                     depth: HouseDepth | None = None) -> list[WrittenFile]:
    """Stream one vector set (one op, one profile, optionally one named part) into one file per view:
    ``<view>/<op>.<profile>[.<part>].jsonl.gz``. ``depth``: a ``craps.round`` set's rounds tallied
    by the house rules their play reads (the oracle plays each round once for both)."""
    name = f"{op}.{profile_id}{'.' + part if part else ''}.jsonl.gz"
    header = {
        "type": "header", "schema": SCHEMA, "schemaVersion": SCHEMA_VERSION, "view": None,
        "suite": suite, "op": op, "profile": {"id": profile_id, "sha256": profile_sha256},
        "generator": {"name": "tablecert", "version": __version__},
    }
    streams: dict[str, _ClosingText] = {}
    for view in views:
        (out_dir / view).mkdir(parents=True, exist_ok=True)
        streams[view] = open_gzip_text(out_dir / view / name)
        line = dict(header, view=view)
        if view == "expected":
            line["notes"] = header_notes(op)
        streams[view].write(dumps(line) + "\n")
    parse_config, handle = OPS[op] if op in OPS else SUITE_ORACLE[op]
    tc_id = 0
    tg_id = 0
    try:
        for group in groups:
            if group.op != op:
                raise ValueError(f"group for {group.op} in the vector set of {op}")
            tg_id += 1
            try:
                parsed: Any = parse_config(group.config)
                config_error = None
            except ConfigError as err:
                parsed, config_error = None, err
            if "prompt" in streams:
                streams["prompt"].write(dumps({"type": "group", "tgId": tg_id, "config": group.config}) + "\n")
            if "expected" in streams:
                streams["expected"].write(dumps({"type": "group", "tgId": tg_id, "comment": group.comment}) + "\n")
            for vector in group.vectors:
                tc_id += 1
                for flag in vector.flags:
                    if flag not in header_notes(op):
                        raise ValueError(f"vector {tc_id} of {op}: flag {flag!r} is not defined in notes.toml")
                if "prompt" in streams:
                    streams["prompt"].write(dumps({"type": "test", "tcId": tc_id, "case": vector.case}) + "\n")
                if depth is not None and not config_error:
                    answer = _tallied_answer(depth, parsed, vector.case)
                elif "expected" in streams:
                    answer = {"error": "invalid_config"} if config_error else expected_answer(handle, parsed, vector.case)
                if "expected" in streams:
                    streams["expected"].write(dumps({
                        "type": "test", "tcId": tc_id, "comment": vector.comment, "flags": list(vector.flags),
                        "clauses": list(vector.clauses), "expected": answer}) + "\n")
        footer = dumps({"type": "footer", "numberOfGroups": tg_id, "numberOfTests": tc_id}) + "\n"
        for stream in streams.values():
            stream.write(footer)
    finally:
        for stream in streams.values():
            stream.close()
    return [WrittenFile(f"{view}/{name}", view, op, profile_id, tc_id, tg_id) for view in streams]


def file_digest(path: Path) -> tuple[str, int]:
    """(sha256 hex, size in bytes) of a file, read in chunks."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


def read_lines(path: Path) -> Iterable[dict[str, Any]]:
    """The JSON objects of one vector file, streamed."""
    with gzip.open(path, "rb") as f:
        for _, line in bounded_lines(f, path.name, SUITE_LINE_BYTES):
            yield json.loads(line.decode("utf-8"))
