"""Writing and linting the hand-stream suites (``joker``, ``exhaustive``).

Their tests are implicit: every hand of the canonical colex order in a range, each sent to both
``paigow.player_bonus`` and ``paigow.banker_bonus``. Writing millions of JSON lines would cost
minutes for nothing, so a hand suite folder holds:

* ``prompt/paigow.hands.json``: a descriptor (schema ``tablecert-hand-stream``) stating the card
  order, the enumeration, the range of positions, the config and how tcIds are assigned, which is
  all a harness or a vendor needs to produce every case (``hand_stream.iter_prompt_cases``);
* ``expected/paigow.hands.json``: the same descriptor plus the label code books and the sha256
  of the expected stream;
* ``expected/paigow.hands.labels``: the expected stream itself, two bytes per hand in order
  (player label code, banker label code), see ``hand_stream.EXPECTED_STREAM_FORMAT``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


from tablecert import __version__
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_LABELS
from tablecert.vectors.hand_stream import (
    EXPECTED_STREAM_FORMAT,
    iter_expected_blocks,
    suite_first_position,
    suite_size,
)
from tablecert.vectors.writer import WrittenFile
from tablecert.vectors.hand_stream import golden_digest

HAND_OPS = ("paigow.player_bonus", "paigow.banker_bonus")
DESCRIPTOR = "paigow.hands.json"
LABELS = "paigow.hands.labels"
CARD_ORDER = ("card index = rank * 4 + suit, ranks 23456789TJQKA = 0..12, suits cdhs = 0..3, joker JK = 52; "
              "a hand's position is sum(C(c_i, i + 1)) over its sorted indices c_0 < ... < c_6 (colexicographic)")


def descriptor(suite: str, view: str, profile_id: str, profile_sha256: str, cap: int) -> dict[str, Any]:
    return {
        "schema": "tablecert-hand-stream", "schemaVersion": 1, "view": view, "suite": suite,
        "ops": list(HAND_OPS), "profile": {"id": profile_id, "sha256": profile_sha256},
        "generator": {"name": "tablecert", "version": __version__},
        "config": {"cap": cap}, "cardOrder": CARD_ORDER, "order": "colex",
        "firstPosition": suite_first_position(suite), "numberOfHands": suite_size(suite),
        "tcId": "position - firstPosition + 1, the same tcId for both ops",
    }


def expected_descriptor(suite: str, profile_id: str, profile_sha256: str, cap: int, stream_sha256: str) -> dict[str, Any]:
    """The expected view's descriptor: the prompt's plus the code books and the stream's digest."""
    desc = descriptor(suite, "expected", profile_id, profile_sha256, cap)
    desc.update({"streamFormat": EXPECTED_STREAM_FORMAT, "playerLabels": list(PLAYER_LABELS),
                 "bankerLabels": list(BANKER_LABELS), "stream": LABELS, "streamSha256": stream_sha256})
    return desc


def descriptor_bytes(desc: dict[str, Any]) -> bytes:
    return (json.dumps(desc, indent=2) + "\n").encode("utf-8")


def release_files(suite: str, profile_id: str, profile_sha256: str, cap: int,
                  views: tuple[str, ...]) -> list[tuple[WrittenFile, str, int]]:
    """(file, sha256, size) of every file :func:`write_hand_suite` writes, known without writing
    the stream: its digest is the committed one (``golden/hand_streams.toml``)."""
    stream_sha, hands = golden_digest(suite)
    tests = hands * len(HAND_OPS)
    out = []
    if "prompt" in views:
        data = descriptor_bytes(descriptor(suite, "prompt", profile_id, profile_sha256, cap))
        out.append((WrittenFile(f"prompt/{DESCRIPTOR}", "prompt", "paigow.hands", profile_id, tests, 0),
                    hashlib.sha256(data).hexdigest(), len(data)))
    if "expected" in views:
        data = descriptor_bytes(expected_descriptor(suite, profile_id, profile_sha256, cap, stream_sha))
        out.append((WrittenFile(f"expected/{DESCRIPTOR}", "expected", "paigow.hands", profile_id, tests, 0),
                    hashlib.sha256(data).hexdigest(), len(data)))
        out.append((WrittenFile(f"expected/{LABELS}", "expected", "paigow.hands", profile_id, 0, 0), stream_sha, 2 * hands))
    return out


def write_hand_suite(suite: str, out_dir: Path, profile_id: str, profile_sha256: str, cap: int,
                     views: tuple[str, ...], progress: Callable[[str], None] | None = None) -> list[WrittenFile]:
    hands = suite_size(suite)
    tests = hands * len(HAND_OPS)
    written = []
    if "prompt" in views:
        (out_dir / "prompt").mkdir(parents=True, exist_ok=True)
        desc = descriptor(suite, "prompt", profile_id, profile_sha256, cap)
        (out_dir / "prompt" / DESCRIPTOR).write_bytes(descriptor_bytes(desc))
        written.append(WrittenFile(f"prompt/{DESCRIPTOR}", "prompt", "paigow.hands", profile_id, tests, 0))
    if "expected" in views:
        (out_dir / "expected").mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        with open(out_dir / "expected" / LABELS, "wb") as f:
            for first, block in iter_expected_blocks(suite):
                if progress:
                    progress(f"expected labels from position {first:,}")
                digest.update(block)
                f.write(block)
        desc = expected_descriptor(suite, profile_id, profile_sha256, cap, digest.hexdigest())
        (out_dir / "expected" / DESCRIPTOR).write_bytes(descriptor_bytes(desc))
        written.append(WrittenFile(f"expected/{DESCRIPTOR}", "expected", "paigow.hands", profile_id, tests, 0))
        written.append(WrittenFile(f"expected/{LABELS}", "expected", "paigow.hands", profile_id, 0, 0))
    return written
