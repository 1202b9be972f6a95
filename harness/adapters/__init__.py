"""Built-in vendor adapters (subprocess, python, http), registered as entry points like outside ones,
and finding an adapter or a Python vendor by name (:mod:`.registry`).

The subprocess adapter is three parts, one job each: the vendor's process (:mod:`.vendor_process`),
the line channel to it (:mod:`.line_channel`) and the protocol session on top
(:mod:`.subprocess_adapter`); the Python and HTTP adapters share that session's protocol half
(:mod:`.message_session`). Each adapter plays live tables (*since 1.1*) through sessions that can
be cut, whose common requests and checks are :mod:`.live_session`'s. Public face (:data:`__all__`), each name imported when first asked for.
"""

from tablecert import lazy_face

_FACE = {
    "VendorTarget": "registry", "find_adapter": "registry", "find_python_vendor": "registry",
    "SubprocessAdapter": "subprocess_adapter", "SubprocessSession": "subprocess_adapter",
    "PythonAdapter": "python_adapter", "HttpAdapter": "http_adapter", "command_argv": "vendor_process",
}
__all__ = sorted(_FACE)
__getattr__ = lazy_face(__name__, _FACE)
