"""Where a hand-suite run spends its time, counted per vendor instance (never process-wide).

Each :class:`~tablecert.harness.run.instance.VendorInstance` holds its own :class:`HandStats`,
written only by the thread that runs its units; a batch prepared on another thread carries its
own timings (``HandBatch.encode_s``, ``expected_s``), added in by the loop that uses it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class HandStats:
    """Where a hand-suite run spends its time (seconds) and what it did."""

    encode_s: float = 0.0        # enumerating hands and writing their request bytes (worker thread)
    expected_s: float = 0.0      # reading label codes, writing the expected results, counting labels (worker)
    exchange_s: float = 0.0      # sending requests and waiting for answers (the vendor's work is in here)
    judge_s: float = 0.0         # completing the expected lines, comparing answers with them, counting
    fallback_s: float = 0.0      # decoding and judging answers case by case (not the canonical line)
    record_s: float = 0.0        # writing batches into the run database
    prefetch_wait_s: float = 0.0  # waiting for the next batch's bytes (encoding ahead in a thread)
    run_s: float = 0.0           # the whole hand loop, wall clock
    requests: int = 0
    fast_passes: int = 0         # batches passed as the byte-identical expected line
    bulk_passes: int = 0         # batches passed by bulk_judge (another formatting, or JSON values)
    fallbacks: int = 0
    generic: int = 0
    hands: int = 0
    vectors: int = 0
    request_bytes: int = 0
    answer_bytes: int = 0

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)
