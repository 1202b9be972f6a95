"""The reference vendor's random outcomes: the optional ops ``rng.dice`` and ``rng.shuffle``.

A correct generator, so that ``tablecert rng --vendor-cmd "python -m tablecert reference-vendor"``
has something fair to evaluate: numpy's PCG64 seeded once per process from ``os.urandom``, one
stream for every request (never reseeded), dice by ``Generator.integers`` (unbiased bounded
integers) and decks by ``Generator.permuted`` (a Fisher-Yates shuffle of each row).

Ops and limits are those of the contract (``harness/vendor-protocol.md``, "Random outcomes"):
a case ``{"count": n}`` with 1 <= n <= 1,000,000 rolls or 10,000 decks; the config is ``{}``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from tablecert.oracle.cards import DECK_SIZE, card_code
from tablecert.oracle.errors import CaseError, ConfigError

MAX_COUNT = {"rng.dice": 1_000_000, "rng.shuffle": 10_000}
"""Largest ``count`` of one case, per op."""

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


def roll_dice(config: object, case: object) -> dict[str, Any]:
    n = case_count("rng.dice", case)
    faces = stream().integers(0, 6, size=2 * n)
    return {"dice": "".join(FACES[faces].tolist())}


def shuffle_decks(config: object, case: object) -> dict[str, Any]:
    n = case_count("rng.shuffle", case)
    decks = stream().permuted(np.tile(np.arange(DECK_SIZE), (n, 1)), axis=1)
    return {"decks": ["".join(row) for row in CARD_CODES[decks].tolist()]}


RNG_OPS: dict[str, tuple[Callable[[object], Any], Callable[[Any, object], dict[str, Any]]]] = {
    "rng.dice": (parse_rng_config, roll_dice),
    "rng.shuffle": (parse_rng_config, shuffle_decks),
}
"""op -> (config parser, case handler), in the form of :data:`tablecert.oracle.vendor.OPS`."""
