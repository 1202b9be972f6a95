"""The adapter contract: the one typed statement of how the harness talks to a vendor.

Every transport (subprocess, Python plugin, HTTP) is an :class:`Adapter` that opens a
:class:`VendorSession`; the runner only ever sees sessions. Built-in and outside adapters are
found the same way, through the entry-point group ``tablecert.adapters``; Python vendors through
``tablecert.vendors`` (the reference vendor is registered there like any outside plugin).

A session may also offer optional capabilities, each declared here (:class:`Metered`,
:class:`Confined`, :class:`RawBatches`, :class:`RawExchange`, :class:`AnswersByTest`) and claimed by
a session class by inheriting it; the runs use nothing of a session that is not declared here.

A session speaks the vendor protocol (``harness/vendor-protocol.md``): ``hello`` once, then
batches of one op. Anything a vendor does outside the contract (crash, hang, a non-JSON line, the
wrong id, the wrong number of results, a request-level error) raises :class:`VendorFault` with a
:class:`FaultKind`, never a generic exception, so the runner can record it and go on.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from importlib import metadata
from typing import Any, Protocol, runtime_checkable

from tablecert.oracle.names import OPS

PROTOCOL = "tablecert-vendor/2"
KNOWN_OPS = OPS
"""The ops of a vector suite (:mod:`tablecert.oracle.names`)."""
RNG_OPS = ("rng.dice", "rng.shuffle")
"""Optional random-outcome ops (``tablecert rng``): never part of a vector suite or of the
certification scope, so they stay out of KNOWN_OPS (``Hello.ops``); ``Hello.raw`` lists them."""
ADAPTER_GROUP = "tablecert.adapters"
VENDOR_GROUP = "tablecert.vendors"


class FaultKind(str, Enum):
    """What went wrong with a vendor, outside the answers themselves."""

    CRASH = "crash"                  # the vendor process exited or the connection closed
    TIMEOUT = "timeout"              # no complete answer within the timeout
    MALFORMED = "malformed"          # not JSON, not an object, results not a list, output too large
    WRONG_ID = "wrong_id"            # the answer's id is not the request's
    WRONG_COUNT = "wrong_count"      # len(results) != len(cases)
    WRONG_OP = "wrong_op"            # the answer names an op that was not asked (it may echo the one asked)
    REQUEST_ERROR = "request_error"  # the vendor answered the whole request with an error
    BAD_HELLO = "bad_hello"          # a hello answer that arrived but is unusable (fields, protocol refused)
    START = "start"                  # the vendor could not be started at all
    STATE_LIMIT = "state_limit"      # New: a live vendor's state_dir grew past the lab's --max-state-mb


class VendorFault(Exception):
    """A fault of the vendor (not of one answer): the batch it happened in gets no results."""

    def __init__(self, kind: FaultKind, detail: str, stderr_tail: str = "") -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.stderr_tail = stderr_tail


@dataclass(frozen=True)
class Hello:
    """What the vendor said of itself; ``ops`` decides which vectors run (others: unsupported)."""

    name: str
    version: str
    build: str
    ops: tuple[str, ...]
    raw: Mapping[str, Any] = field(default_factory=dict)
    protocol: str = "tablecert-vendor/1"   # the version negotiated (harness/protocol_versions.py)


@dataclass(frozen=True)
class SessionOptions:
    """Settings every adapter honours where they apply."""

    timeout: float = 60.0                 # seconds for one answer (hello or batch)
    pass_env: tuple[str, ...] = ()        # environment variables handed to a vendor process
    max_line_bytes: int = 16 << 20        # longest answer line accepted (a decoded answer costs ~35x in memory)
    memory_limit_mb: int | None = 4096    # address-space limit of a vendor process
    cpu_limit_s: int | None = 3600        # CPU-time limit of a vendor process (a restart starts afresh)
    isolation: str = "none"               # subprocess vendors: auto | strict | none (harness/confine/sandbox.py)
    vendor_network: bool = False          # a sandboxed vendor keeps the host's network
    hidden_paths: tuple[str, ...] = ()    # folders a sandboxed vendor must not see (run folder, key's folder)
    vendor_paths: tuple[str, ...] = ()    # host folders bound read-only into the sandbox (--vendor-path)
    writable_paths: tuple[str, ...] = ()  # host folders bound writable into the sandbox (a vendor's own state)
    max_processes: int | None = 256       # processes and threads of a sandboxed vendor (RLIMIT_NPROC)
    max_file_mb: int | None = 256         # largest file a sandboxed vendor may write (RLIMIT_FSIZE)
    tmp_mb: int = 256                     # size of a sandboxed vendor's private /tmp, /var/tmp and HOME
    max_state_mb: int | None = 64         # what a live vendor's state_dir may hold (checked after every answer)


@runtime_checkable
class VendorSession(Protocol):
    """One live connection to a vendor."""

    def hello(self) -> Hello:
        """Send ``hello``; raises VendorFault(BAD_HELLO, ...) if the answer is unusable."""
        ...

    def batch(self, op: str, config: Any, cases: Sequence[Any]) -> list[Any]:
        """Send one batch; the vendor's ``results`` list, one entry per case (each any JSON value:
        the runner judges it). Raises VendorFault on anything outside the contract."""
        ...

    def close(self) -> None:
        """Say ``bye`` if possible and release everything (kill the process, close sockets)."""
        ...

    @property
    def alive(self) -> bool:
        """False once the session faulted or was closed (the runner then opens a new one)."""
        ...

    def stderr_tail(self) -> str:
        """The end of what the vendor logged (empty where the transport has no such channel)."""
        ...


# ---------------------------------------------------------------------------------------------
# Optional capabilities of a session (New in 0.9: declared, never probed)
#
# Like pytest's optional hooks, these are declared here once, typed and documented; a session
# class that offers one says so by inheriting it (``class MySession(RawBatches, Metered): ...``).
# The run asks ``isinstance(session, RawBatches)``: a declaration, not a guess from the names a
# session happens to have. A session that declares none is run through the five members of
# VendorSession alone, as before.
# ---------------------------------------------------------------------------------------------

class Metered(ABC):
    """Counts what the vendor sent: ``answer_bytes``, the size of every answer received in this
    session (the run's ``--max-run-answer-mb`` cap adds up every session's). A session that does
    not declare it counts nothing towards the cap."""

    answer_bytes: int


class Confined(ABC):
    """Says how its vendor is confined: ``isolation`` (recorded in the run's meta and on the
    certificate; every instance of a run must say the same) and ``limits`` (the resource limits
    applied, a JSON object, or None). A session that does not declare it is recorded as
    ``unknown (outside adapter)``."""

    isolation: str
    limits: dict[str, Any] | None = None
    bound: tuple[str, ...] | None = None   # the host paths bound in read-only besides the system folders
                                           # (None: no file system of its own, it sees the host's)


class RawBatches(ABC):
    """Sends a batch and gives back the answer line undecoded, so that a right answer can be
    confirmed in bulk (:mod:`tablecert.harness.answers.bulk`) without decoding it."""

    @abstractmethod
    def batch_raw(self, op: str, config: Any, cases: Sequence[Any]) -> tuple[int, bytes]:
        """Send one batch; (the request's id, the answer line without its newline). Raises
        VendorFault for a transport fault (crash, timeout, a line too long)."""

    @abstractmethod
    def decode_batch_answer(self, line: bytes, request_id: int, n_cases: int, op: str) -> list[Any]:
        """The results of an answer line from :meth:`batch_raw` (or :meth:`RawExchange.exchange_raw`),
        decoded and checked exactly as :meth:`VendorSession.batch` checks them (VendorFault)."""


class RawExchange(RawBatches):
    """Sends a request line the harness encoded itself (the hand suites' requests, written by a
    kernel) and gives back the answer line undecoded (decoded, when need be, by
    :meth:`RawBatches.decode_batch_answer`)."""

    @abstractmethod
    def reserve_id(self) -> int:
        """A fresh request id, for a line the caller encodes."""

    @abstractmethod
    def exchange_raw(self, request_line: bytes | bytearray | memoryview) -> bytes:
        """Send one request line (ending with a newline) and give back the answer line without
        its newline (VendorFault for a transport fault)."""


class AnswersByTest(ABC):
    """A source of answers addressed by test, not a live vendor: the answers a vendor gave
    offline to each (file, tcId) of the suite (:mod:`tablecert.harness.run.offline`). The run asks it
    for a batch's answers instead of sending the batch."""

    @abstractmethod
    def answers(self, file: str, tc_ids: Sequence[int]) -> list[Any]:
        """The answers to the tests ``tc_ids`` of vector file ``file``, in that order."""


def answer_bytes(session: VendorSession | None) -> int:
    """What a session counted of its answers (0 for one that is not :class:`Metered`)."""
    return session.answer_bytes if isinstance(session, Metered) else 0


def isolation_of(session: VendorSession) -> str | None:
    """How a session's vendor is confined (None for one that is not :class:`Confined`)."""
    return session.isolation if isinstance(session, Confined) else None


def limits_of(session: VendorSession) -> dict[str, Any] | None:
    """The resource limits of a session's vendor (None for one that is not :class:`Confined`)."""
    return session.limits if isinstance(session, Confined) else None


def bound_of(session: VendorSession) -> list[str] | None:
    """The host paths a confined session's vendor sees read-only besides the system folders (None:
    it has no file system of its own)."""
    bound = session.bound if isinstance(session, Confined) else None
    return list(bound) if bound is not None else None


@runtime_checkable
class Adapter(Protocol):
    """A transport: opens sessions to a vendor named by ``target`` (a command line, a plugin
    name or ``module:attr``, a URL)."""

    name: str

    def open(self, target: str, options: SessionOptions) -> VendorSession:
        ...


@runtime_checkable
class PythonVendor(Protocol):
    """An in-process vendor: the same JSON-shaped messages as the wire protocol."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        ...


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different (a repeated key would let two readers of the
    same answer see two different values)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"duplicate key {repeated[:60]!r} in an object")
    return obj


def decode_answer(text: str | bytes) -> Any:
    """A vendor's answer as a JSON value, strictly: UTF-8, NaN or Infinity refused, and a key
    repeated in any object refused (ValueError, or RecursionError for absurd nesting). Every
    adapter decodes answers with this."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)


def same_id(value: Any, request_id: int) -> bool:
    """An answer's id is the request's: the same JSON integer (``true`` and ``1.0`` are not ``1``)."""
    return type(value) is int and value == request_id


def parse_hello(answer: Any, request_id: int) -> Hello:
    """Check a hello answer against the contract."""
    if not isinstance(answer, dict):
        raise VendorFault(FaultKind.BAD_HELLO, "hello answer is not a JSON object")
    if not same_id(answer.get("id"), request_id):
        raise VendorFault(FaultKind.BAD_HELLO, f"hello answered with id {answer.get('id')!r}, not {request_id}")
    if "error" in answer:
        raise VendorFault(FaultKind.BAD_HELLO, f"hello refused: {str(answer['error'])[:300]}")
    impl, ops = answer.get("implementation"), answer.get("ops")
    if not isinstance(impl, dict) or not all(isinstance(impl.get(k), str) for k in ("name", "version", "build")):
        raise VendorFault(FaultKind.BAD_HELLO, "hello lacks implementation.name/version/build strings")
    if not isinstance(ops, list) or not all(isinstance(o, str) for o in ops):
        raise VendorFault(FaultKind.BAD_HELLO, "hello lacks an 'ops' list of strings")
    from tablecert.harness.answers.capabilities import CapabilityError, check_declaration

    try:
        check_declaration(answer)
    except CapabilityError as err:
        raise VendorFault(FaultKind.BAD_HELLO, str(err)) from None
    return Hello(impl["name"], impl["version"], impl["build"], tuple(o for o in ops if o in KNOWN_OPS), answer)


def _brief(value: Any) -> str:
    """A value from an answer, shown in a fault's detail (at most 100 characters)."""
    return repr(value)[:100]


def check_batch_answer(answer: Any, request_id: int, n_cases: int, op: str) -> list[Any]:
    """The results list of a batch answer to a request of ``op``, or VendorFault saying what is
    wrong with it."""
    if not isinstance(answer, dict):
        raise VendorFault(FaultKind.MALFORMED, f"answer is a JSON {type(answer).__name__}, not an object")
    if not same_id(answer.get("id"), request_id):
        raise VendorFault(FaultKind.WRONG_ID, f"answer id {_brief(answer.get('id'))}, request id {request_id}")
    if "op" in answer and answer["op"] != op:
        raise VendorFault(FaultKind.WRONG_OP, f"answer names op {_brief(answer['op'])}, the request was {op}")
    if "error" in answer and "results" not in answer:
        raise VendorFault(FaultKind.REQUEST_ERROR, f"request refused: {str(answer['error'])[:300]}")
    results = answer.get("results")
    if not isinstance(results, list):
        raise VendorFault(FaultKind.MALFORMED, "answer has no 'results' list")
    if len(results) != n_cases:
        raise VendorFault(FaultKind.WRONG_COUNT, f"{len(results)} results for {n_cases} cases")
    return results


def find_adapter(name: str) -> Adapter:
    """The adapter registered under ``name`` in the ``tablecert.adapters`` entry-point group."""
    found = {ep.name: ep for ep in metadata.entry_points(group=ADAPTER_GROUP)}
    if name not in found:
        raise ValueError(f"unknown adapter {name!r}; installed adapters: {', '.join(sorted(found)) or 'none'}")
    adapter = found[name].load()
    return adapter() if isinstance(adapter, type) else adapter


@dataclass
class VendorTarget:
    """Which adapter reaches the vendor, and how (a command line, a plugin, a URL), with the
    session options every instance of the run is opened with (a Ray actor gets it pickled: this
    module is all it needs to import for it)."""

    adapter: str
    target: str
    options: SessionOptions = field(default_factory=SessionOptions)

    def opener(self) -> Callable[[], VendorSession]:
        adapter = find_adapter(self.adapter)
        return lambda: adapter.open(self.target, self.options)


def find_python_vendor(spec: str) -> PythonVendor:
    """A Python vendor by entry-point name (group ``tablecert.vendors``) or by ``module:attr``;
    a class is instantiated without arguments."""
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        import importlib

        try:
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as err:
            raise ValueError(f"cannot load vendor {spec!r}: {err}") from None
    else:
        found = {ep.name: ep for ep in metadata.entry_points(group=VENDOR_GROUP)}
        if spec not in found:
            raise ValueError(f"unknown vendor plugin {spec!r}; installed: {', '.join(sorted(found)) or 'none'}")
        obj = found[spec].load()
    vendor = obj() if isinstance(obj, type) else obj
    if not isinstance(vendor, PythonVendor):
        raise ValueError(f"vendor {spec!r} has no handle(request) method")
    return vendor
