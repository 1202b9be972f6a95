"""One vendor instance of a run, and what plays units through it: the part of the harness below
both the run's loops (``run/``, :mod:`tablecert.parallel`) and the live tables (``live/``), so
that each uses it and neither imports the other (issue 34).

* :mod:`.vendor_instance` - :class:`~.vendor_instance.VendorInstance`: a session opened and
  greeted on demand, checked to be the vendor and the confinement the run began with, its answer
  bytes counted; :class:`~.vendor_instance.Played`, a unit that plays itself through one;
* :mod:`.recovery` - its fault recovery (retry, restart, bisect, give up) and the
  :class:`~.recovery.FaultPolicy`;
* :mod:`.vectors` - judging a vector-set batch's answers into one outcome;
* :mod:`.stats` - what an instance's units cost, counted per instance;
* :mod:`.context` - what a run hands those who play its batches for it (a spread run, the live
  tables), in place of the runner itself.

Public face (:data:`__all__`): :class:`RunError`, and the names below, each imported when first
asked for.
"""

from tablecert import lazy_face

_FACE = {
    "FaultPolicy": "recovery", "InstanceStats": "stats", "VendorInstance": "vendor_instance",
    "LiveContext": "context", "SpreadContext": "context", "SuiteRun": "context",
}
__all__ = ["RunError", *sorted(_FACE)]
__getattr__ = lazy_face(__name__, _FACE)


class RunError(Exception):
    """A run that cannot start or go on (the vendor cannot be started or greeted, a run folder
    that belongs to another run, an instance confined otherwise than the run)."""
