"""Running a vendor against a suite. The run pipeline: every way of judging a vendor goes through
these three parts.

* :class:`~tablecert.harness.instance.vendor_instance.VendorInstance` - one vendor instance: opened on demand,
  greeted, checked to be the vendor the run began with and confined as the run records it,
  dropped after a fault, its answer bytes counted. It holds the instance's fault recovery.
* :func:`~tablecert.harness.run.judging.judge` ``(instance, unit) -> BatchOutcome`` - one unit of
  work (a vector-set batch, round scripts included; or one op of a hand batch) sent through the
  instance and judged (:mod:`tablecert.harness.instance.vectors` for vector batches).
* :class:`~tablecert.harness.run.recorder.Recorder` - what a run records as it goes: each
  outcome into ``run.db`` (through the run store, :class:`tablecert.harness.store.RunStore`, run.db's
  only writer) and the ``JudgedRecord``, the failures counted, the caps
  (stop-after-failures, the answers' bytes, the wall clock), progress, and the verdict.

The one-worker run (:class:`tablecert.harness.run.runner.Runner`), the hand run
(:mod:`tablecert.harness.run.hand_runner`), the worker threads and Ray actors
(:mod:`tablecert.parallel`) and offline validation (:mod:`tablecert.harness.run.offline`, whose
responses file is a source of answers like an adapter) are loops over units that use them; so
equal inputs give equal rows whichever path ran them.

Public face (:data:`__all__`): :class:`RunError` (from :mod:`tablecert.harness.instance`) and the names below, each imported when first
asked for (``certify`` is a submodule's name, so the function is on :mod:`tablecert.harness`'s face).
"""

from tablecert import lazy_face
from tablecert.harness.instance import RunError   # raised by a vendor instance, below run/ (issue 34)

_FACE = {
    "CertifyOptions": "certify", "OutputOptions": "certify", "SuiteOptions": "certify", "prepare_suite": "certify",
    "write_concluded": "certify",
    "RunOptions": "options", "HandSlice": "hand_slices", "SliceError": "hand_slices",
    "validate_responses": "offline", "progress_callback": "progress",
    "Runner": "runner", **dict.fromkeys(("RerunError", "RerunSelection", "rerun_selection", "same_suite"), "rerun"),
}
__all__ = ["RunError", *sorted(_FACE)]
__getattr__ = lazy_face(__name__, _FACE)
