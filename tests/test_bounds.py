"""Every input from outside is bounded: one line, exit status 2, bounded memory, never a traceback.

Gzip "bombs" (one 2 GB line, compressed to about 2 MB, built here by repeating one gzip member)
as an offline responses file and as a suite vector file; the caps on what a run stores.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

BOMB_GB = 2
MAX_RSS_KB = 400 * 1024            # a child that held the whole line would need over 2 GB


def write_bomb(path: Path, prefix: bytes = b"") -> int:
    """A gzip file whose decompressed text is ``prefix`` then one line of BOMB_GB GiB of ``a``
    (no newline); returns its compressed size."""
    member = io.BytesIO()
    with gzip.GzipFile(fileobj=member, mode="wb", compresslevel=9, mtime=0) as g:
        g.write(b"a" * (64 << 20))
    with open(path, "wb") as f:
        if prefix:
            f.write(gzip.compress(prefix, mtime=0))
        for _ in range(BOMB_GB * 16):
            f.write(member.getvalue())
    return path.stat().st_size


MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, file=open(os.environ["TABLECERT_TEST_RSS"], "w"))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(argv: list[str], tmp_path: Path) -> tuple[int, str, str, int, float]:
    """(exit status, stdout, stderr, peak RSS in KiB, seconds) of one command. It is started by a
    small launcher process: a child forked straight from this (large) test process would count
    the test process's own pages in its peak RSS."""
    started = time.monotonic()
    rss_file = tmp_path / "peak-rss"
    proc = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True,
                          env={**os.environ, "TABLECERT_TEST_RSS": str(rss_file)})
    return proc.returncode, proc.stdout, proc.stderr, int(rss_file.read_text()), time.monotonic() - started


def test_a_gzip_bomb_responses_file_is_refused_in_one_line(edge: Path, tmp_path: Path) -> None:
    bomb = tmp_path / "responses.jsonl.gz"
    first = sorted(p.name for p in (edge / "prompt").iterdir())[0]    # a case the suite holds: an unknown one
    head = json.dumps({"file": first, "tcId": 1, "answer": {}}).encode() + b"\n"   # is now refused at its line
    assert write_bomb(bomb, head) < 4 << 20
    rc, stdout, stderr, rss, seconds = run_measured(
        [sys.executable, "-m", "tablecert", "validate", "--responses", str(bomb), "--suite-dir", str(edge),
         "--out", str(tmp_path / "run"), "--quiet"], tmp_path)
    assert rc == 2, stdout + stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert f"{bomb}:2: line longer than 16,777,216 bytes" in stderr
    assert rss < MAX_RSS_KB, f"peak RSS {rss} KiB"
    assert seconds < 60


def test_a_gzip_bomb_suite_file_is_refused_by_the_reader_and_the_linter(edge: Path, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(edge, suite)
    name = next(p.name for p in (suite / "prompt").iterdir() if p.name.endswith(".jsonl.gz"))
    write_bomb(suite / "prompt" / name)
    probe = ("import sys; from pathlib import Path\n"
             "from tablecert.harness.suites.reader import SuiteReadError, iter_batches\n"
             "from tablecert.vectors.checks import lint_file\n"
             "problems = []\n"
             f"lint_file(Path({str(suite / 'prompt' / name)!r}), 'prompt', 'x', problems, set())\n"
             "print(problems[0])\n"
             "try:\n"
             f"    list(iter_batches(Path({str(suite)!r}), 1000))\n"
             "except SuiteReadError as err:\n"
             "    print(err)\n")
    rc, stdout, stderr, rss, _ = run_measured([sys.executable, "-c", probe], tmp_path)
    assert rc == 0, stderr
    lint, read = stdout.splitlines()
    assert lint == f"{name}:1: line longer than 1,048,576 bytes"
    assert read == f"prompt/{name}:1: line longer than 1,048,576 bytes"
    assert rss < MAX_RSS_KB, f"peak RSS {rss} KiB"


class BloatedVendor:
    """Answers every case with a 20,000-character label: every vector fails, every answer is large."""

    def __init__(self) -> None:
        from tablecert.oracle.vendor import ReferenceVendor

        self.reference = ReferenceVendor()

    def handle(self, request: dict) -> dict:
        answer = self.reference.handle(request)
        if request.get("op") not in ("hello", "bye"):
            answer["results"] = [{"hand": "x" * 20_000} for _ in request["cases"]]
        return answer


def test_large_failing_answers_are_cut_in_run_db_and_junit(edge: Path, tmp_path: Path) -> None:
    import json
    import sqlite3

    from tablecert.harness.adapters.python_adapter import PythonAdapter
    from tablecert.harness.contract import SessionOptions
    from tablecert.harness.record.outputs import write_outputs
    from tablecert.harness.run.runner import Runner

    runner = Runner(lambda: PythonAdapter().open("test_bounds:BloatedVendor", SessionOptions(timeout=60)), edge,
                    tmp_path, batch_size=200)
    result = runner.run()
    summary = write_outputs(tmp_path)
    assert result.verdict == "fail" and summary["totals"]["pass"] == 0 and summary["totals"]["fail"] > 5000
    failures = summary["totals"]["fail"]
    assert (tmp_path / "run.db").stat().st_size < failures * 6_000          # not 20 KB a row
    assert (tmp_path / "junit.xml").stat().st_size < 3 << 20
    db = sqlite3.connect(tmp_path / "run.db")
    actual = json.loads(db.execute("SELECT actual FROM failures LIMIT 1").fetchone()[0])
    # {"hand":"x...x"}: 9 + 20,000 + 2 characters
    assert actual["tablecert_cut"].startswith("answer of 20,011 characters cut to its first 4,096")
    labels = [row[0] for row in db.execute("SELECT DISTINCT actual FROM confusion")]
    assert labels and all(len(label) < 100 for label in labels)


def test_a_run_stops_sending_once_the_answers_pass_the_run_cap(edge: Path, tmp_path: Path) -> None:
    from tablecert.harness.adapters.python_adapter import PythonAdapter
    from tablecert.harness.contract import SessionOptions
    from tablecert.harness.record.outputs import write_outputs
    from tablecert.harness.run.runner import Runner

    runner = Runner(lambda: PythonAdapter().open("reference", SessionOptions(timeout=60)), edge, tmp_path,
                    batch_size=100, max_run_answer_bytes=50_000)
    result = runner.run()
    summary = write_outputs(tmp_path)
    answered = summary["totals"]["pass"]
    assert result.verdict == "incomplete" and summary["totals"]["fail"] == 0
    assert 0 < answered < 5000                                   # stopped early: the edge suite holds 6,863
    assert summary["stopped"].startswith("the vendor's answers passed 50,000 bytes")
