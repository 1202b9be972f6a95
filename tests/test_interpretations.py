"""One known answer per entry of the interpretation register, worked out by hand from the reading
it records; a register entry without a test here fails ``test_every_interpretation_is_tested``."""

from __future__ import annotations

import pytest
from tables import raw_config

from tablecert.oracle import craps, paigow
from tablecert.oracle.cards import parse_hand
from tablecert.oracle.craps_round import parse_round_config, play
from tablecert.oracle.hands import banker_label, player_label
from tablecert.oracle.live_stations import meters_of, station_games
from tablecert.oracle.live_stations import play as play_stations
from tablecert.oracle.live_paigow import play as play_paigow
from tablecert.oracle.paigow_records import books_of
from tablecert.oracle.register import interpretations
from tablecert.oracle.table_config import paigow_findings, parse_table_config, regulatory_findings

NINE_HIGH = ["9c", "8d", "7h", "6s", "4c", "3h", "2d"]
NOTHING = ["Ad", "Kc", "Qh", "8s", "6d", "5h", "2s"]
ROYAL = ["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]


def int_joker_ace():
    # three kings and the joker: the joker is an ace, so trips (not four kings)
    assert player_label(parse_hand(["Kc", "Kd", "Kh", "JK", "2c", "7d", "9h"])) == "three_of_a_kind"
    # a pair of aces and the joker: three aces
    assert player_label(parse_hand(["Ac", "Ad", "JK", "Kh", "2c", "7d", "9h"])) == "three_of_a_kind"
    # four suited cards and the joker: a flush
    assert player_label(parse_hand(["2h", "6h", "9h", "Qh", "JK", "3c", "8d"])) == "flush"


def int_one_wager():
    # no player bonus, but the dealer's nine high pays 100 to 1: the wager wins and is kept
    (seat,) = paigow.settle(4_000_000, {"dealer": NINE_HIGH, "bank_seat": None,
                                        "seats": [{"seat": 1, "wager": 100, "cards": NOTHING}]})["seats"]
    assert (seat["total_win"], seat["wager_lost"]) == (10_000, False)


def int_cap_aggregate():
    # 500 x 200 = 100,000 and 500 x 100 = 50,000: each under a 120,000 cap, the sum is not
    (seat,) = paigow.settle(120_000, {"dealer": NINE_HIGH, "bank_seat": None,
                                      "seats": [{"seat": 1, "wager": 500, "cards": ROYAL}]})["seats"]
    assert seat["total_win"] == 120_000


def int_royal_joker():
    for suit in "cdhs":
        cards = [r + suit for r in "78TJQK"] + ["JK"]
        assert player_label(parse_hand(cards)) == "royal_flush"


def int_dont_limit_on_win():
    # free odds "1" behind a 1,000 don't pass on 4: the lay may win 1,000, so it may be 2,000
    cfg = parse_table_config(raw_config(free_odds={p: "1" for p in raw_config()["free_odds"]}))
    assert craps.odds_limits(cfg, {"bet": "dont_pass", "flat": 1000, "point": 4})["free_odds"] == 2000


def int_commission_cap():
    assert regulatory_findings(parse_table_config(raw_config())) == []
    assert regulatory_findings(parse_table_config(raw_config(commission_rounding="up"))) != []


def int_commission_base():
    cfg = parse_table_config(raw_config())
    # pass on 4 behind 1,000: free 3,000; odds 4,000 -> 5% of the 1,000 above free = 50
    assert craps.place_odds(cfg, {"bet": "pass", "flat": 1000, "point": 4, "odds": 4000}) == {"commission": 50}
    # don't pass on 4 behind 1,000: free lay 6,000 (wins 3,000); lay 7,000 -> the 1,000 above free
    # could win 500 at 1 to 2 -> 5% of 500 = 25
    assert craps.place_odds(cfg, {"bet": "dont_pass", "flat": 1000, "point": 4, "odds": 7000}) == {"commission": 25}


def int_cap_minimum():
    assert paigow_findings(4_000_000, 500) == []
    assert paigow_findings(3_999_999, 500) != []
    assert paigow_findings(5_499_999, 5_000) != []        # 1,100 x $50 = $55,000


def int_bank_seat():
    out = paigow.settle(4_000_000, {"dealer": NINE_HIGH, "bank_seat": 2, "seats": [
        {"seat": 1, "wager": 100, "cards": NOTHING},
        {"seat": 2, "wager": 100, "cards": ["Jc", "9d", "8h", "7s", "5c", "4h", "3s"]}]})["seats"]
    assert (out[0]["banker_bonus"], out[1]["banker_bonus"]) == ("jack_high", "nine_high")


def int_banker_high():
    assert banker_label(parse_hand(["Jd", "9h", "8c", "6d", "4s", "3c", "2h"])) == "jack_high"
    assert banker_label(parse_hand(["JK", "9h", "8c", "6d", "4s", "3c", "2h"])) == "none"


def int_craps_line_bets():
    cfg = parse_table_config(raw_config(bar=12))
    roll = lambda bet, d: craps.settle(cfg, {"bet": bet, "flat": 100, "point": None, "odds": 0, "dice": d,
                                             "odds_working": True})["outcome"]
    assert [roll("dont_pass", [6, 6]), roll("dont_pass", [1, 1]), roll("dont_pass", [5, 6]), roll("pass", [5, 6])] == [
        "push", "win", "lose", "win"]


def int_odds_working():
    # a come bet of 500 on 6 with 1,000 odds behind it, off on the come-out roll: a seven takes the
    # flat and hands the 1,000 odds back; a six pays the flat 1 to 1 and hands back flat and odds;
    # a nine leaves both on the table. Called working, the six also pays the odds 6 to 5 (1,200).
    cfg = parse_table_config(raw_config())
    come = {"bet": "come", "flat": 500, "point": 6, "odds": 1000, "odds_working": False}
    seven = craps.settle(cfg, {**come, "dice": [3, 4]})
    assert (seven["outcome"], seven["odds_win"], seven["odds_stake"], seven["odds_returned"]) == ("lose", 0, "returned", 1000)
    six = craps.settle(cfg, {**come, "dice": [2, 4]})
    assert (six["flat_win"], six["flat_returned"], six["odds_win"], six["odds_returned"]) == (500, 500, 0, 1000)
    nine = craps.settle(cfg, {**come, "dice": [4, 5]})
    assert (nine["flat_stake"], nine["odds_stake"], nine["odds_returned"]) == ("in_action", "in_action", 0)
    working = craps.settle(cfg, {**come, "odds_working": True, "dice": [2, 4]})
    assert (working["odds_win"], working["odds_stake"], working["odds_returned"]) == (1200, "won", 1000)


def int_bonus_wager_returned():
    # 100 on the bonus, dealer nine high (100 to 1): 10,000 won and the 100 handed back, even when a
    # cap of 5,000 limits the win; a hand that pays nothing loses the 100
    (seat,) = paigow.settle(5_000, {"dealer": NINE_HIGH, "bank_seat": None,
                                    "seats": [{"seat": 1, "wager": 100, "cards": NOTHING}]})["seats"]
    assert (seat["total_win"], seat["wager_returned"]) == (5_000, 100)
    (seat,) = paigow.settle(5_000, {"dealer": NOTHING, "bank_seat": None,
                                    "seats": [{"seat": 1, "wager": 100, "cards": NINE_HIGH}]})["seats"]
    assert (seat["wager_lost"], seat["wager_returned"]) == (True, 0)


def int_commission_rounding_bases():
    # 'nearest' at 5%: a pass-side base of one cent (unit 1) costs 0.05 -> 0, but 10 cents cost
    # 0.5 -> 1 cent, 10% of the base: a finding although the $1-unit table never meets such a base
    assert regulatory_findings(parse_table_config(raw_config(unit=1, commission_rounding="nearest"))) != []


def int_odds_right():
    assert regulatory_findings(parse_table_config(raw_config(max_odds=dict(raw_config()["max_odds"], **{"6": "0"}),
                                                             free_odds=dict(raw_config()["free_odds"], **{"6": "0"})))) != []


def int_payout_whole():
    # unit $1 on the don't side at 5: a $1 lay wins 66 2/3 cents; floored under 'down' -> a finding
    assert regulatory_findings(parse_table_config(raw_config(payout_rounding="down"))) != []
    assert regulatory_findings(parse_table_config(raw_config(payout_rounding="exact"))) == []


def _round(steps, **house):
    config = parse_round_config(dict(raw_config(), house_rules=house))
    return play(config, {"rack": 100_000, "steps": steps})["steps"]


def _roll(a, b):
    return {"act": "roll", "dice": [a, b]}


DONT_COME_8 = [_roll(2, 3), {"act": "bet", "bet": "dont_come", "amount": 500}, _roll(4, 4),
               {"act": "odds", "bet": "dont_come8", "amount": 600}, _roll(2, 3)]   # the point 5 made: come-out


def int_dont_come_odds():
    # lay odds of 600 behind a don't come bet on 8 work on the come-out: a seven pays them 5 to 6 (500)
    seven = _round(DONT_COME_8 + [_roll(3, 4)])[-1]["events"][0]
    assert (seven["outcome"], seven["odds_win"], seven["odds_stake"]) == ("win", 500, "won")
    off = _round(DONT_COME_8 + [_roll(3, 4)], dont_come_odds_come_out="off")[-1]["events"][0]
    assert (off["odds_win"], off["odds_stake"], off["odds_returned"]) == (0, "returned", 600)


def int_working_call():
    # a call of the don't come odds off lasts one roll (a natural 11): on the seven after it they work again
    steps = DONT_COME_8 + [{"act": "working", "bet": "dont_come8", "working": False}, _roll(5, 6), _roll(3, 4)]
    assert _round(steps)[-1]["events"][0]["odds_win"] == 500
    assert _round(steps, working_call="bet")[-1]["events"][0]["odds_stake"] == "returned"


def int_bar_push():
    # a don't pass bet pushed on the bar 12 stays up and then wins on a 3; under 'returned' it is handed back
    steps = [{"act": "bet", "bet": "dont_pass", "amount": 500}, _roll(6, 6), _roll(1, 2)]
    stays = _round(steps)
    assert stays[1]["table"]["bets"][0]["flat"] == 500 and stays[2]["events"][0]["flat_win"] == 500
    returned = _round(steps, bar_push="returned")
    assert returned[1]["table"]["bets"] == [] and returned[2]["events"] == []


def int_take_down():
    # pass before its come-out: removable; with its point: not_removable; a don't pass with its point: removable
    steps = [{"act": "bet", "bet": "pass", "amount": 500}, {"act": "take_down", "bet": "pass"},
             {"act": "bet", "bet": "pass", "amount": 500}, {"act": "bet", "bet": "dont_pass", "amount": 500},
             _roll(2, 2), {"act": "take_down", "bet": "pass"}, {"act": "take_down", "bet": "dont_pass"}]
    assert [r["error"] for r in _round(steps)] == [None, None, None, None, None, "not_removable", None]
    assert _round(steps, take_down_dont=False)[-1]["error"] == "not_removable"
    assert _round(steps, take_down_unset=False)[1]["error"] == "not_removable"


def int_press_unset():
    # a pass bet of 500 pressed by 500 before the come-out: refused bet_exists at the default; under
    # press_unset one bet of 1,000 (rack 100,000 - 1,000), which the point 4 made pays 1,000 (even
    # money); with its point it is never pressed (point_on), a don't pass neither
    steps = [{"act": "bet", "bet": "pass", "amount": 500}, {"act": "bet", "bet": "pass", "amount": 500},
             _roll(2, 2), {"act": "bet", "bet": "pass", "amount": 500}, _roll(1, 3)]
    assert [r["error"] for r in _round(steps)][:2] == [None, "bet_exists"]
    pressed = _round(steps, press_unset=True)
    assert [r["error"] for r in pressed] == [None, None, None, "point_on", None]
    assert pressed[1]["table"]["bets"][0]["flat"] == 1000 and pressed[1]["table"]["rack"] == 100_000 - 1000
    assert len(pressed[1]["table"]["bets"]) == 1 and pressed[4]["events"][0]["flat_win"] == 1000
    dont = [{"act": "bet", "bet": "dont_pass", "amount": 500}, _roll(3, 3), {"act": "bet", "bet": "dont_pass", "amount": 500}]
    assert _round(dont, press_unset=True)[-1]["error"] == "point_on"


def int_round_commission():
    # 5x free on 6, 10x max at 5%: odds of 3,000 behind 500 pay 5% of the 500 above the free 2,500 (25),
    # held with them; reduced to the free odds the 25 come back; won, the commission is kept
    steps = [{"act": "bet", "bet": "pass", "amount": 500}, _roll(3, 3), {"act": "odds", "bet": "pass", "amount": 3000}]
    placed = _round(steps)[-1]["table"]
    assert placed["bets"][0]["commission"] == 25 and placed["rack"] == 100_000 - 500 - 3000 - 25
    reduced = _round(steps + [{"act": "odds", "bet": "pass", "amount": 2500}])[-1]["table"]
    assert reduced["bets"][0]["commission"] == 0 and reduced["rack"] == 100_000 - 500 - 2500
    won = _round(steps + [_roll(2, 4)])[-1]["events"][0]
    assert (won["commission_taken"], won["commission_returned"], won["odds_win"]) == (25, 0, 3600)


_LIVE_CONFIG = {"unit": 100, "free_odds": {"4": "3", "5": "4", "6": "5", "8": "5", "9": "4", "10": "3"},
                "max_odds": {"4": "3", "5": "4", "6": "5", "8": "5", "9": "4", "10": "3"}, "commission_rate": "0",
                "commission_rounding": "down", "commission_unit": 1, "payout_rounding": "exact", "bar": 12,
                "house_rules": {}}


def _journal_with_a_table(state_dir):
    from tablecert.oracle.table_journal import TableJournal

    journal = TableJournal(state_dir)
    journal.handle("table.open", {"table": "t1", "config": _LIVE_CONFIG, "rack": 10_000})
    for seq, step in enumerate([{"act": "bet", "bet": "pass", "amount": 500}, _roll(3, 3)]):
        journal.handle("table.step", {"table": "t1", "seq": seq, "step": step})
    return journal


def int_live_recovery():
    # the reference restores eagerly at start, and its start writes nothing a cut could leave half done:
    # started again and again (a storm), the journal's bytes never change and the table is as it stood
    import os
    import tempfile

    from tablecert.oracle.table_journal import JOURNAL, TableJournal

    with tempfile.TemporaryDirectory() as state_dir:
        _journal_with_a_table(state_dir)
        path = os.path.join(state_dir, JOURNAL)
        before = open(path, "rb").read()
        for _ in range(3):
            restarted = TableJournal(state_dir)
            assert open(path, "rb").read() == before
        assert restarted.tables["t1"].resume() == {"steps": 2, "table": {"point": 6, "rack": 9_500, "bets": [
            {"bet": "pass", "flat": 500, "odds": 0, "commission": 0, "odds_working": True}]}}


def int_live_closed():
    import tempfile

    from tablecert.oracle.table_journal import LiveError, TableJournal

    with tempfile.TemporaryDirectory() as state_dir:
        _journal_with_a_table(state_dir).handle("table.close", {"table": "t1"})
        restarted = TableJournal(state_dir)
        for op, extra in (("table.step", {"seq": 2, "step": _roll(3, 3)}), ("table.resume", {}), ("table.recall", {}),
                          ("table.close", {})):
            with pytest.raises(LiveError) as refused:
                restarted.handle(op, {"table": "t1", **extra})
            assert refused.value.code == "no_such_table"
        assert restarted.handle("table.open", {"table": "t1", "config": _LIVE_CONFIG, "rack": 700}) == {
            "steps": 0, "table": {"point": None, "rack": 700, "bets": []}}
        assert TableJournal(state_dir).handle("table.recall", {"table": "t1"}) == {"games": []}


def _stations(steps, on_disable="keep", **house):
    one = {"4": "1", "5": "1", "6": "1", "8": "1", "9": "1", "10": "1"}
    table = parse_round_config(dict(raw_config(free_odds=one), house_rules=house))
    case = {"stations": [{"station": 1, "rack": 100_000}, {"station": 2, "rack": 100_000}], "on_disable": on_disable,
            "steps": steps}
    return case, play_stations(table, case)["steps"]


def int_disconnect_keep():
    # station 1's pass bet on a 4 plays on while it is away: the 4 made pays it 500; its bet while away is refused
    steps = [{"act": "bet", "station": 1, "bet": "pass", "amount": 500}, _roll(2, 2),
             {"act": "disconnect", "station": 1}, {"act": "bet", "station": 1, "bet": "come", "amount": 500},
             _roll(1, 3)]
    _, recs = _stations(steps)
    assert recs[3]["error"] == "station_disconnected"
    assert recs[4]["table"]["stations"][0]["rack"] == 100_000 + 500 and recs[4]["events"][0]["outcome"] == "win"


def int_disable_round():
    # odds of 2,500 behind 500 on a 6 (1x free, 5% above): 100 commission; a void hands back 500 + 2,500 + 100
    steps = [{"act": "bet", "station": 1, "bet": "pass", "amount": 500}, _roll(3, 3),
             {"act": "odds", "station": 1, "bet": "pass", "amount": 2500}, {"act": "disable"}, _roll(3, 3)]
    _, kept = _stations(steps)
    assert kept[3]["events"] == [] and kept[3]["table"]["point"] == 6 and kept[4]["error"] == "table_disabled"
    _, voided = _stations(steps, "void")
    assert voided[3]["table"]["stations"][0]["rack"] == 100_000 and voided[3]["table"]["point"] is None
    assert voided[3]["events"][0]["commission_returned"] == 100


def int_station_game():
    # station 2 never bets: no record; station 1's credits at the start are its rack before its bet
    case, recs = _stations([{"act": "bet", "station": 1, "bet": "pass", "amount": 500}, _roll(3, 4)])
    games = station_games(case, recs)
    assert games[2] == [] and games[1][0]["credits_start"] == 100_000 and games[1][0]["credits_end"] == 100_500
    assert meters_of(case, recs)["table"] == {"buy_ins": 200_000, "wagered": 500, "won": 500, "cashed_out": 0,
                                             "games_played": 1}


def int_paigow_game():
    # a settle refused, then one seat of 100 (nothing) against the dealer's nine high (100 to 1):
    # rack 1,000 -> 900 at the deal -> 900 + 10,000 won + 100 handed back = 11,000
    steps = [{"act": "settle"}, {"act": "deal", "dealer": NINE_HIGH, "bank_seat": None,
                                 "seats": [{"seat": 1, "wager": 100, "cards": NOTHING}]}, {"act": "settle"}]
    recs = play_paigow(4_000_000, {"rack": 1_000, "steps": steps})["steps"]
    assert books_of(1_000, steps[:1], recs[:1]).recall() == {"games": []}
    (game,) = books_of(1_000, steps[:2], recs[:2]).recall()["games"]
    assert (game["status"], game["credits_start"], game["credits_end"], len(game["steps"])) == ("in_progress", 1_000,
                                                                                                None, 2)
    books = books_of(1_000, steps, recs)
    (game,) = books.recall()["games"]
    assert (game["status"], game["credits_start"], game["credits_end"], game["wagers"], game["wins"]) == \
        ("complete", 1_000, 11_000, {"imperial_bonus": 100}, 10_000)
    assert books.meters() == {"seats": [{"seat": 1, "wagered": 100, "won": 10_000, "games_played": 1}],
                              "table": {"buy_ins": 1_000, "wagered": 100, "won": 10_000, "cashed_out": 0,
                                        "games_played": 1}}


CHECKS = {
    "INT-JOKER-ACE": int_joker_ace, "INT-ONE-WAGER": int_one_wager, "INT-CAP-AGGREGATE": int_cap_aggregate,
    "INT-ROYAL-JOKER": int_royal_joker, "INT-DONT-LIMIT-ON-WIN": int_dont_limit_on_win,
    "INT-COMMISSION-CAP": int_commission_cap, "INT-COMMISSION-BASE": int_commission_base,
    "INT-CAP-MINIMUM": int_cap_minimum, "INT-BANK-SEAT": int_bank_seat, "INT-BANKER-HIGH": int_banker_high,
    "INT-CRAPS-LINE-BETS": int_craps_line_bets, "INT-COMMISSION-ROUNDING-BASES": int_commission_rounding_bases,
    "INT-ODDS-RIGHT": int_odds_right, "INT-PAYOUT-WHOLE": int_payout_whole,
    "INT-ODDS-WORKING": int_odds_working, "INT-BONUS-WAGER-RETURNED": int_bonus_wager_returned,
    "INT-DONT-COME-ODDS": int_dont_come_odds, "INT-WORKING-CALL": int_working_call, "INT-BAR-PUSH": int_bar_push,
    "INT-TAKE-DOWN": int_take_down, "INT-ROUND-COMMISSION": int_round_commission, "INT-PRESS-UNSET": int_press_unset,
    "INT-LIVE-RECOVERY": int_live_recovery, "INT-LIVE-CLOSED": int_live_closed,


    "INT-DISCONNECT-KEEP": int_disconnect_keep, "INT-DISABLE-ROUND": int_disable_round,
    "INT-STATION-GAME": int_station_game, "INT-PAIGOW-GAME": int_paigow_game,
}


def test_every_interpretation_is_tested():
    assert set(interpretations()) == set(CHECKS)


@pytest.mark.parametrize("iid", sorted(CHECKS))
def test_interpretation(iid):
    CHECKS[iid]()
