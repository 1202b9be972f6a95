"""A hand-stream suite's batches (``joker``, ``exhaustive``), made at the speed of the data:
:class:`HandSuite` (the suite's hand stream and expected labels), :class:`HandBatch` (``n``
consecutive hands of the canonical colex order, their request bytes, expected answer line and
label codes) and the iterators over them. What the hand runner (:mod:`tablecert.harness.run.hand_runner`),
the judge (:mod:`tablecert.harness.run.judging`) and the parallel workers share, below all of them.

* **Cases.** A compiled kernel steps through the colex order from any position
  (:func:`tablecert.oracle.cards.colex_unrank` for the first hand) and writes each hand straight
  into its request bytes: every compact case ``{"cards":["2c",...]}`` is a fixed-width record of
  46 bytes plus a comma. The two ops share the case bytes; only the line's head (id, op, config)
  differs. The line is byte for byte what :meth:`SubprocessSession.batch` would send for the same
  cases (compact ``json.dumps``).
* **Expected answers.** The label codes come from the suite's expected stream
  (``expected/paigow.hands.labels``, two bytes per hand, read at the batch's offset), and the
  whole expected answer line, compact JSON ``{"id":N,"results":[{"hand":"none"},...]}``, is
  written by a kernel.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from tablecert.harness.answers.bulk import Expected
from tablecert.harness.answers.hand_failures import LABEL_NAMES, count_all
from tablecert.harness.model import Batch, BatchOutcome, BatchStatus, Outcome
from tablecert.oracle.cards import DECK_SIZE, HAND_SIZE, card_code, colex_unrank
from tablecert.oracle.names import HAND_CLAUSES, HAND_FILE, HAND_FLAGS, HAND_OPS

DEFAULT_HAND_BATCH_SIZE = 20_000
"""Hands per request of a hand suite when the run's batch size is the generic default."""

LABEL_COLUMN = {op: i for i, op in enumerate(HAND_OPS)}

CASE_BYTES = 46
"""Length of one compact case ``{"cards":["2c","2d","2h","2s","3c","3d","3h"]}``."""
CASE_STRIDE = CASE_BYTES + 1
"""A case and its separating comma."""


# ---------------------------------------------------------------------------------------------
# Byte tables
# ---------------------------------------------------------------------------------------------

def _case_template() -> np.ndarray:
    """A compact case with its seven card codes blank, and the comma after it."""
    text = json.dumps({"cards": ["??"] * HAND_SIZE}, separators=(",", ":")).encode("ascii") + b","
    assert len(text) == CASE_STRIDE
    return np.frombuffer(text, dtype=np.uint8).copy()


CASE_TEMPLATE = _case_template()
CARD_OFFSETS = np.array([m.start() for m in re.finditer(rb"\?\?", CASE_TEMPLATE.tobytes())], dtype=np.int64)
"""Where the two characters of card ``j`` sit in a case record (11, 16, ..., 41)."""

CARD_CHARS = np.array([list(card_code(i).encode("ascii")) for i in range(DECK_SIZE)], dtype=np.uint8)
"""The two ASCII characters of each card index's code."""


def _result_table(labels: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(row i: the compact JSON of ``{"hand": labels[i]}`` padded with zeros, row lengths)."""
    rows = [json.dumps({"hand": label}, separators=(",", ":")).encode("ascii") for label in labels]
    table = np.zeros((len(rows), max(map(len, rows))), dtype=np.uint8)
    for i, row in enumerate(rows):
        table[i, : len(row)] = np.frombuffer(row, dtype=np.uint8)
    return table, np.array([len(r) for r in rows], dtype=np.int64)


RESULT_TABLES = {op: _result_table(names) for op, names in LABEL_NAMES.items()}


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _colex_hands(first: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (n x 7) with the n hands of the colex order from the sorted hand ``first``."""
    c = first.copy()
    n = out.shape[0]
    for k in range(n):
        for j in range(7):
            out[k, j] = c[j]
        if k + 1 == n:
            break
        i = 0
        while i < 6 and c[i] + 1 >= c[i + 1]:
            i += 1
        c[i] += 1
        for j in range(i):
            c[j] = j


@njit(cache=True, nogil=True)
def _encode_cases(cards: np.ndarray, chars: np.ndarray, template: np.ndarray, offsets: np.ndarray,
                  out: np.ndarray, start: int) -> None:
    """Write the compact cases of ``cards`` (n x 7 card indices), each followed by a comma,
    into ``out`` from ``start``."""
    for k in range(cards.shape[0]):
        o = start + k * 47
        for b in range(47):
            out[o + b] = template[b]
        for j in range(7):
            c = cards[k, j]
            out[o + offsets[j]] = chars[c, 0]
            out[o + offsets[j] + 1] = chars[c, 1]


@njit(cache=True, nogil=True)
def _encode_results(codes: np.ndarray, table: np.ndarray, lengths: np.ndarray, out: np.ndarray, start: int) -> int:
    """Write the results of label ``codes`` (rows of ``table``), comma-separated, into ``out``
    from ``start``; returns the end position."""
    pos = start
    for k in range(codes.shape[0]):
        code = codes[k]
        if k:
            out[pos] = 44
            pos += 1
        for b in range(lengths[code]):
            out[pos + b] = table[code, b]
        pos += lengths[code]
    return pos


# ---------------------------------------------------------------------------------------------
# The suite, its batches, and their outcomes
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HandSuite:
    """A hand suite folder: which hands, with what config, and where their labels are."""

    suite: str
    first_position: int
    n_hands: int
    config: Any
    labels_path: Path

    @classmethod
    def load(cls, suite_dir: Path) -> HandSuite:
        desc = json.loads((suite_dir / "expected" / "paigow.hands.json").read_text(encoding="utf-8"))
        stream = desc["stream"]
        if not isinstance(stream, str) or stream.startswith(".") or "/" in stream or "\\" in stream:
            raise ValueError(f"{suite_dir}: the descriptor's stream {str(stream)[:60]!r} is not a file of expected/")
        labels = suite_dir / "expected" / stream
        if labels.stat().st_size != 2 * desc["numberOfHands"]:
            raise ValueError(f"{labels}: {labels.stat().st_size} bytes for {desc['numberOfHands']} hands")
        return cls(desc["suite"], int(desc["firstPosition"]), int(desc["numberOfHands"]), desc["config"], labels)


def request_head(rid: int, op: str, config: Any) -> bytes:
    """The start of a request line up to its cases: ``{"id":N,"op":OP,"config":{...},"cases":[``,
    exactly as the subprocess adapter encodes a request (compact, ASCII, no NaN)."""
    text = json.dumps({"id": rid, "op": op, "config": config, "cases": []}, separators=(",", ":"), allow_nan=False)
    assert text.endswith("[]}")
    return text[:-2].encode("ascii")


def answer_head(rid: int) -> bytes:
    return json.dumps({"id": rid, "results": []}, separators=(",", ":"))[:-2].encode("ascii")


class HandBatch:
    """``n`` consecutive hands of a suite, from hand ``index`` (0-based; tcId = index + 1), with
    their request bytes, expected label codes, and each op's expected results as bytes (all
    prepared when the batch is made, on the worker thread; only ids are added per request)."""

    def __init__(self, suite: HandSuite, labels_fd: int, index: int, n: int, indices: np.ndarray | None = None) -> None:
        self.suite, self.index, self.n = suite, index, n
        self.indices = indices                 # the hands' indices when not consecutive (a sample)
        t0 = time.perf_counter()
        self.cards = np.empty((n, HAND_SIZE), dtype=np.uint8)
        if indices is None:
            _colex_hands(np.array(colex_unrank(suite.first_position + index), dtype=np.int64), self.cards)
        else:
            self.cards[:] = [colex_unrank(suite.first_position + int(i)) for i in indices]
        # [room for the longest head of a 20-digit id][n cases, each with a comma][]}\n]: the last
        # comma becomes ']'.
        self._room = max(len(request_head(10**19, op, suite.config)) for op in HAND_OPS)
        buf = np.empty(self._room + n * CASE_STRIDE + 2, dtype=np.uint8)
        _encode_cases(self.cards, CARD_CHARS, CASE_TEMPLATE, CARD_OFFSETS, buf, self._room)
        end = self._room + n * CASE_STRIDE
        buf[end - 1: end + 2] = np.frombuffer(b"]}\n", dtype=np.uint8)
        self._buf = buf
        t1 = time.perf_counter()
        if indices is None:
            raw = os.pread(labels_fd, 2 * n, 2 * index)
        else:
            raw = b"".join(os.pread(labels_fd, 2, 2 * int(i)) for i in indices)
        if len(raw) != 2 * n:
            raise ValueError(f"{suite.labels_path}: short read at hand {index}")
        self.codes = np.frombuffer(raw, dtype=np.uint8).reshape(n, 2)
        self._results = {op: self._results_bytes(op) for op in HAND_OPS}
        self._label_counts = {op: np.bincount(self.codes[:, LABEL_COLUMN[op]], minlength=len(names)).tolist()
                              for op, names in LABEL_NAMES.items()}
        self.encode_s = t1 - t0                # (added to the run's InstanceStats by the loop using it)
        self.expected_s = time.perf_counter() - t1

    def _results_bytes(self, op: str) -> bytes:
        """The expected results of ``op``, comma-separated: what goes between ``[`` and ``]``."""
        table, lengths = RESULT_TABLES[op]
        out = np.empty(self.n * (table.shape[1] + 1), dtype=np.uint8)
        end = _encode_results(self.codes[:, LABEL_COLUMN[op]], table, lengths, out, 0)
        return out[:end].tobytes()

    @property
    def first_tc(self) -> int:
        return self.index + 1

    def key(self, op: str) -> tuple[str, str, int]:
        return HAND_FILE, op, self.first_tc

    def request_line(self, op: str, rid: int) -> memoryview:
        """The request line (with its newline) for ``op`` under id ``rid``: a view into the batch's
        buffer, valid until the next call."""
        head = request_head(rid, op, self.suite.config)
        start = self._room - len(head)
        if start < 0:                              # an id of more than 20 digits: not worth a room
            return memoryview(head + self._buf[self._room:].tobytes())
        self._buf[start: self._room] = np.frombuffer(head, dtype=np.uint8)
        return memoryview(self._buf)[start:]

    def expected_line(self, op: str, rid: int) -> bytes:
        """The canonical answer line (without newline) a correct vendor gives to ``request_line``."""
        return b"".join((answer_head(rid), self._results[op], b"]}"))

    def expected(self, op: str) -> Expected:
        """The expected results of ``op`` for :mod:`~tablecert.harness.answers.bulk` (the compact
        results are canonical already: one key each)."""
        return Expected.hand_labels(self.n, b"".join((b"[", self._results[op], b"]")))

    def case_values(self) -> list[dict[str, list[str]]]:
        """The cases as JSON values (for sessions that take values, and for judging case by case)."""
        codes = [card_code(i) for i in range(DECK_SIZE)]
        return [{"cards": [codes[c] for c in row]} for row in self.cards.tolist()]

    def batch(self, op: str, cases: list[Any] | None = None) -> Batch:
        """The batch as the suite reader would give it: the same cases, expected values, flags, clauses."""
        names = LABEL_NAMES[op]
        tc_ids = (list(range(self.first_tc, self.first_tc + self.n)) if self.indices is None
                  else (self.indices + 1).tolist())
        expected = [{"result": {"hand": names[code]}} for code in self.codes[:, LABEL_COLUMN[op]].tolist()]
        return Batch(HAND_FILE, op, 1, self.suite.config, tc_ids, cases if cases is not None else self.case_values(),
                     expected, [list(HAND_FLAGS)] * self.n, [HAND_CLAUSES[op]] * self.n)

    def whole(self, op: str, status: str, outcome: str) -> BatchOutcome:
        """Every vector of the batch with one outcome (unsupported, fault), counted in O(1)."""
        out = BatchOutcome(HAND_FILE, op, self.first_tc, self.n, status)
        count_all(out.counts, op, self.n, outcome)
        return out

    def passed(self, op: str) -> BatchOutcome:
        """Every vector passed: what judging each answer would count, in O(1) per label."""
        out = self.whole(op, BatchStatus.DONE, Outcome.PASS)
        names = LABEL_NAMES[op]
        for code, k in enumerate(self._label_counts[op]):
            if k:
                out.confusion[(op, names[code], names[code])] += k
        return out


def hand_ranges(n_hands: int, size: int, start: int = 0) -> Iterator[tuple[int, int]]:
    """(first hand index, number of hands) of every batch of ``size`` hands from batch boundary ``start``."""
    for index in range(start, n_hands, size):
        yield index, min(size, n_hands - index)


def iter_hand_batches(suite: HandSuite, labels_fd: int, size: int, start: int = 0,
                      stop: int | None = None) -> Iterator[HandBatch]:
    stop = suite.n_hands if stop is None else min(stop, suite.n_hands)
    for index, n in hand_ranges(stop, size, start):
        yield HandBatch(suite, labels_fd, index, n)


def hand_suite_batches(suite_dir: Path, batch_size: int, first_hand: int = 0,
                       max_hands: int | None = None) -> Iterator[Batch]:
    """The batches of a hand suite as JSON values from hand ``first_hand`` (0-based, a multiple of
    ``batch_size`` for the run's batches), ``max_hands`` hands at most; each group of hands goes
    to both ops."""
    suite = HandSuite.load(suite_dir)
    stop = None if max_hands is None else first_hand + max_hands
    fd = os.open(suite.labels_path, os.O_RDONLY)
    try:
        for hand_batch in iter_hand_batches(suite, fd, batch_size, first_hand, stop):
            cases = hand_batch.case_values()
            for op in HAND_OPS:
                yield hand_batch.batch(op, cases)
    finally:
        os.close(fd)
