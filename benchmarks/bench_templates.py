"""What the sealed template cache (reports/template_cache.py) saves each ``tablecert certify``.

    python benchmarks/bench_templates.py [--repeat 7]

In fresh interpreters (each imports the report modules first, untimed), the time to get every
template a certify renders (the certificate, the findings, report.html and the parts they
include): compiled from source (no cache) against read from the lab's sealed cache (filled by a
first process). Prints the best and median of ``--repeat`` processes each, alternated, and the
load. Uses a temporary cache and key folder: the lab's own are never touched.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

CODE = """
import sys, time
from tablecert.reports import html, markup
from tablecert.reports.template_cache import lab_cache
use = sys.argv[1] == "cache"
start = time.perf_counter()
env = markup.environment() if use else markup.environment.__wrapped__()
if not use:
    env.bytecode_cache = None
page = html.environment()
if not use:
    page.bytecode_cache = None
for name in ("certificate.xml.j2", "findings.xml.j2", "_parts.xml.j2", "_cuts.xml.j2"):
    env.get_template(name)
for name in ("report.html.j2", "_page_style.html.j2", "_report_scope.html.j2"):
    page.get_template(name)
print(time.perf_counter() - start)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-templates-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": os.path.join(tmp, "cache"), "XDG_CONFIG_HOME": os.path.join(tmp, "config")}
        subprocess.run([sys.executable, "-c", "from tablecert.harness.record.seal import run_key; run_key()"],
                       env=env, check=True)
        subprocess.run([sys.executable, "-c", CODE, "cache"], env=env, check=True, capture_output=True)  # fills it
        times: dict[str, list[float]] = {"compiled": [], "cache": []}
        for _ in range(args.repeat):
            for kind in times:
                done = subprocess.run([sys.executable, "-c", CODE, kind], env=env, check=True, capture_output=True,
                                      text=True)
                times[kind].append(float(done.stdout))
    for kind, found in times.items():
        print(f"{kind:9s} {1000 * min(found):7.1f} ms best {1000 * statistics.median(found):7.1f} ms median")
    print(f"saved per certify: {1000 * (min(times['compiled']) - min(times['cache'])):.1f} ms (best against best); "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
