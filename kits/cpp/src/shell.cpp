// The protocol shell: framing (one JSON object a line), ids, hello with ops and capabilities,
// versions, batches, bye, request-level errors and the live tables' journal in state_dir.
// A vendor never edits this file; it implements tablecert::Vendor (tablecert_vendor.hpp).
#include "tablecert_vendor.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
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
        if (!vendor_.capabilities().empty()) answer["capabilities"] = vendor_.capabilities();
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
