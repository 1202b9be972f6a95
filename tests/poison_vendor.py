"""A vendor process (run as a script) that is the reference or the demo vendor, except that a
request holding a poisoned case kills it, hangs it or makes it write garbage.

    python poison_vendor.py POISON.json MODE [BASE]

POISON.json: {"cases": [case, ...], "ops": [op, ...]}: a request of one of ``ops`` (any of its
cases), or holding one of ``cases`` (compared as canonical JSON), is poisoned. MODE: ``segv``
(kills itself with SIGSEGV), ``hang`` (sleeps), ``cut`` (writes half an answer line, then exits
with status 3), ``garbage`` (a line that is not JSON). BASE: ``reference`` (default) or ``demo``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        poison = json.load(f)
    mode = sys.argv[2]
    base = sys.argv[3] if len(sys.argv) > 3 else "reference"
    if base == "demo":
        from tablecert.harness.vendors.demo_vendor import DemoVendor as Vendor
    else:
        from tablecert.oracle.vendor import ReferenceVendor as Vendor
    vendor = Vendor()
    cases = {canonical(c) for c in poison.get("cases", [])}
    ops = set(poison.get("ops", []))
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        listed = request.get("cases") if isinstance(request.get("cases"), list) else []
        if request.get("op") in ops or any(canonical(c) in cases for c in listed):
            sys.stderr.write(f"poisoned request {request.get('id')}\n")
            sys.stderr.flush()
            if mode == "segv":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif mode == "hang":
                time.sleep(3600)
            elif mode == "cut":
                out.write(json.dumps(vendor.handle(request))[:20])
                out.flush()
                os._exit(3)
            else:
                out.write("Segmentation fault (core dumped)\n")
                out.flush()
                continue
        out.write(json.dumps(vendor.handle(request), separators=(",", ":")) + "\n")
        out.flush()
        if request.get("op") == "bye":
            break


if __name__ == "__main__":
    main()
