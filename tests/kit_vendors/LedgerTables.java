package tablecert.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;

/**
 * A test vendor on the Java kit's shell (tests/kit_checks.py): live tables whose state is the rack
 * and every step played, so that a test can see the shell's journal replay exactly what was answered.
 */
public final class LedgerTables implements Vendor {
    public static void main(String[] args) throws Exception { Shell.serve(new LedgerTables()); }

    @Override public ObjectNode implementation() {
        return Shell.NODES.objectNode().put("name", "ledger tables").put("version", "1").put("build", "test");
    }

    @Override public List<String> ops() { return List.of("table.open", "table.step", "table.resume", "table.recall", "table.close"); }

    @Override public JsonNode tableOpen(JsonNode config, BigInteger rack, String game) {
        if (config == null || !config.isObject()) throw new ConfigError("config: must be an object");
        ObjectNode state = Shell.NODES.objectNode().put("rack", rack);
        state.putArray("played");
        return state;
    }

    @Override public JsonNode[] tableStep(JsonNode state, JsonNode step) {
        if (!step.isObject() || !step.has("act")) throw new CaseError("invalid_request", "a step is an object with an act");
        ArrayNode played = (ArrayNode) state.get("played");
        JsonNode record = Shell.NODES.objectNode().put("accepted", true).put("seen", played.size());
        played.add(step);
        return new JsonNode[] {record, state};
    }

    @Override public JsonNode tableView(JsonNode state) { return state; }

    @Override public JsonNode tableRecall(JsonNode state) { return Shell.NODES.arrayNode(); }
}
