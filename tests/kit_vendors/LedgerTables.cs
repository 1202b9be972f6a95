// A test vendor on the C# kit's shell (tests/kit_checks.py): live tables whose state is the rack and
// every step played, so that a test can see the shell's journal replay exactly what was answered.
using System.Collections.Generic;
using Newtonsoft.Json.Linq;

namespace Tablecert.Kit
{
    public sealed class LedgerTables : Vendor
    {
        public static int Main() { return Shell.Serve(new LedgerTables()); }
        public override JObject Implementation { get { return new JObject { { "name", "ledger tables" }, { "version", "1" }, { "build", "test" } }; } }
        public override IList<string> Ops { get { return new[] { "table.open", "table.step", "table.resume", "table.recall", "table.close" }; } }

        public override JToken TableOpen(JToken config, long rack, string game)
        {
            if (!(config is JObject)) throw new ConfigError("config: must be an object");
            return new JObject { { "rack", rack }, { "played", new JArray() } };
        }

        public override JToken TableStep(JToken state, JToken step)
        {
            if (!(step is JObject) || step["act"] == null) throw new CaseError("invalid_request", "a step is an object with an act");
            var played = (JArray)state["played"];
            var record = new JObject { { "accepted", true }, { "seen", played.Count } };
            played.Add(step);
            return record;
        }

        public override JToken TableView(JToken state) { return state; }
        public override JArray TableRecall(JToken state) { return new JArray(); }
    }
}
