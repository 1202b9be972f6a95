"""Imports point one way: the layers of the Layout table (docs/internals/layers.md), checked on every import.

Every ``import tablecert.X`` / ``from tablecert.X import ...`` in the product's folders (those
inside functions too) must name the importing folder's own package, or one of a lower layer. The
layers are read from the Layout table of docs/internals/layers.md, so the table is the rule. The imports that broke
it when this test was written were listed in :data:`KNOWN_UPWARD` (issue 23 removed them all): the
test fails on any other, and on a listed one that is gone (so the list only shrinks).

Within ``harness/`` the modules import one another without a circle: the graph of their imports
(those inside functions too, not those only for type checking) has no cycle, so no module needs a
late import inside a function to work around another. The parts of ``harness/`` (its subfolders
and the modules beside them) point one way too, in the order of the table in harness/__init__.py
(every import counted), and only the run store (``harness/store/``) opens run.db or speaks SQL.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYERS_DOC = REPO / "docs" / "internals" / "layers.md"   # the Layout table, moved there from the README (issue 36)

# (importing file, imported package): upward or sideways imports present when this test was written.
KNOWN_UPWARD: set[tuple[str, str]] = set()


def layers() -> dict[str, tuple[str, int]]:
    """folder -> (package, layer), from the Layout table of docs/internals/layers.md."""
    text = LAYERS_DOC.read_text(encoding="utf-8")
    table = text[text.index("## Layout"):text.index("## Test vectors")]
    found = {}
    for folder, package, layer in re.findall(r"^\| `(\w+)/` \(`([\w.]+)`\) \| (\d) \|", table, re.M):
        found[folder] = (package, int(layer))
    return found


CLI_MODULES = {f"tablecert.{path.stem}" for path in (REPO / "tablecert").glob("*.py") if path.stem != "__init__"}


def package_of(module: str, packages: dict[str, tuple[str, int]]) -> str | None:
    """The folder whose package ``module`` is in (the longest package name that prefixes it). The
    top package itself (``tablecert``: its version) belongs to no layer; its modules are the CLI's."""
    if module == "tablecert" or (module.count(".") == 1 and module.startswith("tablecert.")
                                 and module not in CLI_MODULES and module.split(".")[1] not in packages):
        return None
    best = None
    for folder, (package, _) in packages.items():
        if module == package or module.startswith(package + "."):
            if best is None or len(package) > len(packages[best][0]):
                best = folder
    return best


def _type_checking_only(tree: ast.AST) -> set[ast.AST]:
    """The import statements under ``if TYPE_CHECKING:`` (never executed)."""
    return {node for block in ast.walk(tree) if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for stmt in block.body for node in ast.walk(stmt) if isinstance(node, (ast.Import, ast.ImportFrom))}


def imports(path: Path, executed_only: bool = False, submodules: bool = False) -> list[str]:
    """The tablecert modules ``path`` imports; ``executed_only``: leaving out those imported only
    for type checking; ``executed_only`` or ``submodules``: naming the submodules ``from PACKAGE
    import NAME`` may import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree) if executed_only else set()
    found = []
    for node in ast.walk(tree):
        if node in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names
                      if node.module == "tablecert" or executed_only or submodules]
    return [name for name in found if name == "tablecert" or name.startswith("tablecert.")]


def violations() -> set[tuple[str, str]]:
    packages = layers()
    seen = set()
    for folder, (_, layer) in packages.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            for module in imports(path):
                target = package_of(module, packages)
                if target is None or target == folder:
                    continue
                if packages[target][1] >= layer:
                    seen.add((str(path.relative_to(REPO)), target))
    return seen


def test_the_layout_table_names_every_product_folder() -> None:
    assert set(layers()) == {"oracle", "vectors", "harness", "reports", "rng", "parallel", "fuzz", "tablecert"}


def only_the_known(found: set[tuple[str, str]], known: set[tuple[str, str]], what: str, listed: str) -> None:
    """No import of ``found`` beyond the ``known`` ones, and none of those gone (the list only shrinks)."""
    new = sorted(found - known)
    assert not new, f"{what}: " + ", ".join(f"{a} imports {b}" for a, b in new)
    gone = sorted(known - found)
    assert not gone, f"no longer there, remove from {listed}: {gone}"


def test_imports_point_down_the_layers() -> None:
    only_the_known(violations(), KNOWN_UPWARD, "imports up or beside the layers of the Layout table "
                   "(docs/internals/layers.md)", "KNOWN_UPWARD")


def folder_modules(folder: str = "harness") -> dict[str, Path]:
    """module name -> file, of every module of a product folder."""
    package = layers()[folder][0]
    found = {}
    for path in sorted((REPO / folder).rglob("*.py")):
        parts = (*package.split("."), *path.relative_to(REPO / folder).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def harness_cycles(folder: str = "harness", type_checking: bool = False) -> list[list[str]]:
    """The circles of imports between a folder's modules (each a list of modules, each importing
    the next and the last the first), found by a depth-first search of the import graph; imports
    inside functions counted, and with ``type_checking`` those only for type checking too. A
    package's ``__init__`` (its public face) is left out: importing a module imports it."""
    modules = {name: path for name, path in folder_modules(folder).items() if path.name != "__init__.py"}
    graph = {name: sorted({m for m in imports(path, executed_only=not type_checking, submodules=True)
                           if m in modules} - {name})
             for name, path in modules.items()}
    cycles, state, trail = [], dict.fromkeys(graph, 0), []          # 0 unseen, 1 on the trail, 2 done

    def visit(name: str) -> None:
        state[name] = 1
        trail.append(name)
        for nxt in graph[name]:
            if state[nxt] == 1:
                cycles.append(trail[trail.index(nxt):])
            elif state[nxt] == 0:
                visit(nxt)
        trail.pop()
        state[name] = 2

    for name in graph:
        if state[name] == 0:
            visit(name)
    return cycles


def test_harness_modules_import_one_another_without_a_circle() -> None:
    cycles = harness_cycles()
    assert not cycles, "circular imports between harness modules: " + "; ".join(
        " -> ".join([*cycle, cycle[0]]) for cycle in cycles[:3]) + (f" (and {len(cycles) - 3} more)" if len(cycles) > 3 else "")


def harness_order() -> dict[str, int]:
    """part of harness/ (a subfolder ``name/`` or a module ``name.py``) -> its order, from the
    table in harness/__init__.py's docstring."""
    text = (REPO / "harness" / "__init__.py").read_text(encoding="utf-8")
    return {part: int(order) for part, order in re.findall(r"^\| `([\w.]+/?)` \| (\d+) \|", text, re.M)}


def part_of(module: str) -> str:
    """The part of harness/ a harness module is in (``run/``, ``model.py`` ...)."""
    name = module.split(".")[2]
    return f"{name}/" if (REPO / "harness" / name).is_dir() else f"{name}.py"


KNOWN_AGAINST_THE_ORDER: set[tuple[str, str]] = set()
"""(importing module, imported module) against the order when the order was declared (issue 34):
the test fails on any other, and on one listed that is gone (so the list only shrinks). The last,
live/ importing run/'s instance, context and vector judging, went with ``harness/instance/``."""


def against_the_order() -> set[tuple[str, str]]:
    """Imports between parts of harness/ that point down the order or beside (every import:
    inside functions and for type checking only too)."""
    order = harness_order()
    modules = folder_modules("harness")
    found = set()
    for name, path in modules.items():
        if name == "tablecert.harness":
            continue
        for target in imports(path, submodules=True):
            if target not in modules or target == "tablecert.harness":
                continue
            source_part, target_part = part_of(name), part_of(target)
            if source_part != target_part and order[target_part] >= order[source_part]:
                found.add((name, target))
    return found


def test_the_harness_order_names_every_part() -> None:
    parts = {f"{p.name}/" if p.is_dir() else p.name for p in (REPO / "harness").iterdir()
             if (p.is_dir() and (p / "__init__.py").is_file()) or (p.suffix == ".py" and p.name != "__init__.py")}
    assert set(harness_order()) == parts


def test_harness_parts_import_one_way() -> None:
    only_the_known(against_the_order(), KNOWN_AGAINST_THE_ORDER, "imports against the order of harness/__init__.py's "
                   "table", "KNOWN_AGAINST_THE_ORDER")


CLEAN_FOLDERS = ("oracle", "vectors", "reports", "rng", "parallel", "fuzz", "harness")
"""Folders whose modules import one another without a circle, counting every import: inside
functions and for type checking only (issue 34)."""

KNOWN_CIRCLES: set[frozenset[str]] = set()
"""Circles of a clean folder left when it joined the list (issue 34 part C: the Runner handed whole
to live/ and to parallel/'s options, type-checking imports only): no other may appear, and one
gone must leave this set (so it only shrinks)."""


def test_modules_of_a_clean_folder_import_one_another_without_a_circle_of_any_kind() -> None:
    found = {folder: [c for c in harness_cycles(folder, type_checking=True) if frozenset(c) not in KNOWN_CIRCLES]
             for folder in CLEAN_FOLDERS}
    assert not any(found.values()), "; ".join(f"{folder}: " + " -> ".join([*c[0], c[0][0]])
                                              for folder, c in found.items() if c)
    left = {frozenset(c) for c in harness_cycles("harness", type_checking=True)}
    assert KNOWN_CIRCLES <= left, f"no longer there, remove from KNOWN_CIRCLES: {sorted(map(sorted, KNOWN_CIRCLES - left))}"


SQL = re.compile(r"^\s*\(?\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|PRAGMA|BEGIN|COMMIT|ROLLBACK|VACUUM)\b", re.I)
STORE = "harness/store"
"""The one folder that may open run.db and speak SQL (issue 34)."""


def _docstrings(tree: ast.AST) -> set[ast.AST]:
    return {node.body[0].value for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def sql_uses(path: Path) -> list[str]:
    """What in ``path`` speaks to SQLite: an import of sqlite3, a call of ``execute``,
    ``executemany``, ``executescript`` or ``connect`` on sqlite3, and each string (an f-string's
    first part too) that is an SQL statement; docstrings are prose, not counted."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "sqlite3" for a in node.names):
            found.append(f"line {node.lineno}: import sqlite3")
        elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
            found.append(f"line {node.lineno}: from sqlite3 import")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in ("execute", "executemany", "executescript")
                or (node.func.attr == "connect" and ast.unparse(node.func.value) == "sqlite3")):
            found.append(f"line {node.lineno}: {ast.unparse(node.func)}()")
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant) \
                and SQL.match(str(node.values[0].value)):
            found.append(f"line {node.lineno}: SQL {str(node.values[0].value)[:40]!r}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in skipped \
                and SQL.match(node.value) and not any(node in part.values for part in ast.walk(tree)
                                                      if isinstance(part, ast.JoinedStr)):
            found.append(f"line {node.lineno}: SQL {node.value[:40]!r}")
    return found


def sql_outside_the_store(root: Path = REPO) -> dict[str, list[str]]:
    """Per product file outside harness/store/, what in it speaks to SQLite (see :func:`sql_uses`)."""
    out = {}
    for folder in layers():
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if not rel.startswith(STORE + "/") and (found := sql_uses(path)):
                out[rel] = found
    return out


def test_only_the_store_opens_run_db_or_speaks_sql() -> None:
    found = sql_outside_the_store()
    assert not found, "SQL or sqlite3 outside harness/store/ (read and write run.db through the store): " + "; ".join(
        f"{file} {', '.join(uses[:3])}" for file, uses in found.items())


def test_the_sql_check_sees_sql(tmp_path: Path) -> None:
    """The check above can fail: it sees each way of speaking SQL, and not prose."""
    sample = tmp_path / "sample.py"
    sample.write_text('''"""SELECT words in a docstring are prose."""
import sqlite3
db = sqlite3.connect("x")
db.execute("SELECT 1")
rows = f"INSERT INTO t VALUES ({1})"
note = "selected rows"
''', encoding="utf-8")
    found = sql_uses(sample)
    assert sorted(use.split(":")[0] for use in found) == ["line 2", "line 3", "line 4", "line 4", "line 5"], found



FACES = ("tablecert.oracle", "tablecert.harness", "tablecert.harness.adapters", "tablecert.harness.confine",
         "tablecert.harness.instance", "tablecert.harness.live", "tablecert.harness.record", "tablecert.harness.run",
         "tablecert.harness.suites")
"""The packages whose ``__init__`` is a lazy public face (:func:`tablecert.lazy_face`)."""


def test_the_command_line_reaches_the_harness_and_the_oracle_through_their_faces() -> None:
    """The CLI names no module three levels deep (``tablecert.harness.run.certify``), and of the
    harness only its faces (packages), never one of its modules (issue 34)."""
    packages = {name for name, path in folder_modules("harness").items() if path.name == "__init__.py"}
    found = set()
    for path in sorted((REPO / "tablecert").glob("*.py")):
        for module in imports(path):
            deep = module.count(".") >= 3
            harness_module = module.startswith("tablecert.harness") and module not in packages
            if deep or harness_module:
                found.add(f"{path.name} imports {module}")
    assert not found, "the CLI imports modules behind the faces: " + ", ".join(sorted(found))


def test_each_face_names_what_it_says_and_no_submodule() -> None:
    """Every name of a face's ``__all__`` is there when asked for, and none is also the name of a
    submodule of its package (importing that submodule would put the module in the name's place)."""
    import importlib
    import pkgutil

    for name in FACES:
        package = importlib.import_module(name)
        submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
        shadowed = sorted(set(package.__all__) & submodules)
        assert not shadowed, f"{name}: public names that are also submodules: {shadowed}"
        missing = [attr for attr in package.__all__ if getattr(package, attr, None) is None]
        assert not missing, f"{name}: __all__ names what it does not have: {missing}"


def test_importing_the_faces_imports_none_of_their_modules() -> None:
    """``import tablecert.harness, tablecert.oracle`` (and the harness subpackages' faces) loads
    only those packages, in a fresh interpreter: a face costs the command line's start-up nothing."""
    import subprocess
    import sys

    code = (f"import sys, importlib; [importlib.import_module(m) for m in {FACES!r}]; "
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('tablecert'))))")
    loaded = set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split())
    assert loaded == {"tablecert", *FACES}, f"modules loaded with the faces: {sorted(loaded - {'tablecert', *FACES})}"


def late_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, function, statement) of each import inside a function of ``path`` (a method named
    ``Class.method``, a nested function ``outer.inner``); the imports for type checking only are
    at the top of a module, never here."""
    found: list[tuple[int, str, str]] = []

    def visit(node: ast.AST, scope: tuple[str, ...], in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child.lineno, ".".join(scope), ast.unparse(child)))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, (*scope, child.name), in_function or not isinstance(child, ast.ClassDef))
            else:
                visit(child, scope, in_function)

    visit(ast.parse(path.read_text(encoding="utf-8")), (), False)
    return found


def product_late_imports(root: Path = REPO) -> dict[tuple[str, str], list[tuple[int, str]]]:
    """(product file, function) -> its imports inside the function (line, statement)."""
    out: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for folder in layers():
        for path in sorted((root / folder).rglob("*.py")):
            for line, function, statement in late_imports(path):
                out.setdefault((path.relative_to(root).as_posix(), function), []).append((line, statement))
    return out


LATE_IMPORTS: dict[tuple[str, str], str] = {
    # the command line: each subcommand's modules imported at its dispatch (tablecert --help loads every cli_*.py)
    **dict.fromkeys([("tablecert/cli.py", "cmd_math"), ("tablecert/cli_fuzz.py", "cmd_fuzz"),
                     ("tablecert/cli_harness.py", "cmd_certify"), ("tablecert/cli_harness.py", "cmd_demo"),
                     ("tablecert/cli_harness.py", "cmd_validate"), ("tablecert/cli_parallel.py", "cmd_merge"),
                     ("tablecert/cli_reports.py", "cmd_diff"), ("tablecert/cli_reports.py", "cmd_report"),
                     ("tablecert/cli_reports.py", "write_diff"), ("tablecert/cli_rerun.py", "rerun_result"),
                     ("tablecert/cli_reports.py", "cmd_verify_report"), ("tablecert/cli_rng.py", "_from_vendor"),
                     ("tablecert/cli_reports.py", "cmd_verify_build"),
                     ("tablecert/cli_rng.py", "cmd_rng"), ("tablecert/cli_rng.py", "cmd_rng_raw"),
                     ("tablecert/cli_site.py", "cmd_site"), ("tablecert/cli_vectors.py", "cmd_export"),
                     ("tablecert/cli_vectors.py", "cmd_generate"), ("tablecert/cli_vectors.py", "cmd_lint"),
                     ("tablecert/cli_vectors.py", "cmd_list"), ("tablecert/cli_vectors.py", "cmd_verify"),
                     ("tablecert/cli.py", "version_text")],
                    "the command line's lazy dispatch: tablecert --help and every other subcommand's start"),
    # the reference vendor's start (every certify, every restart after a fault, every live interruption)
    ("oracle/jit_cache.py", "use_private_cache"): "numba: tablecert reference-vendor's start",
    ("oracle/outcomes.py", "dealt"): "the numba scaling kernels: tablecert reference-vendor's start",
    ("oracle/outcomes.py", "scale_words"): "the numba scaling kernels: tablecert reference-vendor's start",
    ("oracle/vendor.py", "serve"): "the compiled label fast path: tablecert reference-vendor's start",
    ("oracle/vendor.py", "run_op"): "numpy, through the random outcomes' generator: tablecert reference-vendor's start "
                                    "(every restart of a live run)",
    # a spread run's start
    ("parallel/options.py", "ParallelOptions.start"): "the Ray connection: tablecert --help and a one-worker certify",
    ("parallel/options.py", "ParallelOptions.run"): "the scheduler and its workers: tablecert --help and a one-worker certify",
    ("parallel/actor.py", "VendorActor.__init__"): "the judging, imported while the actor's vendor starts: a Ray actor's start",
    ("parallel/ray_pool.py", "connect"): "ray itself, imported in the background beside the greeting: a Ray run's start",
    # certify's start (a refused certify pays it all) and the report step
    ("harness/answers/causes.py", "hand_causes"): "numba, through the hand features: a refused or concluded certify's start",
    ("vectors/anchor.py", "release_manifest"): "the hand suites' writer and the labeller: certify's start",
    ("vectors/checks.py", "lint_hand_file"): "the hand stream and the labeller: certify's and a Ray run's start",
    ("vectors/suites.py", "generate"): "the hand suites' writer: certify's start",
    ("vectors/suites.py", "_edge_sets"): "numba, through the pai gow cases: certify's start (a cached suite generates nothing)",
    ("vectors/suites.py", "_standard_sets"): "numba, through the pai gow cases: certify's start",
    ("harness/run/runner.py", "Runner._hand_batch_size"): "numba, through the hand batches: certify's start (hand suites only)",
    ("harness/run/runner.py", "Runner.run"): "numba, through the hand runner: certify's start (hand suites only)",
    ("oracle/hand_features.py", "hand_features"): "numba, the features' kernel: certify's start and its report step",
    ("oracle/census.py", "run_census"): "numba, the labeller: the report step's game math (committed figures read)",
    ("oracle/census.py", "format_census"): "numba, the labeller: the report step's game math",
    ("oracle/paigow_math.py", "paigow_returns"): "numba, the joint count: the report step's game math",
    ("reports/signing.py", "sign_pdf"): "pyhanko: certify's report step when it does not sign",
    ("reports/signing.py", "verify_pdf"): "pyhanko: certify's report step",
    ("reports/__init__.py", "_charts"): "the charts (reportlab graphics): certify's report step (report.html alone)",
    ("reports/__init__.py", "render_pdf"): "the PDF layout: certify's report step (report.html alone)",
    ("reports/figures.py", "game_math_for_run"): "the game-math oracle: certify's report step when the figures are stored",
    ("reports/figures.py", "percent"): "the craps math: certify's report step",
    ("reports/figures.py", "store_game_math"): "the game-math census: certify's report step",
}
"""(product file, function) -> why its imports wait inside the function: the start-up path they
keep short. The saving, measured by benchmarks/bench_startup.py, is in a comment on the import."""


SAVING = re.compile(r"#.*\b\d+(\.\d+)? ms\b")
"""The comment a kept import inside a function carries: the start-up time it saves, measured."""


def test_imports_inside_functions_are_only_the_measured_ones() -> None:
    """An import waits inside a function only where benchmarks/bench_startup.py measured that it
    keeps a start-up path short (listed in :data:`LATE_IMPORTS` with the path and the saving, and
    the saving in a comment on its line); every other import is at the top of its module."""
    found = product_late_imports()
    only_the_known(set(found), set(LATE_IMPORTS), "imports inside functions that no start-up measure justifies "
                   "(move them to the top, or measure them: benchmarks/bench_startup.py)", "LATE_IMPORTS")
    lines = {file: (REPO / file).read_text(encoding="utf-8").splitlines() for file, _ in found}
    unmarked = [f"{file}:{line} ({function})" for (file, function), kept in found.items() for line, _ in kept
                if not SAVING.search(lines[file][line - 1]) and not SAVING.search(lines[file][kept[0][0] - 1])]
    assert not unmarked, "a kept import inside a function without its measured saving (# ... N ms ...): " + ", ".join(unmarked)


def test_the_late_import_check_sees_them(tmp_path: Path) -> None:
    """The check above can fail: it sees imports in functions, methods and nested functions, and
    not those at the top or in a class body."""
    sample = tmp_path / "sample.py"
    sample.write_text('''import os
class Kept:
    import json
    def method(self):
        from os import path
def outer():
    def inner():
        import shlex
    return inner
''', encoding="utf-8")
    assert late_imports(sample) == [(5, "Kept.method", "from os import path"), (8, "outer.inner", "import shlex")]
