// The craps table config of the contract, parsed and checked in the contract's order (the first
// fault is named): keys present, no other key, unit, free_odds, max_odds (each point a plain
// decimal string), free <= max per point, commission_rate, commission_rounding, commission_unit,
// payout_rounding, bar. Decimals are exact: digits as an integer over a power of ten.
#include "tablecert_vendor.hpp"


namespace tablecert {
namespace {

const char* KEYS[] = {"unit", "free_odds", "max_odds", "commission_rate", "commission_rounding",
                      "commission_unit", "payout_rounding", "bar"};
const int POINTS[] = {4, 5, 6, 8, 9, 10};

// The contract's decimal string: 0|[1-9][0-9]* with an optional . and digits, at most 100 characters.
bool plain_decimal(const std::string& s) {
    size_t dot = s.find('.'), whole = dot == std::string::npos ? s.size() : dot;
    auto digits = [&](size_t from, size_t to) {
        for (size_t i = from; i < to; ++i) if (s[i] < '0' || s[i] > '9') return false;
        return to > from;
    };
    return s.size() <= 100 && digits(0, whole) && (s[0] != '0' || whole == 1) &&
           (dot == std::string::npos || digits(dot + 1, s.size()));
}

Decimal parse_decimal(const Json& text, const std::string& field) {
    if (!text.is_string()) throw ConfigError(field + ": must be a decimal string");
    std::string s = text.get<std::string>();
    if (!plain_decimal(s)) throw ConfigError(field + ": not a plain decimal string");
    size_t dot = s.find('.');
    std::string digits = s;
    int scale = 0;
    if (dot != std::string::npos) {
        std::string frac = s.substr(dot + 1);
        while (!frac.empty() && frac.back() == '0') frac.pop_back();  // same value, smaller scale
        digits = s.substr(0, dot) + frac;
        scale = static_cast<int>(frac.size());
    }
    size_t lead = digits.find_first_not_of('0');
    digits = lead == std::string::npos ? "0" : digits.substr(lead);
    if (digits.size() > 18 || scale > 18)   // beyond 128-bit exact arithmetic with 2^53 amounts
        throw ConfigError(field + ": more than 18 significant digits (this kit's exact range)");
    Decimal d;
    for (char ch : digits) d.num = d.num * 10 + (ch - '0');
    d.scale = scale;
    return d;
}

int64_t positive_int(const Json& config, const std::string& key) {
    const Json& v = config[key];
    if (!v.is_number_integer() || v.get<int64_t>() <= 0 || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
        throw ConfigError(key + ": must be a positive integer of minor units");
    return v.get<int64_t>();
}

std::map<int, Decimal> multiples(const Json& config, const std::string& key) {
    const Json& table = config[key];
    if (!table.is_object()) throw ConfigError(key + ": must be an object keyed \"4\"..\"10\"");
    for (int p : POINTS)
        if (!table.contains(std::to_string(p))) throw ConfigError(key + "." + std::to_string(p) + ": missing point");
    if (table.size() != 6) throw ConfigError(key + ": holds a key that is not a point");
    std::map<int, Decimal> out;
    for (int p : POINTS) out[p] = parse_decimal(table[std::to_string(p)], key + "." + std::to_string(p));
    return out;
}

bool less(const Decimal& a, const Decimal& b) {   // a < b, exactly
    i128 x = a.num, y = b.num;
    for (int i = a.scale; i < b.scale; ++i) x *= 10;
    for (int i = b.scale; i < a.scale; ++i) y *= 10;
    return x < y;
}

std::string choice(const Json& config, const std::string& key, std::initializer_list<const char*> allowed) {
    const Json& v = config[key];
    for (const char* a : allowed)
        if (v.is_string() && v == a) return a;
    throw ConfigError(key + ": not an allowed value");
}

}  // namespace

TableConfig parse_table_config(const Json& config) {
    if (!config.is_object()) throw ConfigError("config: must be an object");
    for (const char* key : KEYS)
        if (!config.contains(key)) throw ConfigError(std::string(key) + ": missing");
    if (config.size() != sizeof(KEYS) / sizeof(KEYS[0])) throw ConfigError("config: unknown field");
    TableConfig t;
    t.unit = positive_int(config, "unit");
    t.free_odds = multiples(config, "free_odds");
    t.max_odds = multiples(config, "max_odds");
    for (int p : POINTS)
        if (less(t.max_odds[p], t.free_odds[p])) throw ConfigError("free_odds." + std::to_string(p) + ": above max_odds");
    t.commission_rate = parse_decimal(config["commission_rate"], "commission_rate");
    t.commission_rounding = choice(config, "commission_rounding", {"down", "nearest", "up"});
    t.commission_unit = positive_int(config, "commission_unit");
    t.payout_rounding = choice(config, "payout_rounding", {"exact", "down"});
    const Json& bar = config["bar"];
    if (!bar.is_number_integer() || (bar != 12 && bar != 2)) throw ConfigError("bar: must be 12 or 2");
    t.bar = bar.get<int>();
    return t;
}

}  // namespace tablecert
