package tablecert.kit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The protocol shell: framing (one JSON object a line), ids, hello with ops and capabilities,
 * versions, batches, bye, request-level errors and the live tables' journal in state_dir. A vendor
 * never edits this file; it implements {@link Vendor} and calls {@link #serve(Vendor)}.
 */
public final class Shell {
    static final String PROTOCOL = "tablecert-vendor/2";
    static final List<String> LIVE_OPS = List.of("table.open", "table.step", "table.resume", "table.recall", "table.close");
    /** Since 1.0: the keyed digests of the vendor's own files, for the harness's seed. */
    static final String AUTHENTICATE = "build.authenticate";
    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Vendor vendor;
    private Journal journal;
    private boolean done;

    private Shell(Vendor vendor) { this.vendor = vendor; }

    /** Answers requests on stdin, one JSON line each, until bye or end of input; then exits 0. */
    public static void serve(Vendor vendor) throws IOException {
        Shell shell = new Shell(vendor);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        // The protocol owns standard output: whatever else the program prints goes to standard error.
        Writer out = new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8);
        System.setOut(System.err);
        for (String line; !shell.done && (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            out.write(JSON.writeValueAsString(shell.answer(line)));
            out.write('\n');
            out.flush();
        }
        System.exit(0);
    }

    static ObjectNode error(String code, String message) {
        return NODES.objectNode().put("code", code).put("message", message);
    }

    static ObjectNode answerOf(JsonNode id, String key, JsonNode value) {
        ObjectNode answer = NODES.objectNode();
        answer.set("id", id);
        answer.set(key, value);
        return answer;
    }

    ObjectNode answer(String line) {
        JsonNode request;
        try {
            request = JSON.readTree(line);
        } catch (JsonProcessingException err) {
            return answerOf(NODES.nullNode(), "error", error("invalid_request", "not JSON: " + err.getOriginalMessage()));
        }
        if (request == null || !request.isObject()) return answerOf(NODES.nullNode(), "error", error("invalid_request", "a request must be a JSON object"));
        JsonNode id = request.get("id");
        if (id == null || !id.isIntegralNumber()) return answerOf(NODES.nullNode(), "error", error("invalid_request", "'id' must be an integer"));
        String op = request.path("op").isTextual() ? request.get("op").textValue() : "";
        if (op.equals("hello")) return hello(id, request);
        if (op.equals("bye")) { done = true; return NODES.objectNode().set("id", id); }
        if (op.equals(AUTHENTICATE)) return authenticate(id, request);
        if (!vendor.ops().contains(op)) return answerOf(id, "error", error("unknown_op", "unknown op '" + op + "'"));
        if (LIVE_OPS.contains(op)) return live(id, op, request);
        JsonNode cases = request.get("cases");
        if (cases == null || !cases.isArray()) return answerOf(id, "error", error("invalid_request", "'cases' must be a list"));
        JsonNode config = request.path("config");
        ArrayNode results = NODES.arrayNode();
        for (JsonNode c : cases) results.add(one(op, config.isMissingNode() ? NODES.nullNode() : config, c));
        return answerOf(id, "results", results);
    }

    private JsonNode one(String op, JsonNode config, JsonNode c) {
        try {
            return switch (op) {
                case "craps.odds_limits" -> vendor.oddsLimits(config, c);
                case "craps.place_odds" -> vendor.placeOdds(config, c);
                case "craps.settle" -> vendor.settle(config, c);
                case "craps.round" -> vendor.round(config, c);
                case "paigow.player_bonus" -> NODES.objectNode().put("hand", vendor.playerLabel(config, c));
                case "paigow.banker_bonus" -> NODES.objectNode().put("hand", vendor.bankerLabel(config, c));
                case "paigow.settle" -> vendor.paigowSettle(config, c);
                default -> throw new UnsupportedOperationException(op);
            };
        } catch (CaseError err) {
            return NODES.objectNode().set("error", error(err.code, err.getMessage()));
        } catch (ConfigError err) {
            return NODES.objectNode().set("error", error("invalid_config", err.getMessage()));
        }
    }

    /** build.authenticate: HMAC-SHA256, keyed with the seed, of each named file of this build
     * (paths relative to the folder of the program's jar; a link, a folder or '..' answered null). */
    private ObjectNode authenticate(JsonNode id, JsonNode request) {
        String seed = request.path("seed").textValue();
        JsonNode files = request.path("files");
        if (seed == null || !seed.matches("([0-9a-fA-F]{2})+") || !files.isArray())
            return answerOf(id, "error", error("invalid_request", "build.authenticate takes 'seed' (hex) and 'files' (a list of paths)"));
        byte[] key = new BigInteger("01" + seed, 16).toByteArray();
        key = java.util.Arrays.copyOfRange(key, key.length - seed.length() / 2, key.length);
        Path root;
        try {
            root = Path.of(Shell.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
        } catch (java.net.URISyntaxException err) {
            throw new IllegalStateException(err);
        }
        ObjectNode answers = NODES.objectNode();
        for (JsonNode f : files) {
            String name = f.textValue();
            String digest = keyed(root, name, key);
            answers.set(name == null ? "" : name, digest == null ? NODES.nullNode() : NODES.textNode(digest));
        }
        return answerOf(id, "result", NODES.objectNode().set("files", answers));
    }

    private static String keyed(Path root, String name, byte[] key) {
        if (name == null || name.isEmpty() || name.startsWith("/")) return null;
        Path path = root;
        for (String part : name.split("/", -1)) {
            if (part.isEmpty() || part.equals(".") || part.equals("..")) return null;
            path = path.resolve(part);
            if (Files.isSymbolicLink(path)) return null;       // no link followed on the way
        }
        if (!Files.isRegularFile(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return null;
        try {
            return Hmac.hex(key, Files.readAllBytes(path));
        } catch (IOException err) {
            return null;
        }
    }

    private ObjectNode hello(JsonNode id, JsonNode request) {
        if (!PROTOCOL.equals(request.path("protocol").textValue()))
            return answerOf(id, "error", error("unsupported_protocol", "this vendor speaks " + PROTOCOL));
        if (request.path("state_dir").isTextual()) {
            try {
                journal = new Journal(vendor, Path.of(request.get("state_dir").textValue()));
            } catch (IOException | RuntimeException err) {
                return answerOf(id, "error", error("invalid_request", "state_dir: " + err));
            }
        }
        ObjectNode answer = answerOf(id, "protocol", NODES.textNode(PROTOCOL));
        answer.set("implementation", vendor.implementation());
        ArrayNode ops = answer.putArray("ops");
        vendor.ops().forEach(ops::add);
        ops.add(AUTHENTICATE);
        if (vendor.capabilities() != null) answer.set("capabilities", vendor.capabilities());
        return answer;
    }

    private ObjectNode live(JsonNode id, String op, JsonNode request) {
        if (journal == null) return answerOf(id, "error", error("no_state_dir", "the hello named no state_dir"));
        try {
            return answerOf(id, "result", journal.handle(op, request));
        } catch (CaseError err) {
            return answerOf(id, "error", error(err.code, err.getMessage()));
        } catch (IOException err) {
            throw new java.io.UncheckedIOException(err);
        }
    }

    /**
     * The live tables of one state_dir: an append-only journal, each entry fsync'd before the
     * answer, replayed at start (a last line cut short by a kill was never answered: dropped).
     */
    static final class Journal {
        private static final Pattern TABLE_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
        private static final BigInteger MAX_AMOUNT = BigInteger.TWO.pow(53).subtract(BigInteger.ONE);
        private final Vendor vendor;
        private final FileChannel channel;
        private final Map<String, JsonNode> states = new HashMap<>();
        private final Map<String, Long> steps = new HashMap<>();

        Journal(Vendor vendor, Path stateDir) throws IOException {
            this.vendor = vendor;
            Path path = stateDir.resolve("tables.journal");
            if (Files.exists(path)) {
                byte[] data = Files.readAllBytes(path);
                int whole = data.length;
                while (whole > 0 && data[whole - 1] != '\n') whole--;
                if (whole != data.length) try (FileChannel cut = FileChannel.open(path, StandardOpenOption.WRITE)) { cut.truncate(whole); cut.force(true); }
                for (String line : new String(data, 0, whole, StandardCharsets.UTF_8).split("\n"))
                    if (!line.isEmpty()) apply(JSON.readTree(line));
            }
            channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        }

        JsonNode handle(String op, JsonNode request) throws IOException {
            JsonNode id = request.get("table");
            if (id == null || !id.isTextual() || !TABLE_ID.matcher(id.textValue()).matches())
                throw new CaseError("invalid_request", "'table' must be 1 to 64 letters, digits, '.', '_' or '-'");
            String name = id.textValue();
            if (op.equals("table.open")) {
                if (states.containsKey(name)) throw new CaseError("table_exists", "table " + name + " is open");
                JsonNode rack = request.path("rack");
                if (!rack.isIntegralNumber() || rack.bigIntegerValue().signum() < 0 || rack.bigIntegerValue().compareTo(MAX_AMOUNT) > 0)
                    throw new CaseError("invalid_request", "'rack' must be an integer from 0 to 2^53 - 1");
                JsonNode game = request.has("game") ? request.get("game") : NODES.textNode("craps");
                if (!game.isTextual() || !List.of("craps", "paigow").contains(game.textValue()))
                    throw new CaseError("invalid_request", "'game' must be craps or paigow");
                ObjectNode entry = NODES.objectNode().put("open", name);
                entry.set("config", request.has("config") ? request.get("config") : NODES.nullNode());
                entry.set("rack", rack);
                entry.set("game", game);
                JsonNode state = open(entry);      // refused before anything is journaled
                append(entry);
                states.put(name, state);
                steps.put(name, 0L);
                return NODES.objectNode().put("steps", 0).set("table", vendor.tableView(state));
            }
            if (!states.containsKey(name)) throw new CaseError("no_such_table", "no open table " + name);
            switch (op) {
                case "table.step": {
                    JsonNode seq = request.path("seq");
                    if (!seq.isIntegralNumber() || !seq.bigIntegerValue().equals(BigInteger.valueOf(steps.get(name))))
                        throw new CaseError("out_of_sequence", "the table has played " + steps.get(name) + " steps");
                    JsonNode step = request.has("step") ? request.get("step") : NODES.nullNode();
                    JsonNode[] next = vendor.tableStep(states.get(name).deepCopy(), step);   // may refuse
                    ObjectNode entry = NODES.objectNode().put("step", name);
                    entry.set("seq", seq);
                    entry.set("act", step);
                    append(entry);
                    states.put(name, next[1]);
                    steps.put(name, steps.get(name) + 1);
                    return next[0];
                }
                case "table.resume":
                    return NODES.objectNode().put("steps", steps.get(name)).set("table", vendor.tableView(states.get(name)));
                case "table.recall":
                    return NODES.objectNode().set("games", vendor.tableRecall(states.get(name)));
                default:
                    append(NODES.objectNode().put("close", name));
                    states.remove(name);
                    steps.remove(name);
                    return NODES.objectNode();
            }
        }

        private JsonNode open(JsonNode entry) {
            try {
                return vendor.tableOpen(entry.get("config"), entry.get("rack").bigIntegerValue(), entry.get("game").textValue());
            } catch (ConfigError err) {
                throw new CaseError("invalid_config", err.getMessage());
            }
        }

        private void apply(JsonNode entry) {   // replay: what the entry did when it was answered
            if (entry.has("open")) {
                states.put(entry.get("open").textValue(), open(entry));
                steps.put(entry.get("open").textValue(), 0L);
            } else if (entry.has("close")) {
                states.remove(entry.get("close").textValue());
                steps.remove(entry.get("close").textValue());
            } else {
                String name = entry.get("step").textValue();
                states.put(name, vendor.tableStep(states.get(name), entry.get("act"))[1]);
                steps.put(name, steps.get(name) + 1);
            }
        }

        private void append(JsonNode entry) throws IOException {   // one write, on disk before the answer
            ByteBuffer line = ByteBuffer.wrap((JSON.writeValueAsString(entry) + "\n").getBytes(StandardCharsets.UTF_8));
            if (channel.write(line) != line.limit()) throw new IOException("journal write cut short");
            channel.force(true);
        }
    }
}
