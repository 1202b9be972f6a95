"""Evidence that cannot be forged (issue 22): sealed run records and shards, suites read as
checked, offline answers pinned. Every run here is a real ``tablecert`` process on real files."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import faulty_vendors
from tablecert.harness.record.judged_record import database_digest
from tablecert.harness.record.outputs import write_outputs
from tablecert.harness.store import RunStore
from tablecert.harness.record.verdict import conclude
from waits import HANG

TESTS = Path(__file__).parent
WRONG = "faulty_vendors:FreeOddsLimitUnitLow"        # one unit low on the free odds limit: fails edge
SLOW_WRONG = "seal_vendors:SlowFreeOddsLimitUnitLow"
DROP = {"started", "finished", "host", "seal", "chain"}          # differ between any two runs


def tablecert(*args: str, env: dict[str, str] | None = None, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG,
                          env={**os.environ, "PYTHONPATH": str(TESTS), **(env or {})}, **kw)


def one_line_refusal(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, (word, done.stderr)


def write_key(path: Path) -> Path:
    key = Ed25519PrivateKey.generate()
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    path.with_suffix(".pub").write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return path


def lab_run_key() -> Path:
    """The lab's default run key (in this test session's own config folder, see conftest.py)."""
    return Path(os.environ["XDG_CONFIG_HOME"]) / "tablecert" / "seal-key"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    return {"sign": write_key(folder / "sign.pem"), "other": write_key(folder / "other.pem")}


def certify(edge: Path, out: Path, *extra: str, vendor: str = WRONG) -> subprocess.CompletedProcess[str]:
    return tablecert("certify", "--vendor-plugin", vendor, "--suite", "edge", "--suite-dir", str(edge), "--out",
                     str(out), "--batch-size", "200", "--quiet", "--no-suite-cache", *extra)


# -- sealed shards ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def runs(edge: Path, keys: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The whole run, its two shards (run id A), shard 2 of another run (B), and a shard 2 of run A
    sealed by a key the lab does not trust."""
    base = tmp_path_factory.mktemp("runs")
    plan = {"whole": (), "A1": ("--shard", "1/2", "--run-id", "A"), "A2": ("--shard", "2/2", "--run-id", "A"),
            "B2": ("--shard", "2/2", "--run-id", "B"),
            "U2": ("--shard", "2/2", "--run-id", "A", "--seal-key", str(keys["other"]))}
    for name, extra in plan.items():
        done = certify(edge, base / name, *extra)
        assert done.returncode in (1, 2), done.stderr          # a wrong vendor: never certified
    assert lab_run_key().is_file() and lab_run_key().stat().st_mode & 0o777 == 0o600
    return {name: base / name for name in plan}


def table_rows(run: Path) -> dict[str, Any]:
    db = sqlite3.connect(run / "run.db")
    out: dict[str, Any] = {}
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta'"):
        out[table] = sorted(db.execute(f"SELECT * FROM {table}").fetchall())
    out["meta"] = {k: v for k, v in db.execute("SELECT key, value FROM meta")
                   if k not in DROP | {"shard", "merged_from", "batch_size", "run_id"}}
    db.close()
    return out


def test_honest_shards_sealed_by_the_lab_key_merge_into_the_unsharded_run(
        edge: Path, runs: dict[str, Path], keys: dict[str, Path], tmp_path: Path) -> None:
    merged = tmp_path / "merged"
    done = tablecert("merge", str(runs["A2"]), str(runs["A1"]), "--suite-dir", str(edge), "--out", str(merged))
    assert done.returncode == 1, done.stderr
    assert table_rows(merged) == table_rows(runs["whole"])
    assert table_rows(merged)["failures"]                    # the wrong vendor's failures survived the merge
    summaries = [{k: v for k, v in json.loads((run / "summary.json").read_text()).items() if k not in DROP}
                 for run in (merged, runs["whole"])]
    assert summaries[0] == summaries[1] and summaries[0]["verdict"] == "fail"
    signed = tablecert("report", str(merged), "--sign", str(keys["sign"]))
    assert signed.returncode == 0, signed.stderr
    checked = tablecert("verify-report", str(merged / "certificate.pdf"), "--pubkey", str(keys["sign"].with_suffix(".pub")))
    assert checked.returncode == 0, checked.stdout


def forge_rows(folder: Path) -> None:
    """What the issue's attacker did: the failures deleted, the fail counts and confusion cells
    turned into passes, the judged record recomputed with tablecert's own function, the verdict
    decided again and the outputs written again."""
    db = RunStore(folder / "run.db")
    counts: Counter[tuple[str, str, str]] = Counter()
    for d, k, o, n in db.db.execute("SELECT * FROM counts"):
        counts[(d, k, "pass" if o == "fail" else o)] += n
    confusion: Counter[tuple[str, str, str]] = Counter()
    for op, e, _a, n in db.db.execute("SELECT * FROM confusion"):
        confusion[(op, e, e)] += n
    with db.db:
        db.db.execute("BEGIN")
        for table in ("failures", "counts", "confusion"):
            db.db.execute(f"DELETE FROM {table}")
        db.db.executemany("INSERT INTO counts VALUES (?, ?, ?, ?)", [(*k, n) for k, n in counts.items()])
        db.db.executemany("INSERT INTO confusion VALUES (?, ?, ?, ?)", [(*k, n) for k, n in confusion.items()])
    db.set_meta(judged=database_digest(db))
    assert database_digest(db, db.meta()["judged"]) == db.meta()["judged"]    # the unsealed check is fooled
    conclude(db)
    db.close()
    write_outputs(folder)


def forge_meta(folder: Path) -> None:
    db = RunStore(folder / "run.db")
    db.set_meta(isolation="full: pid, mount and network namespaces (forged)")
    db.close()
    write_outputs(folder)


def unseal(folder: Path) -> None:
    db = RunStore(folder / "run.db")
    db.db.execute("DELETE FROM meta WHERE key = 'seal'")
    db.close()
    write_outputs(folder)


@pytest.mark.parametrize("forgery, partner, forged, words", [
    (forge_rows, "A1", "A2", ("changed since it was sealed",)),
    (forge_meta, "A1", "A2", ("changed since it was sealed",)),
    (unseal, "A1", "A2", ("not sealed",)),
    (None, "A1", "B2", ("differs from", "run_id")),
    (None, "A1", "U2", ("not a trusted key",)),
])
def test_a_forged_shard_is_refused_by_merge_and_by_signing(edge: Path, runs: dict[str, Path], keys: dict[str, Path],
                                                           tmp_path: Path, forgery: Any, partner: str, forged: str,
                                                           words: tuple[str, ...]) -> None:
    shard = tmp_path / f"forged-{forged}"
    shutil.copytree(runs[forged], shard)
    if forgery is not None:
        forgery(shard)
    done = tablecert("merge", str(runs[partner]), str(shard), "--suite-dir", str(edge), "--out", str(tmp_path / "m"))
    one_line_refusal(done, str(shard), *words)
    assert not (tmp_path / "m" / "run.db").exists()
    if forged != "B2":          # B2 is an honest shard of another run: only joining it is wrong
        signed = tablecert("report", str(shard), "--sign", str(keys["sign"]))
        one_line_refusal(signed, str(shard), "not signed")
        assert not (shard / "summary.json.sig").exists()


def test_a_record_is_accepted_only_from_a_trusted_key(runs: dict[str, Path], keys: dict[str, Path],
                                                      tmp_path: Path) -> None:
    """Another machine's lab: no run key of its own; it accepts the seal by --trust."""
    trust = tmp_path / "trust"
    trust.mkdir()
    from tablecert.harness.record.keys import load_private_key

    (trust / "lab-run.pem").write_bytes(load_private_key(lab_run_key()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    elsewhere = {"XDG_CONFIG_HOME": str(tmp_path / "empty-config")}
    one_line_refusal(tablecert("report", str(runs["whole"]), "--sign", str(keys["sign"]), env=elsewhere),
                     "no trusted key")
    done = tablecert("report", str(runs["whole"]), "--sign", str(keys["sign"]), "--trust", str(trust), env=elsewhere)
    assert done.returncode == 0, done.stderr


# -- suites read as checked ------------------------------------------------------------------------
def forged_suite(edge: Path, folder: Path) -> Path:
    """Edge whose expected view holds the wrong vendor's answers (its manifest re-hashed)."""
    shutil.copytree(edge, folder)
    vendor = faulty_vendors.FreeOddsLimitUnitLow()
    manifest = json.loads((folder / "manifest.json").read_text())
    for entry in manifest["files"]:
        if entry["view"] != "expected":
            continue
        path = folder / entry["path"]
        prompts: dict[int, tuple[Any, Any]] = {}
        config = None
        with gzip.open(folder / "prompt" / path.name, "rt") as f:
            for raw in f:
                line = json.loads(raw)
                if line["type"] == "group":
                    config = line["config"]
                elif line["type"] == "test":
                    prompts[line["tcId"]] = (config, line["case"])
        lines = []
        with gzip.open(path, "rt") as f:
            for raw in f:
                line = json.loads(raw)
                if line["type"] == "test":
                    (answer,) = vendor.results(entry["op"], *[[x] if i else x for i, x in
                                                              enumerate(prompts[line["tcId"]])])
                    line["expected"] = ({"error": answer["error"]["code"]} if "error" in answer
                                        else {"result": answer})
                lines.append(json.dumps(line, separators=(",", ":")) + "\n")
        data = gzip.compress("".join(lines).encode(), mtime=0)
        path.write_bytes(data)
        entry["sha256"], entry["size"] = hashlib.sha256(data).hexdigest(), len(data)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return folder


@pytest.fixture(scope="module")
def forged(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = forged_suite(edge, tmp_path_factory.mktemp("forged") / "suite")
    control = certify(folder, tmp_path_factory.mktemp("control") / "run", "--custom-suite")
    assert control.returncode == 0, control.stdout + control.stderr    # these bytes would pass the wrong vendor
    return folder


def swap_when(suite: Path, forged: Path, ready: Any, proc: subprocess.Popen[str]) -> dict[str, bool]:
    """Swap every expected file of ``suite`` for ``forged``'s once ``ready()``; say whether the run
    was still going then."""
    seen: dict[str, bool] = {}

    def watch() -> None:
        while proc.poll() is None and not ready():
            time.sleep(0.002)
        seen["running"] = proc.poll() is None
        for path in (forged / "expected").iterdir():
            tmp = suite / "expected" / f".{path.name}.new"
            shutil.copyfile(path, tmp)
            os.replace(tmp, suite / "expected" / path.name)

    thread = threading.Thread(target=watch)
    thread.start()
    proc.wait(timeout=HANG)
    thread.join()
    return seen


def batches_recorded(run_db: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{run_db}?mode=ro", uri=True, timeout=0.1)
        try:
            return db.execute("SELECT COUNT(*) FROM batches").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("moment", ["run.db appears", "mid-run"])
def test_a_suite_changed_after_its_check_is_never_judged(edge: Path, forged: Path, tmp_path: Path, moment: str) -> None:
    suite, out = tmp_path / "suite", tmp_path / "run"
    shutil.copytree(edge, suite)
    ready = ((lambda: (out / "run.db").exists()) if moment == "run.db appears"
             else (lambda: batches_recorded(out / "run.db") >= 5))
    proc = subprocess.Popen([sys.executable, "-m", "tablecert", "certify", "--vendor-plugin", SLOW_WRONG, "--suite",
                             "edge", "--suite-dir", str(suite), "--out", str(out), "--batch-size", "50", "--quiet",
                             "--no-suite-cache"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(TESTS)})
    seen = swap_when(suite, forged, ready, proc)
    _stdout, stderr = proc.communicate()
    assert seen["running"], "the run ended before the suite was changed: the test proved nothing"
    assert (suite / "expected").exists() and all(
        (suite / "expected" / p.name).read_bytes() == p.read_bytes() for p in (forged / "expected").iterdir())
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else None
    if proc.returncode == 2:                                  # stopped, no verdict
        assert summary is None or summary["verdict"] == "incomplete", stderr
    else:                                                     # judged against the checked bytes
        assert proc.returncode == 1 and summary is not None and summary["verdict"] == "fail", stderr
        assert summary["totals"]["fail"] > 0 and summary["suite_anchor"]["kind"] == "release"


# -- offline evidence pinned -----------------------------------------------------------------------
def expected_answers(suite: Path) -> list[dict[str, Any]]:
    """The exact expected answers of a suite, as a vendor answers them (a result, or an error)."""
    lines = []
    for path in sorted((suite / "expected").glob("*.jsonl.gz")):
        with gzip.open(path, "rt") as f:
            for raw in f:
                line = json.loads(raw)
                if line["type"] == "test":
                    want = line["expected"]
                    answer = want["result"] if "result" in want else {"error": {"code": want["error"]}}
                    lines.append({"file": path.name, "tcId": line["tcId"], "answer": answer})
    return lines


HELLO = {"hello": {"protocol": "tablecert-vendor/2", "implementation": {"name": "Acme Craps", "version": "4.2.1",
                                                                          "build": "b77"},
                   "ops": ["craps.odds_limits", "craps.place_odds", "craps.settle", "paigow.player_bonus",
                           "paigow.banker_bonus", "paigow.settle"]}}


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def page_one(pdf: Path) -> str:
    from pypdf import PdfReader

    return re.sub(r"\s+", "", PdfReader(pdf).pages[0].extract_text())


@pytest.mark.parametrize("header", [False, True])
def test_an_offline_run_of_the_expected_answers_is_certified_signed_verified_and_pinned(
        edge: Path, keys: dict[str, Path], tmp_path: Path, header: bool) -> None:
    responses = write_lines(tmp_path / "responses.jsonl", ([HELLO] if header else []) + expected_answers(edge))
    out = tmp_path / "run"
    done = tablecert("validate", "--responses", str(responses), "--suite-dir", str(edge), "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    data = responses.read_bytes()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["judged"] is not None
    assert summary["responses"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert summary["responses"]["bytes"] == len(data)
    signed = tablecert("report", str(out), "--sign", str(keys["sign"]))
    assert signed.returncode == 0, signed.stderr
    checked = tablecert("verify-report", str(out / "certificate.pdf"), "--pubkey", str(keys["sign"].with_suffix(".pub")))
    assert checked.returncode == 0, checked.stdout
    text = page_one(out / "certificate.pdf")
    assert hashlib.sha256(data).hexdigest() in text and "CERTIFIED" in text
    if header:
        assert "AcmeCraps" in text and "4.2.1" in text and "b77" in text and "unidentified" not in text.lower()
    else:
        assert "implementationisunidentified" in text.lower()
    with responses.open("a") as f:                        # the evidence changed after the run
        f.write("\n")
    one_line_refusal(tablecert("report", str(out), "--sign", str(keys["sign"])), "not the one judged")


HOW_ANSWERED = {"adapter", "target", "isolation", "vendor_limits", "responses", "host", "build"}
"""What says how the answers were obtained (a live session, or a responses file): the rest of a
summary is what was judged."""


def test_an_offline_run_of_the_expected_answers_of_edge_is_a_live_run_of_the_reference_vendor(
        edge: Path, keys: dict[str, Path], tmp_path: Path) -> None:
    """Both CERTIFIED, signed and verified against the lab's key, and their summaries equal but for
    the timings and how the answers came (issue 23: offline is a source of answers like an adapter)."""
    live, offline = tmp_path / "live", tmp_path / "offline"
    done = certify(edge, live, "--sign", str(keys["sign"]), "--batch-size", "1000", vendor="reference")  # as offline
    assert done.returncode == 0, done.stderr
    hello = json.loads((live / "summary.json").read_text())["vendor_hello"]
    responses = write_lines(tmp_path / "responses.jsonl", [{"hello": hello}, *expected_answers(edge)])
    done = tablecert("validate", "--responses", str(responses), "--suite-dir", str(edge), "--out", str(offline),
                     "--quiet")
    assert done.returncode == 0, done.stderr
    signed = tablecert("report", str(offline), "--sign", str(keys["sign"]))
    assert signed.returncode == 0, signed.stderr
    for run in (live, offline):
        checked = tablecert("verify-report", str(run / "certificate.pdf"), "--pubkey", str(keys["sign"].with_suffix(".pub")))
        assert checked.returncode == 0, checked.stdout
        assert "CERTIFIED" in page_one(run / "certificate.pdf")
    summaries = [{k: v for k, v in json.loads((run / "summary.json").read_text()).items()
                  if k not in DROP | HOW_ANSWERED} for run in (live, offline)]
    assert summaries[0]["verdict"] == "pass" and summaries[0]["judged"] is not None
    assert summaries[0] == summaries[1]


def limited(megabytes: int) -> Any:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (megabytes << 20, megabytes << 20))
    return limit


@pytest.fixture(scope="module")
def bulky(edge: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 0.6 MB gzip holding 40 answers of 14 MB each (to 40 real cases, each of another batch)."""
    from tablecert.harness.suites.reader import iter_batches

    answers = [{"file": b.file, "tcId": b.tc_ids[0]} for b in iter_batches(edge, 1000)][:40]
    assert len(answers) == 40
    path = tmp_path_factory.mktemp("bulky") / "responses.jsonl.gz"
    pad = "7" * (14 << 20)
    with gzip.open(path, "wt", compresslevel=9) as f:
        for a in answers:
            f.write(json.dumps({"file": a["file"], "tcId": a["tcId"], "answer": {"pad": pad}}) + "\n")
    assert path.stat().st_size < 1 << 20
    return path


@pytest.mark.parametrize("extra, words", [((), "no answer for"),
                                          (("--max-run-answer-mb", "100"), "pass 104,857,600 bytes in all")])
def test_forty_answers_of_14_mb_are_refused_in_one_line_under_1_5_gb(edge: Path, bulky: Path, tmp_path: Path,
                                                                    extra: tuple[str, ...], words: str) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tablecert", "validate", "--responses", str(bulky), "--suite-dir",
                             str(edge), "--out", str(tmp_path / "run"), "--quiet", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limited(1536))
    stdout, stderr = proc.communicate(timeout=HANG)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    one_line_refusal(subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr), words)
    assert "MemoryError" not in stderr
    print(f"peak RSS of the children so far: {usage.ru_maxrss / 1024:.0f} MB")


@pytest.mark.parametrize("header, words", [
    ({"hello": {"implementation": {"name": "Acme"}, "ops": []}}, "the header is not a hello answer"),
    ({"hello": {**HELLO["hello"], "protocol": "tablecert-vendor/1"}}, "the header says tablecert-vendor/1"),
    ("second line", "must be the first line"),
])
def test_a_bad_header_line_is_refused_in_one_line(edge: Path, tmp_path: Path, header: Any, words: str) -> None:
    answers = expected_answers(edge)
    lines = [answers[0], HELLO, *answers[1:]] if header == "second line" else [header, *answers]
    responses = write_lines(tmp_path / "responses.jsonl", lines)
    done = tablecert("validate", "--responses", str(responses), "--suite-dir", str(edge), "--out", str(tmp_path / "run"),
                     "--quiet")
    one_line_refusal(done, str(responses), words)
    assert not (tmp_path / "run" / "run.db").exists()


def test_a_sealed_run_changed_before_resume_is_refused(edge: Path, runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "whole"
    shutil.copytree(runs["whole"], run)
    forge_meta(run)
    one_line_refusal(certify(edge, run, "--resume"), str(run), "changed since it was sealed")
    shutil.rmtree(run)
    shutil.copytree(runs["whole"], run)
    assert certify(edge, run, "--resume").returncode == 1          # as sealed: it resumes (to the same verdict)


def test_a_changed_pai_gow_house_edge_in_run_db_is_never_signed(runs: dict[str, Path], keys: dict[str, Path],
                                                                tmp_path: Path) -> None:
    """The game math is not sealed (issue 32): the signed certificate shows the oracle's figure."""
    from pypdf import PdfReader

    from tablecert.oracle.paigow_math import committed_returns

    run = tmp_path / "whole"
    shutil.copytree(runs["whole"], run)
    db = sqlite3.connect(run / "run.db")
    math = json.loads(db.execute("SELECT value FROM meta WHERE key = 'game_math'").fetchone()[0])
    for figure in math["paigow"]["figures"]:
        if figure["name"].startswith("imperial wager"):
            figure["exact"], figure["percent"] = "4321/100000", "4.321%"
    with db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'game_math'", (json.dumps(math),))
    db.close()
    signed = tablecert("report", str(run), "--sign", str(keys["sign"]))
    assert signed.returncode == 0, signed.stderr
    text = re.sub(r"\s+", "", "".join(page.extract_text() for page in PdfReader(run / "certificate.pdf").pages))
    imperial = -committed_returns().imperial
    assert "paigow.imperial.house_edge" in text and f"{imperial.numerator}/{imperial.denominator}" in text
    assert "4321/100000" not in text and "4.321" not in text
