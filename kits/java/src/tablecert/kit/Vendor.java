package tablecert.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;

/**
 * The vendor: one method per op. {@link #ops()} names the ops implemented (declared in hello; the
 * harness sends no other); every other method keeps its default, which throws
 * UnsupportedOperationException. An op returns the case's result or throws {@link CaseError} (that
 * case refused) or {@link ConfigError} (every case of the request invalid_config).
 *
 * <p>Live tables ({@code table.*}): a table's state is whatever JSON the vendor keeps in it. The
 * shell journals each open and step in state_dir (one write, fsync'd, before the answer) and
 * replays them through these methods at start, so they must be pure functions of their inputs.
 */
public interface Vendor {
    ObjectNode implementation();    // {"name", "version", "build"}

    List<String> ops();

    default ObjectNode capabilities() { return null; }   // null declares everything

    default ObjectNode oddsLimits(JsonNode config, JsonNode c) { throw new UnsupportedOperationException("craps.odds_limits"); }
    default ObjectNode placeOdds(JsonNode config, JsonNode c) { throw new UnsupportedOperationException("craps.place_odds"); }
    default ObjectNode settle(JsonNode config, JsonNode c) { throw new UnsupportedOperationException("craps.settle"); }
    default ObjectNode round(JsonNode config, JsonNode c) { throw new UnsupportedOperationException("craps.round"); }
    default String playerLabel(JsonNode config, JsonNode c) { throw new UnsupportedOperationException("paigow.player_bonus"); }
    default String bankerLabel(JsonNode config, JsonNode c) { throw new UnsupportedOperationException("paigow.banker_bonus"); }
    default ObjectNode paigowSettle(JsonNode config, JsonNode c) { throw new UnsupportedOperationException("paigow.settle"); }

    /** A new table's state. */
    default JsonNode tableOpen(JsonNode config, BigInteger rack, String game) { throw new UnsupportedOperationException("table.open"); }
    /** One step on a copy of the state: the step's RECORD and the state after it. */
    default JsonNode[] tableStep(JsonNode state, JsonNode step) { throw new UnsupportedOperationException("table.step"); }
    /** The TABLE of table.resume. */
    default JsonNode tableView(JsonNode state) { throw new UnsupportedOperationException("table.resume"); }
    /** The GAMEs of table.recall, oldest first. */
    default JsonNode tableRecall(JsonNode state) { throw new UnsupportedOperationException("table.recall"); }
}
