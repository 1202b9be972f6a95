"""Offline certification, for vendors who cannot let a lab run their code.

The lab exports the prompt view (``tablecert vectors export``); the vendor answers every case
and returns a responses file; ``tablecert validate --responses FILE`` judges it against the
expected view exactly as a live run would: the file is a source of answers in the place of a
vendor session (:class:`OfflineSession`), run through the same pipeline (:mod:`tablecert.harness.run`)
into the same run database and outputs, with the same ``judged`` record and run seal (so an
offline run is signed and merged like a live one).

Responses file: JSON Lines (optionally gzip), one line per case::

    {"file": "craps.settle.odds-3-4-5x.jsonl.gz", "tcId": 17, "answer": {"outcome": "win", ...}}

``file`` is the vector file's name, ``tcId`` the test's id in it, ``answer`` exactly what the
vendor would have put in ``results[i]`` (a result object or ``{"error": {"code": ...}}``). Every
case must be answered once. The first line may be a header naming the implementation, the
vendor's ``hello`` answer as a live vendor gives it: ``{"hello": {"protocol": ...,
"implementation": {"name", "version", "build"}, "ops": [...], "capabilities": {...}}}``; without
one the run records, and the certificate says, that the implementation is unidentified.

**The evidence is pinned.** The file is read once, as a stream, and the sha256 and size of exactly
the bytes read (the file as given, compressed or not) go into the run's meta (``responses``),
``summary.json`` and page 1 of the certificate; the run seal covers them.

**Reading is bounded.** A line is at most ``max_answer_bytes`` (``--max-answer-mb``, 16 MB, as a
live answer), the answers to one batch together too (a live vendor answers a batch in one line
of that size), and all the answers together at most ``max_run_answer_bytes``
(``--max-run-answer-mb``). Answers are kept, as read, in a temporary SQLite file in the run
folder, not in memory, and judged a batch at a time in run order. A line that is not such an
object, a duplicate, an unknown (file, tcId) and a cap passed are refused as read; a missing
answer once the file is read; each in one line saying what and where (:class:`ResponsesError`).
"""

from __future__ import annotations

import bisect
import gzip
import hashlib
import io
import json
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from tablecert import __version__
from tablecert.harness.contract import KNOWN_OPS, AnswersByTest, FaultKind, Hello, VendorFault
from tablecert.harness.answers.envelope import parse_hello
from tablecert.harness.protocol_versions import V2, v1_expressible
from tablecert.harness.instance.recovery import FaultPolicy
from tablecert.harness.store import RunStore
from tablecert.harness.store.responses import AnswerIndex
from tablecert.harness.run import RunError
from tablecert.harness.instance.vendor_instance import VendorInstance, identity_of
from tablecert.harness.run.judging import judge
from tablecert.harness.run.vendor_build import OFFLINE, not_authenticated
from tablecert.harness.run.recorder import Recorder
from tablecert.harness.lab_files import remove_our_folder
from tablecert.harness.record.run_folder import locked_run_folder
from tablecert.harness.run.runner import manifest_digest, utc_now
from tablecert.harness.suites.reader import iter_batches
from tablecert.harness.record.verdict import suite_ops
from tablecert.oracle.names import HAND_SUITES
from tablecert.vectors.anchor import SuiteAnchor
from tablecert.vectors.checks import load_manifest
from tablecert.vectors.lines import RESPONSE_LINE_BYTES, LineTooLong, bounded_lines
from tablecert.harness.record import seal
from tablecert.harness.run.certify import copy_anchored

BATCH_SIZE = 1000
UNIDENTIFIED = {"name": "UNIDENTIFIED (the responses file names no implementation)", "version": "unidentified",
                "build": "unidentified", "ops": [], "identified": False}
"""The vendor identity of a responses file without a header line."""


class ResponsesError(ValueError):
    """A responses file that cannot be judged (one line: what and where)."""


class _Digesting(io.RawIOBase):
    """A file read through this is hashed (sha256) and counted exactly as it is read."""

    def __init__(self, f: BinaryIO) -> None:
        self.f = f
        self.sha256 = hashlib.sha256()
        self.size = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.f.readinto(buffer)
        view = memoryview(buffer)[:n]
        self.sha256.update(view)
        self.size += n
        return n


@dataclass
class SuiteIndex:
    """Which (file, tcId) the suite holds, and the batch of each (first tcIds per file)."""

    wanted: dict[str, set[int]] = field(default_factory=dict)
    optional: set[tuple[str, int]] = field(default_factory=set)
    firsts: dict[str, list[int]] = field(default_factory=dict)
    cases: int = 0

    @classmethod
    def of(cls, suite_dir: Path, protocol: str) -> SuiteIndex:
        index = cls()
        for b in iter_batches(suite_dir, BATCH_SIZE):
            index.wanted.setdefault(b.file, set()).update(b.tc_ids)
            index.firsts.setdefault(b.file, []).append(min(b.tc_ids))
            index.cases += len(b.cases)
            if protocol != V2:
                index.optional.update((b.file, tc) for tc, case in zip(b.tc_ids, b.cases)
                                      if not v1_expressible(b.op, case))
        for firsts in index.firsts.values():
            firsts.sort()
        return index

    def batch_of(self, file: str, tc: int) -> tuple[str, int]:
        firsts = self.firsts[file]
        return file, firsts[max(bisect.bisect_right(firsts, tc) - 1, 0)]


@dataclass
class Responses:
    """A responses file read into ``store`` (a scratch index beside the run), with what was read of it."""

    path: Path
    store: AnswerIndex
    identity: dict[str, Any]
    protocol: str | None
    sha256: str
    size: int
    answers: int
    hello: dict[str, Any] | None = None     # the header's hello, as given

    def meta(self) -> dict[str, Any]:
        """The run meta's ``responses``: the file and the digest of the bytes judged."""
        return {"file": self.path.name, "path": str(self.path.resolve()), "sha256": self.sha256, "bytes": self.size, "answers": self.answers,
                "implementation_named": bool(self.identity.get("identified", True))}

    def batch_answers(self, file: str, tc_ids: Sequence[int]) -> dict[int, Any]:
        """The answers held for the tests of ``file`` from the least to the greatest of ``tc_ids``."""
        return self.store.between(file, min(tc_ids), max(tc_ids))


def _lines(raw: io.BufferedReader, path: Path, limit: int) -> Iterator[tuple[int, bytes]]:
    if raw.peek(2)[:2] == b"\x1f\x8b":
        with gzip.GzipFile(fileobj=raw, mode="rb") as f:      # decompressed as a stream, a line at a time
            yield from bounded_lines(f, str(path), limit)
    else:
        yield from bounded_lines(raw, str(path), limit)
    while raw.read(1 << 20):                                 # whatever follows counts in the digest
        pass


def _header(obj: dict[str, Any], path: Path, n: int) -> tuple[dict[str, Any], str | None]:
    hello = obj["hello"]
    if n != 1 or not isinstance(hello, dict):
        raise ResponsesError(f'{path}:{n}: a header {{"hello": {{...}}}} must be the first line and an object')
    try:
        parsed = parse_hello({**hello, "id": 0}, 0)
    except VendorFault as err:
        raise ResponsesError(f"{path}:{n}: the header is not a hello answer: {err.detail}") from None
    return identity_of(parsed), hello.get("protocol") if isinstance(hello.get("protocol"), str) else None


def read_responses(path: Path, index: SuiteIndex, store: AnswerIndex, max_answer_bytes: int,
                   max_run_answer_bytes: int) -> Responses:
    """Read the file once, into ``store``, refusing as read what cannot be judged (see the module)."""
    identity, protocol, hello = dict(UNIDENTIFIED), None, None
    total, answers, n = 0, 0, 0
    per_batch: dict[tuple[str, int], int] = {}
    try:
        with open(path, "rb") as f:
            digesting = _Digesting(f)
            raw = io.BufferedReader(digesting, 1 << 16)
            for n, line in _lines(raw, path, max_answer_bytes):
                if not line.strip():
                    continue
                total += len(line)
                if total > max_run_answer_bytes:
                    raise ResponsesError(f"{path}:{n}: the answers pass {max_run_answer_bytes:,} bytes in all "
                                         "(--max-run-answer-mb); refused")
                try:
                    obj = json.loads(line)
                except ValueError as err:
                    raise ResponsesError(f"{path}:{n}: not JSON ({str(err)[:200]})") from None
                except RecursionError:
                    raise ResponsesError(f"{path}:{n}: JSON nested too deeply") from None
                if isinstance(obj, dict) and set(obj) == {"hello"}:
                    identity, protocol = _header(obj, path, n)
                    hello = obj["hello"]
                    continue
                if (not isinstance(obj, dict) or set(obj) != {"file", "tcId", "answer"} or not isinstance(obj["file"], str)
                        or not isinstance(obj["tcId"], int) or isinstance(obj["tcId"], bool)):
                    raise ResponsesError(f'{path}:{n}: a line must be {{"file": str, "tcId": int, "answer": ...}}')
                file, tc = obj["file"], obj["tcId"]
                if tc not in index.wanted.get(file, ()):
                    raise ResponsesError(f"{path}:{n}: answer for unknown {file[:200]} tcId {tc}")
                batch = index.batch_of(file, tc)
                per_batch[batch] = per_batch.get(batch, 0) + len(line)
                if per_batch[batch] > max_answer_bytes:
                    raise ResponsesError(f"{path}:{n}: the answers to the batch of {file} from tcId {batch[1]} pass "
                                         f"{max_answer_bytes:,} bytes together (--max-answer-mb, the size of a live "
                                         "batch answer); refused")
                if not store.add(file, tc, obj["answer"]):
                    raise ResponsesError(f"{path}:{n}: duplicate answer for {file} tcId {tc}")
                del obj
                answers += 1
            store.done()
    except OSError as err:
        raise ResponsesError(f"{path}: cannot read: {err.strerror or err}") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as err:
        raise ResponsesError(f"{path}: truncated or corrupt gzip: {err}") from None
    except UnicodeDecodeError:
        raise ResponsesError(f"{path}:{n}: not UTF-8 text") from None
    except LineTooLong as err:
        raise ResponsesError(f"{err} (--max-answer-mb)") from None
    return Responses(path, store, identity, protocol, digesting.sha256.hexdigest(), digesting.size, answers, hello)


def _check_complete(responses: Responses, index: SuiteIndex) -> None:
    """Every case the suite holds has its answer (for v1, every case v1 expresses)."""
    first: tuple[str, int] | None = None
    missing = 0
    for file in sorted(index.wanted):
        have = responses.store.tc_ids(file)
        lacking = sorted(tc for tc in index.wanted[file] - have if (file, tc) not in index.optional)
        missing += len(lacking)
        if lacking and first is None:
            first = (file, lacking[0])
    if first is not None:
        raise ResponsesError(f"{responses.path}: no answer for {first[0]} tcId {first[1]} ({missing:,} answers missing)")


def validate_responses(responses: Path, suite_dir: Path, run_dir: Path,
                       progress: Callable[[int, int], None] | None = None, custom_suite: bool = False,
                       protocol: str = V2, *, seal_key: Path | None = None,
                       max_answer_bytes: int = RESPONSE_LINE_BYTES, max_run_answer_bytes: int = 32768 << 20) -> str:
    """Judge a responses file; returns the verdict. The suite folder is copied into the run folder
    and the copy anchored (unless ``custom_suite``, it must be the release's); the file is read
    (bounded, refused as read, see the module docstring) and must answer every case before
    anything is judged. ``protocol``: the contract version the answers follow (a v1 file need not
    answer the vectors v1 cannot express; answers to them are not judged, see
    :mod:`tablecert.harness.protocol_versions`). The run record is sealed with ``seal_key``
    (default the lab's run key, :mod:`tablecert.harness.record.seal`)."""
    if not responses.is_file():                                   # refused before the suite is copied
        raise ResponsesError(f"{responses}: no such responses file")
    key = seal.run_key(seal_key)
    with locked_run_folder(run_dir):
        db_path = run_dir / "run.db"
        if db_path.exists() or db_path.is_symlink():
            raise RunError(f"{db_path} exists: choose a new run folder")
        if load_manifest(suite_dir)["suite"] in HAND_SUITES:     # refused before it is copied
            raise ResponsesError("offline validation of the hand-stream suites is not supported: run them live")
        folder, anchor = copy_anchored(suite_dir, run_dir / "suite", None, custom_suite)
        try:
            verdict = _read_and_judge(responses, folder, db_path, anchor, progress, protocol, max_answer_bytes,
                                      max_run_answer_bytes)
        except BaseException as err:           # refused (or stopped) before judging: no copy left behind
            if not db_path.exists():
                remove_our_folder(folder)
            if isinstance(err, (ValueError, OSError)) and str(folder) in str(err):     # the folder given named
                raise type(err)(str(err).replace(str(folder), str(suite_dir))) from None
            raise
        seal.seal_folder(run_dir, key)
    return verdict


def _read_and_judge(responses: Path, folder: Path, db_path: Path, anchor: SuiteAnchor,
                    progress: Callable[[int, int], None] | None, protocol: str, max_answer_bytes: int,
                    max_run_answer_bytes: int) -> str:
    """Read the responses file against the suite copy ``folder`` (into a temporary store beside
    the run database, removed after) and judge it; the verdict."""
    manifest = load_manifest(folder)
    index = SuiteIndex.of(folder, protocol)
    store, store_path = AnswerIndex.beside(db_path.parent)
    try:
        read = read_responses(responses, index, store, max_answer_bytes, max_run_answer_bytes)
        if read.protocol is not None and read.protocol != protocol:
            raise ResponsesError(f"{responses}: the header says {read.protocol}, the answers were to be judged as "
                                 f"{protocol} (--protocol)")
        _check_complete(read, index)
        return _judge(read, folder, db_path, manifest, anchor, index.cases, progress, protocol)
    finally:
        store.close()
        os.unlink(store_path)


def vendor_meta(responses: Responses, protocol: str) -> dict[str, Any]:
    """The vendor as the run's meta records it: a header's hello as a live run records the hello
    (``vendor_hello``, and the identity speaking the contract version judged), else the
    unidentified implementation."""
    if responses.hello is None:
        return {"vendor": responses.identity}
    return {"vendor": {**responses.identity, "protocol": protocol}, "vendor_hello": responses.hello,
            "vendor_capabilities": responses.hello.get("capabilities")}     # what it declares, as a live run keeps it


class OfflineSession(AnswersByTest):
    """A responses file as a source of answers, in the place of a vendor session: its hello lists
    every op (the file answers the whole suite; the vendor it names is the run's, from its header)
    and speaks the contract version the answers follow; a batch's answers are read by test."""

    def __init__(self, responses: Responses, protocol: str) -> None:
        self.responses, self.protocol = responses, protocol

    def hello(self) -> Hello:
        return Hello("offline", "offline", "offline", KNOWN_OPS, {}, self.protocol)

    def batch(self, op: str, config: Any, cases: Sequence[Any]) -> list[Any]:
        raise VendorFault(FaultKind.REQUEST_ERROR, "a responses file answers tests by (file, tcId), not requests")

    def answers(self, file: str, tc_ids: Sequence[int]) -> list[Any]:
        found = self.responses.batch_answers(file, tc_ids)
        return [found[tc] for tc in tc_ids]

    def close(self) -> None:
        pass

    @property
    def alive(self) -> bool:
        return True

    def stderr_tail(self) -> str:
        return ""


def _judge(responses: Responses, suite_dir: Path, db_path: Path, manifest: dict[str, Any], anchor: SuiteAnchor,
           total: int, progress: Callable[[int, int], None] | None, protocol: str) -> str:
    """Judge the answers batch by batch in run order, through the run pipeline (the responses
    file is the instance's session: :class:`OfflineSession`), into a new run database."""
    db = RunStore(db_path)
    scope_meta = {"suite_tests": int(manifest["numberOfTests"]),
                  **dict.fromkeys(("suite_ops", "required_ops"), suite_ops(manifest))}
    db.set_meta(tablecert_version=__version__, started=utc_now(), suite=manifest["suite"],
                suite_manifest_sha256=manifest_digest(suite_dir), profile=manifest["profile"],
                suite_anchor=anchor.meta(), adapter="offline", target=str(responses.path), state="running",
                protocol=protocol, responses=responses.meta(), **vendor_meta(responses, protocol), **scope_meta,
                build=not_authenticated(OFFLINE))
    instance = VendorInstance(lambda: OfflineSession(responses, protocol), FaultPolicy())
    instance.session()                                  # greeted: every op, the answers' contract version
    recorder = Recorder(db, progress=progress)
    done = 0
    for batch in iter_batches(suite_dir, BATCH_SIZE):
        recorder.record(judge(instance, batch))
        done += len(batch.cases)
        recorder.advance(done, total)
    db.set_meta(finished=utc_now(), state="finished")
    verdict = recorder.conclude(scope_meta).verdict
    db.close()
    return verdict
