"""What a vendor instance's units cost and how they were judged, counted per instance (never
process-wide).

Each :class:`~tablecert.harness.instance.vendor_instance.VendorInstance` holds its own :class:`InstanceStats`,
written only by the thread that runs its units (:func:`tablecert.harness.run.judging.judge`); a
hand batch prepared on another thread carries its own timings (``HandBatch.encode_s``,
``expected_s``), added in by the loop that uses it. A run hands its instance's stats back in its
result (``RunResult.stats``): the benchmarks and the tests read them there.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class InstanceStats:
    """Where an instance's units spent their time (seconds) and what judged them."""

    encode_s: float = 0.0        # enumerating hands and writing their request bytes (worker thread)
    expected_s: float = 0.0      # reading label codes, writing the expected results, counting labels (worker)
    exchange_s: float = 0.0      # sending hand requests and waiting for answers (the vendor's work is in here)
    judge_s: float = 0.0         # completing the expected lines, comparing answers with them, counting
    fallback_s: float = 0.0      # decoding and judging answers case by case (not the canonical line)
    record_s: float = 0.0        # writing batches into the run database
    prefetch_wait_s: float = 0.0  # waiting for the next batch's bytes (encoding ahead in a thread)
    run_s: float = 0.0           # the whole hand loop, wall clock
    requests: int = 0            # hand requests sent as raw lines
    fast_passes: int = 0         # hand batches passed as the byte-identical expected line
    bulk_passes: int = 0         # hand batches passed by the bulk judge (another formatting, or JSON values)
    fallbacks: int = 0           # hand batches judged case by case
    generic: int = 0             # hand batches sent as JSON values (a session without raw exchange)
    hands: int = 0
    vectors: int = 0
    request_bytes: int = 0
    answer_bytes: int = 0
    lines_confirmed: int = 0     # vector batches whose raw answer line the bulk judge confirmed
    lines_refused: int = 0       # ... it left to the strict path
    values_confirmed: int = 0    # vector batches whose decoded results the bulk judge confirmed
    values_refused: int = 0      # ... it left to the judge case by case

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)
