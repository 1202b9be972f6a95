"""Live tables through the harness, played through the run's vendor instance
(:class:`~tablecert.harness.instance.vendor_instance.VendorInstance`, over an adapter's
cuttable sessions): the run's ``state_dir``, made, sized and removed (:mod:`.instance`), the driver that plays a live-suite vector one step per
request, interrupts it and judges every answer (:mod:`.driver`), the cuts over a vendor's whole
life, storms, closed tables and steps sent again that it adds to every vector (:mod:`.cuts`), the
station tables' player (:mod:`.stations`) and a pai gow table's records and meters judged
(:mod:`.paigow_records`), the findings and replays of a vector that fails (:mod:`.findings`), and what a run's live batches share (:mod:`.run`). The
runner reaches it only through :meth:`.run.LiveRun.unit`, which is given the run's
:class:`~tablecert.harness.instance.context.LiveContext` (from ``instance/``, the part below
both: live/ never imports run/) and makes a :class:`.run.LiveBatch`, a unit of
the run pipeline; ``certify`` makes the run's :class:`.run.LiveRun`. Public face
(:data:`__all__`), each name imported when first asked for."""

from tablecert import lazy_face

_FACE = {"LiveSettings": "run", "LiveRun": "run", "LiveBatch": "run"}
__all__ = sorted(_FACE)
__getattr__ = lazy_face(__name__, _FACE)
