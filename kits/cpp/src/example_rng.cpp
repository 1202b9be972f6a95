// A worked example of the raw stream and the scaling (rng.raw, rng.scale, rng.paired) on 32-bit
// words: the generator is std::mt19937 (the Mersenne Twister) seeded from std::random_device; a
// value in 0..k-1 is made by rejection (a word at or above 2^32 - (2^32 mod k) is refused and the
// next word drawn), then w mod k; the shuffle is Fisher-Yates from the top (for i = n-1 .. 1, swap
// i with a value in 0..i made as above). rng.scale and rng.paired run the same functions, so what
// the harness proves on chosen words is what deals. tablecert measures its --scaling exhaustive
// speed with it (docs/labs/rng.md). `example_rng modulo` scales by w mod k with no rejection (a
// biased scaler, 2^32 mod 6 = 4 faces one word more likely: the fault --scaling exhaustive settles).
#include <random>

#include "tablecert_vendor.hpp"

using tablecert::CaseError;
using tablecert::Json;

namespace {

const int WIDTH = 32;
const uint64_t TOP = uint64_t(1) << WIDTH;
bool modulo_only = false;       // `example_rng modulo`: w mod k, no rejection (the fault)

// One value in 0..k-1 from the words from `at`: advances `at` past the words used; false when the
// words ran out before a value (the words used so far are then left for the next request).
bool value(const std::vector<uint64_t>& words, size_t& at, uint64_t k, uint64_t& out) {
    const uint64_t limit = modulo_only ? TOP : TOP - TOP % k;
    while (at < words.size()) {
        const uint64_t w = words[at++];
        if (w < limit) {
            out = w % k;
            return true;
        }
    }
    return false;
}

// One outcome of `kind` from the words from `at`, as JSON; false when the words ran out.
bool outcome(const std::string& kind, uint64_t n, const std::vector<uint64_t>& words, size_t& at, Json& out) {
    if (kind != "shuffle") {
        uint64_t v;
        if (!value(words, at, n, v)) return false;
        out = v;
        return true;
    }
    std::vector<int> deck(n);
    for (uint64_t i = 0; i < n; ++i) deck[i] = static_cast<int>(i);
    for (uint64_t top = n - 1; top >= 1; --top) {
        uint64_t j;
        if (!value(words, at, top + 1, j)) return false;
        std::swap(deck[top], deck[j]);
    }
    out = deck;
    return true;
}

// The case's kind and n, checked as the contract states them.
std::pair<std::string, uint64_t> kind_of(const Json& c) {
    const Json kind = c.value("kind", Json()), n = c.value("n", Json());
    if (!kind.is_string() || !n.is_number_unsigned()) throw CaseError("invalid_request", "'kind' and 'n' are required");
    const std::string k = kind.get<std::string>();
    const uint64_t size = n.get<uint64_t>();
    if (!((k == "die" && size == 6) || (k == "shuffle" && size == 53) || (k == "range" && size >= 1 && size <= TOP)))
        throw CaseError("invalid_request", "kind die (n 6), shuffle (n 53) or range (n 1..2^32)");
    return {k, size};
}

class RngVendor : public tablecert::Vendor {
public:
    RngVendor() : generator_(std::random_device{}()) {}

    Json implementation() const override {
        return {{"name", "tablecert C++ kit: rng example"}, {"version", "1.1"}, {"build", "kit"}};
    }
    std::vector<std::string> ops() const override { return {"rng.raw", "rng.scale", "rng.paired"}; }
    Json rng() const override {
        return {{"raw_bits", WIDTH}, {"packed", true},
                {"scale", "rng.scale and rng.paired run the same functions (example_rng.cpp: value, outcome)"}};
    }

    Json rng_raw(const Json& c) override {
        const Json n = c.value("words", Json());
        if (!n.is_number_unsigned() || n.get<uint64_t>() < 1 || n.get<uint64_t>() > 262144)
            throw CaseError("invalid_request", "'words' must be 1..262,144");
        return {{"words", tablecert::words_base64(draw(n.get<uint64_t>()), WIDTH)}};
    }

    Json rng_scale(const Json& c) override {
        const auto [kind, n] = kind_of(c);
        const Json text = c.value("words", Json());
        if (!text.is_string()) throw CaseError("invalid_request", "'words' must be base64 text");
        const std::vector<uint64_t> words = tablecert::base64_words(text.get<std::string>(), WIDTH);
        if (c.value("packed", false) && kind != "shuffle") {     // since 1.1: outcomes and counts as base64 words
            std::vector<uint64_t> values, counts;
            size_t at = 0;
            uint64_t v;
            while (at < words.size()) {
                const size_t start = at;
                if (!value(words, at, n, v)) break;
                values.push_back(v);
                counts.push_back(at - start);
            }
            return {{"outcomes", tablecert::words_base64(values, WIDTH)}, {"consumed", tablecert::words_base64(counts, WIDTH)}};
        }
        Json outcomes = Json::array(), consumed = Json::array();
        size_t at = 0;
        while (at < words.size()) {
            const size_t start = at;
            Json out;
            if (!outcome(kind, n, words, at, out)) break;
            outcomes.push_back(std::move(out));
            consumed.push_back(at - start);
        }
        return {{"outcomes", std::move(outcomes)}, {"consumed", std::move(consumed)}};
    }

    Json rng_paired(const Json& c) override {
        const auto [kind, n] = kind_of(c);
        const Json count = c.value("count", Json());
        if (!count.is_number_unsigned() || count.get<uint64_t>() < 1 || count.get<uint64_t>() > 10000)
            throw CaseError("invalid_request", "'count' must be 1..10,000");
        Json outcomes = Json::array(), consumed = Json::array();
        std::vector<uint64_t> dealt;
        for (uint64_t i = 0; i < count.get<uint64_t>(); ++i) {
            std::vector<uint64_t> words;
            size_t at = 0;
            Json out;
            while (true) {                      // the production path: draw words until they make an outcome
                words.push_back(generator_());
                at = 0;
                if (outcome(kind, n, words, at, out)) break;
            }
            outcomes.push_back(std::move(out));
            consumed.push_back(words.size());
            dealt.insert(dealt.end(), words.begin(), words.end());
        }
        return {{"outcomes", std::move(outcomes)}, {"consumed", std::move(consumed)},
                {"words", tablecert::words_base64(dealt, WIDTH)}};
    }

private:
    std::vector<uint64_t> draw(uint64_t n) {
        std::vector<uint64_t> out(n);
        for (auto& w : out) w = generator_();
        return out;
    }

    std::mt19937 generator_;
};

}  // namespace

int main(int argc, char** argv) {
    modulo_only = argc > 1 && std::string(argv[1]) == "modulo";
    RngVendor vendor;
    return tablecert::serve(vendor);
}
