// A well-formed craps table config, parsed and checked in the contract's order (the first fault
// is named). Multiples and the rate are exact: Decimal, digits over a power of ten.
using System.Collections.Generic;
using System.Numerics;
using System.Text.RegularExpressions;
using Newtonsoft.Json.Linq;

namespace Tablecert.Kit
{
    /// <summary>A plain non-negative decimal string ("2.5", "0.05") as the exact fraction Num / 10^Scale.</summary>
    public struct ExactDecimal
    {
        public BigInteger Num;
        public int Scale;
        public BigInteger Denominator { get { return BigInteger.Pow(10, Scale); } }
    }

    public sealed class TableConfig
    {
        public static readonly int[] Points = { 4, 5, 6, 8, 9, 10 };
        static readonly string[] Keys = { "unit", "free_odds", "max_odds", "commission_rate", "commission_rounding",
                                          "commission_unit", "payout_rounding", "bar" };
        static readonly Regex Plain = new Regex(@"\A(0|[1-9][0-9]*)(\.[0-9]+)?\z", RegexOptions.CultureInvariant);

        public long Unit, CommissionUnit;
        public int Bar;
        public readonly Dictionary<int, ExactDecimal> FreeOdds = new Dictionary<int, ExactDecimal>(), MaxOdds = new Dictionary<int, ExactDecimal>();
        public ExactDecimal CommissionRate;
        public string CommissionRounding, PayoutRounding;

        public static TableConfig Parse(JToken config)
        {
            var obj = config as JObject;
            if (obj == null) throw new ConfigError("config: must be an object");
            foreach (var key in Keys) if (obj[key] == null) throw new ConfigError(key + ": missing");
            if (obj.Count != Keys.Length) throw new ConfigError("config: unknown field");
            var t = new TableConfig();
            t.Unit = Positive(obj, "unit");
            Multiples(obj, "free_odds", t.FreeOdds);
            Multiples(obj, "max_odds", t.MaxOdds);
            foreach (var p in Points)
            {
                ExactDecimal f = t.FreeOdds[p], m = t.MaxOdds[p];
                if (f.Num * m.Denominator > m.Num * f.Denominator) throw new ConfigError("free_odds." + p + ": above max_odds");
            }
            t.CommissionRate = Decimal(obj["commission_rate"], "commission_rate");
            t.CommissionRounding = Choice(obj, "commission_rounding", "down", "nearest", "up");
            t.CommissionUnit = Positive(obj, "commission_unit");
            t.PayoutRounding = Choice(obj, "payout_rounding", "exact", "down");
            var bar = obj["bar"];
            if (bar.Type != JTokenType.Integer || !(bar.ToString() == "12" || bar.ToString() == "2")) throw new ConfigError("bar: must be 12 or 2");
            t.Bar = (int)bar;
            return t;
        }

        static ExactDecimal Decimal(JToken text, string field)
        {
            if (text.Type != JTokenType.String) throw new ConfigError(field + ": must be a decimal string");
            var s = (string)text;
            if (s.Length > 100 || !Plain.IsMatch(s)) throw new ConfigError(field + ": not a plain decimal string");
            int dot = s.IndexOf('.');
            var digits = dot < 0 ? s : s.Substring(0, dot) + s.Substring(dot + 1);
            return new ExactDecimal { Num = BigInteger.Parse(digits), Scale = dot < 0 ? 0 : s.Length - dot - 1 };
        }

        static long Positive(JObject config, string key)
        {
            var v = config[key];
            if (v.Type != JTokenType.Integer || ((JValue)v).Value is BigInteger || (long)v <= 0)
                throw new ConfigError(key + ": must be a positive integer of minor units");
            return (long)v;
        }

        static void Multiples(JObject config, string key, Dictionary<int, ExactDecimal> into)
        {
            var table = config[key] as JObject;
            if (table == null) throw new ConfigError(key + ": must be an object keyed \"4\"..\"10\"");
            foreach (var p in Points) if (table[p.ToString()] == null) throw new ConfigError(key + "." + p + ": missing point");
            if (table.Count != Points.Length) throw new ConfigError(key + ": holds a key that is not a point");
            foreach (var p in Points) into[p] = Decimal(table[p.ToString()], key + "." + p);
        }

        static string Choice(JObject config, string key, params string[] allowed)
        {
            var v = config[key];
            if (v.Type == JTokenType.String && System.Array.IndexOf(allowed, (string)v) >= 0) return (string)v;
            throw new ConfigError(key + ": not one of " + string.Join(", ", allowed));
        }
    }
}
