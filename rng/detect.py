"""``tablecert rng --detect KIND=SIZE``: the sample that catches a bias of a given size with 99% power.

Each kind names the test aimed at it and the bias's family (:mod:`tablecert.rng.power`), so the
sample computed here is the one at which the report of the run states that very bias:

==========  ======  ==================================================================
kind        half    the bias (SIZE a percentage, or a fraction)
==========  ======  ==================================================================
face        dice    one face of a die (1 + SIZE) times 1/6 (``face=0.5%``)
seven       dice    a total of 7 (1 + SIZE) times 6/36
sticky      dice    a roll that repeats the previous one in SIZE of the rolls
die-sticky  dice    a die that shows its previous face in SIZE of the rolls
joker       decks   the joker moved into the first seven cards in SIZE of the decks
cut         decks   decks cut instead of reshuffled in SIZE of the deals
==========  ======  ==================================================================

The level is the one the run will use: alpha over the family of the halves collected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tablecert.rng import DICE_TESTS, DECK_TESTS, MIN_DECKS, MIN_ROLLS
from tablecert.rng.plan import ALPHA
from tablecert.rng.power import Alternative, cell_bias
from tablecert.rng.deal import joker_moved
from tablecert.rng.decks import cut_alternative
from tablecert.rng.dice import face_alternative, seven_words, sticky_alternative

MAX_SAMPLE = 10_000_000_000
"""Largest sample --detect proposes (a bias that needs more is refused as too small to test)."""


@dataclass(frozen=True)
class Kind:
    half: str                                   # "rolls" or "decks"
    alternative: Callable[[int], Alternative]   # the bias's family at a sample of n


def _kinds() -> dict[str, Kind]:
    return {
        "face": Kind("rolls", lambda n: face_alternative(n, "A")),
        "seven": Kind("rolls", lambda n: cell_bias(n, 1 / 6, 10, seven_words)),
        "sticky": Kind("rolls", lambda n: sticky_alternative(n - 1, 1 / 36, "a roll that sticks")),
        "die-sticky": Kind("rolls", lambda n: sticky_alternative(n - 1, 1 / 6, "a die that sticks")),
        "joker": Kind("decks", lambda n: joker_moved(n, 0)),
        "cut": Kind("decks", lambda n: cut_alternative(n - 1)),
    }


KINDS = ("face", "seven", "sticky", "die-sticky", "joker", "cut")


def parse(text: str) -> tuple[str, float]:
    """``'face=0.2%'`` -> ``('face', 0.002)``; ValueError naming what is wrong."""
    kind, sep, size = text.partition("=")
    if not sep or kind not in KINDS:
        raise ValueError(f"--detect {text}: give KIND=SIZE with KIND one of {', '.join(KINDS)}")
    try:
        value = float(size[:-1]) / 100 if size.endswith("%") else float(size)
    except ValueError:
        raise ValueError(f"--detect {text}: {size!r} is not a size (0.5% or 0.005)") from None
    if not 0 < value < 1:
        raise ValueError(f"--detect {text}: the size must be above 0 and below 100%")
    return kind, value


def family_size(rolls: bool, decks: bool) -> int:
    return (DICE_TESTS if rolls else 0) + (DECK_TESTS if decks else 0)


def sample_needed(kind: str, size: float, level: float) -> int:
    """The smallest sample (a multiple of 1,000, at least the battery's minimum) at which the
    kind's test catches a bias of ``size`` with 99% power at ``level``."""
    spec = _kinds()[kind]
    lo = MIN_ROLLS if spec.half == "rolls" else MIN_DECKS

    def caught(n: int) -> bool:
        found = spec.alternative(n).detectable(level)
        return found is not None and found <= size

    if caught(lo):
        return lo
    if not caught(MAX_SAMPLE):
        raise ValueError(f"--detect {kind}={size:.4%}: more than {MAX_SAMPLE:,} {spec.half} would be needed")
    low, high = lo // 1_000, MAX_SAMPLE // 1_000        # in thousands: caught at high, not at low
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if caught(1_000 * mid) else (mid, high)
    return 1_000 * high


def sizes_for(requests: list[str], rolls: int | None, decks: int | None) -> tuple[int | None, int | None, list[str]]:
    """The rolls and decks for a list of --detect requests (None: the request left that half alone),
    and one line per request saying what it asked for."""
    parsed = [parse(text) for text in requests]
    kinds = _kinds()
    halves = {kinds[k].half for k, _ in parsed}
    if "rolls" in halves and rolls is not None or "decks" in halves and decks is not None:
        raise ValueError("give a half's size by --rolls/--decks or by --detect, not both")
    with_rolls = "rolls" in halves or rolls != 0
    with_decks = "decks" in halves or decks != 0
    level = ALPHA / family_size(with_rolls, with_decks)
    lines = []
    needed: dict[str, int] = {}
    for text, (kind, size) in zip(requests, parsed):
        half = kinds[kind].half
        n = sample_needed(kind, size, level)
        needed[half] = max(needed.get(half, 0), n)
        lines.append(f"--detect {text}: {n:,} {half} catch it with 99% power (level {level:.3g})")
    return needed.get("rolls", rolls), needed.get("decks", decks), lines
