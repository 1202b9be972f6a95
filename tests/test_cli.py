"""The command line: help for every subcommand, one-line errors with exit 2, JSON output."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tablecert.cli import build_parser


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, input=stdin,
                          timeout=300)


def test_every_subcommand_has_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in sub.choices:
        out = run(name, "--help")
        assert out.returncode == 0 and "usage: tablecert " + name in out.stdout


def test_register_lists_every_clause_and_interpretation():
    data = json.loads(run("register", "--json").stdout)
    for cid in ["craps.sw.1", "craps.sw.2", "craps.sw.3", "craps.sw.4", "craps.sw.5", "craps.sw.6", "craps.sw.7",
                "njac.11.19.a", "njac.11.19.b", "njac.11.19.c1", "njac.11.19.c2",
                "njac.11.20.a", "njac.11.20.b", "njac.11.20.c", "njac.11.20.d"]:
        assert cid in data["clauses"]
    for iid in ["INT-JOKER-ACE", "INT-ONE-WAGER", "INT-CAP-AGGREGATE", "INT-ROYAL-JOKER",
                "INT-DONT-LIMIT-ON-WIN", "INT-COMMISSION-CAP"]:
        assert iid in data["interpretations"]


def test_interpretations_cite_known_clauses():
    from tablecert.oracle.register import check_registers

    assert check_registers() == []


@pytest.mark.parametrize("args", [("check-config", "/nonexistent/profile.toml"), ("math", "--profile", "no-such-profile")])
def test_bad_input_is_one_line_exit_2(args):
    out = run(*args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith("tablecert: error:")


def test_unknown_subcommand_is_exit_2():
    out = run("frobnicate")
    assert out.returncode == 2 and "Traceback" not in out.stderr
