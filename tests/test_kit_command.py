"""``tablecert kit LANG --out DIR``: writes the kit's files (no build output), and refuses an
unknown LANG or an existing non-empty DIR in one line, exit 2, writing nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from waits import HANG

REPO = Path(__file__).resolve().parents[1]


def kit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tablecert", "kit", *args], capture_output=True, text=True, timeout=HANG)


@pytest.mark.parametrize("lang", ["cpp", "csharp", "java", "typescript"])
def test_kit_writes_the_kit_files(lang: str, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    result = kit(lang, "--out", str(out))
    assert result.returncode == 0, result.stderr
    source = REPO / "kits" / lang
    tracked = subprocess.run(["git", "ls-files", "."], cwd=source, capture_output=True, text=True, check=True).stdout.split()
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert written == sorted(tracked)
    assert all((out / name).read_bytes() == (source / name).read_bytes() for name in tracked)


def test_unknown_kit_is_one_line_exit_2(tmp_path: Path) -> None:
    result = kit("cobol", "--out", str(tmp_path / "k"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "cobol" in result.stderr
    assert not (tmp_path / "k").exists()


def test_non_empty_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("a vendor's own file\n")
    result = kit("cpp", "--out", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and str(tmp_path) in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]
