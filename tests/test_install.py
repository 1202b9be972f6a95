"""The package as a lab gets it: ``python -m build`` makes the sdist and, from it, the wheel; the
wheel is installed into a fresh virtual environment (no checkout on the path, the vendor confined
by default) and run there as root and as an unprivileged user; the sdist is installed the same way.

One build and one install per test session (the module's fixture; ``--dist loadfile`` keeps the
module on one worker). The wheel's contents are checked against the tree: every folder with an
``__init__.py`` under an outermost package (``tablecert.PACKAGES``) is in it, every data file the
tree tracks under them is in it, and nothing else is (no tests, benchmarks or build leftovers).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import _check_archived
from test_sandbox_unprivileged import _closed_folders, _ensure_user, _view_script
from waits import HANG

from tablecert import PACKAGES, __version__

ROOT = Path(__file__).resolve().parents[1]
LEFTOVERS = (".git", ".venv", "build", "dist", "out", "site", "*.egg-info", "__pycache__", ".pytest_cache",
             ".hypothesis")
"""What a checkout may hold that is not the source (never copied to build from)."""
NOT_SHIPPED = {"kits/.gitignore"}
"""Tracked files under the product folders that the wheel is not meant to hold."""


def folder_of(package: str) -> str:
    return package if package == "tablecert" else package.split(".", 1)[1]


def tree_packages(root: Path) -> dict[str, Path]:
    """Every package of the tree, found by walking it (not by setup.py): each folder holding an
    ``__init__.py`` below an outermost package whose every parent up to it is one too."""
    found: dict[str, Path] = {}
    for outer in PACKAGES:
        top = root / folder_of(outer)
        for init in sorted(top.rglob("__init__.py")):
            rel = init.parent.relative_to(top)
            if all((top / Path(*rel.parts[:i]) / "__init__.py").is_file() for i in range(len(rel.parts))):
                found[".".join((outer, *rel.parts))] = init.parent
    return found


def expected_wheel_files(root: Path) -> set[str]:
    """The wheel's files (outside its .dist-info) the tree says it must hold: every module of every
    package, and every data file tracked under the product folders but NOT_SHIPPED."""
    expected = {f"{package.replace('.', '/')}/{module.name}"
                for package, folder in tree_packages(root).items() for module in folder.glob("*.py")}
    tracked = subprocess.run(["git", "ls-files", "-z", *(folder_of(p) for p in PACKAGES)], cwd=root,
                             capture_output=True, text=True, check=True).stdout.split("\0")
    outer = {folder_of(p): p for p in PACKAGES}
    for path in filter(None, tracked):
        if path.endswith(".py") or path in NOT_SHIPPED:
            continue
        top, _, rest = path.partition("/")
        expected.add(f"{outer[top].replace('.', '/')}/{rest}")
    return expected


def wheel_gaps(names: list[str], expected: set[str]) -> tuple[list[str], list[str]]:
    """(files the wheel lacks, files it holds that it should not), its .dist-info aside."""
    held = {n for n in names if not n.split("/")[0].endswith(".dist-info")}
    return sorted(expected - held), sorted(held - expected)


@dataclass(frozen=True)
class Release:
    work: Path          # readable by the unprivileged user; the runs go below it
    wheel: Path
    sdist: Path
    venv: Path          # a fresh venv holding the wheel


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=HANG, cwd=cwd, env=env)


def fresh_venv(folder: Path, artifact: Path) -> Path:
    """A new virtual environment holding ``artifact`` (a wheel or an sdist) and its dependencies
    from the index (pip's cache); --no-compile: no .pyc written ahead for the dependencies (about
    half the install's CPU; pip only warns on a module it cannot compile)."""
    venv.create(folder, with_pip=True)
    done = run([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                "--no-compile", str(artifact)], cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


@pytest.fixture(scope="module")
def release() -> Iterator[Release]:
    work = Path(tempfile.mkdtemp(prefix="tablecert-release-"))      # pytest's tmp folders are 0700
    work.chmod(0o755)
    try:
        source = work / "source"      # a copy: no build/ left in the checkout can leak into the wheel
        shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*LEFTOVERS))
        built = run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(source)], cwd=work)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
        (wheel,) = (work / "dist").glob("tablecert-*.whl")
        (sdist,) = (work / "dist").glob("tablecert-*.tar.gz")
        shutil.rmtree(source)
        yield Release(work, wheel, sdist, fresh_venv(work / "venv", wheel))
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.slow
def test_the_wheel_holds_every_package_and_data_file_of_the_tree_and_nothing_else(release: Release) -> None:
    names = zipfile.ZipFile(release.wheel).namelist()
    expected = expected_wheel_files(ROOT)
    assert {"tablecert/harness/store/__init__.py", "tablecert/harness/instance/__init__.py",
            "tablecert/oracle/rules/paigow.toml", "tablecert/harness/vendor-protocol.md"} <= expected
    assert wheel_gaps(names, expected) == ([], [])
    assert {n.split("/")[0] for n in names} == {"tablecert", release.wheel.name.split("-py3")[0] + ".dist-info"}


@pytest.mark.slow
def test_the_sdist_holds_the_sources_and_no_tests(release: Release) -> None:
    with tarfile.open(release.sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"setup.py", "pyproject.toml", "README.md", "CHANGELOG.md", "harness/store/__init__.py", "harness/instance/__init__.py",
            "oracle/rules/paigow.toml"} <= names
    assert not {n.split("/")[0] for n in names} & {"tests", "benchmarks", "peers", "docs", ".venv"}


def test_every_top_level_package_folder_is_an_outermost_package() -> None:
    """tablecert.PACKAGES (what setup.py builds from, and what the sandbox binds) is every top-level
    folder of the repository with an __init__.py: a folder added, or a name dropped from the list,
    fails here before the wheel leaves it out."""
    folders = {init.parent.name for init in ROOT.glob("*/__init__.py")}
    assert folders == {folder_of(p) for p in PACKAGES}
    assert len(tree_packages(ROOT)) >= 20 and {"tablecert.harness.store", "tablecert.harness.instance"} <= set(
        tree_packages(ROOT))


def test_a_package_missing_from_the_wheel_or_a_stray_file_is_named() -> None:
    """What 0.1.x's wheel was (17 packages listed by hand, 19 on disk) fails the check above."""
    expected = expected_wheel_files(ROOT)
    names = sorted(expected - {n for n in expected if n.startswith("tablecert/harness/store/")})
    missing, stray = wheel_gaps(names + ["tests/test_install.py"], expected)
    assert "tablecert/harness/store/__init__.py" in missing and stray == ["tests/test_install.py"]


def test_a_new_subfolder_is_a_package_of_the_wheel_without_being_listed(tmp_path: Path) -> None:
    """setup.py finds packages in the tree: a folder with an __init__.py added under harness/ is
    mapped (the walk of this test agrees), a folder without one is not."""
    import runpy

    tree = tmp_path / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(*LEFTOVERS, "tests", "benchmarks", "docs", "kits"))
    (tree / "harness" / "newpart" / "inner").mkdir(parents=True)
    (tree / "harness" / "newpart" / "__init__.py").write_text("")
    (tree / "harness" / "newpart" / "inner" / "__init__.py").write_text("")
    (tree / "harness" / "loose").mkdir()
    (tree / "harness" / "loose" / "mod.py").write_text("")
    mapping = runpy.run_path(str(tree / "setup.py"), run_name="setup")["package_map"]()
    assert mapping["tablecert.harness.newpart"] == "harness/newpart"
    assert mapping["tablecert.harness.newpart.inner"] == "harness/newpart/inner"
    assert "tablecert.harness.loose" not in mapping
    assert set(mapping) - {"tablecert.kits"} == set(tree_packages(tree))     # kits/ left out of the copy


# --- the installed wheel as a lab runs it -----------------------------------------------------------

def user_command(user: str, home: Path, argv: list[str], release: Release, stage: Path) -> list[str]:
    """``argv`` as ``user`` runs it: root as is; another user through setpriv, with only the
    fresh venv's bin on PATH, a HOME of its own and a view in which the folders it cannot enter
    (a pyenv Python under /root) are covered, the trees it needs bound back."""
    env = ["/usr/bin/env", "-i", f"HOME={home}", f"PATH={release.venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
           "LANG=C.UTF-8"]
    if user == "root":
        return [*env, *argv]
    entry = _ensure_user()
    inner = [shutil.which("setpriv") or "setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}",
             "--clear-groups", "--", *env, *argv]
    closed = _closed_folders([release.work, Path(os.path.realpath(sys.base_prefix))])
    if not closed:
        return inner
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", _view_script(closed, stage, inner)]


def small_live_suite(folder: Path) -> Path:
    """A live slice: two named craps scripts and the pai gow script (the bank passing), written by
    the checkout's generator (its files are data)."""
    from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
    from tablecert.vectors import live_cases
    from tablecert.vectors.model import VectorGroup
    from tablecert.vectors.suites import build_manifest, manifest_bytes
    from tablecert.vectors.writer import write_vector_set

    profile = load_profile(DEFAULT_PROFILE)
    named, _ = live_cases.live_groups(profile.craps)
    keep = [v for v in named.vectors if v.flags[0] in ("PlayWorkingCall", "PlayComeTravel")]
    written = write_vector_set(folder, "live", live_cases.OP, DEFAULT_PROFILE, profile.sha256,
                               [VectorGroup(named.op, named.config, named.comment, keep)])
    written += write_vector_set(folder, "live", live_cases.PAIGOW_OP, DEFAULT_PROFILE, profile.sha256,
                                [next(live_cases.paigow_groups(profile.paigow_cap))])
    (folder / "manifest.json").write_bytes(manifest_bytes(build_manifest("live", DEFAULT_PROFILE, profile.sha256,
                                                                         ("prompt", "expected"), folder, written)))
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("user", ["root", "tablecert-ci"])
def test_the_installed_wheel_runs_every_command_of_a_lab(release: Release, user: str) -> None:
    if user != "root" and os.geteuid() != 0:
        pytest.skip("runs the wheel as another user: needs root")
    if user == "root" and os.geteuid() != 0:
        user = "self"
    base = Path(tempfile.mkdtemp(prefix=f"run-{user}-", dir=release.work))
    base.chmod(0o755)
    home = base / "home"
    home.mkdir(mode=0o700)
    if user == "tablecert-ci":
        entry = _ensure_user()
        os.chown(base, entry.pw_uid, entry.pw_gid)
        os.chown(home, entry.pw_uid, entry.pw_gid)
    stage = Path(tempfile.mkdtemp(prefix="stage-", dir=release.work))
    live = small_live_suite(release.work / f"live-{user}")
    os.chmod(live, 0o755)
    bin_ = release.venv / "bin"
    tablecert = str(bin_ / "tablecert")

    def as_user(*argv: str) -> subprocess.CompletedProcess[str]:
        return run(user_command(user if user != "self" else "root", home, list(argv), release, stage), cwd=base)

    where = as_user(str(bin_ / "python"), "-c", "import sys, tablecert; print(tablecert.__file__); print(sys.path)")
    assert where.returncode == 0, where.stderr
    assert where.stdout.startswith(str(release.venv / "lib")) and str(ROOT) not in where.stdout, where.stdout

    version = as_user(tablecert, "--version")
    assert version.returncode == 0 and version.stdout.splitlines()[0] == f"tablecert {__version__}", version.stderr

    # the README's certify line, confined by default (--isolation auto), the suite cache under HOME
    done = as_user(tablecert, "certify", "--vendor-cmd", f"{tablecert} reference-vendor", "--suite", "edge",
                   "--out", str(base / "runs" / "edge"), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((base / "runs" / "edge" / "summary.json").read_text())
    assert summary["verdict"] == "pass" and summary["isolation"].startswith("bubblewrap"), summary["isolation"]
    assert summary["totals"]["pass"] == 6863                       # the edge suite's size (README)
    anchors = dict(line.split(None, 1) for line in version.stdout.splitlines()[3:])
    assert anchors["edge"] == f"manifest.json sha256 {summary['suite_anchor']['manifest_sha256']}"   # the anchor run

    done = as_user(tablecert, "certify", "--vendor-cmd", f"{tablecert} reference-vendor", "--suite", "live",
                   "--suite-dir", str(live), "--custom-suite", "--interruptions", "2", "--out",
                   str(base / "runs" / "live"), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((base / "runs" / "live" / "summary.json").read_text())["verdict"] == "pass"

    done = as_user(tablecert, "rng", "--vendor-cmd", f"{tablecert} reference-vendor", "--rolls", "20000", "--decks",
                   "1000", "--quiet", "--out", str(base / "rng"))
    # the reference vendor is unseeded (os.urandom): a correct generator fails the battery at its plan's
    # family-wise rate, 1% (docs/labs/rng.md), as test_rng_cli's out-of-the-box test allows too
    assert done.returncode in (0, 1), done.stdout + done.stderr
    rng = json.loads((base / "rng" / "summary.json").read_text())
    assert rng["samples"] == {"rolls": 20000, "decks": 1000} and len(rng["tests"]) == 62

    done = as_user(tablecert, "site", str(base / "runs"), "--out", str(base / "site"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (base / "site" / "index.html").is_file()

    key = base / "lab-sign.pem"
    assert as_user("openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)).returncode == 0
    assert as_user("openssl", "pkey", "-in", str(key), "-pubout", "-out", str(base / "lab-sign.pub")).returncode == 0
    done = as_user(tablecert, "report", str(base / "runs" / "edge"), "--sign", str(key))
    assert done.returncode == 0, done.stdout + done.stderr
    done = as_user(tablecert, "verify-report", str(base / "runs" / "edge" / "certificate.pdf"), "--pubkey",
                   str(base / "lab-sign.pub"))
    assert done.returncode == 0, done.stdout + done.stderr

    done = as_user(tablecert, "kit", "cpp", "--out", str(base / "kit"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (base / "kit" / "src" / "shell.cpp").read_bytes() == (ROOT / "kits" / "cpp" / "src" / "shell.cpp").read_bytes()
    assert archived_problems(base) == []          # this folder is not pytest's: conftest's check does not see it


def archived_problems(folder: Path) -> list[str]:
    """Every archived file under ``folder`` checked against its schema (tests/conftest.py's check)."""
    counts, broken = _check_archived(folder)
    assert counts.get("summary.json (tablecert-run-summary/1)") and counts.get("index.json (tablecert-site-index/1)")
    return broken


@pytest.mark.slow
def test_the_sdist_installs_and_certifies_too(release: Release) -> None:
    env_dir = fresh_venv(release.work / "venv-sdist", release.sdist)
    tablecert = str(env_dir / "bin" / "tablecert")
    out = release.work / "sdist-run"
    done = run([tablecert, "certify", "--vendor-cmd", f"{tablecert} reference-vendor", "--suite", "edge", "--out",
                str(out), "--quiet"], cwd=release.work, env={**os.environ, "PATH": f"{env_dir / 'bin'}:/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((out / "summary.json").read_text())["verdict"] == "pass"


@pytest.fixture(scope="module")
def pipx_install(release: Release) -> Path:
    """docs/labs/install.md's pipx line, pipx's folders in the work folder and its environments made
    with the base Python (as a lab's pipx makes them with the system's); returns pipx's bin folder."""
    env = {**os.environ, "PIPX_HOME": str(release.work / "pipx"), "PIPX_BIN_DIR": str(release.work / "pipx-bin"),
           "PIPX_MAN_DIR": str(release.work / "pipx-man"), "PIPX_DEFAULT_PYTHON": os.path.realpath(sys.executable)}
    done = run([sys.executable, "-m", "pipx", "install", "--pip-args=--no-compile", str(release.wheel)],
               cwd=release.work, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return release.work / "pipx-bin"


@pytest.mark.slow
def test_pipx_installs_the_wheel_as_the_docs_say(release: Release, pipx_install: Path) -> None:
    tablecert = pipx_install / "tablecert"              # pipx's link to its environment's console command
    assert run([str(tablecert), "--version"], cwd=release.work).stdout.startswith(f"tablecert {__version__}\n")
    vendor = os.path.realpath(tablecert)               # the reference vendor named where pipx installed it
    out = release.work / "pipx-run"
    done = run([str(tablecert), "certify", "--vendor-cmd", f"{vendor} reference-vendor", "--suite", "edge", "--out",
                str(out), "--quiet"], cwd=release.work)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((out / "summary.json").read_text())["isolation"].startswith("bubblewrap")


@pytest.mark.slow
def test_pipx_link_as_the_vendor_command(release: Release, pipx_install: Path) -> None:
    """The vendor named through pipx's link into tablecert's own environment starts and certifies
    (before the sandbox's rules of issue 47 it was refused: the link's tree was bound, then covered)."""
    tablecert = pipx_install / "tablecert"
    out = release.work / "pipx-link-run"
    done = run([str(tablecert), "certify", "--vendor-cmd", f"{tablecert} reference-vendor", "--suite", "edge",
                "--out", str(out), "--quiet"], cwd=release.work)
    assert done.returncode == 0, done.stdout + done.stderr
