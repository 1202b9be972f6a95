"""``tablecert rng --raw BITS --scaling``: the RNG as labs certify it, before and at scaling.

:func:`evaluate_raw` opens one session with the vendor (any adapter, as
:func:`tablecert.rng.collect.collect` does), then

* collects ``BITS`` of the raw stream (``rng.raw``) into the raw battery
  (:class:`tablecert.rng.raw_plan.RawBattery`, NIST SP 800-22's 15 tests on sequences of 10^6
  bits, decided by Holm at family-wise alpha 0.01), hashing it as it streams, the sequences tested
  by ``workers`` processes as they arrive (:mod:`tablecert.rng.raw_workers`); a deep collection
  (``--raw-sequences N``, ``sequences``) runs the 15 tests on the first N sequences only and
  counts the bit positions (:mod:`tablecert.rng.bit_positions`) over every word of the ``BITS``,
  which the summary's ``raw.depth`` states (without it the summary is as before: every whole
  sequence tested, the bit positions counted on the same words);
* *since 1.2*, then collects the further words the repeats member needs (``repeat_words`` in all,
  by default :func:`tablecert.rng.repeats.default_words`: 2^25 + 2 words of 32 bits), which only
  that member reads; ``raw.repeats`` states the words it saw, their sha256 and the longest period
  ruled out, ``raw.sha256`` still covers the ``BITS`` alone (``raw.sha256_covers`` says so);
* analyses the scaling exactly (``rng.scale``; :mod:`tablecert.rng.scale_analysis`) of the die
  (k = 6), the 53-card shuffle and a range of the lab's choice (``range_n``, default
  :data:`DEFAULT_RANGE`), against the lab's tolerance (0 by default);
* checks pairing (``rng.paired``): outcomes dealt by production with the words they consumed,
  each against ``rng.scale`` of those words (die, shuffle and the range).

:func:`write_raw` writes ``raw-summary.json`` and ``rng-raw-report.pdf`` (rendered from the summary
alone by the ``render`` the caller passes, as :func:`tablecert.rng.api.write_run`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from tablecert import __version__
from tablecert.harness.adapters import find_adapter
from tablecert.harness.contract import SessionOptions
from tablecert.rng import nist
from tablecert.rng.collect import RngError
from tablecert.rng.bit_positions import stuck_rate_caught, words_to_catch
from tablecert.rng.paired_stream import stream_verdict
from tablecert.rng.plan import ALPHA
from tablecert.rng.power import POWER
from tablecert.rng.raw_collect import RawRecord, check_pairs, collect_raw, declaration, scale, scale_packed
from tablecert.rng.raw_plan import MIN_SEQUENCES, RawBattery, battery_rows
from tablecert.rng.raw_workers import SequenceWorkers
from tablecert.rng.repeats import TEST, default_words
from tablecert.rng.scale_analysis import analyse

SUMMARY_FORMAT = "tablecert-rng-raw/1"
DEFAULT_RAW_BITS = 100 * nist.SEQUENCE_BITS
"""10^8 bits: 100 sequences of 10^6 (NIST's own recommendation for the proportion decision)."""
DEFAULT_PAIRS = 10_000
DEFAULT_RANGE = 100
"""The range analysed by default: a value in 0..99 (a percentage draw). Not a power of two, so a
modulo or multiply-shift scaler is biased on words of every width, and at most 2^8, so a vendor
of 8-bit words can scale it from one word. A lab sets the n its game uses."""

SOURCE_REVIEW = ("What these tests cannot show, and a lab must review in the source: the raw battery says that "
                 "the words collected look like independent fair bits to NIST SP 800-22's 15 tests; the scaling "
                 "analysis proves, for the scaling function the vendor exposes as rng.scale, each outcome's exact "
                 "probability under uniform words; the pairing check shows that the outcomes dealt were scaled by "
                 "that function. None of them shows that the generator cannot be predicted: a seeded "
                 "pseudorandom generator (a clock seed, a small or replayed seed, a state rebuilt from outputs) "
                 "passes every statistical test. The lab must still review the generator's algorithm and its "
                 "cryptographic strength, its seeding and reseeding (the entropy source), that rng.scale is the "
                 "code built into the game (the vendor's statement is recorded below, not proved), that no "
                 "outcome is discarded after scaling, and that the build reviewed is the build that deals.")


PAIRED_TIE = ("The contract has no op that replays the production generator from a seed, so nothing ties the words the "
              "game dealt from (rng.paired) to the raw stream tested above word for word: the dealt words are tested as "
              "a stream of their own, and a vendor could still deal from a generator that passes both.")


def stuck_bit_power(words: int, width: int, family: int) -> dict[str, Any]:
    """What the bit-position member catches at this collection (99 % power, Holm's first step):
    the smallest share of words with a stuck bit, and the bits needed for 1 word in 10^4."""
    rate = stuck_rate_caught(words, width, family, ALPHA)
    bits = words_to_catch(1e-4, width, family, ALPHA) * width
    exponent = len(str(bits)) - 1
    return {"power": POWER, "rate": float(f"{rate:.3g}"), "one_word_in": math.floor(1 / rate),
            "bits_for_1e-4": bits, "bits_for_1e_4_text": f"{bits / 10 ** exponent:.1f} x 10^{exponent}"}


def check_raw_bits(bits: int, sequences: int | None = None) -> None:
    """ValueError naming the option: fewer bits than the battery's fewest sequences, or a deep
    collection's ``sequences`` outside MIN_SEQUENCES .. the whole sequences the bits hold (every
    width divides 10^6, so that is ``bits // 10^6``)."""
    if bits < MIN_SEQUENCES * nist.SEQUENCE_BITS:
        raise ValueError(f"--raw must be at least {MIN_SEQUENCES * nist.SEQUENCE_BITS:,} bits "
                         f"({MIN_SEQUENCES} sequences of {nist.SEQUENCE_BITS:,})")
    if sequences is not None and not MIN_SEQUENCES <= sequences <= bits // nist.SEQUENCE_BITS:
        raise ValueError(f"--raw-sequences {sequences:,}: must be from {MIN_SEQUENCES} to "
                         f"{bits // nist.SEQUENCE_BITS:,}, the whole sequences of {nist.SEQUENCE_BITS:,} bits "
                         f"in --raw {bits:,}")


def depth(sequences: int, words: int, width: int) -> dict[str, Any]:
    """What a deep collection tested on how much: NIST's 15 tests on the first ``sequences``
    sequences, the bit positions on every word."""
    return {"nist_sequences": sequences, "nist_bits": sequences * nist.SEQUENCE_BITS,
            "nist_on": f"the first {sequences:,} sequences of {nist.SEQUENCE_BITS:,} bits of the stream",
            "bit_positions_words": words, "bit_positions_bits": words * width,
            "bit_positions_on": "every word collected"}


@dataclass(frozen=True)
class ScalingOptions:
    """How the scaling is analysed: by probes and proofs (``exhaustive`` None), or with every word
    of a die's and a range's scaling sent, the resumable state kept in the folder ``exhaustive``
    (``--scaling exhaustive``, 8 to 32-bit words), and on words up to 16 bits every word at every
    swap of the shuffle; ``progress(what)`` gives the bar of each kind."""

    exhaustive: Path | None = None
    progress: Callable[[str], Callable[[int, int], None] | None] = lambda what: None


def evaluate_raw(adapter: str, target: str, options: SessionOptions, bits: int, scaling: bool,
                 pairs: int = DEFAULT_PAIRS, tolerance: Fraction = Fraction(0), range_n: int = DEFAULT_RANGE,
                 workers: int = 1, progress: Callable[[int, int], None] | None = None,
                 sequences: int | None = None, how: ScalingOptions = ScalingOptions(),
                 repeat_words: int | None = None) -> dict[str, Any]:
    """Collect and evaluate; the summary (``collected`` is filled in by the caller). ``sequences``:
    a deep collection's N (None: every whole sequence tested, as without ``--raw-sequences``).
    ``repeat_words``: the words the repeats member sees in all, at least the ``bits``' (None: its
    default for the vendor's width; 0: the ``bits``' only)."""
    with SequenceWorkers(workers) as pool:              # forked before the session opens
        return _evaluate(pool, adapter, target, options, bits, scaling, pairs, tolerance, range_n, progress, sequences,
                         how, repeat_words)


def repeats_coverage(record: RawRecord, asked: int | None, ruled_out: int) -> dict[str, Any]:
    """What the repeats member saw: the battery's words then the extra ones, their sha256, and the
    longest period ruled out (0 when the stream repeats)."""
    seen = record.words + record.extra_words
    return {"words": seen, "battery_words": record.words, "extra_words": record.extra_words,
            "asked": asked, "sha256": record.sha256_all,
            "sha256_covers": f"words 0 to {seen - 1:,}: the battery's {record.words:,}"
                             + (f" then {record.extra_words:,} more, read by the repeats member only"
                                if record.extra_words else ""),
            "ruled_out": ruled_out}


def _evaluate(pool: SequenceWorkers, adapter: str, target: str, options: SessionOptions, bits: int, scaling: bool,
              pairs: int, tolerance: Fraction, range_n: int, progress: Callable[[int, int], None] | None,
              sequences: int | None, how: ScalingOptions, repeat_words: int | None) -> dict[str, Any]:
    session = find_adapter(adapter).open(target, options)
    try:
        hello = session.hello()
        wanted = ("rng.raw",) + (("rng.scale", "rng.paired") if scaling else ())
        decl = declaration(hello.raw, wanted)
        if how.exhaustive is not None and decl.raw_bits > 32:
            raise RngError(f"--scaling exhaustive: the vendor's words are {decl.raw_bits}-bit; every word is sent for "
                           "words of at most 32 bits")
        if scaling and range_n > 1 << decl.raw_bits:
            raise RngError(f"--scale-range {range_n:,} is above 2^{decl.raw_bits}, the vendor's raw words "
                           f"(rng.scale's range takes n from 1 to 2^{decl.raw_bits})")
        battery = RawBattery(decl.raw_bits)
        deep = sequences is not None
        repeats = battery.repeats

        def every_word(raw: bytes) -> None:
            repeats.add_packed(raw)
            if deep:
                battery.positions.add_packed(raw)

        wanted_words = default_words(decl.raw_bits) if repeat_words is None else repeat_words
        record = collect_raw(session, decl, bits, nist.SEQUENCE_BITS, pool.sink(battery, positions=not deep), progress,
                             tested=sequences, every_word=every_word,
                             words_in_all=wanted_words)
        battery = pool.finish()
        results = battery.results()
        data: dict[str, Any] = {
            "format": SUMMARY_FORMAT, "tablecert": __version__,
            "vendor": {"name": hello.name, "version": hello.version, "build": hello.build,
                       "isolation": getattr(session, "isolation", "unknown (outside adapter)")},
            "declaration": {"raw_bits": decl.raw_bits, "scale_statement": decl.statement},
            "raw": {"bits": record.bits, "words": record.words, "sequences": record.sequences,
                    "sequence_bits": nist.SEQUENCE_BITS, "sha256": record.sha256,
                    "sha256_covers": f"the {record.bits:,} bits of the battery's collection, words 0 to "
                                     f"{record.words - 1:,}",
                    "repeats": repeats_coverage(record, repeat_words, next(r.chart["ruled_out"] for r in results
                                                                  if r.id.startswith(f"raw.{TEST}."))),
                    "plan": {"alpha": ALPHA, "method": "holm", "family_size": len(results)},
                    **({"depth": depth(record.sequences, record.words, decl.raw_bits)} if deep else {}),
                    "stuck_bit": stuck_bit_power(record.words, decl.raw_bits, len(results)),
                    "tests": battery_rows(results),
                    "rejected": [r.id for r in results if r.rejected]},
            "source_review": SOURCE_REVIEW,
        }
        if scaling:
            def vendor_scale(kind: str, n: int, words: Any) -> tuple[list[Any], list[int]]:
                return scale(session, decl, kind, n, words)

            def state(kind: str, n: int) -> Path | None:
                return None if how.exhaustive is None else how.exhaustive / f"scaling-exhaustive-{kind}-{n}.json"

            def sweep(kind: str, n: int) -> Callable[[Any], tuple[Any, Any]] | None:
                return (lambda words: scale_packed(session, decl, kind, n, words)) if decl.packed else None

            data["scaling"] = [analyse(vendor_scale, "die", 6, decl.raw_bits, tolerance, exhaustive=state("die", 6),
                                       progress=how.progress("die"), sweep=sweep("die", 6)),
                               analyse(vendor_scale, "shuffle", 53, decl.raw_bits, tolerance,
                                       exhaustive=state("shuffle", 53) if decl.raw_bits <= 16 else None),
                               analyse(vendor_scale, "range", range_n, decl.raw_bits, tolerance,
                                       exhaustive=state("range", range_n), progress=how.progress(f"range {range_n}"),
                                       sweep=sweep("range", range_n))]
            checks = [check_pairs(session, decl, "die", 6, pairs), check_pairs(session, decl, "shuffle", 53, max(1, pairs // 10)),
                      check_pairs(session, decl, "range", range_n, pairs)]
            data["pairing"] = [c.as_dict() for c in checks]
            data["paired_stream"] = {**stream_verdict(b"".join(bytes(c.words) for c in checks), decl.raw_bits),
                                     "tie": PAIRED_TIE}
        failed = bool(data["raw"]["rejected"]) or any(x["decision"] == "fail" for x in data.get("scaling", [])) \
            or any(x["decision"] == "fail" for x in data.get("pairing", [])) \
            or data.get("paired_stream", {}).get("decision") == "fail"
        data["verdict"] = "fail" if failed else "pass"
        return data
    finally:
        session.close()


def write_raw(out: Path, data: dict[str, Any], render: Callable[[dict[str, Any]], bytes]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "raw-summary.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (out / "rng-raw-report.pdf").write_bytes(render(data))
    return [out / "raw-summary.json", out / "rng-raw-report.pdf"]
