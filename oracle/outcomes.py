"""The reference vendor's random outcomes: the optional ops ``rng.dice``, ``rng.shuffle``,
``rng.raw``, ``rng.scale`` and ``rng.paired``.

A correct generator, so that ``tablecert rng --vendor-cmd "python -m tablecert reference-vendor"``
has something fair to evaluate: numpy's PCG64 seeded once per process from ``os.urandom``, one
stream for every request (never reseeded). Its raw output is 32-bit words (``rng.raw``); dice and
decks are those words scaled by :mod:`tablecert.oracle.scaling` (rejection to a range, Fisher-Yates
from the top), the same functions ``rng.scale`` applies to the words a lab supplies, and
``rng.paired`` deals outcomes with the words they consumed.

The ops' names and hello's ``rng`` declaration are :mod:`tablecert.oracle.outcome_ops` (a vendor
greets without numpy). Ops and limits are those of the contract (``harness/vendor-protocol.md``,
"Random outcomes"): a case ``{"count": n}`` with 1 <= n <= 1,000,000 rolls or 10,000 decks;
``{"words": n}`` with 1 <= n <= 262,144 raw words; the config is ``{}``.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from tablecert.oracle.cards import DECK_SIZE, card_code
from tablecert.oracle.errors import CaseError, ConfigError
from tablecert.oracle.outcome_ops import WORD_BITS

MAX_COUNT = {"rng.dice": 1_000_000, "rng.shuffle": 10_000, "rng.paired": 10_000}
"""Largest ``count`` of one case, per op."""

MAX_WORDS = 262_144
"""Largest ``words`` of one ``rng.raw`` case, and most words of one ``rng.scale`` case."""

KINDS = {"die": 6, "shuffle": DECK_SIZE}
"""``kind``: the ``n`` its outcomes are dealt with in production (``range`` takes any n >= 1)."""

CARD_CODES = np.array([card_code(i) for i in range(DECK_SIZE)])
FACES = np.array(list("123456"))

_stream: np.random.Generator | None = None


def stream() -> np.random.Generator:
    """This process's one generator (created on first use from 256 bits of ``os.urandom``)."""
    global _stream
    if _stream is None:
        _stream = np.random.Generator(np.random.PCG64(int.from_bytes(os.urandom(32), "big")))
    return _stream


def parse_rng_config(config: object) -> dict[str, Any]:
    """The config of an rng op: an object with no fields."""
    if not isinstance(config, dict):
        raise ConfigError("config", "must be an object ({} for the rng ops)")
    if config:
        raise ConfigError(sorted(config)[0], "unknown field (the rng ops take no configuration)")
    return config


def case_count(op: str, case: object) -> int:
    """The ``count`` of one case, or CaseError(``invalid_count``)."""
    if not isinstance(case, dict):
        raise CaseError("invalid_request", "a case must be an object {\"count\": n}")
    n = case.get("count")
    if type(n) is not int or not 1 <= n <= MAX_COUNT[op]:
        raise CaseError("invalid_count", f"count must be an integer from 1 to {MAX_COUNT[op]:,}")
    return n


def words(n: int) -> np.ndarray:
    """The next ``n`` raw words of the stream."""
    return stream().integers(0, 1 << WORD_BITS, size=n, dtype=np.uint32)


def dealt(kind: str, n: int, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` outcomes of ``kind`` in production: (outcomes, words consumed by each, the words)."""
    from tablecert.oracle import scaling  # lazy: 178 ms of reference-vendor start (bench_startup.py, at rest)

    taken: list[np.ndarray] = []
    outcomes: list[np.ndarray] = []
    used: list[np.ndarray] = []
    made = 0
    while made < count:
        need = (count - made) * (1 if kind != "shuffle" else n - 1)
        batch = words(need + 8)
        got, consumed = (scaling.shuffle(batch, n, count - made) if kind == "shuffle"
                         else scaling.scale_values(batch, n, count - made))
        outcomes.append(got)
        used.append(consumed)
        taken.append(batch[:int(consumed.sum())])   # the words left over are dropped, never dealt twice
        made += len(got)
    return np.concatenate(outcomes), np.concatenate(used), np.concatenate(taken)


def roll_dice(config: object, case: object) -> dict[str, Any]:
    n = case_count("rng.dice", case)
    faces = dealt("die", 6, 2 * n)[0]
    return {"dice": "".join(FACES[faces].tolist())}


def shuffle_decks(config: object, case: object) -> dict[str, Any]:
    n = case_count("rng.shuffle", case)
    decks = dealt("shuffle", DECK_SIZE, n)[0]
    return {"decks": ["".join(row) for row in CARD_CODES[decks].tolist()]}


def encode_words(values: np.ndarray) -> str:
    """Words as the contract streams them: big-endian, concatenated, base64."""
    return base64.b64encode(np.asarray(values, dtype=">u4").tobytes()).decode("ascii")


def raw_words(config: object, case: object) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise CaseError("invalid_request", "a case must be an object {\"words\": n}")
    n = case.get("words")
    if type(n) is not int or not 1 <= n <= MAX_WORDS:
        raise CaseError("invalid_count", f"words must be an integer from 1 to {MAX_WORDS:,}")
    return {"words": encode_words(words(n))}


def _kind_and_n(case: dict[str, Any]) -> tuple[str, int]:
    kind, n = case.get("kind"), case.get("n")
    if kind not in ("die", "shuffle", "range"):
        raise CaseError("invalid_request", "kind must be die, shuffle or range")
    if type(n) is not int or not 1 <= n <= (1 << WORD_BITS) or (kind in KINDS and n != KINDS[kind]):
        raise CaseError("invalid_request", f"n must be {KINDS[kind]} for {kind}" if kind in KINDS
                        else "n must be an integer from 1 to 2^32")
    return kind, n


def scale_words(config: object, case: object) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise CaseError("invalid_request", "a case must be an object {\"kind\": ..., \"words\": ..., \"n\": ...}")
    kind, n = _kind_and_n(case)
    try:
        raw = base64.b64decode(case.get("words"), validate=True) if isinstance(case.get("words"), str) else None
    except ValueError:
        raw = None
    if raw is None or len(raw) % 4 or len(raw) > 4 * MAX_WORDS:
        raise CaseError("invalid_request", "words must be base64 of at most 262,144 big-endian 32-bit words")
    given = np.frombuffer(raw, dtype=">u4").astype(np.uint32)
    from tablecert.oracle import scaling  # lazy: 186 ms of reference-vendor start (bench_startup.py, at rest)

    got, used = scaling.shuffle(given, n, -1) if kind == "shuffle" else scaling.scale_values(given, n, -1)
    return {"outcomes": got.tolist(), "consumed": used.tolist()}


def paired(config: object, case: object) -> dict[str, Any]:
    count = case_count("rng.paired", case)
    kind, n = _kind_and_n(case)
    got, used, taken = dealt(kind, n, count)
    return {"outcomes": got.tolist(), "consumed": used.tolist(), "words": encode_words(taken)}


RNG_OPS: dict[str, tuple[Callable[[object], Any], Callable[[Any, object], dict[str, Any]]]] = {
    "rng.dice": (parse_rng_config, roll_dice),
    "rng.shuffle": (parse_rng_config, shuffle_decks),
    "rng.raw": (parse_rng_config, raw_words),
    "rng.scale": (parse_rng_config, scale_words),
    "rng.paired": (parse_rng_config, paired),
}
"""op -> (config parser, case handler), in the form of :data:`tablecert.oracle.vendor.OPS`: each
of :data:`~tablecert.oracle.outcome_ops.OUTCOME_OPS`, the ops hello declares."""
