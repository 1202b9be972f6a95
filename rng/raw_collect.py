"""Collecting a vendor's raw RNG stream and its paired outcomes through any adapter (ops
``rng.raw``, ``rng.scale``, ``rng.paired`` of the contract, "The raw stream and the scaling").

The raw stream is asked for in requests of at most :data:`MAX_WORDS` words, decoded from base64,
checked (exact length), hashed as it arrives (sha256 of the decoded bytes, in order) and cut into
sequences of bits handed one at a time to a ``sink`` (the raw battery keeps their P-values only):
nothing holds the stream, so memory is flat in its length. Everything here uses the session's
public calls (``hello``, ``batch``); a later adapter could give a streaming call that decodes
into a caller's buffer (no base64 string per answer), which this module would use unchanged
otherwise.

Pairing (:func:`check_pairs`): outcomes dealt by the production path with the words each
consumed, each checked against ``rng.scale`` of exactly those words.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tablecert.harness.contract import FaultKind, VendorFault, VendorSession
from tablecert.rng.collect import RngError
from tablecert.rng.scale_law import in_range, is_deck, quote, value_of

MAX_WORDS = 262_144
"""Most words of one ``rng.raw`` request (the contract's limit)."""

WIDTHS = (8, 16, 32, 64)
DTYPES = {8: ">u1", 16: ">u2", 32: ">u4", 64: ">u8"}


@dataclass(frozen=True)
class RngDeclaration:
    """The hello's ``rng``: raw word width and the vendor's statement on ``rng.scale``."""

    raw_bits: int
    statement: str
    packed: bool = False
    """*Since 1.1*: hello's ``rng.packed`` is true: ``rng.scale`` of a die or a range answers in
    base64 words when a case asks ``"packed": true`` (:func:`scale_packed`)."""


def declaration(hello_raw: Any, wanted: tuple[str, ...]) -> RngDeclaration:
    """The vendor's declaration, or RngError if an op wanted is not offered or the declaration is
    missing or malformed."""
    offered = hello_raw.get("ops") if isinstance(hello_raw, dict) else None
    offered = offered if isinstance(offered, list) else []
    missing = [op for op in wanted if op not in offered]
    if missing:
        raise RngError(f"the vendor does not offer {', '.join(missing)} (its hello lists "
                       f"{', '.join(map(str, offered)) or 'no ops'})")
    decl = hello_raw.get("rng") if isinstance(hello_raw, dict) else None
    bits = decl.get("raw_bits") if isinstance(decl, dict) else None
    if bits not in WIDTHS:
        raise RngError(f"the vendor's hello declares no rng.raw_bits of 8, 16, 32 or 64 (it has {bits!r})")
    statement = decl.get("scale")
    return RngDeclaration(bits, statement if isinstance(statement, str) else "", decl.get("packed") is True)


def decode_words(text: Any, count: int | None, bits: int, where: str) -> bytes:
    """The bytes of base64 words, or VendorFault naming what is wrong (``count`` None: any whole
    number of words)."""
    try:
        raw = base64.b64decode(text, validate=True) if isinstance(text, str) else None
    except (binascii.Error, ValueError):
        raw = None
    if raw is None:
        raise VendorFault(FaultKind.MALFORMED, f"{where}: 'words' is not a base64 string")
    size = bits // 8
    if (count is not None and len(raw) != count * size) or len(raw) % size:
        raise VendorFault(FaultKind.MALFORMED, f"{where}: {len(raw):,} bytes of words, expected "
                          f"{'a multiple of ' + str(size) if count is None else f'{count * size:,}'}")
    return raw


@dataclass
class RawRecord:
    """What was collected of the raw stream."""

    words: int = 0
    bits: int = 0
    sequences: int = 0
    sha256: str = ""
    extra_words: int = 0
    """Words collected after the ``bits``, for ``every_word`` only (the repeats member)."""
    sha256_all: str = ""
    """sha256 of every word collected, the ``bits``' then the extra words (``sha256`` when none)."""
    _hash: Any = field(default_factory=hashlib.sha256, repr=False)


def collect_raw(session: VendorSession, decl: RngDeclaration, bits: int, sequence_bits: int,
                sink: Callable[[np.ndarray], None], progress: Callable[[int, int], None] | None = None,
                tested: int | None = None, every_word: Callable[[bytes], None] | None = None,
                words_in_all: int = 0) -> RawRecord:
    """Ask for ``bits`` raw bits (whole words), cut into sequences of ``sequence_bits`` handed to
    ``sink`` in order (a last partial sequence is hashed, not tested). ``tested``: only the first
    ``tested`` sequences are cut and handed on (None: every whole one; ``record.sequences`` counts
    those handed on); the rest is hashed and given, as every word is, to ``every_word`` (the
    decoded bytes of each answer, in order), never unpacked. Then, up to ``words_in_all`` words in
    all, the further words, in the same requests of the same stream, go to ``every_word`` only:
    ``record.sha256`` covers the ``bits``, ``record.sha256_all`` every word."""
    width = decl.raw_bits
    total_words = -(-bits // width)
    extra = max(0, words_in_all - total_words)
    record = RawRecord()
    pending = np.zeros(0, dtype=np.uint8)
    request = 0
    while record.words < total_words:
        count = min(MAX_WORDS, total_words - record.words)
        request += 1
        raw = _request(session, decl, count, request)
        record._hash.update(raw)
        record.words += count
        if every_word is not None:
            every_word(raw)
        if tested is None or record.sequences < tested:
            pending = np.concatenate([pending, np.unpackbits(np.frombuffer(raw, dtype=np.uint8))])
            whole = pending.size // sequence_bits
            whole = whole if tested is None else min(whole, tested - record.sequences)
            for s in range(whole):
                sink(pending[s * sequence_bits:(s + 1) * sequence_bits])
            record.sequences += whole
            pending = pending[whole * sequence_bits:].copy()
        if progress:
            progress(record.words, total_words + extra)
    record.bits = record.words * width
    record.sha256 = record._hash.hexdigest()
    whole = record._hash.copy()
    while record.extra_words < extra:
        count = min(MAX_WORDS, extra - record.extra_words)
        request += 1
        raw = _request(session, decl, count, request)
        whole.update(raw)
        record.extra_words += count
        if every_word is not None:
            every_word(raw)
        if progress:
            progress(record.words + record.extra_words, total_words + extra)
    record.sha256_all = whole.hexdigest()
    return record


def _request(session: VendorSession, decl: RngDeclaration, count: int, request: int) -> bytes:
    """The decoded words of one ``rng.raw`` request of ``count`` words (the ``request``-th), or
    VendorFault."""
    (result,) = session.batch("rng.raw", {}, [{"words": count}])
    if not isinstance(result, dict) or "words" not in result:
        detail = str(result.get("error"))[:200] if isinstance(result, dict) and "error" in result \
            else "the result is not an object with 'words'"
        raise VendorFault(FaultKind.MALFORMED, f"rng.raw request {request}: {detail}")
    return decode_words(result["words"], count, decl.raw_bits, f"rng.raw request {request}")


def scale(session: VendorSession, decl: RngDeclaration, kind: str, n: int, words: np.ndarray) -> tuple[list[Any], list[int]]:
    """``rng.scale`` of ``words`` (integers below 2^raw_bits): the outcomes and words consumed."""
    text = base64.b64encode(np.asarray(words, dtype=np.uint64).astype(DTYPES[decl.raw_bits]).tobytes()).decode()
    (result,) = session.batch("rng.scale", {}, [{"kind": kind, "n": n, "words": text}])
    outcomes = result.get("outcomes") if isinstance(result, dict) else None
    consumed = result.get("consumed") if isinstance(result, dict) else None
    if not isinstance(outcomes, list) or not isinstance(consumed, list) or len(outcomes) != len(consumed) \
            or not _word_counts(consumed, len(words)):
        detail = str(result.get("error"))[:200] if isinstance(result, dict) and "error" in result else \
            "not an object with 'outcomes' and 'consumed' lists of one length, each consuming at least one word given"
        raise VendorFault(FaultKind.MALFORMED, f"rng.scale {kind} n={n}: {detail}")
    return outcomes, consumed


def scale_packed(session: VendorSession, decl: RngDeclaration, kind: str, n: int,
                 words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """*Since 1.1*: ``rng.scale`` of a die or a range with ``"packed": true`` (a vendor declaring
    ``rng.packed``): the outcomes and the words consumed as arrays, read from base64 words of the
    vendor's width instead of JSON lists (every word of a 32-bit sweep: JSON's parse set the pace)."""
    dtype = DTYPES[decl.raw_bits]
    text = base64.b64encode(np.asarray(words, dtype=np.uint64).astype(dtype).tobytes()).decode()
    (result,) = session.batch("rng.scale", {}, [{"kind": kind, "n": n, "words": text, "packed": True}])
    where = f"rng.scale {kind} n={n} (packed)"
    if not isinstance(result, dict) or "error" in result:
        detail = str(result.get("error"))[:200] if isinstance(result, dict) else "not an object"
        raise VendorFault(FaultKind.MALFORMED, f"{where}: {detail}")
    outcomes = np.frombuffer(decode_words(result.get("outcomes"), None, decl.raw_bits, where + " outcomes"), dtype)
    consumed = np.frombuffer(decode_words(result.get("consumed"), None, decl.raw_bits, where + " consumed"), dtype)
    if len(outcomes) != len(consumed) or (len(consumed) and (consumed.min() < 1 or consumed.max() > len(words)
                                                             or int(consumed.astype(np.uint64).sum()) > len(words))):
        raise VendorFault(FaultKind.MALFORMED, f"{where}: {len(outcomes):,} outcomes and {len(consumed):,} counts, "
                          f"each count 1 or more and all of them at most the {len(words):,} words given")
    return outcomes.astype(np.uint64), consumed.astype(np.int64)


def _word_counts(consumed: list[Any], given: int) -> bool:
    """Each count an int (not a bool) of at least 1, all of them at most the words given; checked
    by type set and numpy (a batch of 262,144 counts in milliseconds, not a Python loop)."""
    if not consumed:
        return True
    if set(map(type, consumed)) != {int}:
        return False
    try:
        counts = np.asarray(consumed, dtype=np.int64)
    except OverflowError:
        return False
    return bool(counts.min() >= 1) and int(counts.sum()) <= given


@dataclass
class PairingCheck:
    """Outcomes dealt by the production path, each checked against ``rng.scale`` of its words."""

    kind: str
    n: int
    pairs: int = 0
    mismatches: int = 0
    first: str = ""
    outside: int = 0
    first_outside: str = ""
    words: bytearray = field(default_factory=bytearray, repr=False)
    """The dealt words, packed as ``rng.raw`` packs them, in the order dealt."""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "n": self.n, "pairs": self.pairs, "mismatches": self.mismatches,
                "first_mismatch": self.first, "outside": self.outside, "first_outside": self.first_outside,
                "decision": "fail" if self.mismatches or self.outside else "pass"}


def check_pairs(session: VendorSession, decl: RngDeclaration, kind: str, n: int, count: int,
                per_request: int = 1_000) -> PairingCheck:
    """Ask ``rng.paired`` for ``count`` outcomes and check each against ``rng.scale``."""
    check = PairingCheck(kind, n)
    width = decl.raw_bits
    while check.pairs < count:
        c = min(per_request, count - check.pairs)
        (result,) = session.batch("rng.paired", {}, [{"kind": kind, "n": n, "count": c}])
        if not isinstance(result, dict) or not all(isinstance(result.get(k), list) for k in ("outcomes", "consumed")):
            raise VendorFault(FaultKind.MALFORMED, f"rng.paired {kind}: not an object with outcomes, consumed, words")
        raw = decode_words(result.get("words"), None, width, f"rng.paired {kind}")
        words = np.frombuffer(raw, dtype=DTYPES[width]).astype(np.uint64)
        dealt, used = result["outcomes"], result["consumed"]
        if len(dealt) != c or len(used) != c or sum(used) != len(words):
            raise VendorFault(FaultKind.MALFORMED, f"rng.paired {kind}: {len(dealt)} outcomes, {len(used)} counts "
                              f"and {len(words)} words for {c} outcomes")
        check.words += raw
        got, got_used = scale(session, decl, kind, n, words)       # one request: scaling is in order
        for i, (outcome, k) in enumerate(zip(dealt, used)):
            if not (is_deck(outcome, n) if kind == "shuffle" else in_range(value_of(outcome), n)):
                check.outside += 1
                if not check.first_outside:
                    start = sum(used[:i])
                    check.first_outside = (f"outcome {check.pairs + i + 1}: dealt {quote(outcome)} from word(s) "
                                           f"{[int(w) for w in words[start:start + min(k, 4)]]}, not "
                                           f"{'a deck of the cards 0..' if kind == 'shuffle' else 'an outcome 0..'}{n - 1}")
            if i >= len(got) or got[i] != outcome or got_used[i] != k:
                check.mismatches += 1
                if not check.first:
                    start = sum(used[:i])
                    check.first = (f"outcome {check.pairs + i + 1}: dealt {quote(outcome)} from {k} word(s) "
                                   f"{[int(w) for w in words[start:start + min(k, 4)]]}, rng.scale of the same words "
                                   f"gives {quote(got[i]) if i < len(got) else 'nothing'} from "
                                   f"{got_used[i] if i < len(got) else 0} word(s)")
        check.pairs += c
    return check
