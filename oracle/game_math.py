"""The exact game math that ``tablecert math`` prints: house edges of the craps line bets with
each profile's odds, and of the Imperial pai gow bonus (player bonus alone, banker bonus alone,
the imperial wager as one wager). Every figure is an exact fraction; percentages are rendered
from it by integer arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from tablecert.oracle.census import run_census
from tablecert.oracle.craps_math import craps_returns, format_percent
from tablecert.oracle.paigow_math import committed_returns, paigow_returns
from tablecert.oracle.profiles import list_profiles, load_profile


def _figure(name: str, value: Fraction, note: str = "") -> dict[str, Any]:
    out = {"name": name, "exact": f"{value.numerator}/{value.denominator}", "percent": format_percent(value)}
    if note:
        out["note"] = note
    return out


def game_math(profile: str | None = None, progress: Callable[[int, int], None] | None = None,
              recompute: bool = True, joint_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """All figures as JSON-able data (fractions as "p/q" strings, percentages to 3 places). The
    pai gow figures are recomputed (census and exact joint count, about 15 s) unless
    ``recompute`` is false, when the committed ``paigow_exact.toml`` is used. ``progress`` follows
    the census (hands), ``joint_progress`` the joint count (tasks: a base card set and a first card)."""
    profiles = [profile] if profile else list_profiles()
    craps = []
    for pid in profiles:
        loaded = load_profile(pid)
        craps.append({
            "profile": pid,
            "title": loaded.title,
            "figures": [_figure(f.name, f.value, f.note) for f in craps_returns(loaded)],
        })
    return {"craps": craps, "paigow": paigow_figures(progress, recompute, joint_progress)}


def paigow_figures(progress: Callable[[int, int], None] | None = None, recompute: bool = False,
                   joint_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The pai gow figures of :func:`game_math` (``figures`` and ``probabilities``): from the
    committed ``paigow_exact.toml`` unless ``recompute``."""
    pg = paigow_returns(run_census(progress), joint_progress) if recompute else committed_returns()
    return {
        "figures": [
            _figure("player hand bonus alone: house edge", -pg.player_bonus_alone,
                    "a wager paid only by the 11.20(b) table, from the census"),
            _figure("banker hand bonus alone: house edge", -pg.banker_bonus_alone,
                    "a wager paid only by the 11.20(c) table, from the census"),
            _figure("imperial wager (one wager, both bonuses): house edge", -pg.imperial,
                    "exact: player and banker hands dealt from one deck (INT-ONE-WAGER)"),
        ],
        "probabilities": [
            _figure("player hand qualifies", pg.p_player_qualifies),
            _figure("banker hand qualifies", pg.p_banker_qualifies),
            _figure("both qualify (same deck)", pg.p_both_qualify,
                    f"exact count {pg.joint.both:,} of {pg.joint.pairs:,} disjoint hand pairs"),
            _figure("both qualify if independent (for comparison)", pg.p_player_qualifies * pg.p_banker_qualifies),
        ],
    }


# The craps columns of the text table: (heading, figure name). Come and don't come have the same
# figures as pass and don't pass (the JSON output lists all four bets and every variant).
CRAPS_COLUMNS = (
    ("pass", "pass.flat"),
    ("+max odds", "pass.max_odds.per_wagered"),
    ("+commission", "pass.max_odds_commission.per_wagered"),
    ("don't pass", "dont_pass.flat"),
    ("+max odds", "dont_pass.max_odds.per_wagered"),
    ("+commission", "dont_pass.max_odds_commission.per_wagered"),
)


def format_game_math(data: dict[str, Any]) -> str:
    """A plain-text summary; ``--json`` gives every figure with its exact fraction and note."""
    lines = ["Craps line bets: house edge per unit of expected total wagered (exact; come = pass, "
             "don't come = don't pass; don't pass counts the bar push as a bet made)"]
    head = f"  {'profile':<28}" + "".join(f"{h:>13}" for h, _ in CRAPS_COLUMNS)
    lines.append(head)
    for block in data["craps"]:
        by_name = {f["name"]: f for f in block["figures"]}
        cells = "".join(f"{by_name[n]['percent'] if n in by_name else '-':>13}" for _, n in CRAPS_COLUMNS)
        lines.append(f"  {block['profile']:<28}{cells}")
    lines.append("")
    lines.append("Imperial pai gow bonus (exact, per unit wagered; the cap does not bind at the minimum wager)")
    for f in data["paigow"]["figures"] + data["paigow"]["probabilities"]:
        lines.append(f"  {f['name']:<56} {f['percent']:>9}  = {f['exact']}")
        if f.get("note"):
            lines.append(f"  {'':<56} {'':>9}    {f['note']}")
    return "\n".join(lines)
