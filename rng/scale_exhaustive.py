"""``--scaling exhaustive``: the exact law of a die's or a range's scaling from every one of the
2^W words (the lab's option for 32-bit words, where the probes of
:mod:`tablecert.rng.scale_analysis` prove only the scalers they recognise).

The words 0, 1, ..., 2^W - 1 are sent in order through ``rng.scale`` in batches of
:data:`BATCH` words (``scale_words`` answers lists, or arrays where the vendor answers packed,
*since 1.1*, counted by numpy); an outcome that consumed u words means its first u - 1 words were refused and
its last gave the outcome (the one-word rule the probes check first). Words left at the end of a
batch (refused, no outcome yet) are sent again at the head of the next. Memory is the batch and one
count per outcome seen (k values and whatever the vendor returned outside them), whatever W.

After each batch the state (next word, counts, refused words, the first outside outcome) is written
to ``state`` (JSON, replaced atomically): a run stopped at any point resumes from its last batch
with the same result. ``progress(done, total)`` is called after each batch (the command line draws
a tqdm bar from it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tablecert.rng.scale_law import Law, in_range, value_of

BATCH = 1 << 18
"""Words a request: the most `rng.scale` takes in one case (the contract's limit of `rng.raw`, 262,144)."""
FORMAT = "tablecert-scaling-exhaustive/1"


def exhaustive_law(scale_words: Callable[[np.ndarray], tuple[Any, Any]], k: int, width: int,
                   state: Path | None = None, batch: int = BATCH,
                   progress: Callable[[int, int], None] | None = None) -> tuple[Law, int]:
    """The exact law of every word (and the refused words' count)."""
    T = 1 << width
    key = {"format": FORMAT, "k": k, "width": width}
    saved = json.loads(state.read_text()) if state is not None and state.exists() else None
    if saved and all(saved.get(a) == b for a, b in key.items()):
        at, refused = saved["next"], saved["refused"]
        counts = saved["counts"]
        outside = {(int(o[1:]) if o.startswith("i") else o[1:]): c for o, c in saved["outside"].items()}
        first = saved.get("first_outside")
    else:
        at, refused, counts, outside, first = 0, 0, [0] * k, {}, None
    while at < T:
        stop = min(T, at + batch)
        outs, used = scale_words(np.arange(at, stop, dtype=np.uint64))
        if isinstance(outs, np.ndarray):               # packed (since 1.1): arrays, not JSON lists
            fast = np.bincount(outs.astype(np.int64), minlength=k) if not len(outs) or int(outs.max()) < k else None
            outs, used = (outs.tolist(), used.tolist()) if fast is None else (outs, used)
        else:
            fast = _count_fast(outs, used, k)
        if fast is not None:
            counts = [c + int(d) for c, d in zip(counts, fast)]
            spent = int(np.asarray(used, dtype=np.int64).sum())
            refused += spent - len(used)
            pos = at + spent
        else:
            pos = at
            for o, u in zip(outs, used):
                refused += u - 1
                v = value_of(o)
                if in_range(v, k):
                    counts[int(v)] += 1
                else:
                    outside[v] = outside.get(v, 0) + 1
                    first = first or {"word": pos + u - 1, "outcome": v}
                pos += u
        if stop == T:                                   # the last words, refused with no outcome after them
            refused += T - pos
            pos = T
        elif pos == at:
            raise ValueError(f"rng.scale made no outcome from the {stop - at:,} words from {at:,}")
        at = pos
        if state is not None:
            tmp = state.with_suffix(".tmp")
            tmp.write_text(json.dumps({**key, "next": at, "refused": refused, "counts": counts,
                                       "outside": {("i" if type(o) is int else "s") + str(o): c for o, c in outside.items()},
                                       "first_outside": first}))
            os.replace(tmp, state)
        if progress:
            progress(at, T)
    law = Law(f"every one of the 2^{width} words sent, in order", k, counts, outside, T)
    return law, refused


def _count_fast(outs: list[Any], used: list[int], k: int) -> np.ndarray | None:
    """Counts per value when every outcome is an int in 0..k-1 (the usual case, counted by numpy),
    else None (counted one by one)."""
    if outs and set(map(type, outs)) != {int}:
        return None
    try:
        values = np.asarray(outs, dtype=np.int64)
    except OverflowError:
        return None
    if values.size and (values.min() < 0 or values.max() >= k):
        return None
    return np.bincount(values, minlength=k)
