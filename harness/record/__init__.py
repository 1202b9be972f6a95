"""The run's record: the harness's own judged record, the seal and keys, the verdict, the run folder and its outputs.

Public face (:data:`__all__`), each name imported when first asked for."""

from tablecert import lazy_face

_FACE = {
    "write_outputs": "outputs", "run_key": "seal", "trusted_seal_keys": "seal",
    "resumed_head": "chain", "check_new_run_folder": "run_folder",
    "concluded_run": "run_folder", "locked_run_folder": "run_folder", "prepare_run_folder": "run_folder",
    "run_is_live": "run_folder", "run_command": "run_folder",
}
__all__ = sorted(_FACE)
__getattr__ = lazy_face(__name__, _FACE)
