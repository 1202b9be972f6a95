// The protocol shell: framing (one JSON object a line), ids, hello with ops and capabilities,
// versions, batches, bye, request-level errors and the live tables' journal in state_dir.
// A vendor never edits this file; it implements Vendor (vendor.ts) and calls serve().
import * as crypto from "crypto";
import * as fs from "fs";
import { Json, JsonObject, JsonSyntaxError, isObject, parse, write } from "./json";
import { CaseError, ConfigError, Vendor } from "./vendor";

const PROTOCOL = "tablecert-vendor/2";
const LIVE_OPS = ["table.open", "table.step", "table.resume", "table.recall", "table.close"];
const AUTHENTICATE = "build.authenticate";  // Since 1.0: the keyed digests of the vendor's own files

/** build.authenticate: HMAC-SHA256, keyed with the seed, of each named file of this build (paths
 * relative to the folder of the program's script; a link, a folder or '..' answered null). */
function authenticate(request: JsonObject): JsonObject {
  const seed = request.seed, files = request.files;
  if (typeof seed !== "string" || !/^([0-9a-fA-F]{2})+$/.test(seed) || !Array.isArray(files)
      || !files.every((f) => typeof f === "string"))
    throw new CaseError("invalid_request", "build.authenticate takes 'seed' (hex) and 'files' (a list of paths)");
  const key = new Uint8Array(seed.length / 2).map((_, i) => parseInt(seed.slice(2 * i, 2 * i + 2), 16));
  const script = process.argv[1], root = script.slice(0, script.lastIndexOf("/"));
  const answers: JsonObject = {};
  for (const file of files as string[]) {
    let digest: string | null = null;
    const parts = file.split("/");
    if (file && !file.startsWith("/") && !parts.some((p) => p === "" || p === "." || p === "..")) {
      let path = root, plain = true;
      for (const part of parts) {       // no link followed on the way
        path += "/" + part;
        try { const st = fs.lstatSync(path); plain = plain && (st.isDirectory() || st.isFile()); } catch { plain = false; }
      }
      if (plain && fs.lstatSync(path).isFile()) digest = crypto.createHmac("sha256", key).update(fs.readFileSync(path)).digest("hex");
    }
    answers[file] = digest;
  }
  return { files: answers };
}

const error = (code: string, message: string): JsonObject => ({ code, message });

/** Thrown by an op method the vendor did not implement. */
function unsupported(op: string): never { throw new Error(`op ${op} is declared but not implemented`); }

function oneCase(v: Vendor, op: string, config: Json, c: Json): JsonObject {
  switch (op) {
    case "craps.odds_limits": return v.oddsLimits ? v.oddsLimits(config, c) : unsupported(op);
    case "craps.place_odds": return v.placeOdds ? v.placeOdds(config, c) : unsupported(op);
    case "craps.settle": return v.settle ? v.settle(config, c) : unsupported(op);
    case "craps.round": return v.round ? v.round(config, c) : unsupported(op);
    case "paigow.player_bonus": return { hand: v.playerLabel ? v.playerLabel(config, c) : unsupported(op) };
    case "paigow.banker_bonus": return { hand: v.bankerLabel ? v.bankerLabel(config, c) : unsupported(op) };
    case "paigow.settle": return v.paigowSettle ? v.paigowSettle(config, c) : unsupported(op);
  }
  return unsupported(op);
}

/** The live tables of one state_dir: an append-only journal, each entry fsync'd before the
 * answer, replayed at start (a last line cut short by a kill was never answered: dropped). */
class Journal {
  private tables = new Map<string, { state: Json; steps: bigint }>();
  private fd: number;

  constructor(private vendor: Vendor, stateDir: string) {
    const path = stateDir + "/tables.journal";
    if (fs.existsSync(path)) {
      const data = new TextDecoder().decode(fs.readFileSync(path));
      const whole = data.lastIndexOf("\n") + 1;
      if (whole !== data.length) fs.truncateSync(path, new TextEncoder().encode(data.slice(0, whole)).length);
      for (const line of data.slice(0, whole).split("\n")) if (line) this.apply(parse(line) as JsonObject);
    }
    this.fd = fs.openSync(path, "a", 0o600);
  }

  handle(op: string, request: JsonObject): Json {
    const name = request.table;
    if (typeof name !== "string" || !/^[A-Za-z0-9._-]{1,64}$/.test(name))
      throw new CaseError("invalid_request", "'table' must be 1 to 64 letters, digits, '.', '_' or '-'");
    if (op === "table.open") {
      if (this.tables.has(name)) throw new CaseError("table_exists", `table ${name} is open`);
      const rack = request.rack, game = request.game ?? "craps";
      if (typeof rack !== "bigint" || rack < 0n || rack > 9007199254740991n)
        throw new CaseError("invalid_request", "'rack' must be an integer from 0 to 2^53 - 1");
      if (game !== "craps" && game !== "paigow") throw new CaseError("invalid_request", "'game' must be craps or paigow");
      const entry: JsonObject = { open: name, config: request.config ?? null, rack, game };
      const state = this.open(entry);          // refused before anything is journaled
      this.append(entry);
      this.tables.set(name, { state, steps: 0n });
      return { steps: 0n, table: this.vendor.tableView!(state) };
    }
    const table = this.tables.get(name);
    if (!table) throw new CaseError("no_such_table", `no open table ${name}`);
    if (op === "table.step") {
      if (request.seq !== table.steps) throw new CaseError("out_of_sequence", `the table has played ${table.steps} steps`);
      const { record, state } = this.vendor.tableStep!(table.state, request.step ?? null);  // may refuse
      this.append({ step: name, seq: request.seq, act: request.step });
      this.tables.set(name, { state, steps: table.steps + 1n });
      return record;
    }
    if (op === "table.resume") return { steps: table.steps, table: this.vendor.tableView!(table.state) };
    if (op === "table.recall") return { games: this.vendor.tableRecall!(table.state) };
    this.append({ close: name });
    this.tables.delete(name);
    return {};
  }

  private open(entry: JsonObject): Json {
    try {
      return this.vendor.tableOpen!(entry.config, entry.rack as bigint, entry.game as string);
    } catch (err) {
      if (err instanceof ConfigError) throw new CaseError("invalid_config", err.message);
      throw err;
    }
  }

  private apply(entry: JsonObject): void {   // replay: what the entry did when it was answered
    if ("open" in entry) this.tables.set(entry.open as string, { state: this.open(entry), steps: 0n });
    else if ("close" in entry) this.tables.delete(entry.close as string);
    else {
      const table = this.tables.get(entry.step as string)!;
      this.tables.set(entry.step as string, { state: this.vendor.tableStep!(table.state, entry.act).state, steps: table.steps + 1n });
    }
  }

  private append(entry: JsonObject): void {  // one write, on disk before the answer is sent
    const line = write(entry) + "\n";
    if (fs.writeSync(this.fd, line) !== new TextEncoder().encode(line).length) throw new Error("journal write cut short");
    fs.fsyncSync(this.fd);
  }
}

class Session {
  private journal: Journal | null = null;
  done = false;

  constructor(private vendor: Vendor) {}

  answer(line: string): JsonObject {
    let request: Json;
    try {
      request = parse(line);
    } catch (err) {
      if (err instanceof JsonSyntaxError) return { id: null, error: error("invalid_request", `not JSON: ${err.message}`) };
      throw err;
    }
    if (!isObject(request)) return { id: null, error: error("invalid_request", "a request must be a JSON object") };
    const id = request.id;
    if (typeof id !== "bigint") return { id: null, error: error("invalid_request", "'id' must be an integer") };
    const op = typeof request.op === "string" ? request.op : "";
    if (op === "hello") return this.hello(id, request);
    if (op === "bye") { this.done = true; return { id }; }
    if (op === AUTHENTICATE) {
      try { return { id, result: authenticate(request) }; }
      catch (err) { if (err instanceof CaseError) return { id, error: error(err.code, err.message) }; throw err; }
    }
    if (!this.vendor.ops.includes(op)) return { id, error: error("unknown_op", `unknown op '${op}'`) };
    if (LIVE_OPS.includes(op)) return this.live(id, op, request);
    const cases = request.cases;
    if (!Array.isArray(cases)) return { id, error: error("invalid_request", "'cases' must be a list") };
    return { id, results: cases.map((c) => this.one(op, request.config ?? null, c)) };
  }

  private one(op: string, config: Json, c: Json): JsonObject {
    try {
      return oneCase(this.vendor, op, config, c);
    } catch (err) {
      if (err instanceof CaseError) return { error: error(err.code, err.message) };
      if (err instanceof ConfigError) return { error: error("invalid_config", err.message) };
      throw err;
    }
  }

  private hello(id: bigint, request: JsonObject): JsonObject {
    if (request.protocol !== PROTOCOL) return { id, error: error("unsupported_protocol", `this vendor speaks ${PROTOCOL}`) };
    if (typeof request.state_dir === "string") {
      try {
        this.journal = new Journal(this.vendor, request.state_dir);
      } catch (err) {
        return { id, error: error("invalid_request", `state_dir: ${(err as Error).message}`) };
      }
    }
    const answer: JsonObject = { id, protocol: PROTOCOL, implementation: { ...this.vendor.implementation },
                                 ops: [...this.vendor.ops, AUTHENTICATE] };
    if (this.vendor.capabilities) answer.capabilities = this.vendor.capabilities;
    return answer;
  }

  private live(id: bigint, op: string, request: JsonObject): JsonObject {
    if (!this.journal) return { id, error: error("no_state_dir", "the hello named no state_dir") };
    try {
      return { id, result: this.journal.handle(op, request) };
    } catch (err) {
      if (err instanceof CaseError) return { id, error: error(err.code, err.message) };
      throw err;
    }
  }
}

/** Answers requests on stdin, one JSON line each, until bye or end of input; then exits 0. */
export function serve(vendor: Vendor): void {
  const session = new Session(vendor);
  const decoder = new TextDecoder();
  const chunk = new Uint8Array(1 << 16);
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  const lineOf = (parts: Uint8Array[], length: number): string => {
    const all = new Uint8Array(length);
    let at = 0;
    for (const p of parts) { all.set(p, at); at += p.length; }
    return decoder.decode(all);
  };
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (err) {
      if ((err as { code?: string }).code === "EAGAIN") continue;
      throw err;
    }
    if (n === 0) break;
    let start = 0;
    for (let i = 0; i < n; i++) {
      if (chunk[i] !== 10) continue;
      const part = chunk.slice(start, i);
      const line = lineOf([...pending, part], pendingLength + part.length);
      pending = []; pendingLength = 0; start = i + 1;
      if (!line.trim()) continue;
      fs.writeSync(1, write(session.answer(line)) + "\n");
      if (session.done) process.exit(0);
    }
    const rest = chunk.slice(start, n);
    pending.push(rest); pendingLength += rest.length;
  }
  process.exit(0);
}
