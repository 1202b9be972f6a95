"""Confining a vendor's process: the sandbox (bubblewrap), the folders it may see (``tablecert sandbox-check`` is
:mod:`tablecert.harness.run.sandbox_check`), and the vendor's build as bound: its files digested
(:mod:`~tablecert.harness.confine.build_files`) and checked against a submission manifest
(:mod:`~tablecert.harness.confine.build_manifest`).

Public face (:data:`__all__`), each name imported when first asked for."""

from tablecert import lazy_face

_FACE = {"SAFE_PATH": "sandbox", "plan": "sandbox", "vendor_path_problem": "sandbox"}
__all__ = sorted(_FACE)
__getattr__ = lazy_face(__name__, _FACE)
