"""The figures of issue 52 (the run record declared once), measured on any commit with one walk:

    python benchmarks/record_figures.py                 # this checkout
    python benchmarks/record_figures.py --commit c5237c0 [--commit 10befad ...]

With ``--commit`` the commit's tree is extracted (``git archive``) into a temporary folder and
this same script runs again on it, its ``tablecert`` package laid over the tree as
``pyproject.toml``'s ``package-dir`` maps it (the installed dependencies are this checkout's), so
the figures of two commits come from the same code.

* **String-keyed meta reads outside the store and the model**: in the product's folders, outside
  ``harness/store/`` and ``harness/model.py``, the reads of a run's metadata by a string key: a
  subscript or ``.get("key")`` (or ``"key" in ...``) on ``.meta()``'s result, on a name holding
  ``meta`` or on an attribute ``.meta``; and the ``.meta()`` calls themselves, with their files.
* **Places the verdict is worded**: the top-level definitions (function, class, module assignment)
  of ``harness/``, ``reports/``, ``parallel/`` and ``tablecert/`` (not the RNG battery's verdicts)
  holding a run verdict's words: an all-capitals string (or f-string part) saying CERTIFIED or
  PASS FOR. Sentences that mention a title in lower-case prose (help text, a rerun's note) are
  not places, nor is the verdict's code (``pass``, ``scoped_pass`` ...) printed in capitals.
* **Cause analyses per certify**: calls of :func:`tablecert.harness.answers.causes.analyse` in one
  ``certify`` of the ``edge`` suite against the demo vendor (it has bugs: causes to find), its
  reports written (``certificate.pdf``, ``findings.pdf``, ``report.html``), counted by wrapping
  every reference to the function once every module is imported.
* **Live-only instance and fault code paths**: in ``harness/live/``, the instance types of its own
  (a class deriving from a session, or named ``*Control``/``*Instance``), the private members of
  the adapters' sessions it uses (names and uses), its own ``except VendorFault`` handlers, and
  the adapter tests in the product (``== "subprocess"`` outside ``harness/adapters/``).
* **The walk of one batch** (:func:`benchmarks.house_figures.walk_of_one_batch`, its folding and
  counts: modules visited, times it goes back to a module it had left) and **the walk of one
  live cut**: the ``live`` suite's first craps batch played by
  :func:`~tablecert.harness.live.driver.judge_live` against the reference vendor with certify's
  plan of cuts, from the call of the instance's ``restart`` of the ``--cut``-th cut (kill, a
  fresh process on the same ``state_dir``, its hello and the check that it is the same vendor)
  to the return of the next request sent (the table's resume answered: ``InstanceControl.send``
  before issue 52's item 3, ``VendorInstance.request`` after), counted the same way.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve()
PRODUCT = ("tablecert", "oracle", "vectors", "harness", "reports", "rng", "fuzz", "parallel")
OUTSIDE_META = ("harness/store/", "harness/model.py")
TITLE = re.compile(r"CERTIFIED|\bPASS FOR\b")
RUN_VERDICT = ("harness/", "reports/", "parallel/", "tablecert/")     # not the RNG battery's or fuzz's verdicts
OTHER_VERDICTS = ("tablecert/cli_rng.py", "reports/rng")
NOT_TITLE = re.compile(r"[a-uw-z]")     # a title is in capitals (the "v" of "CONTRACT v1" aside)


# -- static counts, read from a tree's files ---------------------------------------------------

def product_files(tree: Path) -> list[tuple[str, ast.Module]]:
    out = []
    for folder in PRODUCT:
        for path in sorted((tree / folder).rglob("*.py")):
            rel = path.relative_to(tree).as_posix()
            out.append((rel, ast.parse(path.read_text(encoding="utf-8"))))
    return out


def _holds_meta(node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "meta" and not node.args
    if isinstance(node, ast.Name):
        return "meta" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr == "meta"
    return False


def _str(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def meta_reads(files: list[tuple[str, ast.Module]]) -> tuple[Counter[str], Counter[str]]:
    """(string-keyed reads per file, ``.meta()`` calls per file), outside the store and the model."""
    reads: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    for rel, tree in files:
        if rel.startswith(OUTSIDE_META):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and _str(node.slice) and _holds_meta(node.value) \
                    and isinstance(node.ctx, ast.Load):
                reads[rel] += 1
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                    and node.args and _str(node.args[0]) and _holds_meta(node.func.value):
                reads[rel] += 1
            elif isinstance(node, ast.Compare) and _str(node.left) and len(node.ops) == 1 \
                    and isinstance(node.ops[0], (ast.In, ast.NotIn)) and _holds_meta(node.comparators[0]):
                reads[rel] += 1
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "meta" \
                    and not node.args:
                calls[rel] += 1
    return reads, calls


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and _str(node.body[0].value):
            ids.add(id(node.body[0].value))
    return ids


def _worded(node: ast.AST, docstrings: set[int]) -> bool:
    for sub in ast.walk(node):
        if _str(sub) and id(sub) not in docstrings and TITLE.search(sub.value) and not NOT_TITLE.search(sub.value):
            return True
    return False


def verdict_wordings(files: list[tuple[str, ast.Module]]) -> list[str]:
    """``file:name`` of every top-level definition that words a verdict (see the module docstring)."""
    out = []
    for rel, tree in files:
        if not rel.startswith(RUN_VERDICT) or rel.startswith(OTHER_VERDICTS):
            continue
        docstrings = _docstrings(tree)
        for node in tree.body:
            if _worded(node, docstrings):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = node.name
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                    name = ast.unparse(target)
                else:
                    name = f"line {node.lineno}"
                out.append(f"{rel}:{name}")
    return out


def _session_privates(files: list[tuple[str, ast.Module]]) -> set[str]:
    """Private names (``_x``) the adapters' classes define: methods and ``self._x = ...``."""
    names = set()
    for rel, tree in files:
        if not rel.startswith("harness/adapters/"):
            continue
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for node in ast.walk(cls):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("_") and not node.name.startswith("__"):
                    names.add(node.name)
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == "self" \
                        and node.attr.startswith("_") and not node.attr.startswith("__"):
                    names.add(node.attr)
    return names


def live_only_paths(files: list[tuple[str, ast.Module]]) -> dict[str, list[str]]:
    """The live tables' own instance and fault paths (see the module docstring), each listed."""
    privates = _session_privates(files)
    own_types, private_uses, handlers, gates = [], [], [], []
    for rel, tree in files:
        if rel.startswith("harness/live/"):
            own = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("_")}
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and (
                        any(ast.unparse(b).endswith("Session") for b in node.bases)
                        or node.name.endswith(("Control", "Instance"))):
                    own_types.append(f"{rel}:{node.name}")
                if isinstance(node, ast.Attribute) and node.attr in privates and node.attr not in own:
                    private_uses.append(f"{rel}:{node.lineno}:{node.attr}")
                if isinstance(node, ast.ExceptHandler) and node.type is not None \
                        and "VendorFault" in ast.unparse(node.type):
                    handlers.append(f"{rel}:{node.lineno}")
        if not rel.startswith("harness/adapters/"):
            for node in ast.walk(tree):
                if isinstance(node, ast.Compare) and any(_str(c) and c.value == "subprocess"
                                                         for c in (node.left, *node.comparators)):
                    gates.append(f"{rel}:{node.lineno}")
    return {"own instance types": own_types, "private session members used": private_uses,
            "own VendorFault handlers": handlers, "adapter tests (== 'subprocess')": gates}


# -- run-time counts, of the tablecert this process imports -------------------------------------

def cause_analyses_per_certify() -> tuple[int, str]:
    """(calls of causes.analyse, the verdict) in one certify of ``edge`` against the demo vendor."""
    import importlib
    import pkgutil

    import tablecert
    from tablecert import harness
    from tablecert.harness.answers import causes
    from tablecert.reports import report_step

    for package in ("tablecert.harness", "tablecert.reports"):
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001  (a module needing an extra not installed: it analyses nothing)
                pass
    original, calls = causes.analyse, [0]

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("tablecert"):
            for name, value in list(vars(module).items()):
                if value is original:
                    setattr(module, name, counted)
    exe = shlex.join([sys.executable, "-m", "tablecert"])
    with tempfile.TemporaryDirectory(prefix="record-figures-") as tmp:
        vendor = harness.VendorTarget("subprocess", f"{exe} serve-vendor --plugin demo",   # the tree's vendor
                                      harness.SessionOptions(timeout=120, pass_env=("PYTHONPATH",)))
        result, _ = harness.certify(vendor, "edge", Path(tmp) / "run", harness.CertifyOptions(
            harness.RunOptions(), harness.SuiteOptions(cache_dir=Path(tmp) / "cache"),
            then=report_step(harness.OutputOptions())))
    assert Path(tablecert.__file__).resolve().is_relative_to(Path(os.environ.get("RECORD_FIGURES_TREE",
                                                                                 HERE.parents[1])).resolve())
    return calls[0], str(result.verdict)


def live_instance_of(cmd: str, options: object, folder: str) -> tuple[object, object, object]:
    """(the vendor instance a live table plays through, its method that sends one request, the
    one that ends it) in this tree: ``InstanceControl`` (its ``send``) before issue 52's live
    tables on the common path, the run's ``VendorInstance`` (its ``request``) after."""
    try:
        from tablecert.harness.live.instance import InstanceControl, live_opener
    except ImportError:
        from tablecert.harness.adapters.registry import VendorTarget
        from tablecert.harness.instance.vendor_instance import VendorInstance

        instance = VendorInstance(VendorTarget("subprocess", cmd, options).live_opener(folder))
        return instance, VendorInstance.request, VendorInstance.drop
    return InstanceControl(live_opener(cmd, options, folder)), InstanceControl.send, InstanceControl.close


def walk_of_one_cut(cut: int) -> list[str]:
    """The modules of the steps of the walk of one live cut (see the module docstring), in order."""
    from tablecert.harness.confine.sandbox import vendor_uid
    from tablecert.harness.contract import SessionOptions
    from tablecert.harness.live.driver import EVERY_STEP_FLAG, judge_live, plan_interruptions
    from tablecert.harness.live.instance import vendor_state_dir
    from tablecert.harness.suites.reader import iter_batches
    from tablecert.oracle.live_tables import GAME_OF_OP
    from tablecert.vectors.suites import generate

    sys.path.insert(0, str(HERE.parent))
    from house_figures import walk

    cmd = f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor"
    options = SessionOptions(timeout=60, pass_env=("PYTHONPATH",))
    with tempfile.TemporaryDirectory(prefix="record-figures-live-") as tmp:
        generate("live", Path(tmp) / "live")
        batch = next(b for b in iter_batches(Path(tmp) / "live", 1000) if b.op in GAME_OF_OP)
        vectors = [((batch.file, tc), len(case["steps"]), EVERY_STEP_FLAG in flags)
                   for tc, case, flags in zip(batch.tc_ids, batch.cases, batch.flags)]
        plan = plan_interruptions(vectors, 0, 0)
        with vendor_state_dir(Path(tmp), vendor_uid(shlex.split(cmd), options)) as folder:
            control, sent, closed = live_instance_of(cmd, options, folder)
            try:
                return walk(type(control).restart.__code__, sent.__code__, cut, lambda: judge_live(control, batch, plan))
            finally:
                closed(control)


def walk_line(what: str, steps: list[str]) -> str:
    sys.path.insert(0, str(HERE.parent))
    from house_figures import folded

    walk = folded(steps)
    back = sum(1 for i, m in enumerate(walk) if m in walk[:i])
    return (f"{what}: {len(steps):,} calls and returns in tablecert modules, {len(set(walk))} modules visited, "
            f"goes back {back} times\n  " + " -> ".join(dict.fromkeys(walk)))


def figures(tree: Path, batch: int, cut: int, only_batch: bool = False) -> None:
    sys.path.insert(0, str(HERE.parent))
    from house_figures import walk_of_one_batch

    if only_batch:
        print(walk_line(f"walk of batch {batch} of an edge run, from judge() through the adapter to run.db",
                        walk_of_one_batch(batch)))
        return
    files = product_files(tree)
    reads, calls = meta_reads(files)
    print(f"string-keyed meta reads outside harness/store/ and harness/model.py: {sum(reads.values())} in "
          f"{len(reads)} files; .meta() called {sum(calls.values())} times in {len(calls)} files")
    for rel, n in sorted(reads.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {rel}: {n} reads, {calls.get(rel, 0)} .meta() calls")
    worded = verdict_wordings(files)
    print(f"places the verdict is worded: {len(worded)}" + "".join(f"\n  {w}" for w in worded))
    live = live_only_paths(files)
    print(f"live-only instance and fault code paths: {sum(map(len, live.values()))}")
    for what, where in live.items():
        names = sorted({w.rsplit(':', 1)[-1] for w in where}) if what.startswith("private") else []
        print(f"  {what}: {len(where)}" + (f" ({len(names)} names: {', '.join(names)})" if names else "")
              + ("" if names or not where else f" ({', '.join(where)})"))
    analyses, verdict = cause_analyses_per_certify()
    print(f"cause analyses per certify (edge suite, demo vendor, its reports written; verdict {verdict}): {analyses}")
    print(walk_line(f"walk of batch {batch} of an edge run, from judge() through the adapter to run.db",
                    walk_of_one_batch(batch)))
    print(walk_line(f"walk of live cut {cut} (the live suite's first craps batch, certify's plan), from "
                    "the instance's restart to the resume answered", walk_of_one_cut(cut)))


def on_commit(commit: str, args: argparse.Namespace) -> int:
    print(f"== commit {commit}", flush=True)
    with tempfile.TemporaryDirectory(prefix=f"record-figures-{commit}-") as tmp:
        tree, root = Path(tmp) / "tree", Path(tmp) / "path"
        tree.mkdir()
        archive = subprocess.run(["git", "-C", str(HERE.parents[1]), "archive", commit], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        sys.path.insert(0, str(HERE.parents[1] / "tests"))
        from package_tree import lay_out

        lay_out(tree, root)
        env = {**os.environ, "PYTHONPATH": str(root), "RECORD_FIGURES_TREE": str(tree)}
        return subprocess.run([sys.executable, str(HERE), "--tree", str(tree), "--batch", str(args.batch),
                               "--cut", str(args.cut), *(["--only-batch"] if args.only_batch else [])],
                              env=env, cwd=tmp).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--commit", action="append", default=[], help="measure this commit (repeatable)")
    ap.add_argument("--tree", type=Path, default=HERE.parents[1], help=argparse.SUPPRESS)
    ap.add_argument("--batch", type=int, default=2, help="which batch of the edge run to follow (default the 2nd)")
    ap.add_argument("--cut", type=int, default=2, help="which cut of the live batch to follow (default the 2nd)")
    ap.add_argument("--only-batch", action="store_true", help="only the walk of one batch (house_figures.py's, for "
                    "commits older than the other figures' names)")
    args = ap.parse_args()
    if args.commit:
        return max(on_commit(c, args) for c in args.commit)
    import tablecert

    assert Path(tablecert.__file__).resolve().is_relative_to(args.tree.resolve()), \
        f"tablecert imported from {tablecert.__file__}, not from {args.tree}"
    figures(args.tree, args.batch, args.cut, args.only_batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
