"""Signatures a lab can trust: ``report --sign`` recomputes the summary and the verdict from run.db
and refuses a folder that says otherwise; ``verify-report`` says ok only against a key the lab
names (--pubkey, --cert, --trust DIR, TABLECERT_TRUST), and without one says who signed and
exits 3."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.reports import check_report
from tablecert.reports.signing import fingerprint, self_signed_certificate
from tablecert.vectors.suites import generate
from waits import HANG

REFERENCE = shlex.join([sys.executable, "-m", "tablecert", "reference-vendor"])


def tablecert(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=HANG,
                          env=env)


class Key:
    """An Ed25519 key with its private PEM, public PEM and self-signed certificate on disk."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.key = Ed25519PrivateKey.generate()
        self.private = folder / "lab.key"
        self.private.write_bytes(self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                        serialization.NoEncryption()))
        self.public = folder / "lab.pub.pem"
        self.public.write_bytes(self.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                                   serialization.PublicFormat.SubjectPublicKeyInfo))
        self.cert = folder / "lab.crt"
        self.cert.write_bytes(self_signed_certificate(self.key).public_bytes(serialization.Encoding.PEM))
        self.fingerprint = fingerprint(self.key.public_key())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("runs")
    generate("edge", base / "suite")
    out = {}
    for name, vendor in (("reference", ("--vendor-cmd", REFERENCE)), ("demo", ("--vendor-plugin", "demo"))):
        done = tablecert("certify", *vendor, "--suite", "edge", "--suite-dir", str(base / "suite"),
                         "--out", str(base / name), "--quiet")
        assert done.returncode == (0 if name == "reference" else 1), done.stdout + done.stderr
        out[name] = base / name
    return out


def copy(run: Path, tmp_path: Path) -> Path:
    dest = tmp_path / run.name
    shutil.copytree(run, dest)
    return dest


def refused(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def set_meta(run: Path, resealed: bool = True, **values: object) -> None:
    """Edit meta values; the seal then refuses the folder (harness/record/seal.py), so to reach the checks
    behind it the edited record is sealed again with the lab's run key (``resealed``: as if the
    lab's own tablecert had written it)."""
    with sqlite3.connect(run / "run.db") as db:
        db.executemany("UPDATE meta SET value = ? WHERE key = ?", [(json.dumps(v), k) for k, v in values.items()])
    if resealed:
        from tablecert.harness.record.seal import run_key, seal_folder

        seal_folder(run, run_key())


def test_a_summary_that_says_pass_for_a_failed_run_is_not_signed(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["demo"], tmp_path)
    key = Key(tmp_path / "key")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["verdict"] == "fail" and summary["totals"]["fail"] > 0
    summary["verdict"] = "pass"
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    refused(tablecert("report", str(run), "--sign", str(key.private)), "not the summary of run.db", "'verdict'")
    assert not (run / "summary.json.sig").exists()


def test_a_database_verdict_that_disagrees_with_its_results_is_not_signed(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["demo"], tmp_path)
    key = Key(tmp_path / "key")
    set_meta(run, verdict="pass")
    summary = json.loads((run / "summary.json").read_text())
    summary["verdict"] = "pass"                                  # the forger keeps both in step
    (run / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    refused(tablecert("report", str(run), "--sign", str(key.private)),
            "recorded verdict 'pass' is not what the results give ('fail')")
    assert not (run / "summary.json.sig").exists()


def test_an_unfinished_run_is_not_signed(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["reference"], tmp_path)
    set_meta(run, resealed=False, state="running")
    refused(tablecert("report", str(run), "--sign", str(Key(tmp_path / "key").private)), "changed since it was sealed")
    set_meta(run, state="running")
    refused(tablecert("report", str(run), "--sign", str(Key(tmp_path / "key").private)), "not finished")


def test_verify_report_trusts_only_a_key_the_lab_names(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["reference"], tmp_path)
    lab = Key(tmp_path / "lab")
    done = tablecert("report", str(run), "--sign", str(lab.private))
    assert done.returncode == 0, done.stderr
    pdf = str(run / "certificate.pdf")
    env = {k: v for k, v in os.environ.items() if k != "TABLECERT_TRUST"}

    untrusted = tablecert("verify-report", pdf, env=env)
    assert untrusted.returncode == 3, untrusted.stdout + untrusted.stderr
    assert lab.fingerprint in untrusted.stdout and "NOT VERIFIED" in untrusted.stdout
    assert "pdf signature: ok" not in untrusted.stdout and "summary signature: ok" not in untrusted.stdout

    done = tablecert("verify-report", pdf, "--pubkey", str(lab.public), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pdf signature: ok (by trusted key " + lab.fingerprint in done.stdout

    def oks(**trust: object) -> list[bool | None]:
        return [ok for _, ok, _ in check_report(pdf, **trust)]

    assert oks(cert=lab.cert) == [True, True, True]
    store = tmp_path / "trust"
    store.mkdir()
    shutil.copy(Key(tmp_path / "someone").public, store / "someone.pem")
    assert oks(trust=store)[:2] == [False, False]
    shutil.copy(lab.cert, store / "lab.crt")
    assert oks(trust=store) == [True, True, True]
    assert tablecert("verify-report", pdf, env={**env, "TABLECERT_TRUST": str(store)}).returncode == 0


def test_a_report_resigned_by_another_key_is_not_the_labs(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["reference"], tmp_path)
    lab, forger = Key(tmp_path / "lab"), Key(tmp_path / "forger")
    assert tablecert("report", str(run), "--sign", str(forger.private)).returncode == 0
    pdf = str(run / "certificate.pdf")
    env = {k: v for k, v in os.environ.items() if k != "TABLECERT_TRUST"}
    anyone = tablecert("verify-report", pdf, env=env)
    assert anyone.returncode == 3 and forger.fingerprint in anyone.stdout
    against_lab = tablecert("verify-report", pdf, "--pubkey", str(lab.public), env=env)
    assert against_lab.returncode == 1, against_lab.stdout
    assert "pdf signature: FAILED" in against_lab.stdout and "summary signature: FAILED" in against_lab.stdout


def test_a_bad_trust_store_is_bad_input(runs: dict[str, Path], tmp_path: Path) -> None:
    pdf = str(runs["reference"] / "certificate.pdf")
    empty = tmp_path / "empty"
    empty.mkdir()
    refused(tablecert("verify-report", pdf, "--trust", str(empty)), "holds no key")
    (empty / "junk.pem").write_text("not a key\n")
    refused(tablecert("verify-report", pdf, "--trust", str(empty)), "junk.pem")
