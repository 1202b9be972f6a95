"""Building blocks for vendors that differ from the reference in a few answers.

:class:`PatchedVendor` is the reference vendor with every per-case answer passed through
:meth:`~PatchedVendor.answer`; :class:`PaigowVendor` recomputes the pai gow answers from small
hooks (the two hand labels, the hand a seat's banker bonus is judged on, the cap, when the wager
is lost), each the reference's unless a subclass overrides it. Validation (every error) stays the
reference's. The demo vendor and the test suite's faulty vendors are built from them; nothing of
the oracle is patched, so they can run beside it in one process.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tablecert.oracle import hands
from tablecert.oracle.cards import parse_hand
from tablecert.oracle.errors import ConfigError
from tablecert.oracle.paigow import pay_tables
from tablecert.oracle.vendor import OPS, ReferenceVendor


def of_a_kind(counts: Counter[int]) -> str:
    """The category that rank multiplicities alone make (four of a kind down to high card), for
    vendors that get straights or flushes wrong and fall back to what the ranks make."""
    m = sorted(counts.values(), reverse=True) + [0, 0]
    if m[0] >= 4:
        return "four_of_a_kind"
    if m[0] == 3:
        return "full_house" if m[1] >= 2 else "three_of_a_kind"
    if m[0] == 2:
        return "two_pair" if m[1] == 2 else "pair"
    return "high_card"


class PatchedVendor(ReferenceVendor):
    """The reference vendor whose per-case answers (v2 results of v2 cases, projected to v1 after
    when the session is v1) pass through :meth:`answer` (the identity here). Request-level
    answers, hello and malformed configs are the reference's."""

    def results(self, op: str, config: object, cases: list[object]) -> list[dict[str, Any]]:
        results = super().results(op, config, cases)
        if op not in OPS:
            return results
        try:
            parsed = OPS[op][0](config)
        except ConfigError:
            return results  # every case invalid_config, as the reference says
        return [self.answer(op, parsed, case, result) for case, result in zip(cases, results)]

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        """The vendor's answer to one case, given the reference's ``result`` (a result or an error)."""
        return result


class PaigowVendor(PatchedVendor):
    """Pai gow answers recomputed from the hooks below, each the reference's unless overridden."""

    def player_label(self, cards: tuple[int, ...]) -> str:
        return hands.player_label(cards)

    def banker_label(self, cards: tuple[int, ...]) -> str:
        return hands.banker_label(cards)

    def banker_hand(self, seat: int, dealer: tuple[int, ...], bank_seat: int | None,
                    bank_hand: tuple[int, ...] | None) -> tuple[int, ...]:
        return dealer if bank_hand is None or seat == bank_seat else bank_hand

    def total_win(self, player_win: int, banker_win: int, cap: int) -> int:
        return min(cap, player_win + banker_win)

    def wager_lost(self, wager: int, player_pays: bool, banker_pays: bool) -> bool:
        return wager > 0 and not (player_pays or banker_pays)

    def wager_returned(self, wager: int, player_pays: bool, banker_pays: bool) -> int:
        return wager if player_pays or banker_pays else 0

    def answer(self, op: str, config: Any, case: Any, result: dict[str, Any]) -> dict[str, Any]:
        if "error" in result:
            return result
        if op == "paigow.player_bonus":
            return {"hand": self.player_label(parse_hand(case["cards"]))}
        if op == "paigow.banker_bonus":
            return {"hand": self.banker_label(parse_hand(case["cards"]))}
        if op == "paigow.settle":
            return self.settle(config, case)
        return result

    def settle(self, cap: int, case: dict[str, Any]) -> dict[str, Any]:
        """A ``paigow.settle`` result from the hooks (the case is valid: the reference said so)."""
        tables = pay_tables()
        dealer = parse_hand(case["dealer"])
        seat_hands = [(seat, parse_hand(seat["cards"])) for seat in case["seats"]]
        bank_seat = case["bank_seat"]
        bank_hand = next((h for s, h in seat_hands if s["seat"] == bank_seat), None)
        out = []
        for seat, hand in seat_hands:
            wager = seat["wager"]
            p_label = self.player_label(hand)
            b_label = self.banker_label(self.banker_hand(seat["seat"], dealer, bank_seat, bank_hand))
            p_win = wager * tables.player_bonus.get(p_label, 0)
            b_win = wager * tables.banker_bonus.get(b_label, 0)
            pays = (p_label in tables.player_bonus, b_label in tables.banker_bonus)
            out.append({"seat": seat["seat"], "player_bonus": p_label, "player_bonus_win": p_win,
                        "banker_bonus": b_label, "banker_bonus_win": b_win,
                        "total_win": self.total_win(p_win, b_win, cap),
                        "wager_lost": self.wager_lost(wager, *pays),
                        "wager_returned": self.wager_returned(wager, *pays)})
        return {"seats": out}
