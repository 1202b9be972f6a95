"""One vendor instance on a Ray node: the actor class of :class:`~tablecert.parallel.ray_pool.RayPool`.

Ray imports this module in each new actor process before anything else happens there, so it is
kept light: the actor begins its vendor's start (the process and its sandbox) first, and only then
imports the harness's judging (numba and its compiled kernels, the run's records), which takes
about as long; the vendor is greeted and checked once both are done, as any instance greets its
vendor (:meth:`~tablecert.harness.instance.vendor_instance.VendorInstance.adopt`). If that start or greeting
fails, the actor's first unit meets the fault, judged and recorded as if it had started the vendor
itself.
"""

from __future__ import annotations

import copy
import os
import tempfile
from dataclasses import replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from tablecert.harness.contract import VendorFault, VendorSession
from tablecert.harness.adapters import VendorTarget

if TYPE_CHECKING:
    from tablecert.harness.model import BatchOutcome
    from tablecert.parallel.units import Unit


def ray_folders() -> list[str]:
    """This node's Ray folders (its sockets, logs and spilled objects, which hold the batches and
    their expected answers): hidden from the vendor like the run folder."""
    node = getattr(import_module("ray._private.worker"), "_global_node", None)
    found = [node.get_temp_dir_path()] if node is not None and hasattr(node, "get_temp_dir_path") else []
    return [*found, os.path.join(tempfile.gettempdir(), "ray")]


class VendorActor:
    """One vendor instance on a Ray node (made a Ray actor class by the pool; see the module docstring)."""

    def __init__(self, target: VendorTarget, policy: Any, identity: dict[str, Any], kinds: set[str],
                 isolation: str | None) -> None:
        options = target.options
        target = replace(target, options=replace(options, hidden_paths=(*options.hidden_paths, *ray_folders())))
        opener = target.opener()
        early: VendorSession | VendorFault
        try:
            early = opener()                 # the vendor starts while the judging is imported below
        except VendorFault as err:
            early = err                      # met by the first unit, as if it had started the vendor
        from tablecert.parallel.workers import Worker  # lazy: 338 ms of Ray actor start (bench_startup.py, at rest)

        self.worker = Worker(opener, identity, policy, kinds, isolation=isolation)
        self.worker.instance.adopt(early)

    def run(self, unit: Unit, skip: frozenset[str]) -> tuple[list[BatchOutcome | None], int]:
        """The unit's outcomes and this actor's answer bytes so far."""
        if unit.hand_batch is not None:      # Ray hands numpy arrays over read-only; the batch writes ids
            unit.hand_batch = copy.deepcopy(unit.hand_batch)
        return self.worker.run(unit, skip), self.worker.answer_bytes

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> int:
        self.worker.close()
        return self.worker.answer_bytes
