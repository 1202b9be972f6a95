"""Collecting a vendor's random outcomes through any adapter, and checking them as they arrive.

The vendor is asked for ``rng.dice`` and ``rng.shuffle`` (the optional ops of the contract,
``harness/vendor-protocol.md``, "Random outcomes") in requests of one case each, at most the
contract's maximum count per case, in one session, so the outcomes are one continuous stream.
Every answer is checked before it is kept: a dice string of the wrong length or with a character
other than ``1``..``6``, a deck that is not 53 card codes, or that lacks a card or holds one twice,
a refusal of a valid count, is a :class:`~tablecert.harness.contract.VendorFault` that names the
request, the case and what is wrong. A vendor that does not list an op in ``hello`` is refused
with :class:`RngError` (nothing of that kind is collected).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tablecert.harness.contract import FaultKind, SessionOptions, VendorFault
from tablecert.harness.adapters import find_adapter
from tablecert.oracle.cards import DECK_SIZE, card_code

MAX_ROLLS_PER_CASE = 1_000_000
MAX_DECKS_PER_CASE = 10_000
DECK_CHARS = 2 * DECK_SIZE

_CODE_LOOKUP = np.full(1 << 16, 255, dtype=np.uint8)
for _i in range(DECK_SIZE):
    _a, _b = card_code(_i).encode("ascii")
    _CODE_LOOKUP[_a | (_b << 8)] = _i


_CODE_BYTES = np.frombuffer("".join(card_code(i) for i in range(DECK_SIZE)).encode("ascii"),
                            dtype=np.uint8).reshape(DECK_SIZE, 2)


def dice_text(faces: np.ndarray) -> bytes:
    """The digits of ``(n, 2)`` faces 0..5 as a vendor sends them (the bytes ``dice_sha256`` covers)."""
    return (np.asarray(faces, dtype=np.uint8) + ord("1")).tobytes()


def decks_text(decks: np.ndarray) -> bytes:
    """``(n, 53)`` card indices as text, a deck a line (the bytes ``decks_sha256`` covers)."""
    lines = np.empty((len(decks), 2 * DECK_SIZE + 1), dtype=np.uint8)
    lines[:, :-1] = _CODE_BYTES[np.asarray(decks, dtype=np.intp)].reshape(len(decks), -1)
    lines[:, -1] = ord("\n")
    return lines.tobytes()


class RngError(Exception):
    """The vendor cannot be evaluated as asked (an op it does not offer)."""


@dataclass
class Outcomes:
    """What the vendor dealt: ``faces`` ``(n, 2)`` of 0..5 and ``decks`` ``(m, 53)`` card indices
    (either may be empty), the vendor's hello, and the sha256 of the raw outcome text."""

    vendor: dict[str, str]
    faces: np.ndarray
    decks: np.ndarray
    dice_sha256: str
    decks_sha256: str


def check_dice(result: Any, count: int, where: str) -> bytes:
    """The dice string of one result, as bytes, or VendorFault naming what is wrong."""
    if not isinstance(result, dict) or not isinstance(result.get("dice"), str):
        detail = f"refused a valid count: {str(result.get('error'))[:200]}" if isinstance(result, dict) and "error" in result \
            else "the result is not an object with a 'dice' string"
        raise VendorFault(FaultKind.MALFORMED, f"rng.dice {where}: {detail}")
    text = result["dice"]
    if len(text) != 2 * count:
        raise VendorFault(FaultKind.MALFORMED, f"rng.dice {where}: {len(text):,} digits for {count:,} rolls "
                          f"(expected {2 * count:,})")
    raw = text.encode("ascii") if text.isascii() else b"\0" * len(text)
    arr = np.frombuffer(raw, dtype=np.uint8)
    if ((arr < ord("1")) | (arr > ord("6"))).any():
        i = next(k for k, ch in enumerate(text) if ch not in "123456")
        raise VendorFault(FaultKind.MALFORMED, f"rng.dice {where}: character {i + 1} is {text[i]!r}, not a die face 1-6")
    return raw


def check_decks(result: Any, count: int, where: str) -> tuple[bytes, np.ndarray]:
    """The decks of one result (the text, one deck a line, and ``(count, 53)`` card indices), or
    VendorFault naming the deck and what is wrong with it."""
    if not isinstance(result, dict) or not isinstance(result.get("decks"), list):
        detail = f"refused a valid count: {str(result.get('error'))[:200]}" if isinstance(result, dict) and "error" in result \
            else "the result is not an object with a 'decks' list"
        raise VendorFault(FaultKind.MALFORMED, f"rng.shuffle {where}: {detail}")
    decks = result["decks"]
    if len(decks) != count:
        raise VendorFault(FaultKind.MALFORMED, f"rng.shuffle {where}: {len(decks):,} decks for a count of {count:,}")
    for k, deck in enumerate(decks):
        if not isinstance(deck, str) or len(deck) != DECK_CHARS or not deck.isascii():
            shown = f"{len(deck)} characters" if isinstance(deck, str) else f"a JSON {type(deck).__name__}"
            raise VendorFault(FaultKind.MALFORMED, f"rng.shuffle {where} deck {k + 1}: {shown}, not 53 two-character "
                              "card codes")
    raw = "".join(decks).encode("ascii")
    pairs = np.frombuffer(raw, dtype="<u2").reshape(count, DECK_SIZE)
    cards = _CODE_LOOKUP[pairs]
    bad_code = np.argwhere(cards == 255)
    if len(bad_code):
        k, pos = (int(v) for v in bad_code[0])
        raise VendorFault(FaultKind.MALFORMED, f"rng.shuffle {where} deck {k + 1}: position {pos + 1} is "
                          f"{decks[k][2 * pos:2 * pos + 2]!r}, not a card code")
    complete = (np.sort(cards, axis=1) == np.arange(DECK_SIZE, dtype=np.uint8)).all(axis=1)
    if not complete.all():
        k = int(np.flatnonzero(~complete)[0])
        held = np.bincount(cards[k], minlength=DECK_SIZE)
        missing = ", ".join(card_code(int(c)) for c in np.flatnonzero(held == 0))
        twice = ", ".join(card_code(int(c)) for c in np.flatnonzero(held > 1))
        raise VendorFault(FaultKind.MALFORMED, f"rng.shuffle {where} deck {k + 1}: missing {missing}; held twice {twice}")
    return "\n".join(decks).encode("ascii") + b"\n", cards


def _chunks(total: int, size: int) -> list[int]:
    return [min(size, total - start) for start in range(0, total, size)]


def collect(adapter: str, target: str, options: SessionOptions, rolls: int, decks: int,
            progress: Callable[[int, int], None] | None = None) -> Outcomes:
    """Ask the vendor for ``rolls`` rolls and ``decks`` decks in one session (progress counts
    rolls plus decks received)."""
    session = find_adapter(adapter).open(target, options)
    try:
        hello = session.hello()
        offered = hello.raw.get("ops") if isinstance(hello.raw, dict) else None
        offered = offered if isinstance(offered, list) else []
        for op, wanted in (("rng.dice", rolls), ("rng.shuffle", decks)):
            if wanted and op not in offered:
                raise RngError(f"the vendor does not offer {op} (its hello lists {', '.join(map(str, offered)) or 'no ops'})")
        total, done = rolls + decks, 0
        dice_hash, deck_hash = hashlib.sha256(), hashlib.sha256()
        faces: list[np.ndarray] = []
        for r, count in enumerate(_chunks(rolls, MAX_ROLLS_PER_CASE)):
            (result,) = session.batch("rng.dice", {}, [{"count": count}])
            raw = check_dice(result, count, f"request {r + 1}")
            dice_hash.update(raw)
            faces.append((np.frombuffer(raw, dtype=np.uint8) - ord("1")).reshape(count, 2))
            done += count
            if progress:
                progress(done, total)
        shuffled: list[np.ndarray] = []
        for r, count in enumerate(_chunks(decks, MAX_DECKS_PER_CASE)):
            (result,) = session.batch("rng.shuffle", {}, [{"count": count}])
            raw, cards = check_decks(result, count, f"request {r + 1}")
            deck_hash.update(raw)
            shuffled.append(cards)
            done += count
            if progress:
                progress(done, total)
        vendor = {"name": hello.name, "version": hello.version, "build": hello.build,
                  "isolation": getattr(session, "isolation", "unknown (outside adapter)")}
        return Outcomes(vendor, np.concatenate(faces) if faces else np.zeros((0, 2), np.uint8),
                        np.concatenate(shuffled) if shuffled else np.zeros((0, DECK_SIZE), np.uint8),
                        dice_hash.hexdigest(), deck_hash.hexdigest())
    finally:
        session.close()
