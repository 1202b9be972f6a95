"""Exact analysis of a vendor's scaling (``rng.scale``): each outcome's probability under uniform
raw words, as a fraction, from the vendor's own scaling function driven with chosen words.

Every outcome is checked before it is counted (:mod:`tablecert.rng.scale_law`): an integer in
0..k-1, a deck a permutation of 0..n-1; anything else is an outcome outside the range, quoted with
its word, and fails the scaling.

**One value from words** (kinds ``die`` and ``range``, k outcomes, words of W bits):

* W <= 16 (a shuffle's swaps: W <= 8, or W <= 16 with ``exhaustive``): every word is sent (each followed by a filler word, see
  below), so the law of *any* scaler is read off exactly, outcomes outside the range included,
  with its worst outcome and a true example (word, outcome, what a correct scaler returns);
* above: the words that reveal a bias are sent: the top ``2^W mod k`` words and the k words
  below them (where ``w mod k`` is biased and a rejection loop must discard), both sides of every
  multiply-shift boundary ``ceil(j 2^W / k)`` (where ``floor(w k / 2^W)`` and Lemire's rejection
  change value), the words around the next power of two above k and its high-bit counterpart
  (mask and shift rejection), and 64 seeded random words. The scaler must agree on every probe with
  one of the scalers of :func:`models` (modulo, multiply-shift, float ``floor(u k)``, rejection to
  a multiple of k, mask rejection, high-bit rejection, Lemire's, rejection then multiply-shift), or
  with rejection then ``w mod k`` at a limit the probes pin (:func:`_limit_model`), at k or at the
  other numbers of values the caller names (``also``: k - 1 for a range that never returns its
  top; a shuffle's swap to k - 1 or n positions); that model's exact word counts give the law. A
  scaler that agrees with none is not proved: it fails, naming the closest model and the first probe
  word where the two disagree, with its exact law on the words near every power of two and multiple
  of k (:func:`edge_words`) and, in :func:`analyse`, its law estimated from drawn words
  (:func:`tablecert.rng.scale_law.sampled`). ``exhaustive`` sends every word instead
  (:mod:`tablecert.rng.scale_exhaustive`).

Each probe word p is sent as ``[p, F]`` with a filler F (:func:`filler`: accepted by every model
with outcome 0): one outcome consuming both words means p was rejected (its outcome must then be
the filler's own). A scaler that consumes more than one word per outcome of fillers, or whose
outcome does not change with a word it consumed, skips words (they are consumed and discarded): it
fails.

**Shuffles** (``shuffle``, n items): fillers alone (words meant to pick position 0 of every swap;
where no one word does so under every model, as at 8 bits, two more sets are tried) identify
Fisher-Yates (from the top: for i = n-1 .. 1 swap i with j in 0..i; or from the bottom: for
i = 0 .. n-2 swap i with j in i..n-1), one word a swap; each swap's word is then probed as above
(its outcome j read from the deck, any position of the deck), the swap's scaler identified, and the
exact probability of every card at every position computed by following each card's position
through the swaps (fractions). Sattolo's algorithm (a swap never leaves its card) and the naive
shuffle (a swap to any of the n positions) are named. Fewer words than swaps (words reused), a deck
that is not one, or a deck no single swap explains fails.

The largest deviation from uniform (``|P - 1/k|``, an outside outcome's P, or
``|P(card at position) - 1/n|``) is reported as an exact fraction; the analysis fails any deviation
above the lab's tolerance (0 by default) and any outcome outside the range.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablecert.rng.scale_exhaustive import exhaustive_law
from tablecert.rng.scale_law import SAMPLE_WORDS, Law, Outcome, describe, example, in_range, is_deck, quote, \
    sampled, value_of, word_text

Scale = Callable[[str, int, Sequence[int]], tuple[list[Any], list[int]]]
"""``scale(kind, n, words) -> (outcomes, words consumed by each)``: the vendor's ``rng.scale``."""

RANDOM_PROBES = 64
ENUMERATE_UP_TO = 16
SHUFFLE_ENUMERATE_UP_TO = 8
SHUFFLE_EXHAUSTIVE_UP_TO = 16
"""A shuffle's swaps are enumerated (every word at every swap) up to 8-bit words always, and up to
16-bit words when the lab asks for every word (``exhaustive``): each probe of a swap costs a whole
deck (n - 1 words), so a 53-card deck at 16 bits is 52 x 2^16 decks, 1.8 x 10^8 words (minutes
through a vendor; at 8 bits 52 x 256 decks)."""
DECK_WORDS_A_REQUEST = 1 << 18
"""The most words of probe decks in one ``rng.scale`` request (the contract's 262,144)."""


class NotProved(Exception):
    """The scaler could not be analysed exactly (the reason says why); ``probed``: for a die or a
    range no model fits, its exact law on the words near every power of two and every multiple of
    k near them (:func:`edge_words`), the only words it is known on."""

    def __init__(self, reason: str, probed: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.probed = probed


def edge_words(k: int, width: int) -> list[int]:
    """The words within 2 of every power of two 2^1 .. 2^W and of the multiples of k next to each."""
    T = 1 << width
    out: set[int] = set()
    for j in range(1, width + 1):
        p = 1 << j
        for c in (p, p // k * k, -(-p // k) * k):
            out.update(w for w in range(c - 2, c + 3) if 0 <= w < T)
    return sorted(out)


def _probed_law(scale: Scale, kind: str, n: int, k: int, width: int, fill: int, fill_outcome: Any,
                read: Callable[[Any], Outcome]) -> dict[str, Any]:
    """The exact law of the outcomes of :func:`edge_words` (refused words left out)."""
    words = edge_words(k, width)
    seen = {p: read(o) for p, o in _observe(scale, kind, n, words, fill, fill_outcome).items() if o is not None}
    law = Law("the words near every power of two and multiple of k", k, [0] * k, {}, len(words))
    for v in seen.values():
        if in_range(v, k):
            law.counts[int(v)] += 1
        else:
            law.outside[v] = law.outside.get(v, 0) + 1
    if not law.total:
        return {"words": len(words), "accepted": 0}
    value, deviation = law.worst()
    return {"words": len(words), "accepted": law.total, "deviation": str(deviation),
            "deviation_float": float(deviation), "worst_outcome": value}


def _pow2_above(k: int) -> int:
    return 1 << max(0, (k - 1).bit_length())


def filler(k: int, width: int = 32) -> int:
    """A word every scaler of :func:`models` accepts: a multiple of the power of two above k (0
    under a mask, low in the multiply-shift intervals) away from Lemire's rejected remainders;
    where possible also a multiple of k, so that its value is 0 under every model (what shuffles
    need)."""
    T = 1 << width
    p2 = _pow2_above(k)
    zero = math.lcm(k, p2)
    if zero * k < T:
        return zero
    accept = [model for model, _ in models(k, width).values()]
    candidates = [c * p2 for c in range(1, 65)] + list(range(1, 4096))
    return next((w for w in candidates if w < T and all(m(w) is not None for m in accept)), k % T)


PER_VALUE_UP_TO = 4096
"""Largest k whose probabilities are listed value by value (above it: distinct values and how many
outcomes have each)."""

Counts = dict[int, int]
"""Words per outcome -> how many outcomes have that many words."""


def models(k: int, width: int) -> dict[str, tuple[Callable[[int], int | None], Callable[[], list[int] | Counts | None]]]:
    """name -> (the scaler on one word: value or None for rejected, its exact word counts: a list
    value by value, or grouped (:data:`Counts`) where k is large, or None where it cannot be
    counted at this k)."""
    T = 1 << width
    q, r = divmod(T, k)
    mask = _pow2_above(k) - 1
    b = mask.bit_length()
    small = k <= PER_VALUE_UP_TO

    def ms_counts(limit: int) -> list[int] | Counts | None:
        if not small:
            return {q + 1: r, q: k - r} if limit == T and r else ({q: k} if limit == T else None)
        edges = [min(-(-j * T // k), limit) for j in range(k + 1)]
        return [edges[j + 1] - edges[j] for j in range(k)]

    def float_value(w: int) -> int:
        return min(int(math.floor((w / T) * k)), k - 1)

    def float_counts() -> list[int] | None:
        if not small:
            return None

        def first(j: int) -> int:                      # smallest word whose value is >= j (monotone)
            lo, hi = 0, T
            while lo < hi:
                mid = (lo + hi) // 2
                if float_value(mid) >= j:
                    hi = mid
                else:
                    lo = mid + 1
            return lo
        edges = [first(j) for j in range(k)] + [T]
        return [edges[j + 1] - edges[j] for j in range(k)]

    def lemire(w: int) -> int | None:
        m = w * k
        return None if (m & (T - 1)) < r else m >> width

    def equal(words: int) -> Callable[[], list[int] | Counts]:
        return lambda: [words] * k if small else {words: k}

    return {
        "rejection to a multiple of k, then w mod k": (lambda w: w % k if w < T - r else None, equal(q)),
        "Lemire's multiply-shift with rejection": (lemire, equal(q)),      # Lemire 2019, Theorem 1: q words each
        "mask rejection (w & (2^b - 1) < k)": (lambda w: (w & mask) if (w & mask) < k else None, equal(T >> b)),
        "high-bit rejection (w >> (W - b) < k)": (lambda w: (w >> (width - b)) if (w >> (width - b)) < k else None,
                                                 equal(1 << (width - b))),
        "w mod k": (lambda w: w % k, lambda: [q + (j < r) for j in range(k)] if small else {q + 1: r, q: k - r}),
        "multiply-shift floor(w k / 2^W)": (lambda w: (w * k) >> width, lambda: ms_counts(T)),
        "float floor(u k), u = w / 2^W": (float_value, float_counts),
        "rejection to a multiple of k, then multiply-shift": (lambda w: (w * k) >> width if w < T - r else None,
                                                              lambda: ms_counts(T - r)),
    }


def probe_words(k: int, width: int) -> list[int]:
    """The words that tell the scalers of :func:`models` apart and reveal their bias (at most a few
    thousand whatever k: regions are sampled where they are long)."""
    T = 1 << width
    r = T % k
    p2 = _pow2_above(k)
    rng = random.Random(f"tablecert scale probes {k} {width}")

    def region(lo: int, hi: int, most: int = 256) -> set[int]:
        lo, hi = max(0, lo), min(T, hi)
        if hi - lo <= most:
            return set(range(lo, hi))
        return set(range(lo, lo + 8)) | set(range(hi - 8, hi)) | {rng.randrange(lo, hi) for _ in range(most - 16)}

    words = region(0, 2 * p2 + 2) | region(k - 2, k + 3) | region(p2 - 2, p2 + 3)
    words |= region(T - r, T) | region(T - r - k - 2, T - r + 3)
    js = range(k + 1) if k <= 512 else sorted(set(range(256)) | set(range(k - 255, k + 1)) | set(rng.sample(range(k), 512)))
    for j in js:
        edge = -(-j * T // k)
        words |= region(edge - 1, edge + 2)
    b = p2.bit_length() - 1
    for j in (k - 1, k, min(k + 1, (1 << b) - 1)):
        base = j << (width - b)
        words |= region(base - 1, base + 2)
    words.update(rng.randrange(T) for _ in range(RANDOM_PROBES))
    return sorted(words)


def _observe(scale: Scale, kind: str, n: int, probes: list[int], fill: int,
             fill_outcome: Any = None) -> dict[int, Any]:
    """Each probe's outcome as the vendor gave it (None: rejected), probes sent as [p, F] pairs in
    one request; ``fill_outcome``: the filler's own outcome, which a rejected probe's must be."""
    words: list[int] = []
    for p in probes:
        words += [p, fill]
    outcomes, used = scale(kind, n, words)
    seen: dict[int, Any] = {}
    pos = 0
    for outcome, k in zip(outcomes, used):
        if pos % 2 == 0:                            # an outcome starting at a probe
            p = words[pos]
            if k == 1:
                seen[p] = outcome
            elif k == 2:
                if fill_outcome is not None and outcome != fill_outcome:
                    raise NotProved(f"word {p:,} and the filler {fill:,} made one outcome {quote(outcome)}, not the "
                                    f"filler's own {quote(fill_outcome)}: one outcome depends on two words")
                seen[p] = None
            else:
                raise NotProved(f"probe {p:,} and the filler after it made one outcome from {k} words")
        pos += k
    missing = [p for p in probes if p not in seen]
    if missing:
        raise NotProved(f"{len(missing)} probe words made no outcome of their own (first {missing[0]:,})")
    return seen


def _check_one_word(scale: Scale, kind: str, n: int, fill: int) -> Any:
    """The filler's outcome, after checking that each filler word makes one outcome."""
    outcomes, used = scale(kind, n, [fill] * 8)
    if used and max(used) > 1:
        a, _ = scale(kind, n, [fill, 1] * 4)
        b, _ = scale(kind, n, [fill, 12345] * 4)
        detail = " (the second word does not change the outcome: it is consumed and discarded)" if a == b else ""
        raise NotProved(f"each outcome consumed {max(used)} words of fillers, not 1{detail}")
    if len(outcomes) != 8:
        raise NotProved(f"8 filler words made {len(outcomes)} outcomes")
    return outcomes[0]


def _limit_model(seen: dict[int, Outcome | None], k: int, width: int) -> tuple[str, list[int]] | None:
    """Rejection at some limit L other than 2^W - (2^W mod k), then w mod k, where the probes pin
    L (L - 1 accepted and L refused, every probe agreeing): the model's name and exact counts."""
    T = 1 << width
    refused = [p for p, v in seen.items() if v is None]
    if k > PER_VALUE_UP_TO or not all(v == p % k for p, v in seen.items() if v is not None):
        return None
    L = min(refused, default=T)
    if any(p >= L for p, v in seen.items() if v is not None) or (L < T and seen.get(L - 1, None) is None):
        return None
    counts = [L // k + (j < L % k) for j in range(k)]
    return (f"rejection at limit {word_text(L, width)}, then w mod k (a correct limit is "
            f"{word_text(T - T % k, width)})", counts)


def value_law(scale: Scale, kind: str, n: int, width: int, k: int | None = None,
              read: Callable[[Any], Outcome] | None = None, enumerate_up_to: int = ENUMERATE_UP_TO,
              also: tuple[int, ...] = ()) -> Law:
    """The exact law of ``kind``'s one-word outcome (``k`` values; ``read`` maps an outcome to its
    value, :func:`~tablecert.rng.scale_law.value_of` by default); every word is sent up to
    ``enumerate_up_to`` bits, probes above, where the models are tried at ``k`` then at each k of
    ``also`` (a scaler to the wrong number of values)."""
    k = n if k is None else k
    read = read or value_of
    fill = filler(k, width)
    fill_outcome = _check_one_word(scale, kind, n, fill)
    if width <= enumerate_up_to:
        raw = _observe(scale, kind, n, list(range(1 << width)), fill, fill_outcome if kind != "shuffle" else None)
        seen = {w: None if o is None else read(o) for w, o in raw.items()}
        counts = [0] * k
        outside: dict[Outcome, int] = {}
        for value in seen.values():
            if value is None:
                continue
            if in_range(value, k):
                counts[int(value)] += 1
            else:
                outside[value] = outside.get(value, 0) + 1
        law = Law(f"every one of the 2^{width} words sent", k, counts, outside, 1 << width)
        if not law.total:
            raise NotProved(f"every one of the 2^{width} words was refused")
        law.example = example(law, width, list(seen), seen.get)
        return law
    probes = probe_words(k, width)
    raw = _observe(scale, kind, n, probes, fill, fill_outcome if kind != "shuffle" else None)
    seen = {p: None if o is None else read(o) for p, o in raw.items()}
    tried: list[tuple[str, Callable[[int], int | None]]] = []
    for size in (k, *also):
        if size != k:                              # the words that tell the models at this k apart too
            more = sorted(set(probe_words(size, width)) - set(seen))
            raw = _observe(scale, kind, n, more, fill, fill_outcome if kind != "shuffle" else None)
            seen.update({p: None if o is None else read(o) for p, o in raw.items()})
            probes = sorted(seen)
        for name, (model, counts) in models(size, width).items():
            label = name if size == k else f"{name}, over k - 1 values (the top one never comes)" if size == k - 1 \
                else f"{name}, over {size} values"
            tried.append((label, model))
            if all(model(p) == v for p, v in seen.items()):
                c = counts()
                if c is None:
                    raise NotProved(f"the scaler agrees with {label} on every probe, whose counts are not derived "
                                    f"for k = {size:,}")
                law = _law(label, k, c, len(probes))
                law.example = example(law, width, probes, seen.get)
                return law
        limit = _limit_model(seen, size, width) if size == k else None
        if limit:
            law = _law(limit[0], k, limit[1], len(probes))
            law.example = example(law, width, probes, seen.get)
            return law
    probed = _probed_law(scale, kind, n, k, width, fill, fill_outcome, read) if kind != "shuffle" else None
    bad = next(((p, v) for p, v in seen.items() if v is not None and not in_range(v, k)), None)
    if bad:
        raise NotProved(f"word {word_text(bad[0], width)} gave {bad[1]}, outside the outcomes 0..{k - 1}", probed)
    name, model = max(tried, key=lambda nm: sum(nm[1](p) == v for p, v in seen.items()))
    agree = sum(model(p) == v for p, v in seen.items())
    w = next(p for p, v in seen.items() if model(p) != v)
    theirs = "refuses it" if model(w) is None else f"gives {model(w)}"
    mine = "refused it" if seen[w] is None else f"gave {seen[w]}"
    raise NotProved(f"the scaler agrees with none of the known scalers on the {len(probes):,} probe words; closest: "
                    f"{name} ({agree:,} of {len(probes):,} agree): word {word_text(w, width)} {mine}, that model {theirs}",
                    probed)


def _law(name: str, k: int, counts: list[int] | Counts, probes: int) -> Law:
    """A model's counts as the law of a value meant to take ``k`` values (counts beyond k are
    outside; fewer than k: the top values never come)."""
    if isinstance(counts, dict):
        return Law(name, k, [], {}, probes, grouped=counts)
    inside = (counts + [0] * k)[:k]
    return Law(name, k, inside, {j: c for j, c in enumerate(counts) if j >= k and c}, probes)


def _fy_top(n: int, js: Sequence[int]) -> list[int]:
    deck = list(range(n))
    for step, top in enumerate(range(n - 1, 0, -1)):
        j = js[step]
        deck[top], deck[j] = deck[j], deck[top]
    return deck


def _fy_bottom(n: int, js: Sequence[int]) -> list[int]:
    deck = list(range(n))
    for i in range(n - 1):
        j = i + js[i]
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def shuffle_laws(scale: Scale, n: int, width: int, enumerate_up_to: int = SHUFFLE_ENUMERATE_UP_TO) -> tuple[str, list[Law]]:
    """The shuffle's structure and each swap's exact law (swap s is meant to pick among n - s
    positions; a position outside them, or never its own, is counted as it comes); every word is
    sent at every swap up to ``enumerate_up_to`` bits, probes above."""
    steps = n - 1
    zeros = [0] * steps
    structures = {"Fisher-Yates from the top": _fy_top, "Fisher-Yates from the bottom": _fy_bottom}
    errors: list[str] = []
    for fill in _shuffle_fillers(n, width):
        try:
            name = _structure(scale, n, fill, structures)
            break
        except NotProved as err:
            errors.append(str(err)) if str(err) not in errors else None
    else:
        raise NotProved("; ".join(errors))
    simulate = structures[name]
    top = name.endswith("top")
    laws = []
    for s in range(steps):
        size = n - s
        by_deck = {}
        for j in (range(n) if top else range(-s, size)):      # any position of the deck, relative to the swap's first
            js = list(zeros)
            js[s] = j
            by_deck[tuple(simulate(n, js))] = j
        law = value_law(_batched(scale, n, fill, s, by_deck), "shuffle", n, width, k=size,
                        enumerate_up_to=enumerate_up_to, also=(size - 1, n) if top else (size - 1,))
        laws.append(law)
    return name + _known_fault(laws, top), laws


def _known_fault(laws: list[Law], top: bool) -> str:
    """The name of a known faulty structure the swaps' laws make, or ''."""
    own = [law.k - 1 if top else 0 for law in laws]           # the value that leaves the card in place
    if all(law.weights().get(v, 0) == 0 for law, v in zip(laws, own)) and all(not law.outside for law in laws):
        return ": Sattolo's algorithm (no swap leaves a card in place, so no card ends where it started)"
    if top and all(max(law.weights()) == len(laws) for law in laws):
        return f": the naive shuffle (each swap picks any of the {len(laws) + 1} positions, not only those not yet dealt)"
    return ""


def _shuffle_fillers(n: int, width: int) -> list[list[int]]:
    """Filler words for the swaps of a shuffle, each meant to pick position 0 of its swap, to try in
    turn: :func:`filler` (a multiple of k accepted by every model, where one exists: at 32 and 64
    bits), then all 0 (0 under every model but Lemire's, which rejects it), then all 1 (0 under the
    multiply-shift models, Lemire's included, for k < 2^W)."""
    return [[filler(n - s, width) for s in range(n - 1)], [0] * (n - 1), [1] * (n - 1)]


def _structure(scale: Scale, n: int, fill: list[int], structures: dict[str, Callable[[int, Sequence[int]], list[int]]]) -> str:
    """The shuffle's structure, recognised from the deck the filler words deal (every swap 0)."""
    steps = n - 1
    decks, used = scale("shuffle", n, fill + fill[:4])
    if not decks:
        raise NotProved(f"{steps + 4} filler words made no deck")
    if not is_deck(decks[0], n):
        raise NotProved(f"the filler words {fill[0]:,}, ... dealt {quote(decks[0])}, not a deck of the cards 0..{n - 1}")
    if used[0] < steps:
        raise NotProved(f"a deck of {n} consumed {used[0]} words for {steps} swaps: words are reused")
    if used[0] > steps:
        raise NotProved(f"a deck of {n} consumed {used[0]} filler words for {steps} swaps (filler {fill[0]:,}, ...: "
                        f"some were refused or skipped)")
    name = next((s for s, f in structures.items() if f(n, [0] * steps) == list(decks[0])), None)
    if name is None:
        raise NotProved("the deck dealt from filler words is not a Fisher-Yates shuffle's")
    return name


def _batched(scale: Scale, n: int, fill: list[int], s: int, by_deck: dict[tuple[int, ...], int]) -> Scale:
    """Swap ``s`` seen as a one-value scaler: probe words [p, F, ...] become one deck each (fillers,
    p at swap s, fillers), many to an ``rng.scale`` request; a rejected probe (its deck takes one
    word more) ends the request and the probes after it are sent again."""

    def view(kind: str, k: int, words: Sequence[int]) -> tuple[list[Any], list[int]]:
        if len(words) == 8 and set(words) == {fill[s]}:        # the one-word check: fillers only
            return [0] * 8, [1] * 8
        steps = len(fill)
        probes = list(words[0::2])
        seen: list[int | None] = []
        most = max(1, DECK_WORDS_A_REQUEST // steps - 1)
        per_request = most
        while len(seen) < len(probes):
            request: list[int] = []
            asked = probes[len(seen):len(seen) + per_request]
            for p in asked:
                request += fill[:s] + [p] + fill[s + 1:]
            decks, used = scale("shuffle", n, request + fill[:2])
            before = len(seen)
            for d, u in zip(decks, used):
                if len(seen) == before + len(asked):           # the trailing fillers made a deck of their own
                    break
                p = probes[len(seen)]
                if not is_deck(d, n):
                    raise NotProved(f"swap {s + 1}: word {p:,} dealt {quote(d)}, not a deck of the cards 0..{n - 1}")
                if u == steps:
                    if tuple(d) not in by_deck:
                        raise NotProved(f"swap {s + 1}: word {p:,} dealt a deck that no one swap at that step explains "
                                        f"(words reused?)")
                    seen.append(by_deck[tuple(d)])
                elif u > steps:        # the probe refused (the deck then ate a word of the next, perhaps refused too)
                    seen.append(None)
                    break
                else:
                    raise NotProved(f"swap {s + 1}: a probe's deck consumed {u} words")
            if len(seen) == before:
                raise NotProved(f"swap {s + 1}: the probe words made no deck")
            # a refused probe ends the request (the decks after it are out of step): requests shrink to
            # twice the run of probes before the refusal, and grow back while none is refused
            run = len(seen) - before
            per_request = min(most, 2 * run if seen[-1] is None else 2 * per_request)
        outs: list[Any] = []
        counts: list[int] = []
        for j in seen:
            if j is None:
                outs.append(0)
                counts.append(2)
            else:
                outs += [j, 0]
                counts += [1, 1]
        return outs, counts

    return view


def card_position(n: int, structure: str, laws: list[Law]) -> tuple[list[list[int]], int]:
    """P(card c ends at position p), exactly, following each card's position through the swaps:
    integer numerators over one common denominator (the product of the swaps' word totals), so
    no fraction is reduced on the way."""
    weights = [(law.weights(), law.total) for law in laws]
    top = "from the top" in structure
    out = []
    for card in range(n):
        where = [0] * n
        where[card] = 1
        for s, (w, den) in enumerate(weights):
            fixed = n - 1 - s if top else s
            offset = 0 if top else s
            nxt = [x * den for x in where]
            at_fixed = where[fixed]
            nxt[fixed] = 0
            for j, cj in w.items():
                pos = offset + j
                if pos == fixed:
                    nxt[fixed] += at_fixed * cj
                    continue
                nxt[pos] += (at_fixed - where[pos]) * cj
                nxt[fixed] += where[pos] * cj
            where = nxt
        out.append(where)
    return out, math.prod(den for _, den in weights)


SWAP_EXAMPLES = 4
"""Biased swaps whose smallest example (word, position it picks, what a correct scaler picks) the
summary quotes."""
CELLS_LISTED = 64


def _cells(numerators: list[list[int]], den: int) -> dict[str, Any]:
    """The law of card c at position p: each distinct probability (a fraction) and how many of the
    n^2 (card, position) cells have it, where there are at most :data:`CELLS_LISTED` distinct ones."""
    counts: dict[Fraction, int] = {}
    for row in numerators:
        for x in row:
            p = Fraction(x, den)
            counts[p] = counts.get(p, 0) + 1
    out: dict[str, Any] = {"distinct": len(counts)}
    if len(counts) <= CELLS_LISTED:
        out["probabilities"] = [{"probability": str(p), "cells": c} for p, c in sorted(counts.items())]
    return out


def analyse(scale: Scale, kind: str, n: int, width: int, tolerance: Fraction = Fraction(0),
            sample_words: int = SAMPLE_WORDS, exhaustive: Path | None = None,
            progress: Callable[[int, int], None] | None = None,
            sweep: Callable[[Any], tuple[Any, Any]] | None = None) -> dict[str, Any]:
    """The exact analysis of one kind: model(s), probabilities, largest deviation, decision; a die
    or range no proof covers on long words is also estimated from ``sample_words`` drawn words.
    ``exhaustive``: for a die or a range every word is sent (:mod:`tablecert.rng.scale_exhaustive`),
    its state kept in that file so that a stopped run resumes (through ``sweep(words)`` where given:
    the vendor's packed answers, *since 1.1*); for a shuffle of words up to 16 bits,
    every word at every swap (the file is not used: a stopped sweep starts again)."""
    if exhaustive is not None and kind != "shuffle":
        return _exhaustive(scale, kind, n, width, tolerance, exhaustive, progress, sweep)
    try:
        if kind == "shuffle":
            every = SHUFFLE_EXHAUSTIVE_UP_TO if exhaustive is not None else SHUFFLE_ENUMERATE_UP_TO
            structure, laws = shuffle_laws(scale, n, width, every)
            numerators, den = card_position(n, structure, laws)
            far = max(((c, p) for c in range(n) for p in range(n)), key=lambda cp: abs(n * numerators[cp[0]][cp[1]] - den))
            worst = (far[0], far[1])
            matrix = {worst: Fraction(numerators[far[0]][far[1]], den)}
            deviation = abs(matrix[worst] - Fraction(1, n))
            biased = [s + 1 for s, law in enumerate(laws) if len(law.distinct) > 1 or law.outside]
            models_used = sorted({law.model for law in laws})
            detail = {"structure": structure, "models": models_used, "biased_swaps": biased,
                      "worst": {"card": worst[0], "position": worst[1], "probability": str(matrix[worst])},
                      "card_position": _cells(numerators, den),
                      "swap_examples": [{"swap": s + 1, **law.example} for s, law in enumerate(laws)
                                        if s + 1 in biased and law.example][:SWAP_EXAMPLES],
                      "probes": sum(law.probes for law in laws)}
            outside = False
        else:
            law = value_law(scale, kind, n, width, also=(n - 1,) if n > 2 else ())
            _, deviation = law.worst()
            detail = describe(law)
            outside = bool(law.outside)
    except NotProved as err:
        result = {"kind": kind, "n": n, "width": width, "decision": "fail", "proved": False, "reason": str(err),
                  "max_deviation": None, "tolerance": str(tolerance)}
        if err.probed is not None:
            result["probed"] = err.probed
        if kind != "shuffle" and width > ENUMERATE_UP_TO and sample_words:
            result["estimate"] = sampled(lambda words: scale(kind, n, words), n, width, sample_words)
        return result
    return {"kind": kind, "n": n, "width": width, "proved": True, **detail,
            "max_deviation": str(deviation), "max_deviation_float": float(deviation), "tolerance": str(tolerance),
            "decision": "fail" if deviation > tolerance or outside else "pass"}


def _exhaustive(scale: Scale, kind: str, n: int, width: int, tolerance: Fraction, state: Path,
                progress: Callable[[int, int], None] | None,
                sweep: Callable[[Any], tuple[Any, Any]] | None) -> dict[str, Any]:
    try:
        _check_one_word(scale, kind, n, filler(n, width))
    except NotProved as err:
        return {"kind": kind, "n": n, "width": width, "decision": "fail", "proved": False, "reason": str(err),
                "max_deviation": None, "tolerance": str(tolerance)}
    law, refused = exhaustive_law(sweep or (lambda words: scale(kind, n, words)), n, width, state, progress=progress)
    _, deviation = law.worst()
    return {"kind": kind, "n": n, "width": width, "proved": True, **describe(law), "refused": refused,
            "max_deviation": str(deviation), "max_deviation_float": float(deviation), "tolerance": str(tolerance),
            "decision": "fail" if deviation > tolerance or law.outside else "pass"}
