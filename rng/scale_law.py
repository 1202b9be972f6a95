"""What a scaler's outcomes are, checked before they are counted, and the law they make.

Every outcome ``rng.scale`` returns for a die or a range must be an integer (``int``, never
``bool`` nor ``float``) in ``0 .. k-1``; a shuffle's, a permutation of ``0 .. n-1``. Anything else
is kept as its quoted text (:func:`quote`: JSON, ASCII, at most :data:`QUOTE_CHARS` characters)
and counted as an outcome *outside* the range: a correct scaler gives it with probability 0, so
the deviation of the law is at least its probability, and a scaler that gives one fails whatever
the lab's tolerance.

:class:`Law` is the law of one value from one word, from counts of words (every word of a short
width, or a proved model's counts): each in-range outcome's probability, the outside outcomes'
probabilities, the largest deviation ``max(|P(v) - 1/k| for v in range, P(o) for o outside)``
as an exact fraction, the value it is at, and the smallest example a lab can check by hand
(:func:`example`): a word the vendor gives that value for, and what a correct scaler
(:func:`correct`: rejection at ``2^W - (2^W mod k)``, then ``w mod k``) returns for it.

:func:`sampled` estimates the law of a scaler no proof covers from uniformly drawn words: each
value's share with a Clopper-Pearson interval at Bonferroni level ``alpha / (k + 1)`` (all the
intervals hold together with probability >= 1 - alpha), the deviation's interval from them, and
the smallest deviation of one value the sample sees at 99 % power (normal approximation).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scipy import stats

QUOTE_CHARS = 40

Outcome = int | str
"""An outcome as counted: an int (in or out of range), or the quoted text of anything else."""


def quote(outcome: Any) -> str:
    """The outcome as JSON text (ASCII, escaped), cut to :data:`QUOTE_CHARS` characters."""
    try:
        text = json.dumps(outcome, ensure_ascii=True)
    except (TypeError, ValueError):
        text = json.dumps(repr(outcome), ensure_ascii=True)
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS - 3] + "..."


def value_of(outcome: Any) -> Outcome:
    """A die's or a range's outcome as counted: the int itself (bool is not an int here), or its
    quoted text."""
    return outcome if type(outcome) is int else quote(outcome)


def in_range(value: Outcome, k: int) -> bool:
    return type(value) is int and 0 <= value < k


def is_deck(outcome: Any, n: int) -> bool:
    """A shuffle's outcome: a list of the ints 0..n-1, each once."""
    return isinstance(outcome, list) and len(outcome) == n and all(type(c) is int for c in outcome) \
        and sorted(outcome) == list(range(n))


def word_text(w: int, width: int) -> str:
    """A word as a lab reads it: decimal, and as 2^W - d near the top."""
    T = 1 << width
    return f"{w:,}" + (f" (2^{width} - {T - w})" if T - w <= 1 << 16 and w > T // 2 else "")


def correct(w: int, k: int, width: int) -> str:
    """What the reference's correct scaler (rejection at 2^W - (2^W mod k), then w mod k) does with w."""
    T = 1 << width
    limit = T - T % k
    return f"{w % k}" if w < limit else f"nothing: it refuses the word (at or above {word_text(limit, width)}) and draws another"


@dataclass
class Law:
    """The law of one value from one word under uniform words."""

    model: str
    k: int
    counts: list[int]
    """Words per in-range value (value by value)."""
    outside: dict[Outcome, int] = field(default_factory=dict)
    """Words per outcome outside 0..k-1 (ints out of range, quoted non-integers)."""
    probes: int = 0
    grouped: dict[int, int] | None = None
    """Where k is too large to list value by value: words per value -> how many values have it
    (``counts`` is then empty)."""
    example: dict[str, Any] | None = None
    """The smallest example of the fault (:func:`example`), where one was found."""

    @property
    def total(self) -> int:
        inside = sum(c * m for c, m in self.grouped.items()) if self.grouped else sum(self.counts)
        return inside + sum(self.outside.values())

    @property
    def probabilities(self) -> list[Fraction]:
        return [Fraction(c, self.total) for c in self.counts]

    @property
    def distinct(self) -> dict[Fraction, int]:
        if self.grouped:
            return {Fraction(c, self.total): m for c, m in sorted(self.grouped.items())}
        out: dict[Fraction, int] = {}
        for p in self.probabilities:
            out[p] = out.get(p, 0) + 1
        return dict(sorted(out.items()))

    def weights(self) -> dict[int, int]:
        """Words per integer outcome, in range and out (a shuffle's swap: positions beyond the swap's own)."""
        out = {v: c for v, c in enumerate(self.counts) if c}
        out.update({o: c for o, c in self.outside.items() if type(o) is int})
        return out

    def deviations(self) -> dict[Outcome, Fraction]:
        target = Fraction(1, self.k)
        if self.grouped:
            out: dict[Outcome, Fraction] = {-1 - i: abs(p - target) for i, p in enumerate(self.distinct)}
        else:
            out = {v: abs(p - target) for v, p in enumerate(self.probabilities)}
        ordered = sorted(self.outside.items(), key=lambda oc: (type(oc[0]) is not int, oc[0] if type(oc[0]) is int else 0,
                                                               str(oc[0])))
        out.update({o: Fraction(c, self.total) for o, c in ordered})
        return out

    def worst(self) -> tuple[Outcome, Fraction]:
        """The value furthest from its correct probability (1/k in range, 0 outside), and by how
        much (the first such value where several tie)."""
        devs = self.deviations()
        top = max(devs.values())
        return next(v for v, d in devs.items() if d == top), top

    def over(self) -> Outcome | None:
        """The outcome given most above its correct share: an outside one first, else the most
        frequent value (None when every value has the same count)."""
        if self.outside:
            return max(self.outside, key=lambda o: self.outside[o])
        if self.grouped or len(set(self.counts)) <= 1:
            return None
        return max(range(self.k), key=lambda v: (self.counts[v], -v))


def example(law: Law, width: int, words: Sequence[int], gives: Callable[[int], Outcome | None]) -> dict[str, Any] | None:
    """The smallest example of the law's fault: a word among ``words`` that gives the outcome most
    above its share (the smallest word for an outside outcome, else the largest, preferring one a
    correct scaler maps elsewhere), with what a correct scaler returns for it."""
    v = law.over()
    if v is None:
        return None
    mine = [w for w in words if gives(w) == v]
    if not mine:
        return None
    if law.outside:
        w = min(mine)
    else:
        T = 1 << width
        elsewhere = [x for x in mine if not (x < T - T % law.k and x % law.k == v)]
        w = max(elsewhere or mine)
    return {"word": w, "word_text": word_text(w, width), "outcome": v, "correct": correct(w, law.k, width),
            "outcome_share": str(Fraction(law.outside[v] if v in law.outside else law.counts[int(v)], law.total)),
            "words": sorted(mine)[:8] if law.outside else sorted(mine)[-8:]}


def describe(law: Law) -> dict[str, Any]:
    """The law in the summary's terms (fractions as text)."""
    v, dev = law.worst()
    out: dict[str, Any] = {"models": [law.model], "probabilities": [str(p) for p in law.probabilities],
                           "distinct": [{"probability": str(p), "outcomes": m} for p, m in law.distinct.items()],
                           "probes": law.probes}
    if not law.grouped:
        p = Fraction(law.outside[v], law.total) if v in law.outside else law.probabilities[int(v)]
        out["worst"] = {"outcome": v, "probability": str(p), "deviation": str(dev)}
    if law.example:
        out["example"] = law.example
    if law.outside:
        out["outside"] = {"share": str(Fraction(sum(law.outside.values()), law.total)),
                          "outcomes": [{"outcome": o, "probability": str(Fraction(c, law.total))}
                                       for o, c in sorted(law.outside.items(), key=lambda oc: (-oc[1], str(oc[0])))[:8]]}
    return out


SAMPLE_WORDS = 1_000_000
"""Words drawn for the law of a scaler no proof covers."""

SAMPLE_ALPHA = 0.01


def sampled(scale_words: Callable[[list[int]], tuple[list[Any], list[int]]], k: int, width: int,
            words: int = SAMPLE_WORDS, seed: str = "tablecert sampled law", batch: int = 100_000) -> dict[str, Any]:
    """The law estimated from ``words`` uniform words sent in batches (outcomes counted as
    :func:`value_of` counts them): each value's share, the largest deviation's simultaneous
    interval at 1 - :data:`SAMPLE_ALPHA`, and the deviation of one value the sample catches at
    99 % power."""
    rng = random.Random(seed)
    T = 1 << width
    counts: dict[Outcome, int] = {}
    first_outside: dict[str, Any] | None = None
    made = 0
    sent = 0
    while sent < words:
        chunk = [rng.randrange(T) for _ in range(min(batch, words - sent))]
        outs, used = scale_words(chunk)
        at = 0
        for o, u in zip(outs, used):
            v = value_of(o)
            counts[v] = counts.get(v, 0) + 1
            if first_outside is None and not in_range(v, k):
                first_outside = {"word": chunk[at + u - 1], "outcome": v}
            at += u
        made += len(outs)
        sent += len(chunk)
    level = SAMPLE_ALPHA / (k + 1)
    target = 1 / k
    lo_dev = hi_dev = 0.0
    for v in list(range(k)) + [o for o in counts if not in_range(o, k)]:
        c = counts.get(v, 0)
        lo = float(stats.beta.ppf(level / 2, c, made - c + 1)) if c else 0.0
        hi = float(stats.beta.ppf(1 - level / 2, c + 1, made - c)) if c < made else 1.0
        t = target if in_range(v, k) else 0.0
        lo_dev = max(lo_dev, max(0.0, lo - t, t - hi))
        hi_dev = max(hi_dev, max(hi - t, t - lo))
    z = stats.norm.ppf(1 - level / 2) + stats.norm.ppf(0.99)
    seen_at_power = z * math.sqrt(target * (1 - target) / max(made, 1))
    share = max((counts.get(v, 0) / made for v in range(k)), default=0.0) if made else 0.0
    return {"words": sent, "outcomes": made, "confidence": 1 - SAMPLE_ALPHA,
            "deviation_low": float(f"{lo_dev:.3g}"), "deviation_high": float(f"{hi_dev:.3g}"),
            "largest_share": float(f"{share:.6g}"),
            "outside_share": float(f"{sum(c for o, c in counts.items() if not in_range(o, k)) / max(made, 1):.6g}"),
            "smallest_deviation_at_99_power": float(f"{seen_at_power:.3g}"),
            **({"first_outside": first_outside} if first_outside else {})}
