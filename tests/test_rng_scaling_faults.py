"""The scaling analysis against the held-out faults of issue #51 (scalers of tests/raw_scalers.py),
each with its true law worked out by hand here from the scaler's definition, not from the analysis.

Notation: T = 2^32 = 6 q + 4 with q = 715,827,882; a correct die scaler accepts 6 q words.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
import raw_scalers as s

from tablecert.rng.scale_analysis import analyse

T = 1 << 32
q = 715_827_882
SAMPLE = 200_000


def test_hand_figures() -> None:
    """The arithmetic the tests below rest on."""
    assert T == 6 * q + 4 and T % 100 == 96 and 256 % 100 == 56


def test_limit_one_too_high() -> None:
    """Rejection at 2^32 - 3 accepts word 2^32 - 4 (= 6 q, so face 0): face 0 has q + 1 of the
    6 q + 1 accepted words, 1/6 + 5 / (6 (6 q + 1))."""
    result = analyse(s.as_scale(s.limit_one_high), "die", 6, 32)
    assert result["decision"] == "fail" and result["proved"]
    assert Fraction(result["max_deviation"]) == Fraction(q + 1, 6 * q + 1) - Fraction(1, 6) == Fraction(5, 6 * (T - 3))
    assert "rejection at limit 4,294,967,293" in result["models"][0]
    assert result["worst"]["outcome"] == 0
    assert result["example"]["word"] == T - 4 and result["example"]["outcome"] == 0
    assert result["example"]["correct"].startswith("nothing: it refuses the word")


def test_byte_wide_limit_on_the_range() -> None:
    """Rejection at 2^32 - (2^8 mod 100) = 2^32 - 56 instead of 2^32 - 96: the T - 56 =
    100 * 42,949,672 + 40 accepted words give values 0..39 one word more: 42,949,673 / (T - 56),
    1/100 + 60 / (100 (T - 56)). On the die 2^8 mod 6 = 2^32 mod 6 = 4: exact by luck."""
    result = analyse(s.as_scale(s.byte_limit), "range", 100, 32)
    assert result["decision"] == "fail"
    assert Fraction(result["max_deviation"]) == Fraction(60, 100 * (T - 56))
    assert result["example"]["word"] >= T - 96 and result["example"]["outcome"] < 40
    assert analyse(s.as_scale(s.byte_limit), "die", 6, 32)["max_deviation"] == "0"


def test_range_that_never_returns_its_top() -> None:
    """Rejection to 5 values: face 5 never comes (1/6 short), the others 1/5."""
    result = analyse(s.as_scale(s.short_top), "die", 6, 32)
    assert result["decision"] == "fail" and "over k - 1 values (the top one never comes)" in result["models"][0]
    assert Fraction(result["max_deviation"]) == Fraction(1, 6)
    assert result["worst"] == {"outcome": 5, "probability": "0", "deviation": "1/6"}


def test_round_instead_of_floor_on_16_bit_words() -> None:
    """floor(5 w / 2^16 + 1/2): value 5 for 10 w >= 9 * 2^16, w >= 58,983 (9 * 65,536 / 10 =
    58,982.4): 6,553 words, the value furthest from 1/6: 1/6 - 6,553/65,536."""
    result = analyse(s.as_scale(s.rounded(16)), "die", 6, 16)
    assert Fraction(result["max_deviation"]) == Fraction(1, 6) - Fraction(6553, 1 << 16)
    assert result["worst"]["outcome"] == 5 and result["decision"] == "fail"


def test_round_instead_of_floor_on_32_bit_words_is_bounded() -> None:
    """On 32-bit words no model fits: the sampled law's interval holds the true deviation,
    value 5 with T - ceil(9 T / 10) = T - 3,865,470,567 = 429,496,729 words: 1/6 - 429,496,729 / T."""
    result = analyse(s.as_scale(s.rounded(32)), "die", 6, 32, sample_words=SAMPLE)
    true = Fraction(1, 6) - Fraction(T - 3_865_470_567, T)
    est = result["estimate"]
    assert result["decision"] == "fail" and not result["proved"]
    assert est["deviation_low"] <= float(true) <= est["deviation_high"] and est["deviation_low"] > 0.05
    assert "closest:" in result["reason"]


def test_high_half_modulo_is_bounded_and_named() -> None:
    """(w >> 16) % 6: faces 0..3 have 10,923 * 2^16 words, 4 and 5 have 10,922 * 2^16 (2^16 =
    6 * 10,922 + 4): the true deviation 1/6 - 10,922/2^16 = 1/98,304, inside the sampled interval;
    the first word that disagrees with the closest model is a true one."""
    result = analyse(s.as_scale(s.high_half), "die", 6, 32, sample_words=SAMPLE)
    true = Fraction(1, 6) - Fraction(10_922, 1 << 16)
    assert true == Fraction(1, 98_304)
    assert result["decision"] == "fail"
    est = result["estimate"]
    assert est["deviation_low"] <= float(true) <= est["deviation_high"]
    word = int(result["reason"].split("word ")[-1].split(" ")[0].replace(",", ""))
    said = result["reason"].split(" gave ")[-1].split(",")[0]
    assert said == str(s.high_half(word, 6))                        # what the scaler truly gives
    assert "word 0 gives 0" not in result["reason"]


def test_float32_die_gives_face_6() -> None:
    """In single precision words from 2^32 - 128 round to 2^32 (spacing 256 just below 2^32,
    the tie to even): u = 1.0 and face 6. The reason quotes such a word; the interval holds the
    true deviation, which is at least P(face 6) = 128 / 2^32 = 2^-25 and at most 2^-23 (float32
    moves each of the 5 face boundaries by less than 2^8 words)."""
    result = analyse(s.as_scale(s.float32), "die", 6, 32, sample_words=SAMPLE)
    assert result["decision"] == "fail" and not result["proved"]
    word = int(result["reason"].split("word ")[1].split(" ")[0].replace(",", ""))
    assert word >= T - 128 and "gave 6, outside the outcomes 0..5" in result["reason"]
    est = result["estimate"]
    assert est["deviation_low"] <= 2 ** -25 and est["deviation_high"] >= 2 ** -23


def test_signed_modulo_on_16_bit_words() -> None:
    """C's % on an int16: s = -32,768..-1 give -5..0. Outcome -1 from t = -s = 1, 7, ..., 32,767
    (32,767 = 6 * 5,461 + 1): 5,462 words, probability 5,462/65,536 where a correct scaler has 0;
    outcome -2 as many (t = 2, 8, ..., 32,768), and is named first (the lower outcome of a tie);
    face 2 has only the 5,461 positive words, 1/6 - 5,461/65,536 = 16,385/196,608 < 5,462/65,536.
    The outcomes -1..-5 together: 2 * 5,462 + 3 * 5,461 = 27,307 words."""
    result = analyse(s.as_scale(s.signed16), "die", 6, 16)
    assert result["decision"] == "fail"
    assert Fraction(result["max_deviation"]) == Fraction(5462, 1 << 16)
    assert result["worst"] == {"outcome": -2, "probability": str(Fraction(5462, 1 << 16)), "deviation": "2731/32768"}
    assert Fraction(result["outside"]["share"]) == Fraction(27_307, 1 << 16)
    assert result["example"]["outcome"] in (-1, -2)
    assert s.signed16(result["example"]["word"], 6) == result["example"]["outcome"]
    assert analyse(s.as_scale(s.signed16), "die", 6, 16, tolerance=Fraction(1, 50_000))["decision"] == "fail"


def test_faces_one_to_six() -> None:
    """1 + w mod 6 with rejection: face 0 never comes, face 6 (outside) has 1/6. At 16 bits, exact;
    at 32 bits the word is quoted and nothing crashes."""
    result = analyse(s.as_scale(s.faces_from_one(16)), "die", 6, 16)
    assert result["decision"] == "fail" and Fraction(result["max_deviation"]) == Fraction(1, 6)
    assert Fraction(result["outside"]["share"]) == Fraction(1, 6)
    assert result["example"]["outcome"] == 6 and result["example"]["word"] == 5        # 1 + 5 mod 6
    wide = analyse(s.as_scale(s.faces_from_one(32)), "die", 6, 32, sample_words=SAMPLE)
    assert wide["decision"] == "fail" and "gave 6, outside the outcomes 0..5" in wide["reason"]
    assert 0.16 < wide["estimate"]["outside_share"] < 0.17


@pytest.mark.parametrize("outcome, quoted", [(-1, "gave -1"), (6, "gave 6"), (10 ** 30, f"gave {10 ** 30}"),
                                             ("3", 'gave "3"'), (2.5, "gave 2.5"), (3.0, "gave 3.0"),
                                             (True, "gave true"), ([1], "gave [1]"),
                                             ("<b>\u202e", 'gave "<b>\\u202e"')])
def test_bad_outcome_fails_with_the_word_and_outcome_quoted(outcome: object, quoted: str) -> None:
    """Rejection, except word 2^32 - 5 (a probe: one below the top 2^32 mod 6 words) gives a bad
    outcome: negative, >= k, huge, not an integer, a float, a bool, a list, markup: the scaling fails
    quoting the word and the outcome, escaped, and no traceback."""
    result = analyse(s.as_scale(s.bad_at(T - 5, outcome)), "die", 6, 32, sample_words=0)
    assert result["decision"] == "fail" and not result["proved"]
    assert "word 4,294,967,291 (2^32 - 5)" in result["reason"] and quoted in result["reason"], result["reason"]


@pytest.mark.parametrize("outcome", [-1, 6, 10 ** 30, "3", 2.5, True])
def test_bad_outcome_on_short_words_is_counted_outside(outcome: object) -> None:
    """On 8-bit words every word is sent: the bad outcome is one word of 256 outside the range."""
    top = 255
    result = analyse(s.as_scale(lambda w, k: outcome if w == top else (w % 6 if w < 252 else None)), "die", 6, 8)
    assert result["decision"] == "fail" and Fraction(result["outside"]["share"]) == Fraction(1, 256 - 3)
    assert result["example"]["word"] == top


@pytest.mark.parametrize("deck", [list(range(52)), [0] * 53, [str(c) for c in range(53)], "deck", None,
                                  list(range(1, 54))])
def test_wrong_deck_fails_quoted(deck: object) -> None:
    """A shuffle that deals something not a deck of the cards 0..52 fails with it quoted."""
    good = s.as_scale(shuffle_step=lambda w, k, swap: s.rejection(w, k))

    def scale(kind: str, n: int, words: list[int]) -> tuple[list, list[int]]:
        decks, used = good(kind, n, words)
        return [deck] + decks[1:], used

    result = analyse(scale, "shuffle", 53, 32)
    assert result["decision"] == "fail" and "not a deck of the cards 0..52" in result["reason"]


def test_sattolo() -> None:
    """Sattolo's algorithm deals a uniformly random 53-cycle: no card at its own position
    (probability 0, 1/53 short), every other position 1/52."""
    result = analyse(s.as_scale(shuffle_step=s.sattolo), "shuffle", 53, 32)
    assert result["decision"] == "fail" and result["proved"] and "Sattolo" in result["structure"]
    assert Fraction(result["max_deviation"]) == Fraction(1, 53)
    assert result["worst"]["card"] == result["worst"]["position"] and result["worst"]["probability"] == "0"


def test_naive_shuffle_of_three() -> None:
    """The naive shuffle of 3 cards from the top: 9 equally likely word pairs (j1, j2) in 0..2,
    swap position 2 with j1, then 1 with j2. Card 0 stays at position 0 in the pairs (1, 1),
    (1, 2), (2, 1), (2, 2): 4/9, the furthest from 1/3 (by 1/9; card 1 at position 2 also 4/9)."""
    result = analyse(s.as_scale(shuffle_step=s.naive(3)), "shuffle", 3, 32)
    assert result["decision"] == "fail" and "naive shuffle" in result["structure"]
    assert Fraction(result["max_deviation"]) == Fraction(1, 9)
    assert result["worst"] == {"card": 0, "position": 0, "probability": "4/9"}


def test_naive_shuffle_of_53_is_named() -> None:
    result = analyse(s.as_scale(shuffle_step=s.naive(53)), "shuffle", 53, 32)
    assert result["decision"] == "fail" and "naive shuffle" in result["structure"]
    assert Fraction(result["max_deviation"]) > 0


def test_the_law_on_the_edge_words_is_exact() -> None:
    """(w >> 16) % 6 on the words within 2 of every power of two 2^1..2^32 and of the multiples of
    6 next to them: below 2^16 every word gives 0 (w >> 16 = 0); the words near 2^32 give
    (2^16 - 1) % 6 = 3. The law on those words, counted here from the scaler's definition."""
    from tablecert.rng.scale_analysis import edge_words

    result = analyse(s.as_scale(s.high_half), "die", 6, 32, sample_words=0)
    words = edge_words(6, 32)
    counts = [sum(1 for w in words if (w >> 16) % 6 == v) for v in range(6)]
    assert counts[0] >= sum(1 for w in words if w < 1 << 16) > 100         # every small word gives 0
    expected = max(abs(Fraction(c, len(words)) - Fraction(1, 6)) for c in counts)
    assert result["probed"]["accepted"] == len(words) and Fraction(result["probed"]["deviation"]) == expected


def test_a_scaler_refusing_all_but_one_word() -> None:
    """8-bit words, every word refused but 24 (the filler, 0): face 0 has probability 1, off 1/6
    by 5/6; a scaler refusing even that one makes no outcome from 8 fillers and fails unproved."""
    result = analyse(s.as_scale(lambda w, k: None if w != 24 else 0), "die", 6, 8)
    assert result["decision"] == "fail" and result["max_deviation"] == "5/6"
    nothing = analyse(s.as_scale(lambda w, k: None), "die", 6, 8)
    assert nothing["decision"] == "fail" and not nothing["proved"] and "made 0 outcomes" in nothing["reason"]


def test_naive_shuffle_of_three_on_16_bit_words_every_word(tmp_path: Path) -> None:
    """The naive shuffle of 3 cards from the top with ``j = w % 3`` on 16-bit words, every word at
    every swap sent. 2^16 = 3 x 21,845 + 1, so each swap picks position 0 with p0 = 21,846/2^16 and
    positions 1, 2 with p1 = p2 = 21,845/2^16. Card 1 ends at position 2 when the first swap moves
    it there (j1 = 1) and the second leaves it (j2 != 2), or the first leaves it (j1 != 1) and the
    second moves it there (j2 = 2): p1 (p0 + p1) + (p0 + p2) p2 = 2 x 21,845 x 43,691 / 2^32 =
    954,429,895/2^31, above 1/3 by 715,806,037/6,442,450,944, the furthest cell (card 0 at
    position 0: ((p1 + p2))^2 = 477,204,025/2^30, less). The smallest example: word 65,535 picks
    position 0 (65,535 = 3 x 21,845), where a correct scaler (rejection at 65,535) refuses it."""
    result = analyse(s.as_scale(shuffle_step=lambda w, k, swap: w % 3), "shuffle", 3, 16, exhaustive=tmp_path / "x")
    assert result["decision"] == "fail" and result["proved"] and "naive shuffle" in result["structure"]
    assert result["models"] == ["every one of the 2^16 words sent"]
    assert Fraction(result["max_deviation"]) == Fraction(715_806_037, 6_442_450_944)
    assert result["worst"] == {"card": 1, "position": 2, "probability": "954429895/2147483648"}
    first = result["swap_examples"][0]
    assert first["swap"] == 1 and first["word"] == 65_535 and first["outcome"] == 0
    assert first["correct"].startswith("nothing: it refuses the word")


def test_sattolo_of_four_on_16_bit_words_every_word(tmp_path: Path) -> None:
    """Sattolo's shuffle of 4 cards with ``j = w % (k - 1)`` on 16-bit words, every word at every
    swap sent: swap 1 picks 0..2 (position 0 at 21,846/2^16, 1 and 2 at 21,845/2^16), swap 2 picks
    0..1 (1/2 each), swap 3 always 0. No card ends where it started (probability 0, 1/4 short: the
    worst, card 0 first). Card 3 ends at position 0 when swap 1 sends it to position 1 and swap 2
    leaves it there for swap 3 (p1 / 2), or sends it to 2 and swap 2 takes it to 1 (p2 / 2):
    21,845/2^16. Cells: 4 at 0, 5 at 21,845/2^16, 6 at 43,691/2^17, 1 at 10,923/2^15 (card 0 at
    position 3: swap 1 picks 0)."""
    result = analyse(s.as_scale(shuffle_step=lambda w, k, swap: w % (k - 1)), "shuffle", 4, 16, exhaustive=tmp_path / "x")
    assert result["decision"] == "fail" and result["proved"] and "Sattolo" in result["structure"]
    assert Fraction(result["max_deviation"]) == Fraction(1, 4)
    assert result["worst"] == {"card": 0, "position": 0, "probability": "0"}
    assert {c["probability"]: c["cells"] for c in result["card_position"]["probabilities"]} == {
        "0": 4, "21845/65536": 5, "43691/131072": 6, "10923/32768": 1}
