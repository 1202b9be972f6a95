// The worked example: a vendor that implements craps.place_odds and craps.settle for real, on the
// kit's shell. Money and exact fractions in bigint (no floating point anywhere).
// Build: npm ci && npm run build; run: node build/example_craps.js
import { Json, JsonObject, isObject } from "./json";
import { serve } from "./shell";
import { CaseError, Decimal, TableConfig, Vendor, parseTableConfig } from "./vendor";

type Ratio = [bigint, bigint];   // [win, stake]: what `stake` of odds wins at true odds
const isDont = (bet: string) => bet === "dont_pass" || bet === "dont_come";

function oddsRatio(bet: string, point: number): Ratio {
  const pass: Ratio = point === 4 || point === 10 ? [2n, 1n] : point === 5 || point === 9 ? [3n, 2n] : [6n, 5n];
  return isDont(bet) ? [pass[1], pass[0]] : pass;
}

const TYPES: Record<string, (v: Json) => boolean> = {
  bet: (v) => typeof v === "string",
  flat: (v) => typeof v === "bigint",
  point: (v) => v === null || typeof v === "bigint",
  odds: (v) => typeof v === "bigint",
  dice: (v) => Array.isArray(v),
  odds_working: (v) => typeof v === "boolean",
};

/** The contract's checks 1-4 (invalid_request, invalid_bet, invalid_point, invalid_dice) on `fields`. */
function readCase(c: Json, fields: string[]): JsonObject {
  if (!isObject(c)) throw new CaseError("invalid_request", "a case must be an object");
  for (const f of fields) if (!(f in c)) throw new CaseError("invalid_request", `missing field '${f}'`);
  for (const f of fields) if (!TYPES[f](c[f])) throw new CaseError("invalid_request", `'${f}' has the wrong JSON type`);
  if (!["pass", "dont_pass", "come", "dont_come"].includes(c.bet as string)) throw new CaseError("invalid_bet", "unknown bet");
  if (c.point !== null && ![4n, 5n, 6n, 8n, 9n, 10n].includes(c.point as bigint))
    throw new CaseError("invalid_point", "point must be null or 4, 5, 6, 8, 9, 10");
  if (fields.includes("dice")) {
    const d = c.dice as Json[];
    if (d.length !== 2 || !d.every((x) => typeof x === "bigint" && x >= 1n && x <= 6n))
      throw new CaseError("invalid_dice", "dice must be two integers from 1 to 6");
  }
  return c;
}

/** The largest odds a multiple allows behind `flat`, floored to the unit (the don't side limits the win). */
function oddsLimit(t: TableConfig, bet: string, flat: bigint, point: number, m: Decimal): bigint {
  const [win, stake] = isDont(bet) ? oddsRatio(bet, point) : [1n, 1n];
  return (m.num * flat * stake) / (10n ** BigInt(m.scale) * win * t.unit) * t.unit;
}

/** Checks 7-8 on odds above 0: increments, a whole win under `exact`, the maximum. */
function checkOdds(t: TableConfig, bet: string, flat: bigint, point: number, odds: bigint): void {
  if (flat % t.unit) throw new CaseError("bad_increment", "flat not a multiple of the unit");
  if (odds % t.unit) throw new CaseError("bad_increment", "odds not a multiple of the unit");
  const [win, stake] = oddsRatio(bet, point);
  if (t.payoutRounding === "exact" && (odds * win) % stake) throw new CaseError("bad_increment", "the odds would win a fraction of a minor unit");
  if (odds > oddsLimit(t, bet, flat, point, t.maxOdds.get(point)!)) throw new CaseError("above_maximum", "odds above the maximum");
}

function commission(t: TableConfig, bet: string, flat: bigint, point: number, odds: bigint): bigint {
  const free = oddsLimit(t, bet, flat, point, t.freeOdds.get(point)!);
  const excess = odds > free ? odds - free : 0n;
  const [win, stake] = isDont(bet) ? oddsRatio(bet, point) : [1n, 1n];   // don't side: what the excess could win
  const n = t.commissionRate.num * excess * win;
  const d = 10n ** BigInt(t.commissionRate.scale) * stake * t.commissionUnit;
  const k = t.commissionRounding === "down" ? n / d : t.commissionRounding === "up" ? (n + d - 1n) / d : (2n * n + d) / (2n * d);
  return k * t.commissionUnit;
}

function result(outcome: string, flat: bigint, flatStake: string, flatWin = 0n, odds = 0n, oddsStake = "none", oddsWin = 0n): JsonObject {
  const back = (stake: bigint, s: string) => (s === "won" || s === "returned" ? stake : 0n);
  return { outcome, flat_win: flatWin, odds_win: oddsWin, point: null, flat_stake: flatStake, odds_stake: oddsStake,
    flat_returned: back(flat, flatStake), odds_returned: back(odds, oddsStake) };
}

let lastConfig: Json | undefined;
let lastTable: TableConfig | undefined;
function table(config: Json): TableConfig {   // parsed once per request's config
  if (config !== lastConfig) { lastTable = undefined; lastConfig = config; }
  return (lastTable ??= parseTableConfig(config));
}

const example: Vendor = {
  implementation: { name: "tablecert TypeScript kit example", version: "1.0", build: "ts-example" },
  ops: ["craps.place_odds", "craps.settle"],

  placeOdds(config, json) {
    const t = table(config);
    const c = readCase(json, ["bet", "flat", "point", "odds"]);
    const bet = c.bet as string, flat = c.flat as bigint, odds = c.odds as bigint;
    if (c.point === null) throw new CaseError("no_point", "odds on a bet with no point");
    if (flat <= 0n) throw new CaseError("not_positive", "flat must be above 0");
    if (odds <= 0n) throw new CaseError("not_positive", "odds must be above 0");
    checkOdds(t, bet, flat, Number(c.point), odds);
    return { commission: commission(t, bet, flat, Number(c.point), odds) };
  },

  settle(config, json) {
    const t = table(config);
    const c = readCase(json, ["bet", "flat", "point", "odds", "dice", "odds_working"]);
    const bet = c.bet as string, flat = c.flat as bigint, odds = c.odds as bigint, dont = isDont(bet);
    if (c.point === null && odds > 0n) throw new CaseError("no_point", "odds on a bet with no point");
    if (flat <= 0n) throw new CaseError("not_positive", "flat must be above 0");
    if (odds < 0n) throw new CaseError("not_positive", "odds must be 0 or more");
    if (odds > 0n) checkOdds(t, bet, flat, Number(c.point), odds);
    else if (flat % t.unit) throw new CaseError("bad_increment", "flat not a multiple of the unit");
    const dice = c.dice as bigint[];
    const total = Number(dice[0] + dice[1]);
    if (c.point === null) {   // the come-out roll: no odds
      if (dont && BigInt(total) === t.bar) return result("push", flat, "returned");
      if (total === 7 || total === 11) return dont ? result("lose", flat, "taken") : result("win", flat, "won", flat);
      if (total === 2 || total === 3 || total === 12) return dont ? result("win", flat, "won", flat) : result("lose", flat, "taken");
      return { ...result("point", flat, "in_action"), point: BigInt(total) };
    }
    const point = Number(c.point);
    let oddsStake = odds ? "in_action" : "none";
    if (total !== 7 && total !== point) return result("no_action", flat, "in_action", 0n, odds, oddsStake);
    if (odds && !c.odds_working) oddsStake = "returned";   // odds off: neither paid nor taken
    const inAction = oddsStake === "in_action";
    if ((total === point) === dont) return result("lose", flat, "taken", 0n, odds, inAction ? "taken" : oddsStake);
    if (!inAction) return result("win", flat, "won", flat, odds, oddsStake);
    const [win, stake] = oddsRatio(bet, point);
    return result("win", flat, "won", flat, odds, "won", (odds * win) / stake);   // floored under `down`; whole under `exact`
  },
};

serve(example);
