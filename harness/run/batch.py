"""What one request of a vector-set suite carries: :class:`Batch`, the unit the run pipeline sends.

The suite reader makes batches (:func:`tablecert.harness.suites.reader.iter_batches`), the hand
suites make theirs from their hand batches (``HandBatch.batch``); everything that judges, retries
or splits a batch takes this type from here, below the readers of either kind of suite.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Batch:
    """Cases sent in one request, with what the lab expects of each."""

    file: str                     # vector-set name (file name without view folder)
    op: str
    tg_id: int
    config: Any
    tc_ids: list[int]
    cases: list[Any]
    expected: list[dict[str, Any]]
    flags: list[list[str]]
    clauses: list[list[str]]
    comments: list[str] | None = None   # why each vector exists (expected view; kept with a failure)
    features: dict[int, tuple[str, ...]] | None = None   # tcId -> features (harness/answers/capabilities.py)
    outside: dict[int, str] | None = None                # tcId -> the undeclared feature it carries

    @property
    def key(self) -> tuple[str, str, int]:
        """Identifies the batch within a run: (file, op, first tcId)."""
        return self.file, self.op, self.tc_ids[0]
