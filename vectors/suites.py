"""The shipped suites and how a suite folder is generated, listed and described.

| suite | what it holds |
|---|---|
| ``edge`` | curated boundaries, each with its reason (craps and pai gow) |
| ``configs`` | legal table configs covering every pair of the config space's boundary values, each with its own boundaries, and amounts up to 2^53 - 1 |
| ``standard`` | ``edge`` plus exhaustive craps over a bounded domain for every shipped profile, a seeded pai gow sample, ``configs`` and a bounded part of ``rounds`` (its named scripts and every sequence of 1 to 3 rolls for the line plans, 1 or 2 for the others) |
| ``joker`` | all 20,358,520 hands holding the joker, both labels (a hand stream) |
| ``exhaustive`` | all 154,143,080 hands, both labels (a hand stream) |
| ``rounds`` | whole craps rounds (``craps.round``): every roll sequence up to 4 rolls by totals x bet plans, house rules, one named script per bug class, every house-rule value crossed with commission, bar and payout rounding |
| ``live`` | rounds on a live table, one step per request (``craps.table``), interrupted by the harness: the named scripts and seeded sessions of many games |

A suite folder holds ``prompt/`` and/or ``expected/`` vector files and ``manifest.json``, which
lists every file with its sha256 and size; the manifest's own digest identifies the suite in run
databases and reports.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablecert import __version__
from tablecert.oracle.names import HAND_SUITES
from tablecert.oracle.profiles import DEFAULT_PROFILE, list_profiles, load_profile
from tablecert.vectors import config_cases, craps_cases, live_cases, round_cases, station_cases
from tablecert.vectors.house_depth import HouseDepth
from tablecert.vectors.model import VectorGroup
from tablecert.vectors.lab_mark import close_expected, mark
from tablecert.vectors.writer import VIEWS, WrittenFile, file_digest, write_vector_set

MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "tablecert-suite-manifest"
CRAPS_OPS = ("craps.odds_limits", "craps.place_odds", "craps.settle")
PAIGOW_OPS = ("paigow.player_bonus", "paigow.banker_bonus", "paigow.settle")


class SuiteError(ValueError):
    """An unknown suite or view, or an output folder that cannot be used."""


@dataclass(frozen=True)
class SuiteInfo:
    name: str
    description: str
    ops: tuple[str, ...]
    size: str


SUITES: dict[str, SuiteInfo] = {
    "edge": SuiteInfo("edge", "curated boundaries, each with its reason", CRAPS_OPS + PAIGOW_OPS, "6,863 vectors"),
    "configs": SuiteInfo("configs", "legal table configs covering every pair of the config space's boundary values, "
                         "with their boundaries, and amounts up to 2^53 - 1", CRAPS_OPS + PAIGOW_OPS, "80,749 vectors"),
    "standard": SuiteInfo("standard", "edge + exhaustive craps over a bounded domain for every shipped profile "
                          "+ a seeded pai gow sample + configs + rounds' named scripts and sequences of 1 to 3 rolls",
                          CRAPS_OPS + ("craps.round",) + PAIGOW_OPS, "480,695 vectors"),
    "rounds": SuiteInfo("rounds", "whole craps rounds: every sequence of 1 to 4 rolls by totals x bet plans, every "
                        "house rule, one named script per bug class, every house-rule value crossed with commission, "
                        "bar and payout rounding", ("craps.round",), "72,362 rounds"),
    "live": SuiteInfo("live", "rounds on a live table, one step per request, the vendor killed and restarted: the "
                      "rounds suite's named scripts at every step, seeded sessions of many games at seeded points; "
                      "pai gow rounds with the bank passing; New: station tables (eight stations on one shooter, a "
                      "disconnect at every step of a round, a disable kept and voided, seeded sessions mixing them)",
                      (live_cases.OP, live_cases.PAIGOW_OP, station_cases.OP),
                      "38 craps rounds, 5 pai gow sessions, 22 station tables"),
    "joker": SuiteInfo("joker", "all 20,358,520 hands holding the joker, both labels",
                       ("paigow.player_bonus", "paigow.banker_bonus"), "20,358,520 hands x 2 labels"),
    "exhaustive": SuiteInfo("exhaustive", "all 154,143,080 hands in colex order, both labels",
                            ("paigow.player_bonus", "paigow.banker_bonus"), "154,143,080 hands x 2 labels"),
}


def _by_op(groups: Iterator[VectorGroup]) -> dict[str, list[VectorGroup]]:
    out: dict[str, list[VectorGroup]] = {}
    for group in groups:
        out.setdefault(group.op, []).append(group)
    return out


# A vector set to write: (op, profile id, part name, groups).
VectorSetPlan = tuple[str, str, str, list[VectorGroup]]


def _edge_sets(profile_id: str) -> Iterator[VectorSetPlan]:
    from tablecert.vectors import paigow_cases  # lazy: numba, 1,471 ms of certify's imports (bench_startup.py, load 4; a cached suite needs none)

    profile = load_profile(profile_id)
    craps = _by_op(craps_cases.edge_groups(profile.craps))
    paigow = _by_op(paigow_cases.edge_groups(profile.paigow_cap))
    for op in CRAPS_OPS:
        yield op, profile_id, "", craps.get(op, [])
    for op in PAIGOW_OPS:
        yield op, profile_id, "", paigow.get(op, [])


def _standard_sets(profile_id: str) -> Iterator[VectorSetPlan]:
    from tablecert.vectors import paigow_cases  # lazy: numba, 1,440 ms of certify's imports (bench_startup.py, load 4)

    profile = load_profile(profile_id)
    sample = _by_op(paigow_cases.sample_groups(profile.paigow_cap))
    for op, pid, part, groups in _edge_sets(profile_id):
        yield op, pid, part, groups + (sample.get(op, []) if op in PAIGOW_OPS else [])
    shipped = list_profiles()
    for pid in shipped + ([profile_id] if profile_id not in shipped else []):   # and a lab's own table
        domain = _by_op(craps_cases.domain_groups(load_profile(pid).craps, pid))
        for op in CRAPS_OPS:
            yield op, pid, "domain", domain[op]
    yield from _config_sets(profile_id)
    yield from _round_sets(profile_id, round_cases.STANDARD_BOUNDS, "rounds")


def _round_sets(profile_id: str, bounds: round_cases.Bounds = round_cases.ROUNDS_BOUNDS,
                part: str = "") -> Iterator[VectorSetPlan]:
    """Whole rounds on the suite profile's craps table (:mod:`tablecert.vectors.round_cases`), roll
    sequences as long as ``bounds`` say."""
    yield round_cases.OP, profile_id, part, list(round_cases.round_groups(load_profile(profile_id).craps, bounds))


def _live_sets(profile_id: str) -> Iterator[VectorSetPlan]:
    """Live-table rounds on the suite profile's craps table (:mod:`tablecert.vectors.live_cases`)."""
    profile = load_profile(profile_id)
    yield live_cases.OP, profile_id, "", list(live_cases.live_groups(profile.craps))
    yield live_cases.PAIGOW_OP, profile_id, "", list(live_cases.paigow_groups(profile.paigow_cap))
    yield station_cases.OP, profile_id, "", list(station_cases.station_groups(profile.craps))


def _config_sets(profile_id: str) -> Iterator[VectorSetPlan]:
    """The covering configs (each group carries its own table config), filed under the suite's
    profile as the part ``configs``."""
    groups = _by_op(config_cases.config_groups())
    for op in CRAPS_OPS + PAIGOW_OPS:
        yield op, profile_id, "configs", groups[op]


def generate(suite: str, out_dir: Path, profile_id: str | None = None, view: str = "both",
             progress: Callable[[str], None] | None = None, ops: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Generate a suite into ``out_dir`` and write its manifest; returns the manifest. ``ops``: only
    the vector sets of these ops (a part of a vector suite, for tests and benchmarks: its manifest
    is not the release's, so ``certify`` runs it only as a custom suite)."""
    if suite not in SUITES:
        raise SuiteError(f"unknown suite {suite!r} (suites: {', '.join(SUITES)})")
    views = VIEWS if view == "both" else (view,)
    if any(v not in VIEWS for v in views):
        raise SuiteError(f"unknown view {view!r} (views: prompt, expected, both)")
    profile_id = profile_id or DEFAULT_PROFILE
    profile = load_profile(profile_id)
    out_dir.mkdir(parents=True, exist_ok=True, mode=0o700)   # it holds the expected answers
    for v in VIEWS:
        if (out_dir / v).exists():
            shutil.rmtree(out_dir / v)
    written: list[WrittenFile] = []
    depth = HouseDepth() if suite == "rounds" else None        # the manifest's houseRuleDepth (since 1.2)
    if suite in HAND_SUITES:
        from tablecert.vectors.hand_suite import write_hand_suite  # lazy: 4.3 ms of certify start (bench_startup.py, at rest)

        written = write_hand_suite(suite, out_dir, profile_id, profile.sha256, profile.paigow_cap, views, progress)
    else:
        sets = {"edge": _edge_sets, "configs": _config_sets, "standard": _standard_sets,
                "rounds": _round_sets, "live": _live_sets}[suite](profile_id)
        for op, pid, part, groups in sets:
            if ops is not None and op not in ops:
                continue
            if progress:
                progress(f"{op} ({pid}{' ' + part if part else ''})")
            written += write_vector_set(out_dir, suite, op, pid, load_profile(pid).sha256, groups, views, part,
                                        depth if op == round_cases.OP else None)
    manifest = build_manifest(suite, profile_id, profile.sha256, views, out_dir, written,
                              depth.manifest_field() if depth is not None and depth.rounds else None)
    (out_dir / MANIFEST).write_bytes(manifest_bytes(manifest))
    close_expected(out_dir)
    mark(out_dir, "suite")
    return manifest


def build_manifest(suite: str, profile_id: str, profile_sha256: str, views: tuple[str, ...], out_dir: Path,
                   written: list[WrittenFile], house_depth: dict[str, Any] | None = None) -> dict[str, Any]:
    files = []
    for w in written:
        sha, size = file_digest(out_dir / w.path)
        files.append(manifest_entry(w, sha, size))
    return manifest_of(suite, profile_id, profile_sha256, views, files, house_depth)


def manifest_entry(w: WrittenFile, sha256: str, size: int) -> dict[str, Any]:
    """One file's line in the manifest."""
    return {"path": w.path, "view": w.view, "op": w.op, "profile": w.profile,
            "numberOfTests": w.tests, "sha256": sha256, "size": size}


def manifest_of(suite: str, profile_id: str, profile_sha256: str, views: tuple[str, ...],
                files: list[dict[str, Any]], house_depth: dict[str, Any] | None = None) -> dict[str, Any]:
    """The manifest of a suite folder holding ``files`` (manifest entries, in any order);
    ``house_depth``: the rounds that judge each house-rule value and pair of values
    (``houseRuleDepth``, *since 1.2*, :mod:`tablecert.vectors.house_depth`)."""
    files = sorted(files, key=lambda f: f["path"])
    manifest = {
        "schema": MANIFEST_SCHEMA, "schemaVersion": 1, "suite": suite,
        "profile": {"id": profile_id, "sha256": profile_sha256},
        "generator": {"name": "tablecert", "version": __version__},
        "views": list(views),
        "numberOfTests": sum(f["numberOfTests"] for f in files if f["view"] == views[0]),
        "files": files,
    }
    if house_depth is not None:
        manifest["houseRuleDepth"] = house_depth
    return manifest


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """The bytes of ``manifest.json`` for a manifest (what :func:`generate` writes)."""
    return (json.dumps(manifest, indent=2) + "\n").encode("utf-8")
