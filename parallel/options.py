"""How a certify run is spread (``--workers``, ``--ray``, ``--shard``): the options, their
command-line arguments, and the hook the runner calls instead of its one-worker loop."""

from __future__ import annotations

import argparse
from importlib.util import find_spec
from typing import TYPE_CHECKING

from tablecert.parallel.spread import Shard, Spread, head_silent

if TYPE_CHECKING:
    from tablecert.harness.instance.context import SpreadContext
    from tablecert.parallel.ray_pool import RayConnection

__all__ = ["ParallelOptions", "Shard", "add_parallel_arguments", "parallel_options"]


class ParallelOptions(Spread):
    """How a run is spread (:class:`~tablecert.parallel.spread.Spread`: ``workers``, ``ray_address``,
    ``shard``, ``vendor``), and the two hooks the runner calls
    (:class:`~tablecert.harness.run.options.SpreadRun`). The scheduler and the Ray pool are imported
    when a run calls them: the command line imports this module for its arguments only."""

    def start(self) -> RayConnection | None:
        """What the runner calls before it greets its vendor: for a Ray run, the connection to
        the cluster, begun in the background
        (:class:`~tablecert.parallel.ray_pool.RayConnection`); given back to :meth:`run`, and
        cancelled by the runner whatever happens."""
        if self.ray_address is None:
            return None
        from tablecert.parallel.ray_pool import RayConnection  # lazy: 370 ms of --help start (bench_startup.py, at rest)

        return RayConnection(self.ray_address)

    def run(self, context: SpreadContext, done: set[tuple[str, str, int]], total: int,
            connection: RayConnection | None) -> None:
        """What the runner calls instead of its one-worker loop (``connection``: what
        :meth:`start` gave)."""
        from tablecert.parallel.scheduler import run_scheduled  # lazy: 395 ms of --help start (bench_startup.py, at rest)

        run_scheduled(context, done, total, self, connection)


def parallel_options(workers: int | None, ray: str | None, shard: str | None) -> ParallelOptions | None:
    """The options of the command line (ValueError naming the option if one is wrong); None for a
    plain one-worker run of the whole suite."""
    if workers is not None and workers < (0 if ray else 1):
        raise ValueError(f"--workers {workers}: give at least 1" + (" (0 with --ray: one per CPU)" if ray else ""))
    if ray is not None and find_spec("ray") is None:      # imported as the run connects, beside the greeting
        raise ValueError("--ray needs Ray: pip install 'tablecert[ray]'")
    if ray is not None and (why := head_silent(ray)):     # before any run folder is made
        raise ValueError(why)
    parsed = Shard.parse(shard) if shard is not None else None
    if ray is None and parsed is None and (workers or 1) == 1:
        return None
    return ParallelOptions(workers=1 if workers is None and ray is None else (workers or 0), ray_address=ray,
                           shard=parsed)


def add_parallel_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, metavar="N", help="run N vendor instances at once (default 1); batches "
                   "go to whichever is free, results are those of a one-instance run. With --ray: actors on the "
                   "cluster (default one per CPU)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the vendor instances as actors of this Ray cluster "
                   "(host:port of its head; needs tablecert[ray] and the vendor's command on every node)")
    p.add_argument("--shard", metavar="K/N", help="run only shard K of N of the suite's batches (the K-th of "
                   "every N in run order) into OUT; join the N shard folders with 'tablecert merge'")


