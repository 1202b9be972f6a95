// The protocol shell: framing (one JSON object a line), ids, hello with ops and capabilities,
// versions, batches, bye, request-level errors and the live tables' journal in state_dir.
// A vendor never edits this file; it implements tablecert::Vendor (tablecert_vendor.hpp).
#include "tablecert_vendor.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tablecert {
namespace {

const char* PROTOCOL = "tablecert-vendor/2";
const char* JOURNAL = "/tables.journal";

Json error(const std::string& code, const std::string& message) {
    return Json{{"code", code}, {"message", message}};
}

Json with_id(const Json& id, const char* key, Json value) {
    Json answer{{"id", id}};
    answer[key] = std::move(value);
    return answer;
}

bool is_int(const Json& v) { return v.is_number_integer(); }  // a JSON boolean is not an integer

// Since 1.0: build.authenticate, the keyed digests (HMAC-SHA256, RFC 2104 over FIPS 180-4) of the
// vendor's own files, for the harness's seed.
const char* AUTHENTICATE = "build.authenticate";

std::string sha256(const std::string& data) {
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    auto rot = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::string padded = data + '\x80';
    while (padded.size() % 64 != 56) padded += '\0';
    const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
    for (int i = 7; i >= 0; --i) padded += static_cast<char>(bits >> (8 * i));
    uint32_t w[64];
    for (size_t b = 0; b < padded.size(); b += 64) {
        for (int t = 0; t < 16; ++t) {
            w[t] = 0;
            for (int j = 0; j < 4; ++j) w[t] = w[t] << 8 | static_cast<unsigned char>(padded[b + 4 * t + j]);
        }
        for (int t = 16; t < 64; ++t)
            w[t] = w[t - 16] + (rot(w[t - 15], 7) ^ rot(w[t - 15], 18) ^ (w[t - 15] >> 3)) + w[t - 7] +
                   (rot(w[t - 2], 17) ^ rot(w[t - 2], 19) ^ (w[t - 2] >> 10));
        uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (int t = 0; t < 64; ++t) {
            const uint32_t t1 = hh + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + k[t] + w[t];
            const uint32_t t2 = (rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
            hh = g; g = f; f = e; e = d + t1; d = c; c = bb; bb = a; a = t1 + t2;
        }
        h[0] += a; h[1] += bb; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
    }
    std::string out;
    for (int i = 0; i < 32; ++i) out += static_cast<char>(h[i / 4] >> (24 - 8 * (i % 4)));
    return out;
}

std::string hmac_hex(std::string key, const std::string& data) {
    if (key.size() > 64) key = sha256(key);
    key.resize(64, '\0');
    std::string inner(64, '\0'), outer(64, '\0');
    for (int i = 0; i < 64; ++i) { inner[i] = key[i] ^ 0x36; outer[i] = key[i] ^ 0x5c; }
    const std::string digest = sha256(outer + sha256(inner + data));
    static const char* hex = "0123456789abcdef";
    std::string text;
    for (unsigned char c : digest) { text += hex[c >> 4]; text += hex[c & 15]; }
    return text;
}

// The keyed digest of the file `name` under `root` (no link followed on the way, nothing but a
// regular file read), or null.
Json keyed_file(const std::string& root, const std::string& name, const std::string& key) {
    if (name.empty() || name[0] == '/') return nullptr;
    int dir = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return nullptr;
    std::string rest = name;
    for (;;) {
        const size_t slash = rest.find('/');
        const std::string part = rest.substr(0, slash);
        if (part.empty() || part == "." || part == "..") { close(dir); return nullptr; }
        const bool last = slash == std::string::npos;
        const int fd = openat(dir, part.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY));
        close(dir);
        if (fd < 0) return nullptr;
        if (!last) { dir = fd; rest = rest.substr(slash + 1); continue; }
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); return nullptr; }
        std::string data;
        char chunk[1 << 16];
        ssize_t n;
        while ((n = read(fd, chunk, sizeof chunk)) > 0) data.append(chunk, static_cast<size_t>(n));
        close(fd);
        if (n < 0) return nullptr;
        return hmac_hex(key, data);
    }
}

// build.authenticate's result: the files' keyed digests, paths relative to the program's folder.
Json authenticate(const Json& request) {
    const Json seed = request.value("seed", Json()), files = request.value("files", Json());
    if (!seed.is_string() || !files.is_array()) throw CaseError("invalid_request", "build.authenticate takes 'seed' (hex) and 'files' (a list of paths)");
    const std::string hex = seed.get<std::string>();
    if (hex.empty() || hex.size() % 2 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        throw CaseError("invalid_request", "'seed' must be hex");
    std::string key;
    for (size_t i = 0; i < hex.size(); i += 2) key += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    char exe[4096];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    std::string root = len > 0 ? std::string(exe, static_cast<size_t>(len)) : ".";
    root = root.substr(0, root.rfind('/'));
    Json answers = Json::object();
    for (const Json& f : files) {
        if (!f.is_string()) throw CaseError("invalid_request", "'files' must be a list of paths");
        answers[f.get<std::string>()] = keyed_file(root, f.get<std::string>(), key);
    }
    return Json{{"files", answers}};
}

bool table_id(const Json& id) {   // 1 to 64 letters, digits, '.', '_' or '-'
    if (!id.is_string()) return false;
    const std::string& s = id.get_ref<const std::string&>();
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
    return !s.empty() && s.size() <= 64;
}

// The live tables of one state_dir: an append-only journal, each entry fsync'd before the
// answer, replayed at start (a last line cut short by a kill was never answered: dropped).
class Journal {
public:
    struct Table { Json state; int64_t steps = 0; };

    Journal(Vendor& vendor, const std::string& state_dir) : vendor_(vendor), path_(state_dir + JOURNAL) {
        std::ifstream in(path_, std::ios::binary);
        std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        size_t whole = data.rfind('\n') == std::string::npos ? 0 : data.rfind('\n') + 1;
        if (whole != data.size() && truncate(path_.c_str(), static_cast<off_t>(whole)) != 0)
            throw std::runtime_error("cannot truncate the journal's cut last line");
        std::istringstream lines(data.substr(0, whole));
        for (std::string line; std::getline(lines, line);) apply(Json::parse(line));
        fd_ = open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd_ < 0) throw std::runtime_error("cannot open " + path_);
    }

    Json handle(const std::string& op, const Json& request) {
        const Json id = request.value("table", Json());
        if (!table_id(id))
            throw CaseError("invalid_request", "'table' must be 1 to 64 letters, digits, '.', '_' or '-'");
        const std::string name = id.get<std::string>();
        if (op == "table.open") {
            if (tables_.count(name)) throw CaseError("table_exists", "table " + name + " is open");
            const Json rack = request.value("rack", Json());
            if (!is_int(rack) || rack.get<int64_t>() < 0 || rack.get<int64_t>() > 9007199254740991LL)
                throw CaseError("invalid_request", "'rack' must be an integer from 0 to 2^53 - 1");
            const Json game = request.value("game", Json("craps"));
            if (game != "craps" && game != "paigow") throw CaseError("invalid_request", "'game' must be craps or paigow");
            Json entry{{"open", name}, {"config", request.value("config", Json())}, {"rack", rack}, {"game", game}};
            Table table = open_table(entry);       // throws before anything is journaled
            append(entry);
            tables_[name] = table;
            return Json{{"steps", 0}, {"table", vendor_.table_view(table.state)}};
        }
        auto found = tables_.find(name);
        if (found == tables_.end()) throw CaseError("no_such_table", "no open table " + name);
        Table& table = found->second;
        if (op == "table.step") {
            const Json seq = request.value("seq", Json());
            if (!is_int(seq) || seq.get<int64_t>() != table.steps)
                throw CaseError("out_of_sequence", "the table has played " + std::to_string(table.steps) + " steps");
            const Json step = request.value("step", Json());
            Table next = table;
            Json record = vendor_.table_step(next.state, step);  // may refuse: nothing journaled
            append(Json{{"step", name}, {"seq", seq}, {"act", step}});
            next.steps += 1;
            table = std::move(next);
            return record;
        }
        if (op == "table.resume") return Json{{"steps", table.steps}, {"table", vendor_.table_view(table.state)}};
        if (op == "table.recall") return Json{{"games", vendor_.table_recall(table.state)}};
        append(Json{{"close", name}});
        tables_.erase(found);
        return Json::object();
    }

private:
    Table open_table(const Json& entry) {
        try {
            return Table{vendor_.table_open(entry["config"], entry["rack"].get<int64_t>(), entry["game"]), 0};
        } catch (const ConfigError& err) {
            throw CaseError("invalid_config", err.what());
        }
    }

    void apply(const Json& entry) {       // replay: what the entry did when it was answered
        if (entry.contains("open")) {
            tables_[entry["open"]] = open_table(entry);
        } else if (entry.contains("close")) {
            tables_.erase(entry["close"].get<std::string>());
        } else {
            Table& table = tables_.at(entry["step"].get<std::string>());
            vendor_.table_step(table.state, entry["act"]);
            table.steps += 1;
        }
    }

    void append(const Json& entry) {     // one write, on disk before the answer is sent
        const std::string line = entry.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
        if (write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size()) || fsync(fd_) != 0)
            throw std::runtime_error("journal write failed");
    }

    Vendor& vendor_;
    std::string path_;
    int fd_ = -1;
    std::map<std::string, Table> tables_;
};

const char* const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::vector<uint64_t> base64_words(const std::string& text, int width) {
    int value[256];
    for (int& v : value) v = -1;
    for (int i = 0; i < 64; ++i) value[static_cast<unsigned char>(B64[i])] = i;
    if (text.size() % 4) throw CaseError("invalid_request", "'words' is not base64 (its length is not a multiple of 4)");
    std::vector<uint8_t> bytes;
    bytes.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        int q[4], pad = 0;
        for (int j = 0; j < 4; ++j) {
            const char ch = text[i + j];
            if (ch == '=' && i + 4 == text.size() && j >= 2) { q[j] = 0; ++pad; continue; }
            q[j] = value[static_cast<unsigned char>(ch)];
            if (q[j] < 0 || pad) throw CaseError("invalid_request", "'words' is not base64");
        }
        const uint32_t n = (q[0] << 18) | (q[1] << 12) | (q[2] << 6) | q[3];
        bytes.push_back(n >> 16);
        if (pad < 2) bytes.push_back((n >> 8) & 0xFF);
        if (pad < 1) bytes.push_back(n & 0xFF);
    }
    const size_t size = width / 8;
    if (bytes.size() % size) throw CaseError("invalid_request", "'words' is not a whole number of words");
    std::vector<uint64_t> words(bytes.size() / size);
    for (size_t w = 0; w < words.size(); ++w) {
        uint64_t x = 0;
        for (size_t b = 0; b < size; ++b) x = (x << 8) | bytes[w * size + b];
        words[w] = x;
    }
    return words;
}

std::string words_base64(const std::vector<uint64_t>& words, int width) {
    const size_t size = width / 8;
    std::vector<uint8_t> bytes;
    bytes.reserve(words.size() * size);
    for (uint64_t x : words)
        for (size_t b = size; b-- > 0;) bytes.push_back((x >> (8 * b)) & 0xFF);
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const size_t left = bytes.size() - i;
        const uint32_t n = (bytes[i] << 16) | ((left > 1 ? bytes[i + 1] : 0) << 8) | (left > 2 ? bytes[i + 2] : 0);
        out += B64[(n >> 18) & 63];
        out += B64[(n >> 12) & 63];
        out += left > 1 ? B64[(n >> 6) & 63] : '=';
        out += left > 2 ? B64[n & 63] : '=';
    }
    return out;
}

namespace {

bool is_live(const std::string& op) {
    return op == "table.open" || op == "table.step" || op == "table.resume" || op == "table.recall" ||
           op == "table.close";
}

Json one_case(Vendor& vendor, const std::string& op, const Json& config, const Json& c) {
    if (op == "craps.odds_limits") return vendor.odds_limits(config, c);
    if (op == "craps.place_odds") return vendor.place_odds(config, c);
    if (op == "craps.settle") return vendor.settle(config, c);
    if (op == "craps.round") return vendor.round(config, c);
    if (op == "paigow.player_bonus") return Json{{"hand", vendor.player_label(config, c)}};
    if (op == "paigow.banker_bonus") return Json{{"hand", vendor.banker_label(config, c)}};
    if (op == "paigow.settle") return vendor.paigow_settle(config, c);
    if (op == "rng.raw") return vendor.rng_raw(c);
    if (op == "rng.scale") return vendor.rng_scale(c);
    if (op == "rng.paired") return vendor.rng_paired(c);
    throw Unsupported(op);
}

class Session {
public:
    explicit Session(Vendor& vendor) : vendor_(vendor) {
        for (const auto& op : vendor.ops()) declared_.insert({op, true});
    }

    // One answer for one request line; sets done after bye.
    Json answer(const std::string& line, bool& done) {
        Json request;
        try {
            request = Json::parse(line);
        } catch (const Json::exception& err) {
            return with_id(nullptr, "error", error("invalid_request", std::string("not JSON: ") + err.what()));
        }
        if (!request.is_object()) return with_id(nullptr, "error", error("invalid_request", "a request must be a JSON object"));
        const Json id = request.value("id", Json());
        if (!is_int(id)) return with_id(nullptr, "error", error("invalid_request", "'id' must be an integer"));
        const Json op_json = request.value("op", Json());
        const std::string op = op_json.is_string() ? op_json.get<std::string>() : "";
        if (op == "hello") return hello(id, request);
        if (op == "bye") { done = true; return Json{{"id", id}}; }
        if (op == AUTHENTICATE) {
            try {
                return with_id(id, "result", authenticate(request));
            } catch (const CaseError& err) {
                return with_id(id, "error", error(err.code, err.what()));
            }
        }
        if (!declared_.count(op)) return with_id(id, "error", error("unknown_op", "unknown op '" + op + "'"));
        if (is_live(op)) return live(id, op, request);
        const Json cases = request.value("cases", Json());
        if (!cases.is_array()) return with_id(id, "error", error("invalid_request", "'cases' must be a list"));
        return with_id(id, "results", batch(op, request.value("config", Json()), cases));
    }

private:
    Json hello(const Json& id, const Json& request) {
        if (request.value("protocol", Json()) != PROTOCOL)
            return with_id(id, "error", error("unsupported_protocol", std::string("this vendor speaks ") + PROTOCOL));
        const Json state_dir = request.value("state_dir", Json());
        if (state_dir.is_string()) {
            try {
                journal_.reset(new Journal(vendor_, state_dir.get<std::string>()));
            } catch (const std::exception& err) {
                return with_id(id, "error", error("invalid_request", std::string("state_dir: ") + err.what()));
            }
        }
        Json answer{{"id", id}, {"protocol", PROTOCOL}, {"implementation", vendor_.implementation()},
                    {"ops", vendor_.ops()}};
        answer["ops"].push_back(AUTHENTICATE);
        if (!vendor_.capabilities().empty()) answer["capabilities"] = vendor_.capabilities();
        if (!vendor_.rng().is_null()) answer["rng"] = vendor_.rng();
        return answer;
    }

    Json batch(const std::string& op, const Json& config, const Json& cases) {
        Json results = Json::array();
        for (const Json& c : cases) {
            try {
                results.push_back(one_case(vendor_, op, config, c));
            } catch (const CaseError& err) {
                results.push_back(Json{{"error", error(err.code, err.what())}});
            } catch (const ConfigError& err) {
                results.push_back(Json{{"error", error("invalid_config", err.what())}});
            }
        }
        return results;
    }

    Json live(const Json& id, const std::string& op, const Json& request) {
        if (!journal_) return with_id(id, "error", error("no_state_dir", "the hello named no state_dir"));
        try {
            return with_id(id, "result", journal_->handle(op, request));
        } catch (const CaseError& err) {
            return with_id(id, "error", error(err.code, err.what()));
        }
    }

    Vendor& vendor_;
    std::map<std::string, bool> declared_;
    std::unique_ptr<Journal> journal_;
};

}  // namespace

int serve(Vendor& vendor) {
    std::ios::sync_with_stdio(false);
    Session session(vendor);
    bool done = false;
    for (std::string line; !done && std::getline(std::cin, line);) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::cout << session.answer(line, done).dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
        std::cout.flush();
    }
    return 0;
}

}  // namespace tablecert
