"""Suite folders as the harness reads them: the batch stream and the suite cache.

Public face (:data:`__all__`), each name imported when first asked for."""

from tablecert import lazy_face

_FACE = {"default_cache_dir": "cache"}
__all__ = sorted(_FACE)
__getattr__ = lazy_face(__name__, _FACE)
