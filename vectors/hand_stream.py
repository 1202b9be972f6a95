"""The expected answers of the hand-stream suites ``joker`` and ``exhaustive``, as one byte stream.

The two suites send every hand of a range of the canonical order (colex over card indices, see
:mod:`tablecert.oracle.cards`) to both label ops. Their expected answers are far too many to be
stored as JSON; instead they are one byte stream whose sha256 a lab can recompute and compare
with the digest committed in ``golden/hand_streams.toml``.

Suites and test ids
-------------------
* ``exhaustive``: every hand, positions 0 .. 154,143,079; a hand's tcId is its position + 1.
* ``joker``: the hands holding the joker. The joker is card 52, the highest index, so these are
  exactly the hands whose highest card is 52: positions C(53,7) - C(52,6) = 133,784,560 through
  C(53,7) - 1, the last block of the order. A hand's tcId is its position - 133,784,560 + 1.

The expected stream
-------------------
See :data:`EXPECTED_STREAM_FORMAT`: two bytes per hand, in canonical order. The labels come from
the fast labeller (:func:`tablecert.oracle.labeller.label_hands_with_top`, tested against the
reference evaluator) one block of equal highest card at a time, mapped and interleaved with
numpy; no Python code runs per hand, so the whole exhaustive stream takes seconds.

Prompts (the cards of each hand) are materialised by :func:`iter_prompt_cases`, which walks the
colex order one hand at a time in Python; that is for exports, not for digests.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Callable, Iterator
from importlib import resources

import numpy as np

from tablecert.oracle.cards import DECK_SIZE, HAND_SIZE, JOKER, colex_unrank, hand_codes
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES, PLAYER_LABELS
from tablecert.oracle.labeller import block_size, block_start, label_hands_with_top
from tablecert.oracle.names import HAND_SUITES

EXPECTED_STREAM_FORMAT = (
    "tablecert expected hand stream v1: for each hand of the suite in canonical order (colex over "
    "card indices rank*4+suit, ranks 23456789TJQKA, suits cdhs, joker 52), two bytes: the index of "
    "its player hand bonus label in (five_aces, royal_flush, straight_flush, four_of_a_kind, "
    "full_house, flush, straight, three_of_a_kind, none), then the index of its banker hand bonus "
    "label in (nine_high, ten_high, jack_high, none); no header, no separator. The digest is the "
    "sha256 of the whole stream."
)
"""The byte format of the expected stream, as stated to labs (and pinned by the tests)."""

SUITES: tuple[str, ...] = HAND_SUITES
"""The suites whose expected answers are a hand stream."""

GOLDEN_FILE = "golden/hand_streams.toml"
"""The committed stream digests, in the ``tablecert.vectors`` package."""

CATEGORY_TO_LABEL = np.array(
    [PLAYER_LABELS.index(c) if c in PLAYER_LABELS else PLAYER_LABELS.index("none") for c in PLAYER_CATEGORIES],
    dtype=np.uint8,
)
"""Player category code (index into PLAYER_CATEGORIES) -> player label code (index into PLAYER_LABELS);
two pair, pair and high card all map to ``none``."""

if len(PLAYER_LABELS) > 256 or len(BANKER_LABELS) > 256:  # one byte each
    raise ImportError("label codes no longer fit in one byte: the stream format must change")


def _suite_tops(suite: str) -> range:
    """The highest-card blocks that make up a suite, in canonical order."""
    if suite == "joker":
        return range(JOKER, JOKER + 1)
    if suite == "exhaustive":
        return range(HAND_SIZE - 1, DECK_SIZE)
    raise ValueError(f"unknown hand-stream suite {suite!r} (suites: {', '.join(SUITES)})")


def suite_first_position(suite: str) -> int:
    """Colex position of a suite's first hand (its tcId 1)."""
    return block_start(_suite_tops(suite)[0])


def suite_size(suite: str) -> int:
    """Number of hands (tests per label op) in a suite."""
    return sum(block_size(top) for top in _suite_tops(suite))


def _block_stream(top: int) -> np.ndarray:
    """The expected stream of the block of hands whose highest card is ``top`` (uint8, 2 per hand)."""
    categories, banker = label_hands_with_top(top)
    # One little-endian 16-bit word per hand: low byte the player label, high byte the banker label.
    words = banker.astype("<u2")
    words <<= 8
    words |= CATEGORY_TO_LABEL[categories]
    return words.view(np.uint8)


def iter_expected_blocks(suite: str) -> Iterator[tuple[int, bytes]]:
    """(colex position of the block's first hand, the block's expected stream bytes), one block of
    equal highest card at a time: ``joker`` is block 52 alone, ``exhaustive`` blocks 6 .. 52."""
    for top in _suite_tops(suite):
        yield block_start(top), _block_stream(top).tobytes()


def expected_stream_digest(suite: str, progress: Callable[[int, int], None] | None = None) -> tuple[str, int]:
    """(sha256 hex of the suite's whole expected stream, number of hands).

    ``progress`` is called with (hands done, hands in the suite) after each block.
    """
    total = suite_size(suite)
    digest = hashlib.sha256()
    done = 0
    for top in _suite_tops(suite):
        block = _block_stream(top)
        digest.update(memoryview(block))
        done += block.shape[0] // 2
        if progress is not None:
            progress(done, total)
    if done != total:
        raise AssertionError(f"suite {suite}: streamed {done} hands, expected {total}")
    return digest.hexdigest(), done


def golden_digest(suite: str) -> tuple[str, int]:
    """The committed (sha256, hands) of a suite's expected stream, from ``golden/hand_streams.toml``."""
    _suite_tops(suite)
    text = resources.files("tablecert.vectors").joinpath(GOLDEN_FILE).read_text(encoding="utf-8")
    entry = tomllib.loads(text)[suite]
    return entry["sha256"], entry["hands"]


def format_golden(digests: dict[str, tuple[str, int]]) -> str:
    """The text of ``golden/hand_streams.toml`` for these (sha256, hands) per suite."""
    lines = [
        "# Expected-stream digests of the hand suites, computed by",
        "# tablecert.vectors.hand_stream.expected_stream_digest and recomputed by the tests.",
        "# Stream format: " + EXPECTED_STREAM_FORMAT,
    ]
    for suite in SUITES:
        sha, hands = digests[suite]
        lines += ["", f"[{suite}]", f'sha256 = "{sha}"', f"hands = {hands}"]
    return "\n".join(lines) + "\n"


def hand_at(position: int) -> list[str]:
    """Card codes, in ascending index order, of the hand at a colex position (0 .. 154,143,079)."""
    return hand_codes(colex_unrank(position))


def _next_colex(cards: list[int]) -> None:
    """Step a sorted hand of card indices, in place, to the next hand in colex order."""
    for i in range(HAND_SIZE - 1):
        if cards[i] + 1 < cards[i + 1]:
            break
    else:
        i = HAND_SIZE - 1
    cards[i] += 1
    for j in range(i):
        cards[j] = j


def iter_prompt_cases(suite: str, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, dict[str, list[str]]]]:
    """(tcId, ``{"cards": [...]}``) for the suite's hands with 0-based index ``start`` .. ``stop - 1``
    within the suite (tcId = index + 1), in canonical order; ``stop`` None means to the end.

    One hand at a time in Python (about a microsecond each): meant for exports and spot checks.
    """
    size = suite_size(suite)
    stop = size if stop is None else stop
    if not 0 <= start <= stop <= size:
        raise ValueError(f"range {start}..{stop} outside the {size} hands of suite {suite!r}")
    if start == stop:
        return
    first = suite_first_position(suite)
    cards = list(colex_unrank(first + start))
    for index in range(start, stop):
        if index > start:
            _next_colex(cards)
        yield index + 1, {"cards": hand_codes(cards)}

