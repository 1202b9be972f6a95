"""The all-hands census: counts of every player category and banker label over the 53-card deck,
checked against the published figures.

The census is the oracle's self-check before any exhaustive run: the fast labeller evaluates
each of the 154,143,080 hands individually and the counts must equal the published ones in
``published_counts.toml`` (Wizard of Odds; B. Alspach), a data file shipped with the package.

>>> c = run_census()                                    # doctest: +SKIP
>>> print(format_census(c))                             # doctest: +SKIP
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import TYPE_CHECKING, Any

from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES

if TYPE_CHECKING:                      # the labeller (numba) is imported when a census is run, not to read one
    from tablecert.oracle.labeller import Census, LabelCount

PUBLISHED_COUNTS_FILE = "published_counts.toml"


@dataclass(frozen=True)
class JointCount:
    """Exact count of disjoint (player hand, banker hand) pairs where both bonuses qualify."""

    both: int           # N_both
    pairs: int          # all ordered disjoint pairs: C(53,7) * C(46,7)
    signatures: int     # signatures summed over

    @property
    def probability(self) -> Fraction:
        return Fraction(self.both, self.pairs)


@dataclass(frozen=True)
class PublishedCounts:
    """The published hand counts the census must reproduce (all exact integers)."""

    source: str
    total: int
    player: dict[str, int]  # all hands, by category
    player_no_joker: dict[str, int]  # hands without the joker, by category
    banker: dict[str, int]  # all hands, by paying banker label (no figure for "none")


def published_counts() -> PublishedCounts:
    """Load the published counts from the package data file ``published_counts.toml``."""
    text = resources.files("tablecert.oracle").joinpath(PUBLISHED_COUNTS_FILE).read_text(encoding="utf-8")
    data = tomllib.loads(text)
    for table, names in (("player", PLAYER_CATEGORIES), ("player_no_joker", PLAYER_CATEGORIES),
                         ("banker", BANKER_LABELS[:-1])):
        if list(data[table]) != list(names):
            raise ValueError(f"{PUBLISHED_COUNTS_FILE}: [{table}] must list {', '.join(names)} in that order")
    counts = [data["total"], *data["player"].values(), *data["player_no_joker"].values(), *data["banker"].values()]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts):
        raise ValueError(f"{PUBLISHED_COUNTS_FILE}: every count must be an integer")
    return PublishedCounts(
        source=data["source"],
        total=data["total"],
        player=dict(data["player"]),
        player_no_joker=dict(data["player_no_joker"]),
        banker=dict(data["banker"]),
    )


def run_census(progress: Callable[[int, int], None] | None = None) -> Census:
    """Label every hand and count the labels (see :func:`tablecert.oracle.labeller.census`)."""
    from tablecert.oracle.labeller import census  # lazy: numba, 934 ms of the report step's game math (bench_startup.py, load 4)

    return census(progress)


def census_as_dict(c: Census) -> dict[str, Any]:
    """The census as JSON-able data, keys in a fixed order: categories and labels best first,
    each with ``joker``, ``no_joker`` and ``total``; then the number of hands."""

    def split(count: LabelCount) -> dict[str, int]:
        return {"joker": count.joker, "no_joker": count.no_joker, "total": count.total}

    return {
        "player": {name: split(c.player[name]) for name in PLAYER_CATEGORIES},
        "banker": {name: split(c.banker[name]) for name in BANKER_LABELS},
        "total": c.total,
    }


def census_mismatches(c: Census, published: PublishedCounts | None = None) -> list[str]:
    """One line per census figure that differs from its published figure (empty: all agree)."""
    published = published or published_counts()
    problems = []

    def check(what: str, got: int, expected: int) -> None:
        if got != expected:
            problems.append(f"{what}: census {got:,}, published {expected:,}")

    check("total", c.total, published.total)
    for name in PLAYER_CATEGORIES:
        check(f"player {name}", c.player[name].total, published.player[name])
        check(f"player {name} (no joker)", c.player[name].no_joker, published.player_no_joker[name])
    for name, expected in published.banker.items():
        check(f"banker {name}", c.banker[name].total, expected)
    return problems


def format_census(c: Census, published: PublishedCounts | None = None) -> str:
    """A plain-text table of the census beside the published figures, ``ok`` or ``MISMATCH``
    per row (a row with no published figure shows ``-``)."""
    from tablecert.oracle.labeller import LabelCount  # lazy: numba, 974 ms of the report step's game math (bench_startup.py, load 4)

    published = published or published_counts()
    header = ("", "no joker", "joker", "total", "published", "pub. no joker", "check")
    rows: list[tuple[str, ...]] = []

    def row(name: str, count: LabelCount, pub_total: int | None, pub_no_joker: int | None) -> None:
        expected = [(count.total, pub_total), (count.no_joker, pub_no_joker)]
        checked = [(got, exp) for got, exp in expected if exp is not None]
        status = "-" if not checked else ("ok" if all(got == exp for got, exp in checked) else "MISMATCH")
        rows.append((
            name, f"{count.no_joker:,}", f"{count.joker:,}", f"{count.total:,}",
            "-" if pub_total is None else f"{pub_total:,}",
            "-" if pub_no_joker is None else f"{pub_no_joker:,}",
            status,
        ))

    rows.append(("player hand",) + ("",) * 6)
    for name in PLAYER_CATEGORIES:
        row(name, c.player[name], published.player[name], published.player_no_joker[name])
    rows.append(("banker hand",) + ("",) * 6)
    for name in BANKER_LABELS:
        row(name, c.banker[name], published.banker.get(name), None)
    no_joker = sum(v.no_joker for v in c.player.values())
    joker = sum(v.joker for v in c.player.values())
    row("all hands", LabelCount(no_joker, joker), published.total, None)

    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r: tuple[str, ...]) -> str:
        return "  ".join(r[0].ljust(widths[0]) if i == 0 else r[i].rjust(widths[i]) for i in range(len(r))).rstrip()

    out = [line(header), "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append(line(r) if r[1] or r[0] == "" else r[0] + ":")
    out.append(f"source: {published.source}")
    return "\n".join(out)
