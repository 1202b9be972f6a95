// The skeleton a vendor starts from: it declares no op, so the harness sends it none and reports
// every vector unsupported. Implement an op by adding its method of Vendor (vendor.ts) and naming
// the op in `ops` (see example_craps.ts for craps.place_odds and craps.settle).
import { serve } from "./shell";
import { Vendor } from "./vendor";

const vendor: Vendor = {
  implementation: { name: "my table game", version: "0.1", build: "dev" },
  ops: [],
};

serve(vendor);
