"""No path a vendor sends is ever opened, and what it sends reaches the reports as text.

The vendor (a real process) names a FIFO in every string it controls: its hello (also as an
``<img src>`` and a link in ReportLab markup), every error message, its stderr. Opening a FIFO
for reading blocks until somebody writes to it, so a harness or report writer that opened the
path would never finish; the run must end normally, with the path shown as text in the PDFs."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

from pypdf import PdfReader

from waits import HANG

VENDOR = '''\
import json, sys
from tablecert.oracle.vendor import ReferenceVendor

PATH = sys.argv[1]
vendor = ReferenceVendor()
for line in sys.stdin:
    request = json.loads(line)
    answer = vendor.handle(request)
    if request.get("op") == "hello":
        answer["implementation"] = {"name": f'<img src="{PATH}"/><a href="file://{PATH}">{PATH}</a>',
                                    "version": "file://" + PATH, "build": "../../.." + PATH}
    for result in answer.get("results", []):
        if isinstance(result, dict) and "error" in result:
            result["error"]["message"] = PATH
    sys.stderr.write(PATH + "\\n")
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
    if request.get("op") == "bye":
        break
'''


def test_paths_a_vendor_sends_are_never_opened(edge: Path, tmp_path: Path, vendor_files: Path) -> None:
    suite = edge
    fifo = tmp_path / "trap.fifo"
    os.mkfifo(fifo)
    script = vendor_files / "vendor.py"
    script.write_text(VENDOR)
    out = tmp_path / "run"
    cmd = shlex.join([sys.executable, str(script), str(fifo)])
    done = subprocess.run([sys.executable, "-m", "tablecert", "certify", "--vendor-cmd", cmd, "--suite", "edge",
                           "--suite-dir", str(suite), "--out", str(out), "--quiet"],
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stdout + done.stderr      # the answers are the reference's
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    for pdf in ("certificate.pdf", "findings.pdf"):
        text = "".join(page.extract_text() for page in PdfReader(out / pdf).pages).replace("\n", "")
        assert f'<img src="{fifo}"/>' in text, pdf               # the markup is shown, not obeyed
    assert str(fifo) in (out / "summary.json").read_text()
