"""Slices of a hand suite, for a first look at a slow vendor: ``--range A:B`` (the hands A to B-1
of the suite's canonical order, 0-based, half open like a Python slice: tcIds A+1 to B) or
``--sample N --seed S`` (N different hands drawn uniformly with numpy's PCG64 from seed S, sent in
canonical order: the same N and S give the same hands on any machine).

A sliced run's verdict is never a pass: it is ``incomplete``, with the slice named in its reason
(the reports' first page shows it), because most of the suite was not run. The slice is kept in
the run's meta (``hand_slice``) and a resumed run must ask for the same one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tablecert.oracle.names import HAND_SUITES

if TYPE_CHECKING:
    from tablecert.harness.store import RunStore


class SliceError(ValueError):
    """A slice that does not fit the suite or the run (one-line message)."""


@dataclass(frozen=True)
class HandSlice:
    kind: str                 # range | sample
    first: int = 0            # range: first hand index (0-based)
    stop: int = 0             # range: one past the last
    n: int = 0                # sample: hands drawn
    seed: int = 0             # sample: the generator's seed

    @classmethod
    def parse_range(cls, text: str) -> HandSlice:
        a, sep, b = text.partition(":")
        if not sep or not a.strip().isdigit() or not b.strip().isdigit() or int(a) >= int(b):
            raise SliceError(f"--range {text!r}: expected A:B with 0 <= A < B (hand indices, B excluded)")
        return cls("range", first=int(a), stop=int(b))

    @classmethod
    def sample(cls, n: int, seed: int) -> HandSlice:
        if n < 1 or seed < 0:
            raise SliceError(f"--sample {n} --seed {seed}: the sample needs at least 1 hand and a seed of at least 0")
        return cls("sample", n=n, seed=seed)

    def meta(self) -> dict[str, int | str]:
        return ({"kind": "range", "first": self.first, "stop": self.stop} if self.kind == "range"
                else {"kind": "sample", "n": self.n, "seed": self.seed})

    def describe(self, suite: str) -> str:
        if self.kind == "range":
            return (f"hands {self.first:,} to {self.stop - 1:,} of the {suite} suite's canonical order "
                    f"(--range {self.first}:{self.stop}, tcIds {self.first + 1:,} to {self.stop:,})")
        return (f"a deterministic random sample of {self.n:,} hands of the {suite} suite "
                f"(--sample {self.n} --seed {self.seed}; numpy PCG64)")

    def check(self, n_hands: int) -> None:
        if self.kind == "range" and self.stop > n_hands:
            raise SliceError(f"--range {self.first}:{self.stop}: the suite has {n_hands:,} hands")
        if self.kind == "sample" and self.n > n_hands:
            raise SliceError(f"--sample {self.n}: the suite has {n_hands:,} hands")

    def indices(self, n_hands: int) -> np.ndarray:
        """The sample's hand indices, ascending."""
        rng = np.random.Generator(np.random.PCG64(self.seed))
        return np.sort(rng.choice(n_hands, size=self.n, replace=False)).astype(np.int64)

    def batches(self, n_hands: int, size: int) -> Iterator[tuple[int, int, np.ndarray | None]]:
        """(first hand index, hands, their indices or None when consecutive) of every batch."""
        self.check(n_hands)
        if self.kind == "range":
            for index in range(self.first, self.stop, size):
                yield index, min(size, self.stop - index), None
            return
        chosen = self.indices(n_hands)
        for start in range(0, len(chosen), size):
            part = chosen[start: start + size]
            yield int(part[0]), len(part), part


def check_slice(db: RunStore, manifest: dict[str, Any], hand_slice: HandSlice | None,
                max_hands: int | None) -> tuple[HandSlice | None, str | None]:
    """Keep the run's slice in its meta (a resumed run must ask for the same one) and return it
    (the stored one on a resumed run) and how the verdict names it (None for a whole suite). SliceError for a slice of a suite that is not a
    hand suite, or another slice than the run began with."""
    suite = manifest["suite"]
    stored = db.run_meta().hand_slice
    if hand_slice is None and stored is not None:
        hand_slice = HandSlice(**{k: v for k, v in stored.items()})
    if hand_slice is None:
        return None, (None if max_hands is None else f"the first {max_hands:,} hands of the {suite} suite")
    if suite not in HAND_SUITES:
        raise SliceError(f"--range and --sample slice a hand suite (joker, exhaustive), not the {suite} suite")
    if stored is not None and stored != hand_slice.meta():
        raise SliceError(f"this run is of the slice {stored}; it cannot resume with {hand_slice.meta()}")
    db.set_meta(hand_slice=hand_slice.meta())
    return hand_slice, hand_slice.describe(suite)
