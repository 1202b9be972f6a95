"""Every command in the README, the docs and the kits' READMEs runs as written (issue 53).

The convention, which this module enforces as well as runs:

* a fenced block tagged ``sh`` is run: one command a line (a line ending in ``\\`` goes on), ``#``
  starts a comment, and a command expected to exit other than 0 says so in a closing comment,
  ``# exit 1``;
* any other block holding a command (a line starting ``tablecert``, ``make``, ``apt-get``, ``npm``
  ...) is not run, and says so on the line before it: ``<!-- not run: why -->``;
* ``<!-- needs: g++ make -->`` before a block names the programs it and the page's later blocks
  need (up to the next such line): without them those blocks are skipped, except in CI
  (``CI=true``), where that fails the page.

A page's blocks are run in their order by one ``bash``, in a new scratch folder (readable by the
sandbox's user), with the installed console command first on the PATH: nothing is substituted but
that folder. A kit's README (``kits/LANG/README.md``) is read inside the kit, so its scratch folder
is the kit ``tablecert kit LANG --out`` writes. The certify commands of the docs use the ``edge``
suite, taken from the tests' shared copy through the suite cache, so the pages run in minutes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from waits import HANG

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
COMMAND_WORDS = ("tablecert", "make", "apt-get", "sudo", "npm", "node", "mono", "java", "cd ", "./", "python", "sed ")
NOT_RUN = re.compile(r"<!-- not run: .+ -->")
NEEDS = re.compile(r"<!-- needs: ([^>]+) -->")
EXIT = re.compile(r"#\s*exit (\d+)\s*$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int                   # of the opening fence, 1-based
    tag: str
    lines: tuple[str, ...]
    before: str                 # the last non-blank line before the fence
    needs: tuple[str, ...]      # the programs the last <!-- needs: --> line of the page before it names


@dataclass(frozen=True)
class Command:
    line: int
    text: str
    exit: int


def doc_pages(root: Path = REPO) -> list[Path]:
    """README.md, every page of docs/ and every kit's README."""
    docs = sorted(p for p in (root / "docs").rglob("*.md") if "hooks" not in p.parts)
    return [root / "README.md", *docs, *sorted((root / "kits").glob("*/README.md"))]


def blocks(page: Path, root: Path = REPO) -> list[Block]:
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    before, needs, i = "", (), 0
    while i < len(lines):
        fence = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)", lines[i])
        if not fence:
            if lines[i].strip():
                before = lines[i].strip()
            if marker := NEEDS.search(lines[i]):
                needs = tuple(marker.group(1).split())
            i += 1
            continue
        indent, marks, tag = fence.groups()
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(marks):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        found.append(Block(str(page.relative_to(root)), start + 1, tag, tuple(body), before, needs))
        before, i = "", i + 1
    return found


def commands(block: Block) -> list[Command]:
    """The commands of a runnable block, with the exit status each is expected to give."""
    out: list[Command] = []
    pending: list[str] = []
    first = 0
    for n, raw in enumerate(block.lines, start=block.line + 1):
        if not pending and (not raw.strip() or raw.lstrip().startswith("#")):
            continue
        if not pending:
            first = n
        pending.append(raw)
        if raw.rstrip().endswith("\\"):
            continue
        text = "\n".join(pending)
        expected = EXIT.search(pending[-1])
        out.append(Command(first, text, int(expected.group(1)) if expected else 0))
        pending = []
    assert not pending, f"{block.page}:{block.line}: a command ends in a line continuation"
    return out


def unmarked(block: Block) -> bool:
    """A block that holds a command but neither runs (``sh``) nor says it is not run."""
    if block.tag == "sh" or NOT_RUN.search(block.before):
        return False
    return any(line.lstrip().startswith(COMMAND_WORDS) for line in block.lines)


def script(page: str, runnable: list[Block]) -> str:
    """One bash script running the blocks' commands in order, stopping at the first whose exit
    status is not the one the page gives (said on stderr with the page and line)."""
    parts = ["set -u"]
    for block in runnable:
        for command in commands(block):
            where = f"{page}:{command.line}"
            quoted = command.text.replace("'", "'\\''")
            parts += [f"echo '@@ {where}'", command.text, "rc=$?",
                      f"if [ $rc -ne {command.exit} ]; then echo \"docs: {where}: exit $rc, the page says "
                      f"{command.exit}: \"'{quoted}' >&2; exit 99; fi"]
    return "\n".join(parts) + "\n"


def seeded_cache(edge: Path, cache_home: Path) -> None:
    """The suite cache of ``cache_home`` holding the tests' shared ``edge`` suite (checked, as every
    cached suite is, by certify before it is used)."""
    from tablecert.harness.suites.cache import default_cache_dir, entry_path
    from tablecert.oracle.profiles import DEFAULT_PROFILE

    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(cache_home)
    try:
        entry = entry_path(default_cache_dir(), "edge", DEFAULT_PROFILE)
    finally:
        if old is None:
            del os.environ["XDG_CACHE_HOME"]
        else:
            os.environ["XDG_CACHE_HOME"] = old
    assert entry is not None
    if not (entry / "manifest.json").is_file():
        shutil.copytree(edge, entry)


@dataclass
class PageRun:
    commands: int
    skipped: list[str]
    seconds: float
    done: subprocess.CompletedProcess[str] | None


def run_page(page: Path, cache_home: Path, root: Path = REPO) -> PageRun:
    """Run a page's ``sh`` blocks as written in a new scratch folder; its result (``done`` None when
    it has nothing to run)."""
    every = blocks(page, root)
    ci = os.environ.get("CI") == "true"
    runnable, skipped = [], []
    for block in every:
        if block.tag != "sh":
            continue
        missing = [tool for tool in block.needs if shutil.which(tool) is None]
        if missing and not ci:
            skipped.append(f"{block.page}:{block.line} (needs {', '.join(missing)})")
            continue
        runnable.append(block)
    if not runnable:
        return PageRun(0, skipped, 0.0, None)
    scratch = Path(tempfile.mkdtemp(prefix="tablecert-docs-"))
    scratch.chmod(0o755)                      # a confined vendor runs as a user of its own
    try:
        env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}",
               "XDG_CACHE_HOME": str(cache_home)}
        cwd = scratch
        kit = re.fullmatch(r"kits/(\w+)/README\.md", str(page.relative_to(root)))
        if kit:                               # a kit's README is read inside the kit
            cwd = scratch / "kit"
            subprocess.run([str(BIN / "tablecert"), "kit", kit.group(1), "--out", str(cwd)], check=True, env=env,
                           capture_output=True, timeout=HANG)
        text = script(str(page.relative_to(root)), runnable)
        start = time.monotonic()
        done = subprocess.run(["bash", "-c", text], cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG)
        ran = done.stdout.count("\n@@ ") + done.stdout.startswith("@@ ")
        return PageRun(ran, skipped, time.monotonic() - start, done)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def runnable_pages() -> list[str]:
    return [str(p.relative_to(REPO)) for p in doc_pages() if any(b.tag == "sh" for b in blocks(p))]


@pytest.fixture(scope="module")
def cache_home(edge: Path) -> Path:
    home = Path(tempfile.mkdtemp(prefix="tablecert-docs-cache-"))
    seeded_cache(edge, home)
    yield home
    shutil.rmtree(home, ignore_errors=True)


def test_every_block_with_a_command_runs_or_says_it_does_not() -> None:
    stray = [f"{b.page}:{b.line}" for p in doc_pages() for b in blocks(p) if unmarked(b)]
    assert not stray, f"blocks with a command that neither run (```sh) nor say <!-- not run: why -->: {stray}"
    total = sum(len(commands(b)) for p in doc_pages() for b in blocks(p) if b.tag == "sh")
    print(f"docs: {total} commands in ```sh blocks")
    assert total >= 30


@pytest.mark.parametrize("page", runnable_pages())
def test_page_commands_run_as_written(page: str, cache_home: Path, record_property: Any) -> None:
    """The page's commands, as written (the count and time go to the terminal summary and junit.xml:
    tests/conftest.py prints them)."""
    run = run_page(REPO / page, cache_home)
    if run.done is None:
        pytest.skip(f"every block of {page} needs a missing program: {run.skipped}")
    assert run.done.returncode == 0, (f"{page}: a command failed after {run.commands} ran\n"
                                      f"{run.done.stderr[-3000:]}\n--- stdout ---\n{run.done.stdout[-3000:]}")
    record_property("docs_commands", (page, run.commands, round(run.seconds, 1), run.skipped))


def test_a_broken_command_in_a_copy_of_a_page_fails_it(cache_home: Path, tmp_path: Path) -> None:
    """A copy of docs/labs/certify.md whose command names a suite that does not exist fails at that
    command's line (the page itself is run above)."""
    page = tmp_path / "docs" / "labs" / "certify.md"
    page.parent.mkdir(parents=True)
    text = (REPO / "docs" / "labs" / "certify.md").read_text(encoding="utf-8")
    [command] = [c for b in blocks(REPO / "docs" / "labs" / "certify.md") if b.tag == "sh" for c in commands(b)]
    assert "--suite edge " in command.text
    page.write_text(text.replace(command.text, command.text.replace("--suite edge ", "--suite edgy ")), encoding="utf-8")
    run = run_page(page, cache_home, tmp_path)
    assert run.done is not None and run.done.returncode == 99 and run.commands == 1
    assert f"docs: docs/labs/certify.md:{command.line}: exit 2, the page says 0" in run.done.stderr
    assert "--suite edgy: unknown suite" in run.done.stderr


def test_a_broken_command_fails_its_page(cache_home: Path, tmp_path: Path) -> None:
    """A copy of a page with one command broken (an option misspelt) fails, naming its line; the
    page as written passes."""
    (tmp_path / "docs").mkdir()
    good = ("# A page\n\n```sh\ntablecert kit cpp --out my-vendor\nls my-vendor/src/skeleton.cpp\n```\n\n"
            "```sh\ntablecert diff my-vendor nothing   # exit 2\n```\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text(good, encoding="utf-8")
    run = run_page(page, cache_home, tmp_path)
    assert run.done is not None and run.done.returncode == 0, run.done and run.done.stderr
    assert run.commands == 3
    page.write_text(good.replace("--out my-vendor", "--outt my-vendor"), encoding="utf-8")
    run = run_page(page, cache_home, tmp_path)
    assert run.done is not None and run.done.returncode == 99
    assert "docs: docs/page.md:4: exit 2, the page says 0" in run.done.stderr
    assert run.commands == 1                  # stopped there
    page.write_text(good.replace("```sh\ntablecert kit", "```\ntablecert kit"), encoding="utf-8")
    assert [b.line for b in blocks(page, tmp_path) if unmarked(b)] == [3]


def test_the_debian_packages_the_pages_install_are_the_ones_ci_installs() -> None:
    """Each ``apt-get install`` line of the pages (not run: it needs root) names Debian packages that
    kits/toolchains.sh installs for the tests, so the names are the ones CI proves."""
    known = set(re.findall(r"[a-z0-9][a-z0-9.+-]+", (REPO / "kits" / "toolchains.sh").read_text(encoding="utf-8")))
    installs = [(b.page, line) for p in doc_pages() for b in blocks(p) for line in b.lines if "apt-get install" in line]
    assert len(installs) >= 8                 # start.md, kits.md's three, the four kits' READMEs
    for page, line in installs:
        names = line.split("apt-get install", 1)[1].split()
        assert names and set(names) <= known, (page, set(names) - known)
