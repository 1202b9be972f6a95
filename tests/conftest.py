"""Fixtures shared by the test modules."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# No test writes to the lab user's suite cache (harness/suites/cache.py): every test process, and the
# tablecert processes it starts, keep theirs in a temporary folder.
_CACHE = tempfile.mkdtemp(prefix="tablecert-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
# nor to the lab user's config folder: the default run key (harness/record/seal.py) is made in a temporary one.
_CONFIG = tempfile.mkdtemp(prefix="tablecert-test-config-")
os.environ["XDG_CONFIG_HOME"] = _CONFIG


@pytest.fixture(scope="session", autouse=True)
def _private_suite_cache() -> Iterator[None]:
    yield
    for folder in (_CACHE, _CONFIG):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def vendor_files() -> Iterator[Path]:
    """A folder for files a vendor process reads (its script, its settings). certify confines a
    ``--vendor-cmd`` vendor by default: as root it runs as ``nobody``, which cannot enter pytest's
    own temporary folders (mode 0700), so a vendor's files go here (mode 0755, outside them)."""
    folder = Path(tempfile.mkdtemp(prefix="tablecert-vendor-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def standard_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``standard`` suite, generated once for the whole test run and shared read-only by the
    test processes (pytest-xdist workers share the parent of their base temporary folders; the
    first to take the lock generates it, the others wait and reuse it)."""
    return shared_suite(tmp_path_factory, "standard")


@pytest.fixture(scope="session")
def joker_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``joker`` hand suite (20,358,520 hands), generated once and shared read-only likewise."""
    return shared_suite(tmp_path_factory, "joker")


@pytest.fixture(scope="session")
def rounds_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``rounds`` suite (whole craps rounds), generated once and shared read-only likewise."""
    return shared_suite(tmp_path_factory, "rounds")


def shared_suite(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    from tablecert.vectors.suites import generate

    return shared_folder(tmp_path_factory, f"shared-{name}-suite", lambda folder: generate(name, folder))


def shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]) -> Path:
    """A folder made once per test run by ``make`` and shared read-only by the test processes."""
    # pytest-xdist workers share the parent of their base temporary folders (one per test run); a
    # single process (-n 0) has its own base folder, whose parent holds every earlier run's.
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def reference_standard_run(standard_suite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference vendor's run of ``standard`` (the Python plugin), sealed and its outputs
    written as certify does; made once per test run and shared read-only (test_suite_strength
    judges it, test_run_record compares its outputs with the release before's writer)."""
    def make(out: Path) -> None:
        from tablecert.harness.adapters.python_adapter import PythonAdapter
        from tablecert.harness.contract import SessionOptions
        from tablecert.harness.instance.recovery import FaultPolicy
        from tablecert.harness.record.outputs import write_outputs
        from tablecert.harness.record.seal import run_key, seal_folder
        from tablecert.harness.run.runner import Runner

        adapter = PythonAdapter()
        Runner(lambda: adapter.open("tablecert.oracle.vendor:ReferenceVendor", SessionOptions(timeout=120)),
               standard_suite, out, policy=FaultPolicy()).run()
        seal_folder(out, run_key())
        write_outputs(out)

    return shared_folder(tmp_path_factory, "reference-standard-run", make)


# The test files that take longest go first: pytest-xdist hands whole files (--dist loadfile) to
# whichever worker is free in collection order (--no-loadscope-reorder in pyproject: by default it
# orders files by their number of tests), so a long file met last would run alone at the end.
LONGEST_FIRST = ("test_install.py", "test_crapssim_peer.py", "test_live_vendors.py", "test_suite_folders.py",
                 "test_docs_commands.py", "test_seal.py", "test_rng_raw.py", "test_verdicts.py",
                 "test_suite_strength.py", "test_resume_kill.py", "test_round_vendors.py", "test_rng_raw_faults.py",
                 "test_live_stations.py", "test_recovery.py", "test_kit_cpp.py", "test_imperial_math.py",
                 "test_rng_raw_deep.py", "test_rng_repeats.py", "test_vendor_tree.py", "test_live_state_dir.py",
                 "test_rng_cli.py", "test_reports.py", "test_ray_cluster.py", "test_html_report.py",
                 "test_parallel.py", "test_live_adapters.py", "test_stake_dispositions.py", "test_round_fuzz.py",
                 "test_trust_boundary.py", "test_decision.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))    # stable: order within a file kept


@pytest.fixture(scope="session")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``edge`` suite (both views), generated once for the whole test run and shared read-only
    likewise: a test that changes a suite copies it first (a module that defines its own ``edge``
    fixture uses that one)."""
    return shared_suite(tmp_path_factory, "edge")


def _docs_commands_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The commands of the docs run as written (tests/test_docs_commands.py), counted per page."""
    pages = [value for report in terminalreporter.stats.get("passed", [])
             for name, value in getattr(report, "user_properties", ()) if name == "docs_commands"]
    if not pages:
        return
    terminalreporter.write_sep("-", f"docs: {sum(p[1] for p in pages)} commands run as written on {len(pages)} pages")
    for page, count, seconds, skipped in sorted(pages):
        terminalreporter.write_line(f"{page}: {count} commands in {seconds} s" + (f"; skipped {skipped}" if skipped else ""))


# Every archived file the tests wrote (a run's summary.json, the RNG's summary.json and
# raw-summary.json, each line of a run's failures/*.jsonl, the lab site's index.json) is checked
# against the JSON Schema shipped for it (tablecert/schemas/), once, at the end of the session, in
# the folders pytest gave the tests (the workers' lie below the controller's). A file that breaks
# its schema fails the session; the closing note counts what was checked.
def _check_archived(base: Path) -> tuple[dict[str, int], list[str]]:
    import json

    from tablecert.schemas import FAILURE_LINE, archived_schema, problems

    counts: dict[str, int] = {}
    broken: list[str] = []
    for folder, _, names in os.walk(base):
        for name in names:
            path = Path(folder, name)
            if name in ("summary.json", "raw-summary.json", "index.json"):
                try:
                    documents = [json.loads(path.read_bytes())]
                except (OSError, ValueError):
                    documents = []
            elif name.endswith(".jsonl") and path.parent.name == "failures":
                documents = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
            else:
                continue
            kinds = [archived_schema(path, data) for data in documents]
            label = "failures/*.jsonl lines" if kinds[:1] == [FAILURE_LINE] else \
                f"{name} ({kinds[0]})" if kinds and kinds[0] else f"{name} naming no schema (not checked)"
            counts[label] = counts.get(label, 0) + max(len(documents), 1)
            for i, (kind, data) in enumerate(zip(kinds, documents), 1):
                if kind and (problem := problems(kind, data)):
                    broken.append(f"{path}{f' line {i}' if kind == FAILURE_LINE else ''}: {problem} ({kind})")
    return counts, broken


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput") or not hasattr(session.config, "_tmp_path_factory"):
        return
    base = session.config._tmp_path_factory.getbasetemp()
    counts, broken = _check_archived(base)
    session.config.stash[_ARCHIVED] = (counts, broken)
    if broken and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_ARCHIVED = pytest.StashKey[tuple[dict[str, int], list[str]]]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    _docs_commands_summary(terminalreporter)
    if _ARCHIVED not in config.stash:
        return
    counts, broken = config.stash[_ARCHIVED]
    checked = ", ".join(f"{n} {label}" for label, n in sorted(counts.items())) or "none written"
    terminalreporter.write_line(f"schema-validated: {checked}")
    for line in broken[:20]:
        terminalreporter.write_line(f"schema-invalid: {line}", red=True)
    if len(broken) > 20:
        terminalreporter.write_line(f"schema-invalid: {len(broken) - 20} more", red=True)
