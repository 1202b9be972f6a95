"""A vendor that spends real CPU on every hand: the reference oracle's pure-Python labels, one
hand at a time (about 35 us per label on the development machine), never the compiled fast path.

    python benchmarks/cpu_vendor.py        (speaks the vendor protocol on stdin/stdout)

Used by ``bench_parallel.py`` as a stand-in for a third-party hand evaluator wrapped as a vendor.
"""

from __future__ import annotations

import sys

from tablecert.oracle.vendor import ReferenceVendor, serve


class CpuVendor(ReferenceVendor):
    """The reference vendor answering case by case in Python (a subclass never takes the fast path)."""


if __name__ == "__main__":
    sys.exit(serve(sys.stdin, sys.stdout, CpuVendor()))
