// The one interface a vendor implements (Vendor: a method per op), the errors an op throws, and
// the craps table config parsed with exact decimals (bigint over a power of ten; no float).
import { Json, JsonObject, isObject } from "./json";

/** A case refused with one of the contract's codes ("invalid_bet", "bad_increment", ...). */
export class CaseError extends Error {
  constructor(readonly code: string, message: string) { super(message); }
}
/** A malformed config: every case of the request is answered invalid_config. */
export class ConfigError extends Error {}

/**
 * The vendor. `ops` names the ops it implements (declared in hello; the harness sends no other)
 * and each of those has its method. A method returns the case's result or throws CaseError (that
 * case refused) or ConfigError (every case of the request invalid_config).
 *
 * Live tables (`table.*`): a table's state is whatever JSON the vendor keeps in it. The shell
 * journals each open and step in state_dir (one write, fsync'd, before the answer) and replays
 * them through these methods at start, so they must be pure functions of their inputs.
 */
export interface Vendor {
  implementation: { name: string; version: string; build: string };
  ops: string[];
  capabilities?: JsonObject;
  oddsLimits?(config: Json, c: Json): JsonObject;
  placeOdds?(config: Json, c: Json): JsonObject;
  settle?(config: Json, c: Json): JsonObject;
  round?(config: Json, c: Json): JsonObject;
  playerLabel?(config: Json, c: Json): string;
  bankerLabel?(config: Json, c: Json): string;
  paigowSettle?(config: Json, c: Json): JsonObject;
  tableOpen?(config: Json, rack: bigint, game: string): Json;   // -> state
  tableStep?(state: Json, step: Json): { record: Json; state: Json };
  tableView?(state: Json): Json;                                  // -> TABLE
  tableRecall?(state: Json): Json[];                              // -> [GAME]
}

/** A plain non-negative decimal string ("2.5", "0.05") as the exact fraction num / 10^scale. */
export interface Decimal { num: bigint; scale: number }

export interface TableConfig {
  unit: bigint;
  freeOdds: Map<number, Decimal>;
  maxOdds: Map<number, Decimal>;
  commissionRate: Decimal;
  commissionRounding: string;
  commissionUnit: bigint;
  payoutRounding: string;
  bar: bigint;
}

export const POINTS = [4, 5, 6, 8, 9, 10];
const KEYS = ["unit", "free_odds", "max_odds", "commission_rate", "commission_rounding", "commission_unit",
  "payout_rounding", "bar"];

function decimal(text: Json, field: string): Decimal {
  if (typeof text !== "string") throw new ConfigError(`${field}: must be a decimal string`);
  if (text.length > 100 || !/^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(text)) throw new ConfigError(`${field}: not a plain decimal string`);
  const [whole, frac = ""] = text.split(".");
  return { num: BigInt(whole + frac), scale: frac.length };
}

function positive(config: JsonObject, key: string): bigint {
  const v = config[key];
  if (typeof v !== "bigint" || v <= 0n) throw new ConfigError(`${key}: must be a positive integer of minor units`);
  return v;
}

function multiples(config: JsonObject, key: string): Map<number, Decimal> {
  const table = config[key];
  if (!isObject(table)) throw new ConfigError(`${key}: must be an object keyed "4".."10"`);
  for (const p of POINTS) if (!(String(p) in table)) throw new ConfigError(`${key}.${p}: missing point`);
  if (Object.keys(table).length !== POINTS.length) throw new ConfigError(`${key}: holds a key that is not a point`);
  return new Map(POINTS.map((p) => [p, decimal(table[String(p)], `${key}.${p}`)]));
}

function choice(config: JsonObject, key: string, allowed: string[]): string {
  const v = config[key];
  if (typeof v !== "string" || !allowed.includes(v)) throw new ConfigError(`${key}: not one of ${allowed.join(", ")}`);
  return v;
}

/** Parses and checks a craps config in the contract's order; throws ConfigError naming the field. */
export function parseTableConfig(config: Json): TableConfig {
  if (!isObject(config)) throw new ConfigError("config: must be an object");
  for (const key of KEYS) if (!(key in config)) throw new ConfigError(`${key}: missing`);
  if (Object.keys(config).length !== KEYS.length) throw new ConfigError("config: unknown field");
  const unit = positive(config, "unit");
  const freeOdds = multiples(config, "free_odds");
  const maxOdds = multiples(config, "max_odds");
  for (const p of POINTS) {
    const f = freeOdds.get(p)!, m = maxOdds.get(p)!;
    if (f.num * 10n ** BigInt(m.scale) > m.num * 10n ** BigInt(f.scale)) throw new ConfigError(`free_odds.${p}: above max_odds`);
  }
  const commissionRate = decimal(config.commission_rate, "commission_rate");
  const commissionRounding = choice(config, "commission_rounding", ["down", "nearest", "up"]);
  const commissionUnit = positive(config, "commission_unit");
  const payoutRounding = choice(config, "payout_rounding", ["exact", "down"]);
  const bar = config.bar;
  if (bar !== 12n && bar !== 2n) throw new ConfigError("bar: must be 12 or 2");
  return { unit, freeOdds, maxOdds, commissionRate, commissionRounding, commissionUnit, payoutRounding, bar };
}
