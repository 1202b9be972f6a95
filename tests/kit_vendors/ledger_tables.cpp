// A test vendor on the C++ kit's shell (tests/kit_checks.py): live tables whose state is the rack and
// every step played, so that a test can see the shell's journal replay exactly what was answered.
#include "tablecert_vendor.hpp"

using tablecert::CaseError;
using tablecert::ConfigError;
using tablecert::Json;

class LedgerTables : public tablecert::Vendor {
public:
    Json implementation() const override { return {{"name", "ledger tables"}, {"version", "1"}, {"build", "test"}}; }
    std::vector<std::string> ops() const override {
        return {"table.open", "table.step", "table.resume", "table.recall", "table.close"};
    }
    Json table_open(const Json& config, int64_t rack, const std::string& game) override {
        if (!config.is_object()) throw ConfigError("config: must be an object");
        return {{"rack", rack}, {"played", Json::array()}};
    }
    Json table_step(Json& state, const Json& step) override {
        if (!step.is_object() || !step.contains("act")) throw CaseError("invalid_request", "a step is an object with an act");
        Json record = {{"accepted", true}, {"seen", state["played"].size()}};
        state["played"].push_back(step);
        return record;
    }
    Json table_view(const Json& state) override { return state; }
    Json table_recall(const Json& state) override { return Json::array(); }
};

int main() {
    LedgerTables vendor;
    return tablecert::serve(vendor);
}
