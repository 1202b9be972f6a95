"""The command line: help for every subcommand, one-line errors with exit 2, JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablecert.cli import build_parser
from waits import HANG


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, input=stdin,
                          timeout=HANG)


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


PROFILE = Path(__file__).parents[1] / "oracle" / "profiles" / "odds-10x.toml"


@pytest.mark.parametrize("old, new, where", [
    ("\n[craps]\n", "\n[craps\n", "not valid TOML"),                                  # malformed
    ("unit = 100 ", "unit = 0 ", "craps.unit"),                                      # not a positive unit
    ("bar = 12", "bar = 7", "craps.bar"),                                            # no such bar number
    ("bar = 12", "bar = 12\nbarr = 12", "craps.barr: unknown field"),                # a misspelt field
    ('free_odds = { "4" = "10"', 'free_odds = { "4" = "20"', "craps.free_odds.4"),  # free above max
    ('commission_rate = "0"', 'commission_rate = "-0.05"', "craps.commission_rate"),
])
def test_a_bad_table_config_is_one_line_naming_file_and_field(tmp_path, old, new, where):
    text = PROFILE.read_text()
    assert old in text
    path = tmp_path / "table.toml"
    path.write_text(text.replace(old, new, 1))
    out = run("check-config", str(path))
    assert out.returncode == 2, out.stdout
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"tablecert: error: {path}: ") and where in out.stderr, out.stderr
