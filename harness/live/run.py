"""The live suite inside a run: the hook the runner calls for a ``craps.table`` batch.

:class:`LiveRun` holds what a run's live batches share: the lab's choices (``--interruptions N``,
``--no-interruptions``, the seed), the run's ``state_dir`` (made when the first live batch
starts, removed when the run ends: :func:`~tablecert.harness.live.instance.vendor_state_dir`;
one an earlier, killed invocation of the run left behind is removed first),
the interruption plan over the whole suite (:func:`~tablecert.harness.live.driver.plan_interruptions`,
kept in the run's meta as ``live``) and the vendor instance it kills and restarts
(:class:`~tablecert.harness.live.instance.InstanceControl`, each restart checked to be the
vendor the run began with). :func:`run_live_batch` judges one batch with
:func:`~tablecert.harness.live.driver.judge_live`; a vendor that does not declare every live op
(or speaks ``tablecert-vendor/1``) gets the batch as *unsupported*.
"""

from __future__ import annotations

import shlex
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablecert.harness.contract import SessionOptions
from tablecert.harness.live.driver import (DEFAULT_INTERRUPTIONS, DIMENSION, EVERY_STEP_FLAG, MODES, LivePlan,
                                           judge_live, plan_interruptions)
from tablecert.harness.live.instance import (InstanceControl, live_opener, remove_stale_state, vendor_state_dir,
                                             vendor_user)
from tablecert.harness.results import BatchOutcome
from tablecert.harness.suite_reader import Batch, iter_batches
from tablecert.oracle.live_tables import GAME_OF_OP, LIVE_OPS
from tablecert.oracle.protocol import V2


@dataclass(frozen=True)
class LiveSettings:
    """The lab's choices for a live run: ``--interruptions N``, ``--no-interruptions``, ``--interruption-seed S``."""

    interruptions: int = DEFAULT_INTERRUPTIONS
    enabled: bool = True
    seed: int = 0


@dataclass
class LiveRun:
    """One run's live tables (see the module docstring). Use it as a context manager around the run."""

    target: str                               # the vendor's command line
    options: SessionOptions
    base: Path                                # where the state_dir's folder is made (the run folder)
    interruptions: int = DEFAULT_INTERRUPTIONS
    enabled: bool = True
    seed: int = 0
    control: InstanceControl | None = None
    plan: LivePlan | None = None
    state_dir: str | None = None
    _stack: ExitStack = field(default_factory=ExitStack)

    def __enter__(self) -> LiveRun:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.control is not None:
            self.control.close()
        self._stack.close()

    def instance(self, runner: Any) -> InstanceControl:
        """The vendor instance on this run's state_dir (made on first use)."""
        if self.control is None:
            from tablecert.harness.runner import _identity, restarted_as_before

            argv = shlex.split(self.target)
            remove_stale_state(self.base)
            self.state_dir = self._stack.enter_context(vendor_state_dir(self.base, vendor_user(argv, self.options)))
            began = _identity(runner.hello)
            opener = live_opener(self.target, self.options, self.state_dir)

            def check(hello: Any) -> None:
                restarted_as_before(control.session, _identity(hello), began)  # type: ignore[arg-type]

            control = InstanceControl(opener, check)
            self.control = control
        return self.control

    def plan_of(self, runner: Any) -> LivePlan:
        """The interruption plan over the run's whole live suite (kept in the run's meta)."""
        if self.plan is None:
            vectors = [((batch.file, tc), len(case["steps"]), EVERY_STEP_FLAG in flags)
                       for batch in iter_batches(runner.suite_dir, runner.batch_size) if batch.op in GAME_OF_OP
                       for tc, case, flags in zip(batch.tc_ids, batch.cases, batch.flags)]
            self.plan = plan_interruptions(vectors, self.interruptions, self.seed, self.enabled)
            runner.db.set_meta(live={**self.plan.meta(), "interruptions_enabled": self.enabled,
                                     "state_dir": "a fresh folder for the run, 0700, owned by the vendor's user, bound "
                                                  "writable into its sandbox, kept across restarts, removed at the end"})
        return self.plan


def supports_live(hello: Any) -> bool:
    """Whether a vendor's hello declares every live-table op (in tablecert-vendor/2)."""
    ops = hello.raw.get("ops") if isinstance(hello.raw, dict) else None
    return hello.protocol == V2 and isinstance(ops, list) and all(op in ops for op in LIVE_OPS)


def run_live_batch(runner: Any, batch: Batch) -> BatchOutcome:
    """Judge one live batch in ``runner`` (a Runner, whose ``live`` is a :class:`LiveRun`)."""
    from tablecert.harness.runner import whole_batch

    if runner.hello is None or not supports_live(runner.hello) or runner.live is None:
        return whole_batch(batch, "unsupported", "unsupported")
    live: LiveRun = runner.live
    plan = live.plan_of(runner)
    runner._drop()          # one instance of the vendor at a time: the live one, on the state_dir
    details: dict[str, Any] = {}
    outcome = judge_live(live.instance(runner), batch, plan, details)
    if details:
        runner.db.set_meta(live_failures={**(runner.db.meta().get("live_failures") or {}), **details})
    return outcome


def live_summary(meta: dict[str, Any], totals: dict[str, dict[str, int]]) -> dict[str, Any]:
    """``summary.json``'s ``live``: the run's ``live`` meta (the plan) and the interruptions made
    and survived, in all and by kind, from the run database's ``interruption`` counts."""
    by_kind = {m: {"made": totals.get(m, {}).get("made", 0), "survived": totals.get(m, {}).get("survived", 0)}
               for m in MODES}
    return {**meta, "interruptions": {"made": sum(k["made"] for k in by_kind.values()),
                                      "survived": sum(k["survived"] for k in by_kind.values()), "by_kind": by_kind}}


LIVE_SUITE_OPS = tuple(GAME_OF_OP)
"""The live suite's ops (``craps.table``, ``paigow.table``): each batch of them is played here."""
__all__ = ["DIMENSION", "LIVE_SUITE_OPS", "LiveRun", "LiveSettings", "live_summary", "run_live_batch", "supports_live"]
