// A test vendor on the TypeScript kit's shell (tests/kit_checks.py): live tables whose state is the
// rack and every step played, so that a test can see the shell's journal replay exactly what was answered.
import { Json, JsonObject, isObject } from "./json";
import { serve } from "./shell";
import { CaseError, ConfigError, Vendor } from "./vendor";

const ledger: Vendor = {
  implementation: { name: "ledger tables", version: "1", build: "test" },
  ops: ["table.open", "table.step", "table.resume", "table.recall", "table.close"],
  tableOpen(config, rack) {
    if (!isObject(config)) throw new ConfigError("config: must be an object");
    return { rack, played: [] };
  },
  tableStep(state, step) {
    if (!isObject(step) || !("act" in step)) throw new CaseError("invalid_request", "a step is an object with an act");
    const played = (state as JsonObject).played as Json[];
    return { record: { accepted: true, seen: BigInt(played.length) }, state: { ...(state as JsonObject), played: [...played, step] } };
  },
  tableView: (state) => state,
  tableRecall: () => [],
};

serve(ledger);
