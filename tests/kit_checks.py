"""What every vendor starter kit (kits/LANG) must do, checked through the command line as a vendor
would use it: ``tablecert kit LANG --out DIR`` writes the kit (as from a clean clone: no build
output), its build command builds it with the kit's toolchain, ``tablecert sandbox-check`` greets
both vendors confined, the skeleton's vectors are all unsupported, and the worked example passes
every ``craps.place_odds`` and ``craps.settle`` vector of ``standard`` (counted from the suite's
manifest, not from the code).

Each kit has its own test module (tests/test_kit_*.py) so that pytest-xdist spreads them over the
workers. A missing toolchain fails the test in CI (``CI=true``; ``.ci/run`` installs them with
kits/toolchains.sh) and skips it elsewhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from waits import HANG

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_OPS = ("craps.place_odds", "craps.settle")


@dataclass(frozen=True)
class Kit:
    """A kit: the tools its build needs, its build commands and its two vendors' command lines
    (relative to the kit folder), as its README gives them."""

    lang: str
    tools: tuple[str, ...]
    build: tuple[tuple[str, ...], ...]
    skeleton: tuple[str, ...]
    example: tuple[str, ...]
    ledger_source: str             # where tests/kit_vendors' ledger-tables vendor goes in the kit
    ledger_build: tuple[str, ...]
    ledger: tuple[str, ...]
    authenticates: bool = False    # its shell answers build.authenticate (Since 1.0)


KITS = {
    "cpp": Kit("cpp", ("g++", "make"), (("make", "-j2"),), ("build/skeleton",), ("build/example",),
               "src/ledger_tables.cpp", ("make", "build/ledger_tables"), ("build/ledger_tables",), authenticates=True),
    "csharp": Kit("csharp", ("mcs", "mono", "make"), (("make",),), ("mono", "build/skeleton.exe"),
                  ("mono", "build/example.exe"), "src/LedgerTables.cs", ("make", "build/LedgerTables.exe"),
                  ("mono", "build/LedgerTables.exe"), authenticates=True),
    "java": Kit("java", ("javac", "jar", "java", "make"), (("make",),), ("build/skeleton",), ("build/example",),
                "src/tablecert/kit/LedgerTables.java", ("make", "build/LedgerTables"), ("build/LedgerTables",),
                authenticates=True),
    "typescript": Kit("typescript", ("node", "npm"), (("npm", "ci", "--no-audit", "--no-fund"), ("npm", "run", "build")),
                      ("node", "build/skeleton.js"), ("node", "build/example_craps.js"), "src/ledger_tables.ts",
                      ("npm", "run", "build"), ("node", "build/ledger_tables.js"), authenticates=True),
}
LEDGER_VENDORS = Path(__file__).parent / "kit_vendors"


def tablecert(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", *args], capture_output=True, text=True, timeout=timeout)


def require_toolchain(kit: Kit) -> None:
    """Skip when a tool is missing, except in CI, where that fails the test."""
    missing = [tool for tool in kit.tools if shutil.which(tool) is None]
    if not missing:
        return
    message = f"the {kit.lang} kit's toolchain is missing {', '.join(missing)} (kits/toolchains.sh installs it)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def built_kit(lang: str) -> Iterator[Path]:
    """The kit written by ``tablecert kit`` into a folder the sandbox user can read, then built."""
    kit = KITS[lang]
    require_toolchain(kit)
    parent = Path(tempfile.mkdtemp(prefix=f"tablecert-kit-{lang}-"))
    parent.chmod(0o755)
    try:
        folder = parent / lang
        written = tablecert("kit", lang, "--out", str(folder))
        assert written.returncode == 0, written.stderr
        assert not (folder / "build").exists() and (folder / "README.md").is_file()
        for command in kit.build:
            built = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=HANG)
            assert built.returncode == 0, f"{' '.join(command)}:\n{built.stdout[-3000:]}\n{built.stderr[-3000:]}"
        readable_by_all(folder)
        yield folder
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def readable_by_all(folder: Path) -> None:
    """As a vendor's install must be for the sandbox's user (a uid of its own) (the test process's umask may
    be stricter than a vendor's): every folder and file readable, executables executable, by all."""
    for path in [folder, *folder.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode | 0o444 | (0o111 if path.is_dir() or mode & 0o100 else 0))


def command(folder: Path, argv: tuple[str, ...]) -> str:
    """A vendor command line with the kit's own files named by absolute path."""
    return " ".join(str(folder / a) if (folder / a).exists() else a for a in argv)


def check_greets_confined(folder: Path, kit: Kit) -> None:
    for argv, name in ((kit.skeleton, "my table game"), (kit.example, "kit example")):
        checked = tablecert("sandbox-check", "--vendor-cmd", command(folder, argv), timeout=HANG)
        assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-2000:]
        hello = [line for line in checked.stdout.splitlines() if line.startswith("hello:")]
        assert hello and name in hello[0] and "tablecert-vendor/2" in hello[0], checked.stdout[-2000:]
        if os.geteuid() == 0:                      # as root: the run's own uid, never the lab's
            assert "a user of its own" in checked.stdout and "the vendor runs as: uid=61" in checked.stdout


def check_skeleton_unsupported(folder: Path, kit: Kit, edge: Path, out: Path) -> None:
    """Every vector of ``edge`` unsupported; a required op not declared: NOT CERTIFIED, exit 1."""
    run = tablecert("certify", "--vendor-cmd", command(folder, kit.skeleton), "--suite", "edge",
                    "--suite-dir", str(edge), "--require", "craps.settle", "--out", str(out), "--quiet")
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    total = json.loads((edge / "manifest.json").read_text())["numberOfTests"]
    assert summary["totals"] == {"pass": 0, "fail": 0, "unsupported": total, "fault": 0}
    assert [op for op in summary["vendor_hello"]["ops"] if op != "build.authenticate"] == []
    assert summary["verdict"] == "fail" and any("craps.settle" in r for r in summary["verdict_reasons"])


def check_example_passes(folder: Path, kit: Kit, standard: Path, out: Path) -> None:
    """Every craps.place_odds and craps.settle vector of ``standard`` passes, the rest unsupported:
    CERTIFIED FOR those ops (scoped_pass, exit 0), no fault."""
    run = tablecert("certify", "--vendor-cmd", command(folder, kit.example), "--suite", "standard",
                    "--suite-dir", str(standard), "--require", ",".join(EXAMPLE_OPS), "--out", str(out), "--quiet")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    manifest = json.loads((standard / "manifest.json").read_text())
    expected = {op: sum(f["numberOfTests"] for f in manifest["files"] if f["view"] == "prompt" and f["op"] == op)
                for op in EXAMPLE_OPS}
    assert {op: summary["by_op"][op] for op in EXAMPLE_OPS} == {op: {"pass": n} for op, n in expected.items()}
    assert summary["totals"]["fail"] == 0 and summary["totals"]["fault"] == 0 and not summary["faults"]
    assert summary["verdict"] == "scoped_pass"
    assert summary["isolation"].startswith("bubblewrap"), summary["isolation"]
    if kit.authenticates:           # its answers to build.authenticate equal the harness's over the bound files
        assert summary["build"]["authenticated"] and summary["build"]["vendor_answer"] == "matched", summary["build"]


class Vendor:
    """A kit vendor as a plain subprocess (unconfined: what is checked is the shell's journal)."""

    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.next_id = 0

    def ask(self, request: dict) -> dict:
        assert self.process.stdin and self.process.stdout
        self.next_id += 1
        self.process.stdin.write(json.dumps({"id": self.next_id, **request}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        assert answer["id"] == self.next_id, answer
        return answer

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=HANG)


def start(argv: list[str], state_dir: Path | None) -> Vendor:
    vendor = Vendor(argv)
    hello = vendor.ask({"op": "hello", "protocol": "tablecert-vendor/2", "protocols": ["tablecert-vendor/2"],
                        **({"state_dir": str(state_dir)} if state_dir else {})})
    assert hello["protocol"] == "tablecert-vendor/2" and "table.step" in hello["ops"], hello
    return vendor


def check_live_journal(folder: Path, kit: Kit, state_dir: Path) -> None:
    """The shell's live tables on a test vendor whose state is every step played: each answered
    open and step survives a SIGKILL (replayed from the journal), a refused step or one out of
    sequence is never journaled, a cut last line is dropped, a close is journaled; no state_dir:
    no_state_dir."""
    shutil.copy(LEDGER_VENDORS / Path(kit.ledger_source).name, folder / kit.ledger_source)
    built = subprocess.run(kit.ledger_build, cwd=folder, capture_output=True, text=True, timeout=HANG)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    argv = command(folder, kit.ledger).split()
    table = {"table": "t-1"}
    vendor = start(argv, state_dir)
    opened = vendor.ask({"op": "table.open", **table, "config": {}, "rack": 9007199254740991})
    assert opened["result"] == {"steps": 0, "table": {"rack": 9007199254740991, "played": []}}
    assert vendor.ask({"op": "table.open", **table, "config": {}, "rack": 1})["error"]["code"] == "table_exists"
    assert vendor.ask({"op": "table.open", "table": "t 2", "config": {}, "rack": 1})["error"]["code"] == "invalid_request"
    assert vendor.ask({"op": "table.open", "table": "t2", "config": 1, "rack": 1})["error"]["code"] == "invalid_config"
    assert vendor.ask({"op": "table.step", **table, "seq": 0, "step": {"act": "a"}})["result"] == {"accepted": True, "seen": 0}
    assert vendor.ask({"op": "table.step", **table, "seq": 0, "step": {"act": "b"}})["error"]["code"] == "out_of_sequence"
    assert vendor.ask({"op": "table.step", **table, "seq": 1, "step": 5})["error"]["code"] == "invalid_request"
    assert vendor.ask({"op": "table.step", **table, "seq": 1, "step": {"act": "b"}})["result"]["seen"] == 1
    vendor.kill()
    journal = state_dir / "tables.journal"
    assert len(journal.read_bytes().splitlines()) == 3       # the open and two steps; nothing refused
    with open(journal, "ab") as f:
        f.write(b'{"step":"t-1","seq":2,"act":{"act":"c"')    # a line cut short by the kill
    vendor = start(argv, state_dir)
    played = [{"act": "a"}, {"act": "b"}]
    resumed = vendor.ask({"op": "table.resume", **table})
    assert resumed["result"] == {"steps": 2, "table": {"rack": 9007199254740991, "played": played}}
    assert journal.read_bytes().endswith(b"\n") and len(journal.read_bytes().splitlines()) == 3
    assert vendor.ask({"op": "table.step", **table, "seq": 2, "step": {"act": "c"}})["result"]["seen"] == 2
    assert vendor.ask({"op": "table.recall", **table})["result"] == {"games": []}
    assert vendor.ask({"op": "table.close", **table})["result"] == {}
    assert vendor.ask({"op": "table.resume", **table})["error"]["code"] == "no_such_table"
    vendor.kill()
    vendor = start(argv, state_dir)
    assert vendor.ask({"op": "table.resume", **table})["error"]["code"] == "no_such_table"
    vendor.ask({"op": "bye"})
    assert vendor.process.wait(timeout=HANG) == 0
    vendor = start(argv, None)
    assert vendor.ask({"op": "table.open", **table, "config": {}, "rack": 1})["error"]["code"] == "no_state_dir"
    vendor.kill()
