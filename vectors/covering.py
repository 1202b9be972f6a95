"""Deterministic covering arrays: a small set of rows (one value per factor) in which every pair
of values of any two factors appears in at least one row, drawn only from the rows a predicate
accepts (for table configs: the legal ones).

Written here rather than taken from a package: the constraint (a row must be a legal table, which
only the oracle can decide) has to be applied to whole rows, and the generator must give the same
rows on every machine and Python version. ``allpairspy`` (on PyPI) takes a filter too, but checks
it on partial rows and its output order is an implementation detail; this greedy generator is
about fifty lines and its output is fixed by the factor order alone.

Greedy, in the style of AETG: take the first uncovered pair (in factor and value order), and among
the accepted rows holding it pick the one covering the most uncovered pairs (ties: the first in
enumeration order). A pair no accepted row holds is *infeasible* and reported, not covered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any


@dataclass(frozen=True)
class CoveringArray:
    """The rows (factor -> value) and the value pairs no accepted row can hold."""

    rows: tuple[dict[str, Any], ...]
    infeasible: tuple[tuple[tuple[str, Any], tuple[str, Any]], ...]


def covering_array(factors: Mapping[str, Sequence[Any]], accept: Callable[[dict[str, Any]], bool]) -> CoveringArray:
    """A pairwise covering array over ``factors`` (name -> values, both in a fixed order) whose
    rows all satisfy ``accept``."""
    names = list(factors)
    sizes = [len(factors[n]) for n in names]
    index_rows = [r for r in product(*(range(s) for s in sizes))
                  if accept({n: factors[n][v] for n, v in zip(names, r)})]
    columns = list(combinations(range(len(names)), 2))
    pairs = {r: frozenset((i, r[i], j, r[j]) for i, j in columns) for r in index_rows}
    all_pairs = sorted((i, a, j, b) for i, j in columns for a in range(sizes[i]) for b in range(sizes[j]))
    coverable: set[tuple[int, int, int, int]] = set().union(*pairs.values())
    uncovered = set(coverable)
    chosen: list[tuple[int, ...]] = []
    for seed in all_pairs:
        if seed not in uncovered:
            continue
        i, a, j, b = seed
        best = max((r for r in index_rows if r[i] == a and r[j] == b), key=lambda r: len(pairs[r] & uncovered))
        chosen.append(best)
        uncovered -= pairs[best]
    infeasible = tuple(((names[i], factors[names[i]][a]), (names[j], factors[names[j]][b]))
                       for i, a, j, b in all_pairs if (i, a, j, b) not in coverable)
    return CoveringArray(tuple({n: factors[n][v] for n, v in zip(names, r)} for r in chosen), infeasible)
