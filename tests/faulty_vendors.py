"""Faulty vendors: each is the reference vendor with EXACTLY ONE fault a real implementation could
ship, for proving that the vector suites (and the harness running them) catch every bug class.

Every class answers the protocol through :class:`~tablecert.oracle.vendor.ReferenceVendor` and
then rewrites the answers its fault changes, computing the faulty answer locally from the
oracle's public functions (nothing of the oracle is patched: other code runs in the same process).
Each docstring names the fault and the flag (the bug class of ``vectors/notes.toml``) whose
vectors should catch it; :data:`FAULTY_VENDORS` lists ``(class, fault, flag)``.

This is a test helper module, not a test file (``tests/test_faulty_vendors_unit.py`` tests it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from typing import Any

from tablecert.harness.vendors.vendor_kit import PaigowVendor, PatchedVendor, of_a_kind
from tablecert.oracle import craps, hands
from tablecert.oracle.cards import ACE, JOKER, RANKS, card_index, rank_of, suit_of
from tablecert.oracle.errors import CaseError
from tablecert.oracle.hands import PLAYER_CATEGORIES, PLAYER_LABELS, ROYAL_RANKS, STRAIGHTS
from tablecert.oracle.table_config import round_to_unit
from tablecert.oracle.vendor import OPS, ReferenceVendor, error

PASS_SIDE = ("pass", "come")
DONT_SIDE = ("dont_pass", "dont_come")
LABEL_OPS = ("paigow.player_bonus", "paigow.banker_bonus")


# ============================================================================================
# Bases: PatchedVendor and PaigowVendor (tablecert.harness.vendors.vendor_kit), the reference's answers
# rewritten case by case


# ============================================================================================
# Helpers


def code_of(result: dict[str, Any]) -> str | None:
    """The error code of an answer, or None for a result."""
    return result["error"]["code"] if "error" in result else None


def _floor(x: Fraction) -> int:
    return x.numerator // x.denominator


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def _commission_on(cfg: Any, bet: str, point: int, excess: int, on_win: bool = True) -> int:
    """The commission on ``excess`` odds: the excess itself (pass side) or, when ``on_win``, what
    it could win (don't side), times the rate, rounded as configured."""
    base = excess * craps.odds_ratio(bet, point) if craps.is_dont(bet) and on_win else Fraction(excess)
    return round_to_unit(cfg.commission_rate * base, cfg.commission_unit, cfg.commission_rounding)


def _won(cfg: Any, case: dict[str, Any], odds_win: int) -> dict[str, Any]:
    """A settle result for a case the reference refused: the reference's outcome of the same roll
    (a valid flat, no odds), with the case's flat and ``odds_win`` paid when it wins."""
    ref = craps.settle(cfg, {**case, "flat": cfg.unit, "odds": 0})
    return {**ref, "flat_win": case["flat"], "odds_win": odds_win} if ref["outcome"] == "win" else ref


def _split(cards: tuple[int, ...]) -> tuple[list[int], bool]:
    real = [c for c in cards if c != JOKER]
    return real, len(real) < len(cards)


def _better(a: str, b: str) -> str:
    return min(a, b, key=PLAYER_CATEGORIES.index)


def _label(category: str) -> str:
    return category if category in PLAYER_LABELS else "none"


def _ace_counts(real: list[int], joker: bool) -> Counter[int]:
    """Rank multiplicities with the joker as an ace (as the reference counts them)."""
    counts = Counter(rank_of(c) for c in real)
    if joker:
        counts[ACE] += 1
    return counts


def _has_straight(ranks: set[int], joker: bool, straights: tuple[frozenset[int], ...] = STRAIGHTS) -> bool:
    return any(len(s - ranks) <= (1 if joker else 0) for s in straights)


def _flush_suit(real: list[int], joker: bool) -> tuple[int, set[int]] | None:
    """The suit that makes a flush (with the joker, four real cards do) and its ranks, or None."""
    suits = Counter(suit_of(c) for c in real)
    suit, n = suits.most_common(1)[0]
    if n >= (4 if joker else 5):
        return suit, {rank_of(c) for c in real if suit_of(c) == suit}
    return None


def _below_flush(real: list[int], joker: bool) -> str:
    """What a hand is when its flush is not seen: a straight, else what its ranks make."""
    if _has_straight({rank_of(c) for c in real}, joker):
        return "straight"
    return of_a_kind(_ace_counts(real, joker))


# ============================================================================================
# Craps: payouts and outcomes


class PassSixPaysSevenToSix(PatchedVendor):
    """Fault: pass/come odds on the 6 (only the 6; the 8 is right) paid 7 to 6 instead of 6 to 5,
    the win floored. Flag: PayoutRatio."""

    def answer(self, op, config, case, result):
        if (op == "craps.settle" and result.get("outcome") == "win" and case["bet"] in PASS_SIDE
                and case["point"] == 6):
            return {**result, "odds_win": case["odds"] * 7 // 6}
        return result


class FiveNinePaysTwoToOne(PatchedVendor):
    """Fault: pass/come odds on 5 and 9 paid 2 to 1 (the 4/10 odds) instead of 3 to 2.
    Flag: PayoutRatio."""

    def answer(self, op, config, case, result):
        if (op == "craps.settle" and result.get("outcome") == "win" and case["bet"] in PASS_SIDE
                and case["point"] in (5, 9)):
            return {**result, "odds_win": case["odds"] * 2}
        return result


class DontComeOddsPaidLikeCome(PatchedVendor):
    """Fault: don't come odds paid at the come (right-side) odds, 2 to 1 / 3 to 2 / 6 to 5 instead
    of 1 to 2 / 2 to 3 / 5 to 6, the win floored; don't pass is right. Flag: PayoutRatio."""

    def answer(self, op, config, case, result):
        if (op == "craps.settle" and result.get("outcome") == "win" and case["bet"] == "dont_come"
                and case["point"] is not None):
            return {**result, "odds_win": _floor(case["odds"] * craps.odds_ratio("come", case["point"]))}
        return result


class PassComeOutElevenLoses(PatchedVendor):
    """Fault: a come-out 11 loses on the pass line (7 still wins; come is right). Flag: ComeOut."""

    def answer(self, op, config, case, result):
        if (op == "craps.settle" and "outcome" in result and case["bet"] == "pass" and case["point"] is None
                and sum(case["dice"]) == 11):
            return {**result, "outcome": "lose", "flat_win": 0, "flat_stake": "taken", "flat_returned": 0}
        return result


class BarAlwaysTwelve(PatchedVendor):
    """Fault: the don't side always bars 12, whatever the config's ``bar`` (a bar-2 table pays a
    come-out 2 and pushes a 12). Flag: BarNumber."""

    def answer(self, op, config, case, result):
        if op == "craps.settle" and "outcome" in result and config.bar == 2:
            return craps.settle(replace(config, bar=12), case)
        return result


class NoActionSettledAsLoss(PatchedVendor):
    """Fault: with a point set, a roll that is neither the point nor seven settles the bet as a
    loss instead of no action. Flag: NoAction."""

    def answer(self, op, config, case, result):
        if op == "craps.settle" and result.get("outcome") == "no_action":
            return {**result, "outcome": "lose", "flat_stake": "taken",
                    "odds_stake": "taken" if result["odds_stake"] == "in_action" else result["odds_stake"]}
        return result


class PayoutDownRoundsUp(PatchedVendor):
    """Fault: under ``payout_rounding: down`` an odds win that is not whole is rounded up instead
    of floored. Flag: PayoutRounding."""

    def answer(self, op, config, case, result):
        if op == "craps.settle" and result.get("outcome") == "win" and config.payout_rounding == "down" \
                and case["point"] is not None:
            return {**result, "odds_win": _ceil(craps.odds_win_exact(case["bet"], case["point"], case["odds"]))}
        return result


class ExactPayoutNotRefused(PatchedVendor):
    """Fault: under ``payout_rounding: exact`` odds whose win is not whole are accepted (the win
    floored) instead of refused with bad_increment. Flag: PayoutRounding."""

    def answer(self, op, config, case, result):
        if (op in ("craps.place_odds", "craps.settle") and code_of(result) == "bad_increment"
                and config.payout_rounding == "exact"):
            try:
                return OPS[op][1](replace(config, payout_rounding="down"), case)
            except CaseError as err:
                return error(err.code, err.message)
        return result


# ============================================================================================
# Craps: limits


class DontLimitOnLay(PatchedVendor):
    """Fault: on the don't side the odds multiples limit the amount laid instead of what it can
    win (a 3x don't pass on 4 may lay only 3x the flat, not 6x): wrong limits, and lays above the
    lay-measured maximum refused. Flag: DontLimitOnWin."""

    def _lay_limit(self, config, case, multiples):
        return craps.odds_limit(config, "pass", case["flat"], case["point"], multiples[case["point"]])

    def answer(self, op, config, case, result):
        if not op.startswith("craps.") or "error" in result or case["bet"] not in DONT_SIDE:
            return result
        if op == "craps.odds_limits":
            return {"free_odds": self._lay_limit(config, case, config.free_odds),
                    "max_odds": self._lay_limit(config, case, config.max_odds)}
        if case["odds"] > 0 and case["odds"] > self._lay_limit(config, case, config.max_odds):
            return error("above_maximum", "odds above the maximum")
        return result


class FreeOddsLimitUnitLow(PatchedVendor):
    """Fault: the free odds limit is one unit too low (``free - unit``), in the limits reported and
    in the commission (charged on one unit more). Flag: FreeOddsLimit."""

    def answer(self, op, config, case, result):
        if "error" in result or op not in ("craps.odds_limits", "craps.place_odds"):
            return result
        free, _ = craps.limits(config, case["bet"], case["flat"], case["point"])
        low = max(free - config.unit, 0)
        if op == "craps.odds_limits":
            return {**result, "free_odds": low}
        return {"commission": _commission_on(config, case["bet"], case["point"], max(case["odds"] - low, 0))}


class MaxOddsUnitHigh(PatchedVendor):
    """Fault: the maximum check is off by one unit: odds of exactly ``max + unit`` are accepted
    (place_odds charges its commission, settle pays it); the limits reported are right.
    Flag: MaxOddsLimit."""

    def answer(self, op, config, case, result):
        if code_of(result) != "above_maximum":
            return result
        bet, flat, point, odds = case["bet"], case["flat"], case["point"], case["odds"]
        if odds != craps.limits(config, bet, flat, point)[1] + config.unit:
            return result
        if op == "craps.place_odds":
            return {"commission": craps.commission(config, bet, flat, point, odds)}
        return _won(config, case, _floor(craps.odds_win_exact(bet, point, odds)))


class FlatIncrementUnchecked(PatchedVendor):
    """Fault: a flat that is not a multiple of the table unit is accepted (no bad_increment for
    the flat; the odds are still checked). Flag: Increment."""

    def answer(self, op, config, case, result):
        if code_of(result) != "bad_increment" or case["flat"] % config.unit == 0:
            return result
        bet, flat, point = case["bet"], case["flat"], case["point"]
        if op == "craps.odds_limits":
            free, top = craps.limits(config, bet, flat, point)
            return {"free_odds": free, "max_odds": top}
        odds = case["odds"]
        if odds > 0:
            if odds % config.unit or (config.payout_rounding == "exact"
                                      and craps.odds_win_exact(bet, point, odds).denominator != 1):
                return result
            if odds > craps.limits(config, bet, flat, point)[1]:
                return error("above_maximum", "odds above the maximum")
        if op == "craps.place_odds":
            return {"commission": craps.commission(config, bet, flat, point, odds)}
        win = _floor(craps.odds_win_exact(bet, point, odds)) if odds else 0
        return _won(config, case, win)


# ============================================================================================
# Craps: commission


class CommissionRoundedUp(PatchedVendor):
    """Fault: a commission configured to round down is rounded up. Flag: CommissionRounding."""

    def answer(self, op, config, case, result):
        if op == "craps.place_odds" and "error" not in result and config.commission_rounding == "down":
            return {"commission": craps.commission(replace(config, commission_rounding="up"), case["bet"],
                                                   case["flat"], case["point"], case["odds"])}
        return result


class CommissionOnWholeOdds(PatchedVendor):
    """Fault: once the odds exceed the free limit, commission is charged on the whole odds (or on
    all they could win, don't side) instead of on the excess only. Flag: CommissionBase."""

    def answer(self, op, config, case, result):
        if op != "craps.place_odds" or "error" in result:
            return result
        free, _ = craps.limits(config, case["bet"], case["flat"], case["point"])
        if case["odds"] <= free:
            return result
        return {"commission": _commission_on(config, case["bet"], case["point"], case["odds"])}


class CommissionAtFreeLimit(PatchedVendor):
    """Fault: the excess over the free odds is computed as ``odds - free + unit`` from the free
    limit on (a ``>=`` for ``>``), so odds of exactly the free limit pay commission on one unit.
    Flag: CommissionAtFree."""

    def answer(self, op, config, case, result):
        if op != "craps.place_odds" or "error" in result:
            return result
        free, _ = craps.limits(config, case["bet"], case["flat"], case["point"])
        if case["odds"] < free:
            return result
        excess = case["odds"] - free + config.unit
        return {"commission": _commission_on(config, case["bet"], case["point"], excess)}


class DontCommissionOnLay(PatchedVendor):
    """Fault: on the don't side the commission is charged on the excess amount laid instead of on
    what that excess could win. Flag: CommissionBase."""

    def answer(self, op, config, case, result):
        if op != "craps.place_odds" or "error" in result or case["bet"] not in DONT_SIDE:
            return result
        free, _ = craps.limits(config, case["bet"], case["flat"], case["point"])
        excess = max(case["odds"] - free, 0)
        return {"commission": _commission_on(config, case["bet"], case["point"], excess, on_win=False)}


# ============================================================================================
# Craps: validation


class DiceCheckedBeforePoint(PatchedVendor):
    """Fault: settle checks the dice before the point, so a case with a bad point AND bad dice is
    answered invalid_dice instead of invalid_point. Flag: ErrorOrder."""

    def answer(self, op, config, case, result):
        if op != "craps.settle" or code_of(result) != "invalid_point":
            return result
        try:  # the reference on the same case with no point: invalid_dice comes before no_point
            craps.settle(config, {**case, "point": None})
        except CaseError as err:
            if err.code == "invalid_dice":
                return error(err.code, err.message)
        return result


# ============================================================================================
# Pai gow: hand labels


class JokerTooWild(PaigowVendor):
    """Fault: the joker is fully wild for pairs, trips, quads and full houses (it joins the
    commonest rank: three kings and the joker are four kings) instead of only an ace.
    Flag: JokerNotWild."""

    def player_label(self, cards):
        category = hands.player_category(cards)
        real, joker = _split(cards)
        if joker:
            counts = Counter(rank_of(c) for c in real)
            counts[max(counts, key=lambda r: (counts[r], r))] += 1
            category = _better(category, of_a_kind(counts))
        return _label(category)


class JokerNoFlush(PaigowVendor):
    """Fault: the joker does not complete a plain flush (four suited cards and the joker are not a
    flush; straight flushes with the joker are still seen). Flag: JokerFlush."""

    def player_label(self, cards):
        category = hands.player_category(cards)
        real, joker = _split(cards)
        if category == "flush" and joker and max(Counter(suit_of(c) for c in real).values()) < 5:
            category = _below_flush(real, joker)
        return _label(category)


class WheelMissed(PaigowVendor):
    """Fault: the ace plays only high in straights: A-2-3-4-5 (the wheel, and the steel wheel) is
    not a straight, with or without the joker. Flag: HandCategory (the joker's wheels:
    JokerStraight too)."""

    def player_label(self, cards):
        category = hands.player_category(cards)
        real, joker = _split(cards)
        no_wheel = STRAIGHTS[:-1]
        if category == "straight_flush":
            flush = _flush_suit(real, joker)
            assert flush is not None
            if not _has_straight(flush[1], joker, no_wheel):
                category = _better(of_a_kind(_ace_counts(real, joker)), "flush")
        elif category == "straight" and not _has_straight({rank_of(c) for c in real}, joker, no_wheel):
            category = of_a_kind(_ace_counts(real, joker))
        return _label(category)


class LongFlushMissed(PaigowVendor):
    """Fault: a flush must be exactly five cards of a suit (the joker counted): six- and
    seven-card flushes are not flushes (straight flushes are still seen). Flag: LongFlush."""

    def player_label(self, cards):
        category = hands.player_category(cards)
        real, joker = _split(cards)
        if category == "flush" and max(Counter(suit_of(c) for c in real).values()) + int(joker) > 5:
            category = _below_flush(real, joker)
        return _label(category)


class RoyalJokerMiddleMissed(PaigowVendor):
    """Fault: a royal flush with the joker as a middle card (the jack, queen or king) is called a
    straight flush; the joker as the ace or the ten still makes a royal. Flag: JokerStraightFlush."""

    def player_label(self, cards):
        category = hands.player_category(cards)
        real, joker = _split(cards)
        if category == "royal_flush" and joker:
            flush = _flush_suit(real, joker)
            assert flush is not None
            missing = ROYAL_RANKS - flush[1]
            if missing and missing <= {RANKS.index(r) for r in "JQK"}:
                category = "straight_flush"
        return _label(category)


class NineHighAsTenHigh(PaigowVendor):
    """Fault: a banker nine-high hand is labelled (and paid as) ten high, 20 to 1 instead of
    100 to 1. Flag: BankerHighCard."""

    def banker_label(self, cards):
        label = hands.banker_label(cards)
        return "ten_high" if label == "nine_high" else label


class DuplicateCardAccepted(PaigowVendor):
    """Fault: the label ops do not check that a hand's cards are distinct: a hand with a card
    repeated (not the joker) is labelled, as if the repeat were another card of its rank, instead
    of refused with invalid_hand. Flag: HandValidation."""

    def answer(self, op, config, case, result):
        if op not in LABEL_OPS or code_of(result) != "invalid_hand":
            return super().answer(op, config, case, result)
        cards = case["cards"]
        if not isinstance(cards, list) or len(cards) != 7:
            return result
        try:
            indices = [card_index(c) for c in cards]
        except ValueError:
            return result
        if indices.count(JOKER) > 1:
            return result
        hand: list[int] = []
        for c in indices:
            if c in hand:  # the same rank in a suit not held, else any card not held
                free = [d for d in range(JOKER) if d not in hand and d not in indices]
                c = min(free, key=lambda d: (rank_of(d) != rank_of(c), abs(rank_of(d) - rank_of(c))))
            hand.append(c)
        cards_ = tuple(sorted(hand))
        return {"hand": self.player_label(cards_) if op == "paigow.player_bonus" else self.banker_label(cards_)}


# ============================================================================================
# Pai gow: settlement


class CapPerBonus(PaigowVendor):
    """Fault: the payout cap limits each bonus win separately instead of their sum.
    Flag: CapAggregate."""

    def total_win(self, player_win, banker_win, cap):
        return min(cap, player_win) + min(cap, banker_win)


class CapNotApplied(PaigowVendor):
    """Fault: the payout cap is not applied at all: the total win is the uncapped sum.
    Flag: CapAggregate."""

    def total_win(self, player_win, banker_win, cap):
        return player_win + banker_win


class BankSeatIgnored(PaigowVendor):
    """Fault: in a player-banked round every banker bonus is still judged on the dealer's hand.
    Flag: BankSeat."""

    def banker_hand(self, seat, dealer, bank_seat, bank_hand):
        return dealer


class WagerLostUnlessPlayerPays(PaigowVendor):
    """Fault: the wager is lost whenever the player bonus does not pay, even when the banker bonus
    pays. Flag: OneWager."""

    def wager_lost(self, wager, player_pays, banker_pays):
        return wager > 0 and not player_pays


# ============================================================================================

FAULTY_VENDORS: list[tuple[type[ReferenceVendor], str, str]] = [
    (PassSixPaysSevenToSix, "pass/come odds on 6 paid 7 to 6 instead of 6 to 5", "PayoutRatio"),
    (FiveNinePaysTwoToOne, "pass/come odds on 5 and 9 paid 2 to 1 instead of 3 to 2", "PayoutRatio"),
    (DontComeOddsPaidLikeCome, "don't come odds paid at the come odds", "PayoutRatio"),
    (PassComeOutElevenLoses, "come-out 11 loses on the pass line", "ComeOut"),
    (BarAlwaysTwelve, "bar 2 tables treated as bar 12", "BarNumber"),
    (NoActionSettledAsLoss, "no-action rolls settled as a loss", "NoAction"),
    (PayoutDownRoundsUp, "payout rounding 'down' rounds up", "PayoutRounding"),
    (ExactPayoutNotRefused, "payout rounding 'exact' accepts non-whole wins (bad_increment missed)", "PayoutRounding"),
    (DontLimitOnLay, "don't-side odds limit measured on the lay, not the win", "DontLimitOnWin"),
    (FreeOddsLimitUnitLow, "free odds limit one unit too low", "FreeOddsLimit"),
    (MaxOddsUnitHigh, "odds of max + one unit accepted", "MaxOddsLimit"),
    (FlatIncrementUnchecked, "flat not a multiple of the unit accepted", "Increment"),
    (CommissionRoundedUp, "commission rounding 'down' rounds up", "CommissionRounding"),
    (CommissionOnWholeOdds, "commission on the whole odds, not the excess over the free odds", "CommissionBase"),
    (CommissionAtFreeLimit, "commission charged at exactly the free limit (excess = odds - free + unit)", "CommissionAtFree"),
    (DontCommissionOnLay, "don't-side commission on the lay, not on what it could win", "CommissionBase"),
    (DiceCheckedBeforePoint, "invalid_dice checked before invalid_point", "ErrorOrder"),
    (JokerTooWild, "joker wild for pairs/trips/quads (three kings + joker = four kings)", "JokerNotWild"),
    (JokerNoFlush, "four suited cards + joker not a flush", "JokerFlush"),
    (WheelMissed, "A-2-3-4-5 not a straight (ace only high)", "HandCategory"),
    (LongFlushMissed, "six- and seven-card flushes not flushes", "LongFlush"),
    (RoyalJokerMiddleMissed, "royal flush with the joker as J, Q or K called a straight flush", "JokerStraightFlush"),
    (NineHighAsTenHigh, "banker nine high labelled and paid as ten high", "BankerHighCard"),
    (DuplicateCardAccepted, "hand with a repeated card labelled, not invalid_hand", "HandValidation"),
    (CapPerBonus, "payout cap applied per bonus, not to the sum", "CapAggregate"),
    (CapNotApplied, "payout cap not applied", "CapAggregate"),
    (BankSeatIgnored, "banker bonus always judged on the dealer's hand", "BankSeat"),
    (WagerLostUnlessPlayerPays, "wager lost when only the banker bonus pays", "OneWager"),
]
