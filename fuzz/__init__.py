"""``tablecert fuzz``: differential testing of a live vendor against the oracle, driven by
hypothesis, for vendors before they submit and for labs exploring. It never issues a certificate.

Public API: :func:`fuzz` (run against a vendor and write the run folder), :class:`FuzzResult`.
The room uses the oracle (expected answers, the config space), the vectors (the replay files'
format), the harness (adapters, the judge); none of those import it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablecert.fuzz.engine import MAX_FAILURES, Fuzzer
from tablecert.fuzz.search import Failure, FuzzStats
from tablecert.fuzz.findings import replay_command, write_outputs
from tablecert.harness.contract import KNOWN_OPS, VendorSession

__all__ = ["Failure", "FuzzResult", "fuzz", "EXIT_CODES"]

#: 0 nothing failed, 1 a failure was found (2, bad input or a vendor that cannot run, is the CLI's).
EXIT_CODES = {False: 0, True: 1}


@dataclass(frozen=True)
class FuzzResult:
    stats: FuzzStats
    summary: dict[str, Any]

    @property
    def failed(self) -> bool:
        return bool(self.stats.failures)


DEFAULT_OPS = tuple(op for op in KNOWN_OPS if op != "craps.round")
"""The ops fuzzed when none are named: whole rounds (the stateful machine) only when asked for
with ``--ops craps.round``, so a default run spends its budget as before."""


def fuzz(open_session: Callable[[], VendorSession], out: Path, *, budget: float, seed: int = 0,
         profile: str, table: dict[str, Any] | None = None, cap: int | None = None, ops: tuple[str, ...] | None = None,
         max_examples: int | None = None, max_failures: int = MAX_FAILURES, max_cases: int | None = None,
         on_failure: Callable[[Failure], None] | None = None, shrink: bool = True,
         vendor_args: Sequence[str] = ("--vendor-cmd", "CMD")) -> FuzzResult:
    """Fuzz the vendor that ``open_session`` reaches for ``budget`` seconds and write ``out``.

    ``table`` and ``cap`` pin the craps table and the pai gow cap (a profile's; else both are
    drawn); ``profile`` names
    it (or the default profile) in the replay files. ``ops`` defaults to every op the vendor's
    hello lists but ``craps.round`` (:data:`DEFAULT_OPS`). ``max_examples`` bounds each search
    round (for fully reproducible runs); ``max_cases`` stops drawing new examples after that many
    cases (a budget in work: :mod:`tablecert.fuzz.engine`);
    ``max_failures`` stops the run after that many distinct failures; ``shrink`` False reports
    each failure as found (for tests that only ask whether a fault is found). ``vendor_args``:
    the command-line options that name the vendor (``--vendor-cmd CMD`` ...), for the replay
    command the outputs print."""
    out.mkdir(parents=True, exist_ok=True)
    probe = open_session()
    try:
        hello = probe.hello()
    finally:
        probe.close()
    chosen = tuple(op for op in (ops or DEFAULT_OPS) if op in hello.ops)
    if not chosen:
        raise ValueError(f"the vendor supports none of the ops asked for ({', '.join(ops or KNOWN_OPS)})")
    stats = Fuzzer(open_session, out, ops=chosen, budget=budget, seed_value=seed, table=table, cap=cap,
                   max_examples=max_examples, max_failures=max_failures, max_cases=max_cases, progress=on_failure,
                   shrink=shrink).run()
    settings = {"seed": seed, "budget": budget, "max_cases": max_cases, "profile": profile,
                "pinned": table is not None, "ops": list(chosen)}
    return FuzzResult(stats, write_outputs(out, stats, hello, settings, replay_command(vendor_args, out)))
