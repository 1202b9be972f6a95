// The skeleton a vendor starts from: it declares no op, so the harness sends it none and reports
// every vector unsupported. Implement an op by overriding its method of Vendor (Vendor.cs) and
// naming the op in Ops (see ExampleCraps.cs for craps.place_odds and craps.settle).
using System.Collections.Generic;
using Newtonsoft.Json.Linq;

namespace Tablecert.Kit
{
    public sealed class Skeleton : Vendor
    {
        public static int Main() { return Shell.Serve(new Skeleton()); }

        public override JObject Implementation
        {
            get { return new JObject { { "name", "my table game" }, { "version", "0.1" }, { "build", "dev" } }; }
        }

        public override IList<string> Ops { get { return new string[0]; } }
    }
}
