// The one interface a vendor implements (Vendor: a method per op) and the errors an op throws.
// JSON through Newtonsoft.Json (Debian libnewtonsoft-json-cil-dev): JTokenType.Integer is told
// apart from Float (1.0 is not the integer 1); money is long minor units, exact products BigInteger.
using System;
using System.Collections.Generic;
using Newtonsoft.Json.Linq;

namespace Tablecert.Kit
{
    /// <summary>A case refused with one of the contract's codes ("invalid_bet", "bad_increment", ...).</summary>
    public class CaseError : Exception
    {
        public readonly string Code;
        public CaseError(string code, string message) : base(message) { Code = code; }
    }

    /// <summary>A malformed config: every case of the request is answered invalid_config.</summary>
    public class ConfigError : Exception
    {
        public ConfigError(string message) : base(message) { }
    }

    /// <summary>
    /// The vendor: one method per op. Ops names the ops implemented (declared in hello; the harness
    /// sends no other); every other method keeps its default, which throws NotSupportedException. An
    /// op returns the case's result or throws CaseError (that case refused) or ConfigError (every
    /// case of the request invalid_config).
    ///
    /// Live tables (table.*): a table's state is whatever JSON the vendor keeps in it. The shell
    /// journals each open and step in state_dir (one write, fsync'd, before the answer) and replays
    /// them through these methods at start, so they must be pure functions of their inputs.
    /// </summary>
    public abstract class Vendor
    {
        public abstract JObject Implementation { get; }   // {"name", "version", "build"}
        public abstract IList<string> Ops { get; }
        public virtual JObject Capabilities { get { return null; } }   // null declares everything

        public virtual JObject OddsLimits(JToken config, JToken c) { throw new NotSupportedException("craps.odds_limits"); }
        public virtual JObject PlaceOdds(JToken config, JToken c) { throw new NotSupportedException("craps.place_odds"); }
        public virtual JObject Settle(JToken config, JToken c) { throw new NotSupportedException("craps.settle"); }
        public virtual JObject Round(JToken config, JToken c) { throw new NotSupportedException("craps.round"); }
        public virtual string PlayerLabel(JToken config, JToken c) { throw new NotSupportedException("paigow.player_bonus"); }
        public virtual string BankerLabel(JToken config, JToken c) { throw new NotSupportedException("paigow.banker_bonus"); }
        public virtual JObject PaigowSettle(JToken config, JToken c) { throw new NotSupportedException("paigow.settle"); }

        /// <summary>A new table's state.</summary>
        public virtual JToken TableOpen(JToken config, long rack, string game) { throw new NotSupportedException("table.open"); }
        /// <summary>One step on the state (a copy): returns the step's RECORD and changes the state.</summary>
        public virtual JToken TableStep(JToken state, JToken step) { throw new NotSupportedException("table.step"); }
        /// <summary>The TABLE of table.resume.</summary>
        public virtual JToken TableView(JToken state) { throw new NotSupportedException("table.resume"); }
        /// <summary>The GAMEs of table.recall, oldest first.</summary>
        public virtual JArray TableRecall(JToken state) { throw new NotSupportedException("table.recall"); }
    }
}
