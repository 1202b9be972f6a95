"""A vendor process (run as a script): the reference vendor, declaring in its hello only the ops
named on its command line (``python scoped_vendor.py OP[,OP...]``)."""

from __future__ import annotations

import json
import sys

from tablecert.oracle.vendor import ReferenceVendor


def main() -> None:
    ops = sys.argv[1].split(",")
    vendor = ReferenceVendor()
    for line in sys.stdin:
        request = json.loads(line)
        answer = vendor.handle(request)
        if request.get("op") == "hello":
            answer["ops"] = ops
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if request.get("op") == "bye":
            break


if __name__ == "__main__":
    main()
