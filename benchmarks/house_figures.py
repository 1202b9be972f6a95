"""The figures of issue 34's closing note, measured on this tree: how a maintainer's reading of the
harness goes.

    python benchmarks/house_figures.py [--batch 2]

* **The walk of one batch from the adapter to run.db**: a run of the ``edge`` suite against the
  reference vendor (``python -m tablecert.oracle.vendor``, a real subprocess through the subprocess
  adapter) under :func:`sys.setprofile`; from the call of
  :func:`~tablecert.harness.run.judging.judge` for the ``--batch``-th batch (which sends it
  through the instance and the adapter and judges the answers) to the return of the recorder's
  ``record`` (which writes it through the store into run.db). Every call and return between them
  in a tablecert module is a step of the walk; *modules visited* is how many distinct modules
  the steps are in, *goes back* how many times the walk returns to a module it had left (the
  steps with consecutive repeats folded). This walk gives 13 modules and 24 returns at 10befad and
  16 and 38 at c5237c0 (``benchmarks/record_figures.py --only-batch --commit 10befad``, which runs
  this walk on the tree of any commit); issue 34's 18 and 43 "at 10befad" came from a walk that
  was not kept, and no commit reproduces them with this one.
* **SQL outside the store**: statements and sqlite3 uses in product files outside
  ``harness/store/`` (tests/test_layers.py's ``sql_outside_the_store``).
* **Both-ways pairs and circles**: pairs of harness parts that import each other (every import,
  inside functions and for type checking too), imports against the order of harness/__init__'s
  table, imports up or beside the product's layers, and circles of modules in every product
  folder (tests/test_layers.py's checks, here as counts).
* **Imports inside functions**: each with the reason it is kept (tests/test_layers.py's
  ``LATE_IMPORTS``; the savings are measured by benchmarks/bench_startup.py).
* **Largest class and module** of the product, in lines.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
import test_layers as layers  # noqa: E402  (the checks whose counts are printed, one source)

from tablecert.harness.adapters.subprocess_adapter import SubprocessAdapter  # noqa: E402
from tablecert.harness.contract import SessionOptions  # noqa: E402
from tablecert.harness.run import judging, recorder  # noqa: E402
from tablecert.harness.run.runner import Runner  # noqa: E402
from tablecert.vectors.suites import generate  # noqa: E402


def walk(start: object, stop: object, nth: int, play: Callable[[], object]) -> list[str]:
    """The modules of the steps of a walk, in order: every call and return in a tablecert module
    from the ``nth`` call of the code ``start`` to the next return of the code ``stop``, while
    ``play()`` runs under :func:`sys.setprofile`."""
    steps: list[str] = []
    started = 0
    state = {"on": False}

    def profile(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal started
        if event not in ("call", "return"):
            return
        code = frame.f_code
        if event == "call" and code is start:
            started += 1
            state["on"] = state["on"] or started == nth
        if state["on"]:
            module = frame.f_globals.get("__name__", "")
            if module.startswith("tablecert"):
                steps.append(module)
            if event == "return" and code is stop:
                state["on"] = False

    sys.setprofile(profile)
    try:
        play()
    finally:
        sys.setprofile(None)
    return steps


def walk_of_one_batch(batch: int) -> list[str]:
    """The modules of the steps of the walk of one batch (see the module docstring), in order."""
    cmd = f"{shlex.quote(sys.executable)} -m tablecert.oracle.vendor"
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "edge"
        generate("edge", suite)
        runner = Runner(lambda: SubprocessAdapter().open(cmd, SessionOptions(timeout=60.0)), suite, Path(tmp) / "run",
                        batch_size=200)
        return walk(judging.judge.__code__, recorder.Recorder.record.__code__, batch, runner.run)


def folded(steps: list[str]) -> list[str]:
    return [m for i, m in enumerate(steps) if i == 0 or steps[i - 1] != m]


def both_ways_pairs() -> set[frozenset[str]]:
    """Pairs of harness parts that import each other (every import counted)."""
    modules = layers.folder_modules("harness")
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        if name == "tablecert.harness":
            continue
        for target in layers.imports(path, submodules=True):
            if target in modules and target != "tablecert.harness":
                a, b = layers.part_of(name), layers.part_of(target)
                if a != b:
                    edges[a].add(b)
    return {frozenset((a, b)) for a in edges for b in edges[a] if a in edges.get(b, set())}


def largest() -> tuple[tuple[int, str], tuple[int, str]]:
    """(lines, name) of the product's largest class and largest module."""
    classes, modules = [], []
    for folder in layers.layers():
        for path in sorted((REPO / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            rel = path.relative_to(REPO).as_posix()
            modules.append((len(text.splitlines()), rel))
            classes += [(node.end_lineno - node.lineno + 1, f"{rel}:{node.name}")
                        for node in ast.walk(ast.parse(text)) if isinstance(node, ast.ClassDef)]
    return max(classes), max(modules)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=2, help="which batch of the run to follow (default the 2nd)")
    args = ap.parse_args()
    steps = walk_of_one_batch(args.batch)
    walk = folded(steps)
    back = sum(1 for i, m in enumerate(walk) if m in walk[:i])
    print(f"walk of batch {args.batch} of an edge run, from judge() through the adapter to run.db: {len(steps):,} calls "
          f"and returns in tablecert modules, {len(set(walk))} modules visited, goes back {back} times")
    print("  " + " -> ".join(dict.fromkeys(walk)))
    sql = layers.sql_outside_the_store()
    print(f"SQL statements or sqlite3 uses outside harness/store/: {sum(map(len, sql.values()))}"
          + "".join(f"\n  {file}: {uses}" for file, uses in sql.items()))
    pairs = both_ways_pairs()
    print(f"both-ways pairs of harness parts: {len(pairs)}" + "".join(f"\n  {sorted(p)}" for p in pairs))
    print(f"imports against the order of harness/__init__.py's table: {len(layers.against_the_order())}")
    print(f"imports up or beside the product's layers: {len(layers.violations())}")
    circles = {folder: layers.harness_cycles(folder, type_checking=True) for folder in layers.layers()}
    print(f"circles of modules (every import, type checking too), product folders: {sum(map(len, circles.values()))}"
          + "".join(f"\n  {folder}: {c}" for folder, c in circles.items() if c))
    late = layers.product_late_imports()
    print(f"imports inside functions: {sum(map(len, late.values()))} in {len(late)} functions, each kept for:")
    for key, kept in sorted(late.items()):
        print(f"  {key[0]}:{kept[0][0]} {key[1]} ({len(kept)}): {layers.LATE_IMPORTS.get(key, 'NOT JUSTIFIED')}")
    (class_lines, class_name), (module_lines, module_name) = largest()
    print(f"largest class: {class_name}, {class_lines} lines; largest module: {module_name}, {module_lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
