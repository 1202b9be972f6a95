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


KITS = {
    "cpp": Kit("cpp", ("g++", "make"), (("make", "-j2"),), ("build/skeleton",), ("build/example",)),
    "csharp": Kit("csharp", ("mcs", "mono", "make"), (("make",),), ("mono", "build/skeleton.exe"),
                  ("mono", "build/example.exe")),
    "java": Kit("java", ("javac", "jar", "java", "make"), (("make",),), ("build/skeleton",), ("build/example",)),
    "typescript": Kit("typescript", ("node", "npm"), (("npm", "ci", "--no-audit", "--no-fund"), ("npm", "run", "build")),
                      ("node", "build/skeleton.js"), ("node", "build/example_craps.js")),
}


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
            built = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=900)
            assert built.returncode == 0, f"{' '.join(command)}:\n{built.stdout[-3000:]}\n{built.stderr[-3000:]}"
        yield folder
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def command(folder: Path, argv: tuple[str, ...]) -> str:
    """A vendor command line with the kit's own files named by absolute path."""
    return " ".join(str(folder / a) if (folder / a).exists() else a for a in argv)


def check_greets_confined(folder: Path, kit: Kit) -> None:
    for argv, name in ((kit.skeleton, "my table game"), (kit.example, "kit example")):
        checked = tablecert("sandbox-check", "--vendor-cmd", command(folder, argv), timeout=120)
        assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-2000:]
        hello = [line for line in checked.stdout.splitlines() if line.startswith("hello:")]
        assert hello and name in hello[0] and "tablecert-vendor/2" in hello[0], checked.stdout[-2000:]
        assert "user nobody" in checked.stdout or "nobody" in checked.stdout


def check_skeleton_unsupported(folder: Path, kit: Kit, edge: Path, out: Path) -> None:
    """Every vector of ``edge`` unsupported; a required op not declared: NOT CERTIFIED, exit 1."""
    run = tablecert("certify", "--vendor-cmd", command(folder, kit.skeleton), "--suite", "edge", "--suite-dir", str(edge),
                    "--require", "craps.settle", "--out", str(out), "--quiet")
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    total = json.loads((edge / "manifest.json").read_text())["numberOfTests"]
    assert summary["totals"] == {"pass": 0, "fail": 0, "unsupported": total, "fault": 0}
    assert summary["vendor_hello"]["ops"] == []
    assert summary["verdict"] == "fail" and any("craps.settle" in r for r in summary["verdict_reasons"])


def check_example_passes(folder: Path, kit: Kit, standard: Path, out: Path) -> None:
    """Every craps.place_odds and craps.settle vector of ``standard`` passes, the rest unsupported:
    CERTIFIED FOR those ops (scoped_pass, exit 0), no fault."""
    run = tablecert("certify", "--vendor-cmd", command(folder, kit.example), "--suite", "standard", "--suite-dir",
                    str(standard), "--require", ",".join(EXAMPLE_OPS), "--out", str(out), "--quiet")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    manifest = json.loads((standard / "manifest.json").read_text())
    expected = {op: sum(f["numberOfTests"] for f in manifest["files"] if f["view"] == "prompt" and f["op"] == op)
                for op in EXAMPLE_OPS}
    assert {op: summary["by_op"][op] for op in EXAMPLE_OPS} == {op: {"pass": n} for op, n in expected.items()}
    assert summary["totals"]["fail"] == 0 and summary["totals"]["fault"] == 0 and not summary["faults"]
    assert summary["verdict"] == "scoped_pass"
    assert summary["isolation"].startswith("bubblewrap"), summary["isolation"]
