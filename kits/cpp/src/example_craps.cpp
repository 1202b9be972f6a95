// The worked example: a vendor that implements craps.place_odds and craps.settle for real, on the
// kit's shell. Money is int64 minor units; odds ratios, multiples and rates exact fractions, the
// products in 128-bit integers (no floating point anywhere). Build: make; run: build/example.
#include "tablecert_vendor.hpp"

namespace {
using namespace tablecert;

struct Ratio { int64_t win, stake; };   // what `stake` of odds wins at true odds

bool is_dont(const std::string& bet) { return bet == "dont_pass" || bet == "dont_come"; }

Ratio odds_ratio(const std::string& bet, int point) {
    Ratio pass = point == 4 || point == 10 ? Ratio{2, 1} : point == 5 || point == 9 ? Ratio{3, 2} : Ratio{6, 5};
    return is_dont(bet) ? Ratio{pass.stake, pass.win} : pass;
}

i128 pow10(int n) { i128 p = 1; while (n-- > 0) p *= 10; return p; }

// The contract's checks 1-4 (invalid_request, invalid_bet, invalid_point, invalid_dice) on `fields`.
void read_case(const Json& c, std::initializer_list<const char*> fields) {
    if (!c.is_object()) throw CaseError("invalid_request", "a case must be an object");
    for (const char* f : fields)
        if (!c.contains(f)) throw CaseError("invalid_request", std::string("missing field '") + f + "'");
    for (std::string f : fields) {
        const Json& v = c[f];
        bool ok = f == "bet" ? v.is_string() : f == "point" ? v.is_null() || v.is_number_integer()
                : f == "dice" ? v.is_array() : f == "odds_working" ? v.is_boolean() : v.is_number_integer();
        if (!ok) throw CaseError("invalid_request", "'" + f + "' has the wrong JSON type");
    }
    const std::string bet = c["bet"];
    if (bet != "pass" && bet != "dont_pass" && bet != "come" && bet != "dont_come")
        throw CaseError("invalid_bet", "unknown bet " + bet);
    const Json& p = c["point"];
    if (!p.is_null() && !(p == 4 || p == 5 || p == 6 || p == 8 || p == 9 || p == 10))
        throw CaseError("invalid_point", "point must be null or 4, 5, 6, 8, 9, 10");
    if (fields.size() == 6) {   // settle's fields: the dice too
        const Json& d = c["dice"];
        bool ok = d.size() == 2;
        for (const Json& x : d) ok = ok && x.is_number_integer() && x >= 1 && x <= 6;
        if (!ok) throw CaseError("invalid_dice", "dice must be two integers from 1 to 6");
    }
}

// The largest odds a multiple allows behind `flat`, floored to the unit (the don't side limits the win).
int64_t odds_limit(const TableConfig& t, const std::string& bet, int64_t flat, int point, const Decimal& m) {
    Ratio r = is_dont(bet) ? odds_ratio(bet, point) : Ratio{1, 1};
    i128 units = m.num * flat * r.stake / (pow10(m.scale) * r.win * t.unit);
    return static_cast<int64_t>(units) * t.unit;
}

// Checks 7-8 on odds above 0: increments, a whole win under `exact`, the maximum.
void check_odds(const TableConfig& t, const std::string& bet, int64_t flat, int point, int64_t odds) {
    if (flat % t.unit) throw CaseError("bad_increment", "flat not a multiple of the unit");
    if (odds % t.unit) throw CaseError("bad_increment", "odds not a multiple of the unit");
    Ratio r = odds_ratio(bet, point);
    if (t.payout_rounding == "exact" && (i128)odds * r.win % r.stake)
        throw CaseError("bad_increment", "the odds would win a fraction of a minor unit");
    if (odds > odds_limit(t, bet, flat, point, t.max_odds.at(point)))
        throw CaseError("above_maximum", "odds above the maximum");
}

int64_t commission(const TableConfig& t, const std::string& bet, int64_t flat, int point, int64_t odds) {
    int64_t excess = std::max<int64_t>(odds - odds_limit(t, bet, flat, point, t.free_odds.at(point)), 0);
    Ratio r = is_dont(bet) ? odds_ratio(bet, point) : Ratio{1, 1};   // don't side: what the excess could win
    i128 n = t.commission_rate.num * excess * r.win;
    i128 d = pow10(t.commission_rate.scale) * r.stake * t.commission_unit;
    i128 k = t.commission_rounding == "down" ? n / d : t.commission_rounding == "up" ? (n + d - 1) / d
                                                                                    : (2 * n + d) / (2 * d);
    return static_cast<int64_t>(k) * t.commission_unit;
}

Json result(const char* outcome, int64_t flat, const char* flat_stake, int64_t flat_win = 0, int64_t odds = 0,
            const char* odds_stake = "none", int64_t odds_win = 0) {
    auto back = [](int64_t stake, const std::string& s) { return s == "won" || s == "returned" ? stake : 0; };
    return Json{{"outcome", outcome}, {"flat_win", flat_win}, {"odds_win", odds_win}, {"point", nullptr},
                {"flat_stake", flat_stake}, {"odds_stake", odds_stake},
                {"flat_returned", back(flat, flat_stake)}, {"odds_returned", back(odds, odds_stake)}};
}

class CrapsExample : public Vendor {
    Json last_config_;
    TableConfig table_;

    const TableConfig& table(const Json& config) {   // parsed once per request's config
        if (last_config_.is_null() || config != last_config_) { table_ = parse_table_config(config); last_config_ = config; }
        return table_;
    }

public:
    Json implementation() const override { return {{"name", "tablecert C++ kit example"}, {"version", "1.0"}, {"build", "cpp-example"}}; }
    std::vector<std::string> ops() const override { return {"craps.place_odds", "craps.settle"}; }

    Json place_odds(const Json& config, const Json& c) override {
        const TableConfig& t = table(config);
        read_case(c, {"bet", "flat", "point", "odds"});
        std::string bet = c["bet"];
        int64_t flat = c["flat"], odds = c["odds"];
        if (c["point"].is_null()) throw CaseError("no_point", "odds on a bet with no point");
        int point = c["point"];
        if (flat <= 0) throw CaseError("not_positive", "flat must be above 0");
        if (odds <= 0) throw CaseError("not_positive", "odds must be above 0");
        check_odds(t, bet, flat, point, odds);
        return {{"commission", commission(t, bet, flat, point, odds)}};
    }

    Json settle(const Json& config, const Json& c) override {
        const TableConfig& t = table(config);
        read_case(c, {"bet", "flat", "point", "odds", "dice", "odds_working"});
        std::string bet = c["bet"];
        int64_t flat = c["flat"], odds = c["odds"];
        bool no_point = c["point"].is_null(), dont = is_dont(bet);
        if (no_point && odds > 0) throw CaseError("no_point", "odds on a bet with no point");
        if (flat <= 0) throw CaseError("not_positive", "flat must be above 0");
        if (odds < 0) throw CaseError("not_positive", "odds must be 0 or more");
        if (odds > 0) check_odds(t, bet, flat, c["point"], odds);
        else if (flat % t.unit) throw CaseError("bad_increment", "flat not a multiple of the unit");
        int total = c["dice"][0].get<int>() + c["dice"][1].get<int>();
        if (no_point) {   // the come-out roll: no odds
            if (dont && total == t.bar) return result("push", flat, "returned");
            if (total == 7 || total == 11) return dont ? result("lose", flat, "taken") : result("win", flat, "won", flat);
            if (total == 2 || total == 3 || total == 12) return dont ? result("win", flat, "won", flat) : result("lose", flat, "taken");
            Json set = result("point", flat, "in_action");
            set["point"] = total;
            return set;
        }
        int point = c["point"];
        const char* odds_stake = odds ? "in_action" : "none";
        if (total != 7 && total != point) return result("no_action", flat, "in_action", 0, odds, odds_stake);
        if (odds && !c["odds_working"].get<bool>()) odds_stake = "returned";   // odds off: neither paid nor taken
        bool in_action = std::string(odds_stake) == "in_action";
        if ((total == point) == dont) return result("lose", flat, "taken", 0, odds, in_action ? "taken" : odds_stake);
        if (!in_action) return result("win", flat, "won", flat, odds, odds_stake);
        Ratio r = odds_ratio(bet, point);
        int64_t win = static_cast<int64_t>((i128)odds * r.win / r.stake);   // floored under `down`; whole under `exact`
        return result("win", flat, "won", flat, odds, "won", win);
    }
};

}  // namespace

int main() {
    CrapsExample vendor;
    return tablecert::serve(vendor);
}
