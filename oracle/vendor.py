"""The reference vendor: the oracle behind the vendor protocol (``tablecert-vendor/2``, and
``tablecert-vendor/1`` for a harness that greets it so; :mod:`tablecert.oracle.protocol`).

:class:`ReferenceVendor` answers protocol messages (``hello``, op batches, ``bye``) exactly as a
correct vendor must; :func:`serve` runs it over newline-delimited JSON streams, which is what
``tablecert reference-vendor`` does on stdin/stdout. Request-level faults the protocol leaves
open are answered as the project's copy of the contract (``harness/vendor-protocol.md``) says:
``{"id": ID, "error": {"code": "invalid_request" | "unknown_op" | "unsupported_protocol", ...}}``.
Besides the wager ops of :data:`OPS` it answers the optional random-outcome ops ``rng.dice``,
``rng.shuffle``, ``rng.raw``, ``rng.scale`` and ``rng.paired`` (:mod:`tablecert.oracle.outcomes`,
loaded when one is first asked; declared in hello's ``rng``: :mod:`tablecert.oracle.outcome_ops`),
which no vector suite uses, and the live-table
ops (``table.open``, ``table.step``, ``table.resume``, ``table.recall``, ``table.close``; New: the
station tables' ``table.meters``, ``table.disconnect``, ``table.reconnect``, ``table.disable``,
``table.enable``, with every feature of hello's ``table_features``; a pai gow table's records and
``table.meters``, ``paigow_records``) on tables
kept persistently in the ``state_dir`` its ``hello`` names (:mod:`tablecert.oracle.table_journal`:
an append-only journal, fsync'd, replayed when it starts). ``python -m tablecert.oracle.vendor``
serves it as ``tablecert reference-vendor`` does, without the command line's imports (a vendor
restarted after each interruption of a live run starts in a third of the time). Given the root of
its build (``--build-root DIR``), it also answers the optional ``build.authenticate``
(*Since 1.0.*, :mod:`tablecert.oracle.build_authenticate`) and declares it in hello's ``ops``.
*Since 1.1* its v2 hello declares ``capabilities.craps.house_rules`` naming the opt-in house rules
(:data:`OPT_IN_OFFERED`) with every value, as it plays them all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from tablecert import __version__
from tablecert.oracle import craps, craps_round, paigow
from tablecert.oracle.build_authenticate import OP as BUILD_OP, authenticate
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle.live_stations import FEATURES
from tablecert.oracle.paigow_records import FEATURE as PAIGOW_RECORDS
from tablecert.oracle.live_tables import LIVE_OPS
from tablecert.oracle.outcome_ops import HELLO_RNG, OUTCOME_OPS
from tablecert.oracle.protocol import SPOKEN, V1, V2, V2_OPS, v1_result, v2_case
from tablecert.oracle.table_config import parse_table_config
from tablecert.oracle.table_journal import STATION_OPS, LiveError, TableJournal

OPT_IN_OFFERED = {name: list(craps_round.HOUSE_RULES[name][0]) for name in sorted(craps_round.OPT_IN_RULES)}
"""The opt-in house rules (*since 1.1*), every value: declared in hello, as a vendor must name them
to be judged on their other values (every earlier rule, not named, offers all its values)."""

PROTOCOL = V2

# op -> (config parser, case handler). The parser raises ConfigError for a malformed config.
OPS: dict[str, tuple[Callable[[object], Any], Callable[[Any, object], dict[str, Any]]]] = {
    "craps.odds_limits": (parse_table_config, craps.odds_limits),
    "craps.place_odds": (parse_table_config, craps.place_odds),
    "craps.settle": (parse_table_config, craps.settle),
    "craps.round": (craps_round.parse_round_config, craps_round.play),
    "paigow.player_bonus": (paigow.parse_paigow_config, paigow.player_bonus),
    "paigow.banker_bonus": (paigow.parse_paigow_config, paigow.banker_bonus),
    "paigow.settle": (paigow.parse_paigow_config, paigow.settle),
}


def error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def run_op(op: str, config: object, cases: list[object]) -> list[dict[str, Any]]:
    """Answer every case of one batch: ``results[i]`` answers ``cases[i]`` (the random outcomes'
    generator, and numpy with it, loaded when an rng op first asks)."""
    if op in OPS:
        parse_config, handle = OPS[op]
    else:
        from tablecert.oracle.outcomes import RNG_OPS  # lazy: 136 ms of reference-vendor start (bench_startup.py, load 4.9)
        parse_config, handle = RNG_OPS[op]
    try:
        parsed = parse_config(config)
    except ConfigError as err:
        return [error("invalid_config", f"{err.field}: {err.message}") for _ in cases]
    results: list[dict[str, Any]] = []
    for case in cases:
        try:
            results.append(handle(parsed, case))
        except CaseError as err:
            results.append(error(err.code, err.message))
    return results


class ReferenceVendor:
    """A complete, correct vendor built on the oracle. Also the model for Python plugins.

    ``protocols``: the contract versions it accepts in ``hello`` (both by default; ``(V1,)`` makes
    it a vendor of the earlier contract, which refuses a v2 hello with ``unsupported_protocol``).
    The version a session's hello named decides the shapes: v1 cases are read as v2 with the odds
    working and v1 results are the v2 ones without the v2 fields."""

    name = "tablecert reference oracle"
    protocols: tuple[str, ...] = SPOKEN     # class defaults, for subclasses that do not call __init__
    protocol: str = SPOKEN[0]
    journal_class = TableJournal
    journal: TableJournal | None = None     # the live tables, once a hello named a state_dir

    build_root: str | None = None           # *Since 1.0.*: the root of its build, for build.authenticate

    def __init__(self, protocols: tuple[str, ...] = SPOKEN, build_root: str | None = None) -> None:
        self.protocols = protocols
        self.protocol = protocols[0]
        self.build_root = build_root

    def hello(self) -> dict[str, Any]:
        ops = [op for op in OPS if self.protocol == V2 or op not in V2_OPS]
        live = [*LIVE_OPS, *STATION_OPS] if self.protocol == V2 else []
        features = {"table_features": [*FEATURES, PAIGOW_RECORDS],
                    "capabilities": {"craps": {"house_rules": OPT_IN_OFFERED}}} if self.protocol == V2 else {}
        return {
            "implementation": {"name": self.name, "version": __version__, "build": f"tablecert-{__version__}"},
            "ops": ops + list(OUTCOME_OPS) + live + ([BUILD_OP] if self.build_root is not None else []),
            "rng": HELLO_RNG,
            **features,
        }

    def handle(self, request: object) -> dict[str, Any]:
        """One response object for one request object (never raises for bad input)."""
        if not isinstance(request, dict):
            return {"id": None, **error("invalid_request", "a request must be a JSON object")}
        rid = request.get("id")
        if not isinstance(rid, int) or isinstance(rid, bool):
            return {"id": None, **error("invalid_request", "'id' must be an integer")}
        op = request.get("op")
        if op == "hello":
            asked = request.get("protocol")
            if asked not in self.protocols:
                return {"id": rid, **error("unsupported_protocol", f"this vendor speaks {', '.join(self.protocols)}, "
                                                                   f"not {asked!r}")}
            self.protocol = asked
            state_dir = request.get("state_dir")
            if isinstance(state_dir, str) and asked == V2:
                try:
                    hello = self.hello()
                    self.journal = self.journal_class(state_dir, hello["implementation"]["build"],
                                                      tuple(hello.get("table_features", ())))
                except (OSError, ValueError) as err:
                    return {"id": rid, **error("invalid_request", f"state_dir {state_dir!r}: {err}")}
            return {"id": rid, **self.hello(), **({"protocol": V2} if asked == V2 else {})}
        if op == "bye":
            return {"id": rid}
        if op == BUILD_OP and self.build_root is not None:
            return {"id": rid, **authenticate(self.build_root, request)}
        if (op in LIVE_OPS or op in STATION_OPS) and self.protocol == V2:
            return {"id": rid, **self.live(op, request)}
        if op not in OPS and op not in OUTCOME_OPS:
            return {"id": rid, **error("unknown_op", f"unknown op {op!r}")}
        cases = request.get("cases")
        if not isinstance(cases, list):
            return {"id": rid, **error("invalid_request", "'cases' must be a list")}
        if self.protocol == V1:
            cases = [v2_case(op, case) for case in cases]
        results = self.results(op, request.get("config"), cases)
        if self.protocol == V1:
            results = [v1_result(op, result) for result in results]
        return {"id": rid, "results": results}

    def live(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        """``{"result": ...}`` or ``{"error": ...}`` of one live-table request."""
        if self.journal is None:
            return error("no_state_dir", "the hello named no state_dir: this vendor keeps no live tables")
        try:
            return {"result": self.journal.handle(op, request)}
        except LiveError as err:
            return error(err.code, err.message)

    def results(self, op: str, config: object, cases: list[object]) -> list[dict[str, Any]]:
        """The v2 results of one batch of v2 cases (the oracle's; vendors built on this one
        change them here)."""
        return run_op(op, config, cases)


def serve(stdin: IO[str], stdout: IO[str], vendor: ReferenceVendor | None = None) -> int:
    """Answer requests line by line until ``bye`` or end of input; returns the exit status (0).

    For the reference vendor itself on streams with byte layers (``stdin.buffer`` and
    ``stdout.buffer``, as ``tablecert reference-vendor`` has), lines are read as bytes and a
    request of the two label ops in its canonical compact form is answered by
    :func:`tablecert.oracle.label_batch.fast_label_response`, byte for byte what the JSON path
    writes; every other line is decoded as ``stdin`` itself decodes and takes the JSON path.
    """
    vendor = vendor or ReferenceVendor()

    def answer(line: str) -> bool:
        """Answer one request line through JSON; False after ``bye``."""
        if not line.strip():
            return True
        request: object = None
        try:
            request = json.loads(line)
        except ValueError as err:
            response: dict[str, Any] = {"id": None, **error("invalid_request", f"not JSON: {err}")}
        else:
            response = vendor.handle(request)
        stdout.write(json.dumps(response, separators=(",", ":")) + "\n")
        stdout.flush()
        return not (isinstance(request, dict) and request.get("op") == "bye" and "error" not in response)

    in_bytes, out_bytes = getattr(stdin, "buffer", None), getattr(stdout, "buffer", None)
    if not (type(vendor) is ReferenceVendor and "handle" not in vars(vendor)
            and in_bytes is not None and out_bytes is not None):
        for line in stdin:
            if not answer(line):
                break
        return 0

    encoding, errors = stdin.encoding or "utf-8", stdin.errors or "strict"
    heads = (b',"op":"paigow.player_bonus","config":{', b',"op":"paigow.banker_bonus","config":{')
    fast: Callable[[bytes], bytes | None] | None = None
    stdout.flush()
    for raw in in_bytes:
        # Only a line that may be a canonical label request loads the compiled fast path.
        if raw.startswith(b'{"id":') and (heads[0] in raw[:64] or heads[1] in raw[:64]):
            if fast is None:
                from tablecert.oracle.label_batch import fast_label_response as fast  # lazy: 259 ms of reference-vendor start (bench_startup.py, at rest)
            fast_answer = fast(raw)
            if fast_answer is not None:
                out_bytes.write(fast_answer + b"\n")
                out_bytes.flush()
                continue
        if not answer(raw.decode(encoding, errors)):
            break
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(serve(sys.stdin, sys.stdout))
