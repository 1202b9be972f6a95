// The tablecert-vendor/2 kit for C++: the one interface a vendor implements (class Vendor), the
// errors an op throws, the table config with exact decimals, and serve(), the protocol shell.
// JSON through nlohmann-json (Debian nlohmann-json3-dev); money as int64 minor units; multiples
// and rates as exact fractions (Decimal); the arithmetic on them in 128-bit integers.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

namespace tablecert {

using Json = nlohmann::ordered_json;
using i128 = __int128;

// A case refused with one of the contract's codes ("invalid_bet", "bad_increment", ...).
struct CaseError : std::runtime_error {
    std::string code;
    CaseError(std::string c, const std::string& message) : std::runtime_error(message), code(std::move(c)) {}
};
// A malformed config: every case of the request is answered invalid_config.
struct ConfigError : std::runtime_error { using std::runtime_error::runtime_error; };
// An op this vendor does not implement (the default of every Vendor method).
struct Unsupported : std::runtime_error { using std::runtime_error::runtime_error; };

// A plain non-negative decimal string ("2.5", "0.05") as the exact fraction num / 10^scale.
struct Decimal {
    i128 num = 0;
    int scale = 0;
};

// A well-formed craps table config (the contract's "Craps" section), points 4..10 indexed by point.
struct TableConfig {
    int64_t unit = 0;
    std::map<int, Decimal> free_odds, max_odds;
    Decimal commission_rate;
    std::string commission_rounding, payout_rounding;
    int64_t commission_unit = 0;
    int bar = 12;
};

// Parses and checks a craps config in the contract's order; throws ConfigError naming the field.
TableConfig parse_table_config(const Json& config);

// The vendor: one method per op. Each default throws Unsupported; ops() names the ops implemented
// (declared in hello; the harness sends no other). An op returns the case's result object or
// throws CaseError (that case refused) or ConfigError (every case of the request invalid_config).
class Vendor {
public:
    virtual ~Vendor() = default;
    virtual Json implementation() const = 0;                  // {"name", "version", "build"}
    virtual std::vector<std::string> ops() const = 0;
    virtual Json capabilities() const { return Json::object(); }  // {} declares everything

    virtual Json odds_limits(const Json& config, const Json& c) { throw Unsupported("craps.odds_limits"); }
    virtual Json place_odds(const Json& config, const Json& c) { throw Unsupported("craps.place_odds"); }
    virtual Json settle(const Json& config, const Json& c) { throw Unsupported("craps.settle"); }
    virtual Json round(const Json& config, const Json& c) { throw Unsupported("craps.round"); }
    virtual std::string player_label(const Json& config, const Json& c) { throw Unsupported("paigow.player_bonus"); }
    virtual std::string banker_label(const Json& config, const Json& c) { throw Unsupported("paigow.banker_bonus"); }
    virtual Json paigow_settle(const Json& config, const Json& c) { throw Unsupported("paigow.settle"); }

    // Live tables (table.*): a table's state is whatever JSON the vendor keeps in it. The shell
    // journals each open and step in state_dir (one write, fsync'd, before the answer) and replays
    // them through these methods at start, so they must be pure functions of their inputs.
    virtual Json table_open(const Json& config, int64_t rack, const std::string& game) { throw Unsupported("table.open"); }
    virtual Json table_step(Json& state, const Json& step) { throw Unsupported("table.step"); }  // -> RECORD
    virtual Json table_view(const Json& state) { throw Unsupported("table.resume"); }            // -> TABLE
    virtual Json table_recall(const Json& state) { throw Unsupported("table.recall"); }          // -> [GAME]

    // The raw stream and the scaling (contract "The raw stream and the scaling"): rng() is hello's
    // "rng" declaration ({"raw_bits": W, "scale": "..."}; null: none); the three ops take one case
    // each. Words travel as base64 of W-bit big-endian words (base64_words / words_base64 below).
    virtual Json rng() const { return Json(); }
    virtual Json rng_raw(const Json& c) { throw Unsupported("rng.raw"); }
    virtual Json rng_scale(const Json& c) { throw Unsupported("rng.scale"); }
    virtual Json rng_paired(const Json& c) { throw Unsupported("rng.paired"); }
};

// W-bit big-endian words (W = 8, 16, 32, 64) from base64, and back; base64_words throws CaseError
// ("invalid_request") on text that is not base64 of whole words.
std::vector<uint64_t> base64_words(const std::string& text, int width);
std::string words_base64(const std::vector<uint64_t>& words, int width);

// Answers requests on stdin, one JSON line each, until bye or end of input; returns the exit status.
int serve(Vendor& vendor);

}  // namespace tablecert
