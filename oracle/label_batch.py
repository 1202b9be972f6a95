"""The reference vendor's fast path for batches of the two label ops, in their canonical form.

An exhaustive certification sends every one of the 154,143,080 hands to ``paigow.player_bonus``
and to ``paigow.banker_bonus``. Parsing those requests with :func:`json.loads` and labelling each
hand with the readable evaluator costs tens of microseconds per case, hours in all. Almost every
such request arrives in one exact byte form (the harness's own compact encoding), so
:func:`fast_label_response` recognises that form, checks it completely, labels every hand with
the fast evaluation (:func:`tablecert.oracle.labeller._evaluate`, tested against the readable
evaluator) in one compiled pass and writes the answer line directly. Anything else, the smallest
irregularity included, is left to the normal JSON path (:func:`fast_label_response` returns None),
which also writes every error. The answer is byte for byte the one the normal path writes,
``json.dumps(ReferenceVendor().handle(json.loads(line)), separators=(",", ":"))``.

The canonical form
------------------
A line (without or with one final ``\\n``, nothing else: no ``\\r``, no white space anywhere) is
canonical when it is exactly::

    REQUEST = '{"id":' ID ',"op":"' OP '","config":{"cap":' CAP '},"cases":[' CASE (',' CASE)* ']}'
    ID      = '0' | '-'? [1-9] [0-9]{0,17}          a JSON integer, no leading zero, no '-0'
    OP      = 'paigow.player_bonus' | 'paigow.banker_bonus'
    CAP     = '0' | [1-9] [0-9]{0,17}               a non-negative JSON integer
    CASE    = '{"cards":[' CARD ',' CARD ',' CARD ',' CARD ',' CARD ',' CARD ',' CARD ']}'
    CARD    = '"' RANK SUIT '"' | '"JK"'
    RANK    = one of 23456789TJQKA                   SUIT = one of cdhs

with at least one case, and the seven cards of every case all different (hence at most one
joker). Keys appear in exactly this order, once each. Every case is a fixed-width record of 46
bytes, and with its separating comma 47, so the cases form a 47-byte-stride array (card ``j`` of
a case holds its rank and suit at bytes ``11 + 5j`` and ``12 + 5j`` of the record).

The answer to a canonical request is::

    '{"id":' ID ',"results":[' RESULT (',' RESULT)* ']}'      RESULT = '{"hand":"' LABEL '"}'

with ID copied byte for byte and LABEL the player label (``PLAYER_LABELS``) or banker label
(``BANKER_LABELS``) of each case's hand, in order; the cap is not used by the label ops.

numba's on-disk cache is keyed on this file only, while the compiled kernel inlines
``labeller._evaluate`` (see the warning in :mod:`tablecert.oracle.labeller`). The kernel
therefore carries the sha256 of ``labeller.py`` it was compiled from and is recompiled at first
use when that no longer matches, so a changed evaluator can never hide behind a stale cache.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
from numba import njit

from tablecert.oracle import labeller
from tablecert.oracle.cards import JOKER, JOKER_CODE, RANKS, SUITS, card_code
from tablecert.oracle.hands import BANKER_LABELS, PLAYER_CATEGORIES, PLAYER_LABELS
from tablecert.oracle.labeller import CARD_BIT, _evaluate

LABEL_OPS = ("paigow.player_bonus", "paigow.banker_bonus")

CASE_PREFIX = b'{"cards":['
"""The bytes that open every canonical case."""

CASE_BYTES = len(CASE_PREFIX) + 7 * 4 + 6 + 2
"""Length of one canonical case: 46."""

CASE_STRIDE = CASE_BYTES + 1
"""A case and the comma that separates it from the next: 47."""

_REQUEST_HEAD = re.compile(
    rb'\{"id":(0|-?[1-9][0-9]{0,17}),"op":"paigow\.(player|banker)_bonus",'
    rb'"config":\{"cap":(?:0|[1-9][0-9]{0,17})\},"cases":\[')


def case_template() -> tuple[np.ndarray, np.ndarray]:
    """(bytes of a canonical case with 0 in each card character, 0xFF for every byte that must
    equal the template and 0 for a card character)."""
    text = CASE_PREFIX + b",".join([b'"\0\0"'] * 7) + b"]}"
    assert len(text) == CASE_BYTES
    template = np.frombuffer(text, dtype=np.uint8).copy()
    mask = np.full(CASE_BYTES, 0xFF, dtype=np.uint8)
    for j in range(7):
        mask[11 + 5 * j] = mask[12 + 5 * j] = 0
    return template, mask


CASE_TEMPLATE, TEMPLATE_MASK = case_template()


def _card_lookup() -> np.ndarray:
    """Card index of every two-byte code (first byte * 256 + second byte), -1 if not a card."""
    lut = np.full(1 << 16, -1, dtype=np.int8)
    for index in range(JOKER + 1):
        code = card_code(index).encode("ascii")
        lut[code[0] << 8 | code[1]] = index
    assert lut[ord(JOKER_CODE[0]) << 8 | ord(JOKER_CODE[1])] == JOKER
    assert (lut >= 0).sum() == len(RANKS) * len(SUITS) + 1
    return lut


CARD_LOOKUP = _card_lookup()


def result_table(labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(one row of bytes per code: the compact JSON result ``{"hand":"LABEL"}``, its length)."""
    rows = [f'{{"hand":"{label}"}}'.encode("ascii") for label in labels]
    width = max(len(r) for r in rows)
    table = np.zeros((len(rows), width), dtype=np.uint8)
    for i, row in enumerate(rows):
        table[i, : len(row)] = np.frombuffer(row, dtype=np.uint8)
    return table, np.array([len(r) for r in rows], dtype=np.int64)


# The results a kernel writes, indexed by the codes labeller._evaluate returns: the player table by
# player *category* (two pair, pair and high card all answer "none"), the banker table by banker label.
PLAYER_RESULTS = result_table([c if c in PLAYER_LABELS else "none" for c in PLAYER_CATEGORIES])
BANKER_RESULTS = result_table(list(BANKER_LABELS))

LABELLER_SHA256 = hashlib.sha256(Path(labeller.__file__).read_bytes()).hexdigest()
_LABELLER_STAMP = int(LABELLER_SHA256[:15], 16)
"""Compiled into the kernel as a constant (numba freezes globals), returned by every call."""


@njit(cache=True, nogil=True)
def _label_cases(line: np.ndarray, start: int, n: int, banker: bool, template: np.ndarray,
                 template_mask: np.ndarray, lookup: np.ndarray, table: np.ndarray, lengths: np.ndarray,
                 out: np.ndarray, out_start: int, status: np.ndarray) -> None:
    """Check the ``n`` canonical cases of ``line`` from byte ``start`` (each record, the commas
    between them, seven distinct cards each), label every hand and write the results, separated
    by commas, into ``out`` from ``out_start``.

    ``status[0]``: bytes written, or -1 at the first irregularity (nothing else is then valid);
    ``status[1]``: the stamp of the labeller this kernel was compiled against.
    """
    status[1] = _LABELLER_STAMP
    pos = out_start
    for i in range(n):
        o = start + i * 47
        diff = np.uint8(0)
        for k in range(46):  # every byte but the card characters (their template mask is 0)
            diff |= (line[o + k] ^ template[k]) & template_mask[k]
        if diff or (i + 1 < n and line[o + 46] != 44):  # ','
            status[0] = -1
            return
        w = np.int64(0)
        seen = np.int64(0)
        joker = False
        for j in range(7):
            idx = lookup[(np.int64(line[o + 11 + 5 * j]) << 8) | np.int64(line[o + 12 + 5 * j])]
            if idx < 0:
                status[0] = -1
                return
            bit = np.int64(1) << idx
            if seen & bit:
                status[0] = -1
                return
            seen |= bit
            w |= CARD_BIT[idx]
            if idx == 52:
                joker = True
        p, b = _evaluate(w, joker)
        code = b if banker else p
        if i:
            out[pos] = 44
            pos += 1
        for k in range(lengths[code]):
            out[pos + k] = table[code, k]
        pos += lengths[code]
    status[0] = pos - out_start


_checked_stamp = False


def _ensure_current_kernel() -> None:
    """Recompile the kernel once if its cached build was made against another labeller.py."""
    global _checked_stamp
    if _checked_stamp:
        return
    status = np.zeros(2, dtype=np.int64)
    empty = np.zeros(1, dtype=np.uint8)
    _label_cases(empty, 0, 0, False, CASE_TEMPLATE, TEMPLATE_MASK, CARD_LOOKUP, PLAYER_RESULTS[0], PLAYER_RESULTS[1],
                 empty, 0, status)
    if status[1] != _LABELLER_STAMP:
        _label_cases.recompile()
        _label_cases(empty, 0, 0, False, CASE_TEMPLATE, TEMPLATE_MASK, CARD_LOOKUP, PLAYER_RESULTS[0],
                     PLAYER_RESULTS[1], empty, 0, status)
        if status[1] != _LABELLER_STAMP:
            raise RuntimeError("label_batch kernel does not track labeller.py")
    _checked_stamp = True


def fast_label_response(line: bytes) -> bytes | None:
    """The answer line (without its newline) to a canonical label request (see the module
    docstring), byte-identical to the normal JSON path's; None for any other line."""
    end = len(line)
    if end and line[end - 1] == 10:  # one final newline
        end -= 1
    head = _REQUEST_HEAD.match(line, 0, end)
    if head is None:
        return None
    start = head.end()
    body = end - start - 2                      # the cases and their commas, before the closing ']}'
    n, rest = divmod(body + 1, CASE_STRIDE)
    if n < 1 or rest or line[end - 2: end] != b"]}":
        return None
    _ensure_current_kernel()
    banker = head.group(2) == b"banker"
    table, lengths = BANKER_RESULTS if banker else PLAYER_RESULTS
    prefix = b'{"id":' + head.group(1) + b',"results":['
    out = np.empty(len(prefix) + n * (table.shape[1] + 1) + 2, dtype=np.uint8)
    out[: len(prefix)] = np.frombuffer(prefix, dtype=np.uint8)
    status = np.zeros(2, dtype=np.int64)
    _label_cases(np.frombuffer(line, dtype=np.uint8), start, n, banker, CASE_TEMPLATE, TEMPLATE_MASK, CARD_LOOKUP,
                 table, lengths, out, len(prefix), status)
    if status[0] < 0:
        return None
    stop = len(prefix) + int(status[0])
    out[stop: stop + 2] = (93, 125)            # ']}'
    return out[: stop + 2].tobytes()
