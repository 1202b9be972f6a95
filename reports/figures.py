"""The exact game math of a run's configured wagers, and the comparison with a vendor's declared
figures (Fraction arithmetic throughout; percentages are rendered from fractions with integers).

Every figure a report shows comes from the oracle when the report is rendered, never from the
run database (whose ``game_math`` meta the run seal leaves out: anyone able to write the run
folder could change it). The craps figures depend on the profile and are cheap: they are computed
for the run's profile, and shown only while the shipped profile is the run's. The pai gow figures
are the oracle's committed exact figures (``paigow_exact.toml``, which the test suite recomputes
from the census and the joint count). :func:`store_game_math` keeps the figures in the run
database's ``meta`` (key ``game_math``) for whoever reads the database; for the reports it only
marks that the run asked for the pai gow figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablecert.harness.store import RunStore
from tablecert.reports.inputs import Declared
from tablecert import __version__

GAME_MATH_KEY = "game_math"

#: Short, stable names for the pai gow figures of ``tablecert math`` (whose names are sentences).
PAIGOW_NAMES: dict[str, str] = {
    "player hand bonus alone: house edge": "paigow.player_bonus.house_edge",
    "banker hand bonus alone: house edge": "paigow.banker_bonus.house_edge",
    "imperial wager (one wager, both bonuses): house edge": "paigow.imperial.house_edge",
    "player hand qualifies": "paigow.p_player_qualifies",
    "banker hand qualifies": "paigow.p_banker_qualifies",
    "both qualify (same deck)": "paigow.p_both_qualify",
    "both qualify if independent (for comparison)": "paigow.p_both_qualify_if_independent",
}


@dataclass(frozen=True)
class Figure:
    """One exact figure: ``name`` (stable key), ``value`` exact, ``percent`` to three places."""

    name: str
    value: Fraction
    percent: str
    note: str = ""
    title: str = ""    # the long name, for pai gow figures

    @property
    def exact(self) -> str:
        return f"{self.value.numerator}/{self.value.denominator}"


@dataclass(frozen=True)
class GameMath:
    profile_id: str
    profile_title: str
    craps: list[Figure]
    paigow: list[Figure]                 # empty when not stored in the run database
    paigow_stored: bool
    problems: list[str]                  # e.g. the shipped profile changed since the run


@dataclass(frozen=True)
class Comparison:
    name: str
    declared_text: str
    declared: Fraction
    exact: Figure | None
    difference: Fraction | None          # declared - exact
    agrees: bool | None                  # None: no exact figure to compare with
    why: str = ""


def percent(value: Fraction, places: int = 3) -> str:
    from tablecert.oracle.craps_math import format_percent  # lazy: 4.2 ms of report step start (bench_startup.py, at rest)

    return format_percent(value, places)


def _from_json(entry: dict[str, Any], paigow: bool) -> Figure:
    num, _, den = str(entry["exact"]).partition("/")
    value = Fraction(int(num), int(den or 1))
    title = entry["name"]
    name = PAIGOW_NAMES.get(title, title) if paigow else title
    return Figure(name, value, percent(value), entry.get("note", ""), title if paigow else "")


def game_math_for_run(profile: dict[str, Any] | None, stored: dict[str, Any] | None) -> GameMath:
    """Craps figures for the run's profile, computed now (none when the shipped profile has
    changed since the run), and, when :func:`store_game_math` was asked for them (``stored``), the
    oracle's pai gow figures: nothing read from ``stored`` is shown."""
    from tablecert.oracle.craps_math import craps_returns  # lazy: 14 ms of report step start (bench_startup.py, at rest)
    from tablecert.oracle.game_math import paigow_figures
    from tablecert.oracle.profiles import ProfileError, load_profile

    problems: list[str] = []
    pid = (profile or {}).get("id", "")
    sha = (profile or {}).get("sha256", "")
    title = ""
    craps: list[Figure] = []
    try:
        loaded = load_profile(pid)
    except ProfileError:
        loaded = None
        problems.append(f"profile {pid!r} is not a shipped profile of this tablecert")
    if loaded is not None and loaded.sha256 == sha:
        title = loaded.title
        craps = [Figure(f.name, f.value, f.percent, f.note) for f in craps_returns(loaded)]
    elif loaded is not None:
        problems.append(f"the shipped profile {pid} (sha256 {loaded.sha256}) differs from the run's (sha256 {sha}): "
                        "no craps figures are shown")
    paigow: list[Figure] = []
    if stored and stored.get("paigow"):
        pg = paigow_figures()
        paigow = [_from_json(f, True) for f in pg["figures"] + pg["probabilities"]]
    return GameMath(pid, title, craps, paigow, bool(paigow), problems)


def compare(declared: Declared, math: GameMath) -> list[Comparison]:
    """Each declared figure against the exact one: difference and agreement within the tolerance."""
    known: dict[str, Figure] = {}
    for fig in math.craps + math.paigow:
        known[fig.name] = fig
        if fig.title:
            known[fig.title] = fig
    rows = []
    for d in declared.figures:
        exact = known.get(d.name)
        if exact is None:
            why = ("pai gow figures are not stored in this run database (tablecert report --game-math)"
                   if d.name.startswith("paigow.") and not math.paigow_stored else "no such figure")
            rows.append(Comparison(d.name, d.text, d.value, None, None, None, why))
            continue
        diff = d.value - exact.value
        rows.append(Comparison(d.name, d.text, d.value, exact, diff, abs(diff) <= declared.tolerance))
    return rows


def store_game_math(run_dir: Path, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Keep the exact game math of the run's profile in the run database's meta under
    ``game_math``: craps computed for the profile, pai gow from the oracle's committed exact
    figures (``paigow_exact.toml``, which the test suite recomputes). ``certify`` calls it before
    rendering the reports."""
    from tablecert.oracle.game_math import game_math  # lazy: 13 ms of report step start (bench_startup.py, at rest)

    db_path = Path(run_dir) / "run.db"
    if not db_path.is_file():
        raise FileNotFoundError(f"{db_path}: no run database")
    db = RunStore(db_path)
    try:
        profile = db.run_meta().profile
        if not profile:
            raise ValueError(f"{db_path}: the run database names no profile")
        data = game_math(profile["id"], progress, recompute=False)
        data["profile"] = profile
        data["tablecert_version"] = __version__
        db.set_meta(**{GAME_MATH_KEY: data})
    finally:
        db.close()
    return data
