"""Offline certification, for vendors who cannot let a lab run their code.

The lab exports the prompt view (``tablecert vectors export``); the vendor answers every case
and returns a responses file; ``tablecert validate --responses FILE`` judges it against the
expected view exactly as a live run would, into the same run database and outputs.

Responses file: JSON Lines (optionally gzip), one line per case::

    {"file": "craps.settle.odds-3-4-5x.jsonl.gz", "tcId": 17, "answer": {"outcome": "win", ...}}

``file`` is the vector file's name, ``tcId`` the test's id in it, ``answer`` exactly what the
vendor would have put in ``results[i]`` (a result object or ``{"error": {"code": ...}}``). Every
case must be answered once: a missing, duplicate or unknown (file, tcId), or a line that is not
such an object, refuses the file with one line saying what and where.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablecert import __version__
from tablecert.harness.results import BatchOutcome, RunDatabase
from tablecert.harness.run_folder import locked_run_folder
from tablecert.harness.protocol_versions import V2, run_v1, v1_expressible
from tablecert.harness.runner import RunError, judge_batch, manifest_digest, utc_now, whole_batch
from tablecert.harness.suite_reader import Batch, iter_batches
from tablecert.harness.verdict import conclude, suite_ops
from tablecert.vectors.anchor import SuiteAnchor, anchor_suite
from tablecert.vectors.checks import load_manifest
from tablecert.vectors.lines import RESPONSE_LINE_BYTES, LineTooLong, bounded_lines


class ResponsesError(ValueError):
    """A responses file that cannot be judged (one line: what and where)."""


def _open(path: Path) -> Any:
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rb")       # decompressed as a stream, a bounded line at a time
    return open(path, "rb")


def load_responses(path: Path) -> dict[tuple[str, int], Any]:
    answers: dict[tuple[str, int], Any] = {}
    n = 0
    try:
        with _open(path) as f:
            for n, raw in bounded_lines(f, str(path), RESPONSE_LINE_BYTES):
                line = raw.decode("utf-8")
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except ValueError as err:
                    raise ResponsesError(f"{path}:{n}: not JSON ({err})") from None
                if (not isinstance(obj, dict) or set(obj) != {"file", "tcId", "answer"} or not isinstance(obj["file"], str)
                        or not isinstance(obj["tcId"], int) or isinstance(obj["tcId"], bool)):
                    raise ResponsesError(f'{path}:{n}: a line must be {{"file": str, "tcId": int, "answer": ...}}')
                key = (obj["file"], obj["tcId"])
                if key in answers:
                    raise ResponsesError(f"{path}:{n}: duplicate answer for {obj['file']} tcId {obj['tcId']}")
                answers[key] = obj["answer"]
    except OSError as err:
        raise ResponsesError(f"{path}: cannot read: {err.strerror or err}") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as err:
        raise ResponsesError(f"{path}: truncated or corrupt gzip: {err}") from None
    except UnicodeDecodeError:
        raise ResponsesError(f"{path}:{n}: not UTF-8 text") from None
    except LineTooLong as err:
        raise ResponsesError(str(err)) from None
    return answers


def validate_responses(responses: Path, suite_dir: Path, run_dir: Path,
                       progress: Callable[[int, int], None] | None = None, custom_suite: bool = False,
                       protocol: str = V2) -> str:
    """Judge a responses file; returns the verdict. Refuses incomplete files, and a suite folder
    that is not the release's (unless ``custom_suite``), before judging. ``protocol``: the contract
    version the answers follow (a v1 file need not answer the vectors v1 cannot express; answers
    to them are not judged, see :mod:`tablecert.harness.protocol_versions`)."""
    anchor = anchor_suite(suite_dir, allow_custom=custom_suite)
    answers = load_responses(responses)
    manifest = load_manifest(suite_dir)
    if manifest["suite"] in ("joker", "exhaustive"):
        raise ResponsesError("offline validation of the hand-stream suites is not supported: run them live")
    batches = list(iter_batches(suite_dir, 1000))
    wanted = {(b.file, tc) for b in batches for tc in b.tc_ids}
    optional = set() if protocol == V2 else {(b.file, tc) for b in batches for tc, case in zip(b.tc_ids, b.cases)
                                               if not v1_expressible(b.op, case)}
    missing = sorted(wanted - optional - set(answers))
    if missing:
        raise ResponsesError(f"{responses}: no answer for {missing[0][0]} tcId {missing[0][1]} "
                             f"({len(missing)} answers missing)")
    unknown = sorted(set(answers) - wanted)
    if unknown:
        raise ResponsesError(f"{responses}: answer for unknown {unknown[0][0]} tcId {unknown[0][1]} ({len(unknown)} unknown)")
    with locked_run_folder(run_dir):
        return _judge(responses, suite_dir, run_dir, manifest, anchor, answers, batches, progress, protocol)


def _judge(responses: Path, suite_dir: Path, run_dir: Path, manifest: dict[str, Any], anchor: SuiteAnchor,
           answers: dict[tuple[str, int], Any], batches: list[Batch], progress: Callable[[int, int], None] | None,
           protocol: str) -> str:
    if (run_dir / "run.db").exists() or (run_dir / "run.db").is_symlink():
        raise RunError(f"{run_dir / 'run.db'} exists: choose a new run folder")
    db = RunDatabase(run_dir / "run.db")
    db.set_meta(tablecert_version=__version__, started=utc_now(), suite=manifest["suite"],
                suite_manifest_sha256=manifest_digest(suite_dir), profile=manifest["profile"],
                suite_tests=int(manifest["numberOfTests"]), suite_anchor=anchor.meta(), adapter="offline",
                target=str(responses), state="running", protocol=protocol,
                vendor={"name": f"offline responses {responses.name}", "version": "-", "build": "-", "ops": []},
                **dict.fromkeys(("suite_ops", "required_ops"), suite_ops(manifest)))
    done = 0
    total = sum(len(b.cases) for b in batches)
    for batch in batches:
        def judged(part: Batch) -> BatchOutcome:
            return judge_batch(part, [answers[(part.file, tc)] for tc in part.tc_ids])

        db.record(judged(batch) if protocol == V2 else
                  run_v1(batch, judged, lambda part: whole_batch(part, "unsupported", "unsupported")))
        done += len(batch.cases)
        if progress:
            progress(done, total)
    db.set_meta(finished=utc_now(), state="finished")
    verdict = conclude(db).verdict
    db.close()
    return verdict
