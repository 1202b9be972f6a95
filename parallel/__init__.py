"""Spreading a certification run: several vendor instances on one machine (``--workers N``), Ray
actors on a cluster (``--ray ADDRESS``), and shards of a run for any job scheduler (``--shard K/N``)
merged into one run folder (``tablecert merge``).

Every vendor instance is opened by the harness's adapter code with the run's session options
(sandbox, hidden paths, limits), judged by the harness's per-batch code, and recorded by one
writer in run order, so a run's database, ``summary.json`` and reports are those of a one-worker
run of the same vendor (timings aside). Public API: :class:`ParallelOptions` (given to the
runner, whose batch loop it replaces), :class:`Shard`, :func:`merge_shards` and :class:`MergeError`.
"""

from tablecert import lazy_face
from tablecert.parallel.options import ParallelOptions, Shard

__all__ = ["MergeError", "ParallelOptions", "Shard", "merge_shards"]
__getattr__ = lazy_face(__name__, {"MergeError": "merge", "merge_shards": "merge"})
"""``merge_shards`` and ``MergeError`` are imported when first asked for: merging needs the run's
outputs and seals, which a Ray actor importing this package for its units never uses, nor
``tablecert --help`` (benchmarks/bench_startup.py)."""
