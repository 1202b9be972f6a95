"""Vendor instances as Ray actors on a cluster (``certify --ray ADDRESS``; ``pip install tablecert[ray]``).

The coordinator (the machine running ``certify``) holds the run database and the suite; each
actor, on whichever node Ray places it (one CPU each), holds one :class:`~tablecert.parallel.workers.Worker`:
it opens the vendor through the same adapter with the run's :class:`~tablecert.harness.adapters.registry.VendorTarget`
(the same session options: sandbox, hidden paths, limits, passed environment), so the vendor's
command (and tablecert with the same version) must exist on every node. The coordinator sends
each actor whole units with their expected answers (a vector-set batch, or a hand batch prepared
on the coordinator) and the actor returns the judged outcomes: judging on the actor keeps the
coordinator's one thread for recording, and only outcomes (counts and the rare failures) cross
the network, never the vendor's answers. The expected answers go to the actor, a lab process on
a lab node; the vendor, confined in its sandbox there, never sees them: the node's Ray folders
(sockets, logs, spilled objects) are hidden from it like the run folder.

The coordinator connects to the cluster on a thread while it starts and greets its vendor
(:class:`RayConnection`): the two waits overlap.

An actor (or its node) that is lost mid-unit is replaced by a new one and its units are sent
again; a unit that is lost :data:`MAX_LOSSES` times ends the run (it can be resumed). A unit that
comes back twice is recorded once (the writer records each unit once, and the run database
ignores a batch it already holds). Faults of the vendor itself are handled by the actor's own
recovery and recorded like any other.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tablecert.harness.run.hand_batches import HandBatch, HandSuite
from tablecert.harness.model import BatchOutcome
from tablecert.harness.run import RunError
from tablecert.harness.instance.context import SpreadContext
from tablecert.parallel.actor import VendorActor
from tablecert.parallel.spread import Spread, head_silent
from tablecert.parallel.units import Unit

MAX_LOSSES = 3
"""Times a unit may be lost with its actor before the run stops (a unit that kills its actor)."""


def connect(address: str) -> Any:
    """``import ray`` and connect to the cluster at ``address``; the ``ray`` module (RunError if no
    head answers there). Ray's warning that a thread other than the main one sets no SIGTERM
    handler is kept quiet: the command keeps its own handling of signals."""
    why = head_silent(address)
    if why:
        raise RunError(why)
    import ray  # lazy: 320 ms of Ray run start (bench_startup.py, at rest)

    worker_log = logging.getLogger("ray._private.worker")
    level = worker_log.level
    worker_log.setLevel(logging.ERROR)
    try:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, logging_level="ERROR",
                 configure_logging=False)
    finally:
        worker_log.setLevel(level)
    return ray


class RayConnection:
    """Connecting to the cluster on a thread, begun before the runner starts and greets its
    vendor (:meth:`~tablecert.parallel.options.ParallelOptions.start`): the two waits overlap. The pool
    takes the connection (:meth:`take`); one it never took is closed by :meth:`cancel`."""

    def __init__(self, address: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ray-connect")
        self._future = self._executor.submit(connect, address)
        self._taken = False

    def take(self) -> Any:
        """The ``ray`` module, connected (the connection's error, if it failed)."""
        ray = self._future.result()
        self._taken = True
        return ray

    def cancel(self) -> None:
        """Leave the cluster if no pool took the connection (a pool leaves it as it closes), then
        end the connecting thread."""
        self._executor.shutdown(wait=True)
        if not self._taken and self._future.exception() is None:
            self._future.result().shutdown()
        self._taken = True


class RayPool:
    """Ray actors running the units (see the module docstring)."""

    def __init__(self, context: SpreadContext, spread: Spread, connection: RayConnection) -> None:
        assert spread.vendor is not None
        greeted = context.hand_over()        # the coordinator's greeting session: the actors run the vendor
        if greeted is not None:
            greeted.close()
        self.ray = ray = connection.take()
        self.actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(VendorActor)
        vendor = context.vendor             # its opener stays here: each actor opens spread.vendor on its node
        self.args = (spread.vendor, vendor.policy, vendor.began, set(vendor.kinds_kept), vendor.isolation)
        self.size = spread.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.actors = [self._new_actor() for _ in range(self.size)]
        self.in_flight: dict[Any, tuple[Any, Unit, frozenset[str]]] = {}     # ref -> (actor, unit, skip)
        self.losses: dict[int, int] = {}
        self.bytes_of: dict[Any, int] = {}
        self.lost_bytes = 0
        self.lost_actors = 0
        self.suite = HandSuite.load(context.suite.suite_dir) if context.suite.hand_suite else None
        self.labels_fd = os.open(self.suite.labels_path, os.O_RDONLY) if self.suite else None

    def _new_actor(self) -> Any:
        return self.actor_class.remote(*self.args)

    def _least_busy(self) -> Any:
        busy = {id(a): 0 for a in self.actors}
        for actor, _, _ in self.in_flight.values():
            if id(actor) in busy:
                busy[id(actor)] += 1
        return min(self.actors, key=lambda a: busy[id(a)])

    def submit(self, unit: Unit, skip: frozenset[str]) -> None:
        if unit.hands is not None and unit.hand_batch is None:
            assert self.suite is not None and self.labels_fd is not None
            unit.hand_batch = HandBatch(self.suite, self.labels_fd, *unit.hands)
        actor = self._least_busy()
        self.in_flight[actor.run.remote(unit, skip)] = (actor, unit, skip)

    def finished(self) -> list[tuple[int, list[BatchOutcome | None]]]:
        ready, _ = self.ray.wait(list(self.in_flight), num_returns=1)
        out = []
        for ref in ready:
            actor, unit, skip = self.in_flight.pop(ref)
            try:
                outcomes, answer_bytes = self.ray.get(ref)
            except (self.ray.exceptions.RayActorError, self.ray.exceptions.WorkerCrashedError,
                    self.ray.exceptions.NodeDiedError):
                self._lost(actor, unit, skip)
                continue
            except self.ray.exceptions.RayTaskError as err:      # the run's own errors, in one line
                raise (err.cause if isinstance(err.cause, Exception) else err) from None
            self.bytes_of[actor] = answer_bytes
            unit.hand_batch = None                     # the coordinator keeps no batch it recorded
            out.append((unit.seq, outcomes))
        return out

    def _lost(self, actor: Any, unit: Unit, skip: frozenset[str]) -> None:
        """An actor died (or its node): replace it, send its unit again."""
        self.losses[unit.seq] = self.losses.get(unit.seq, 0) + 1
        if self.losses[unit.seq] >= MAX_LOSSES:
            raise RunError(f"a unit of work ({unit.key(unit.ops[0])[:3]}) was lost with its Ray actor "
                           f"{MAX_LOSSES} times; continue the run with --resume")
        if actor in self.actors:
            self.actors[self.actors.index(actor)] = self._new_actor()
            self.lost_bytes += self.bytes_of.pop(actor, 0)
            self.lost_actors += 1
            self.ray.kill(actor, no_restart=True)
        self.submit(unit, skip)

    def answer_bytes(self) -> int:
        return self.lost_bytes + sum(self.bytes_of.values())

    def close(self, abort: bool) -> None:
        """Close every actor's vendor (``abort``: kill the actors at once; their vendors end with
        them), then leave the cluster."""
        try:
            refs = {} if abort else {actor: actor.close.remote() for actor in self.actors}
            for actor in self.actors if abort else ():
                self.ray.kill(actor, no_restart=True)
            for actor, ref in refs.items():
                try:
                    self.bytes_of[actor] = self.ray.get(ref, timeout=60)
                except Exception:  # noqa: BLE001 - an actor lost while closing: its vendor ended with it
                    pass
                self.ray.kill(actor, no_restart=True)
        finally:
            if self.labels_fd is not None:
                os.close(self.labels_fd)
            self.ray.shutdown()
