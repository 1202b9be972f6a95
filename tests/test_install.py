"""The package as a user gets it: build the wheel, install it into a fresh virtual environment,
run the CLI from there (so package data, entry point and import mapping are all checked)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from waits import HANG

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_and_runs_in_a_fresh_venv(tmp_path):
    # build from a copy of the source tree, so no build/ left in the checkout can leak into the wheel
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "out", "*.egg-info",
                                                                "__pycache__", ".pytest_cache", ".hypothesis"))
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dist), str(source)],
                   check=True, timeout=HANG)
    (wheel,) = dist.glob("tablecert-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # the four parts under one namespace, rule data inside, nothing generic at the top level
    for expected in ("tablecert/oracle/clauses.toml", "tablecert/oracle/interpretations.toml",
                     "tablecert/oracle/rules/paigow.toml", "tablecert/oracle/published_counts.toml",
                     "tablecert/harness/__init__.py", "tablecert/vectors/__init__.py", "tablecert/reports/__init__.py"):
        assert expected in names
    assert {n.split("/")[0] for n in names} <= {"tablecert", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    assert any(n.startswith("tablecert/oracle/profiles/") and n.endswith(".toml") for n in names)

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # --no-compile: no .pyc written ahead for the dependencies (about half the install's CPU); pip only
    # warns on a module it cannot compile, and the commands below import what they run
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
                    str(wheel)], check=True, timeout=HANG)
    exe = env_dir / "bin" / "tablecert"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "tablecert 0.1.0"
    reg = json.loads(subprocess.run([str(exe), "register", "--json"], capture_output=True, text=True, check=True,
                                    cwd=tmp_path).stdout)
    assert "njac.11.20.d" in reg["clauses"] and "INT-JOKER-ACE" in reg["interpretations"]
    hello = subprocess.run([str(exe), "reference-vendor"], input='{"id": 0, "op": "hello", "protocol": "tablecert-vendor/1"}\n',
                           capture_output=True, text=True, check=True, cwd=tmp_path, timeout=HANG)
    assert json.loads(hello.stdout)["implementation"]["version"] == "0.1.0"
