// The worked example: a vendor that implements craps.place_odds and craps.settle for real, on the
// kit's shell. Money is long minor units; ratios, multiples and rates exact, products in
// BigInteger (no floating point anywhere). Build: make; run: mono build/example.exe
using System;
using System.Collections.Generic;
using System.Numerics;
using Newtonsoft.Json.Linq;

namespace Tablecert.Kit
{
    public sealed class ExampleCraps : Vendor
    {
        static readonly string[] Bets = { "pass", "dont_pass", "come", "dont_come" };
        JToken lastConfig;
        TableConfig table;

        public static int Main() { return Shell.Serve(new ExampleCraps()); }

        public override JObject Implementation
        {
            get { return new JObject { { "name", "tablecert C# kit example" }, { "version", "1.0" }, { "build", "csharp-example" } }; }
        }

        public override IList<string> Ops { get { return new[] { "craps.place_odds", "craps.settle" }; } }

        TableConfig Table(JToken config)   // parsed once per request's config
        {
            if (!ReferenceEquals(config, lastConfig)) { table = null; lastConfig = config; }
            return table ?? (table = TableConfig.Parse(config));
        }

        static bool IsDont(string bet) { return bet == "dont_pass" || bet == "dont_come"; }

        /// <summary>What `stake` of odds wins at true odds: (win, stake).</summary>
        static long[] OddsRatio(string bet, int point)
        {
            long[] pass = point == 4 || point == 10 ? new long[] { 2, 1 } : point == 5 || point == 9 ? new long[] { 3, 2 } : new long[] { 6, 5 };
            return IsDont(bet) ? new[] { pass[1], pass[0] } : pass;
        }

        static bool IsInteger(JToken v) { return v.Type == JTokenType.Integer && !(((JValue)v).Value is BigInteger); }

        /// <summary>The contract's checks 1-4 (invalid_request, invalid_bet, invalid_point, invalid_dice) on `fields`.</summary>
        static JObject ReadCase(JToken json, params string[] fields)
        {
            var c = json as JObject;
            if (c == null) throw new CaseError("invalid_request", "a case must be an object");
            foreach (var f in fields) if (c[f] == null) throw new CaseError("invalid_request", "missing field '" + f + "'");
            foreach (var f in fields)
            {
                var v = c[f];
                bool ok = f == "bet" ? v.Type == JTokenType.String : f == "point" ? v.Type == JTokenType.Null || v.Type == JTokenType.Integer
                        : f == "dice" ? v.Type == JTokenType.Array : f == "odds_working" ? v.Type == JTokenType.Boolean : v.Type == JTokenType.Integer;
                if (!ok) throw new CaseError("invalid_request", "'" + f + "' has the wrong JSON type");
            }
            if (Array.IndexOf(Bets, (string)c["bet"]) < 0) throw new CaseError("invalid_bet", "unknown bet");
            var p = c["point"];
            if (p.Type != JTokenType.Null && !(IsInteger(p) && Array.IndexOf(TableConfig.Points, (int)Math.Min(Math.Max((long)p, -1), 11)) >= 0))
                throw new CaseError("invalid_point", "point must be null or 4, 5, 6, 8, 9, 10");
            if (fields.Length == 6)   // settle's fields: the dice too
            {
                var d = (JArray)c["dice"];
                bool ok = d.Count == 2;
                foreach (var x in d) ok = ok && IsInteger(x) && (long)x >= 1 && (long)x <= 6;
                if (!ok) throw new CaseError("invalid_dice", "dice must be two integers from 1 to 6");
            }
            foreach (var f in new[] { "flat", "odds" })
                if (!IsInteger(c[f])) throw new CaseError("not_positive", "'" + f + "' is out of this kit's range");
            return c;
        }

        /// <summary>The largest odds a multiple allows behind `flat`, floored to the unit (the don't side limits the win).</summary>
        static long OddsLimit(TableConfig t, string bet, long flat, int point, ExactDecimal m)
        {
            long[] r = IsDont(bet) ? OddsRatio(bet, point) : new long[] { 1, 1 };
            return (long)(m.Num * flat * r[1] / (m.Denominator * r[0] * t.Unit)) * t.Unit;
        }

        /// <summary>Checks 7-8 on odds above 0: increments, a whole win under exact, the maximum.</summary>
        static void CheckOdds(TableConfig t, string bet, long flat, int point, long odds)
        {
            if (flat % t.Unit != 0) throw new CaseError("bad_increment", "flat not a multiple of the unit");
            if (odds % t.Unit != 0) throw new CaseError("bad_increment", "odds not a multiple of the unit");
            long[] r = OddsRatio(bet, point);
            if (t.PayoutRounding == "exact" && (new BigInteger(odds) * r[0]) % r[1] != 0)
                throw new CaseError("bad_increment", "the odds would win a fraction of a minor unit");
            if (odds > OddsLimit(t, bet, flat, point, t.MaxOdds[point])) throw new CaseError("above_maximum", "odds above the maximum");
        }

        static long Commission(TableConfig t, string bet, long flat, int point, long odds)
        {
            long excess = Math.Max(odds - OddsLimit(t, bet, flat, point, t.FreeOdds[point]), 0);
            long[] r = IsDont(bet) ? OddsRatio(bet, point) : new long[] { 1, 1 };   // don't side: what the excess could win
            BigInteger n = t.CommissionRate.Num * excess * r[0];
            BigInteger d = t.CommissionRate.Denominator * r[1] * t.CommissionUnit;
            BigInteger k = t.CommissionRounding == "down" ? n / d : t.CommissionRounding == "up" ? (n + d - 1) / d : (2 * n + d) / (2 * d);
            return (long)k * t.CommissionUnit;
        }

        static JObject Result(string outcome, long flat, string flatStake, long flatWin = 0, long odds = 0, string oddsStake = "none", long oddsWin = 0)
        {
            Func<long, string, long> back = (stake, s) => s == "won" || s == "returned" ? stake : 0;
            return new JObject { { "outcome", outcome }, { "flat_win", flatWin }, { "odds_win", oddsWin }, { "point", JValue.CreateNull() },
                                 { "flat_stake", flatStake }, { "odds_stake", oddsStake },
                                 { "flat_returned", back(flat, flatStake) }, { "odds_returned", back(odds, oddsStake) } };
        }

        public override JObject PlaceOdds(JToken config, JToken json)
        {
            var t = Table(config);
            var c = ReadCase(json, "bet", "flat", "point", "odds");
            string bet = (string)c["bet"];
            long flat = (long)c["flat"], odds = (long)c["odds"];
            if (c["point"].Type == JTokenType.Null) throw new CaseError("no_point", "odds on a bet with no point");
            if (flat <= 0) throw new CaseError("not_positive", "flat must be above 0");
            if (odds <= 0) throw new CaseError("not_positive", "odds must be above 0");
            int point = (int)c["point"];
            CheckOdds(t, bet, flat, point, odds);
            return new JObject { { "commission", Commission(t, bet, flat, point, odds) } };
        }

        public override JObject Settle(JToken config, JToken json)
        {
            var t = Table(config);
            var c = ReadCase(json, "bet", "flat", "point", "odds", "dice", "odds_working");
            string bet = (string)c["bet"];
            long flat = (long)c["flat"], odds = (long)c["odds"];
            bool noPoint = c["point"].Type == JTokenType.Null, dont = IsDont(bet);
            if (noPoint && odds > 0) throw new CaseError("no_point", "odds on a bet with no point");
            if (flat <= 0) throw new CaseError("not_positive", "flat must be above 0");
            if (odds < 0) throw new CaseError("not_positive", "odds must be 0 or more");
            if (odds > 0) CheckOdds(t, bet, flat, (int)c["point"], odds);
            else if (flat % t.Unit != 0) throw new CaseError("bad_increment", "flat not a multiple of the unit");
            int total = (int)c["dice"][0] + (int)c["dice"][1];
            if (noPoint)   // the come-out roll: no odds
            {
                if (dont && total == t.Bar) return Result("push", flat, "returned");
                if (total == 7 || total == 11) return dont ? Result("lose", flat, "taken") : Result("win", flat, "won", flat);
                if (total == 2 || total == 3 || total == 12) return dont ? Result("win", flat, "won", flat) : Result("lose", flat, "taken");
                var set = Result("point", flat, "in_action");
                set["point"] = total;
                return set;
            }
            int point = (int)c["point"];
            string oddsStake = odds > 0 ? "in_action" : "none";
            if (total != 7 && total != point) return Result("no_action", flat, "in_action", 0, odds, oddsStake);
            if (odds > 0 && !(bool)c["odds_working"]) oddsStake = "returned";   // odds off: neither paid nor taken
            bool inAction = oddsStake == "in_action";
            if ((total == point) == dont) return Result("lose", flat, "taken", 0, odds, inAction ? "taken" : oddsStake);
            if (!inAction) return Result("win", flat, "won", flat, odds, oddsStake);
            long[] r = OddsRatio(bet, point);
            return Result("win", flat, "won", flat, odds, "won", (long)(new BigInteger(odds) * r[0] / r[1]));   // floored under down
        }
    }
}
