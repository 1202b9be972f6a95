"""tablecert.oracle: the reference implementation of the rules, from which every expected answer
comes (craps free odds and commission; Imperial pai gow bonus), plus the exact game math.

Public entry points: :mod:`~tablecert.oracle.vendor` (the protocol ops), :mod:`~tablecert.oracle.hands`
(hand labels), :mod:`~tablecert.oracle.census`, :mod:`~tablecert.oracle.game_math`,
:mod:`~tablecert.oracle.profiles` and :mod:`~tablecert.oracle.register`.

Public face (:data:`__all__`): the names below, each imported from its module when first asked
for (PEP 562, :func:`tablecert.lazy_face`), so that naming a profile or a suite never loads the
labeller and numba. ``game_math`` is its module's name as well, so it is taken from
:mod:`~tablecert.oracle.game_math` itself.
"""

from tablecert import lazy_face

_FACE = {
    "run_census": "census", "census_as_dict": "census", "format_census": "census", "format_game_math": "game_math",
    "DEFAULT_PROFILE": "profiles", "list_profiles": "profiles", "load_profile": "profiles",
    "load_profile_file": "profiles", "resolve_profile": "profiles", "clauses": "register",
    "interpretations": "register", "ReferenceVendor": "vendor", "serve": "vendor", "SPOKEN": "protocol",
    "V1": "protocol", "use_private_cache": "jit_cache", "HAND_SUITES": "names", "OPS": "names",
    "SUITE_NAMES": "names", "ConfigError": "errors",
}
__all__ = sorted(_FACE)
__getattr__ = lazy_face(__name__, _FACE)
