"""report.html: one run's results in the browser, one self-contained file.

Written beside the PDFs from the same :class:`~tablecert.reports.data.ReportData` (what the PDFs
are built from), so it agrees with them: the verdict and its reasons, the scope, the causes with
their shared factors, each cause's failing vectors that the report data holds (its smallest, as
the findings show them) with the oracle's answer and the vendor's field by field and the replay
line to copy, the faults, a live run's interruptions. Its style, script and data are inline: it
opens from the file system with no network and no server, and the same run gives the same bytes
(no clock, keys sorted).

The failing vectors are kept out of the markup: an index (cause, op and tcId of each, as compact
columns) is parsed when the page opens, and each vector's detail is one JSON line, parsed only when
its row is shown, in chunks of :data:`CHUNK_ROWS`. Up to :data:`EMBEDDED_ROWS` vectors the chunks
are inline (one self-contained file); past that they are sidecar scripts in ``report-vectors/``
beside the page, each loaded (from the file system, by a script element) only when a row of it is
shown or a text search needs it. The page draws :data:`PAGE_ROWS` rows at a time; the filters and
a tcId search walk the index alone (``benchmarks/bench_html_report.py`` measures a page of
1,000,000 failures).

>>> write_html_report(load_report_data(Path("out/run")))   # doctest: +SKIP
PosixPath('out/run/report.html')
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from tablecert.harness.answers.causes import Cause, cause_key
from tablecert.harness.answers.differences import all_differences, answered, is_cut, stored_differences, unwrapped
from tablecert.harness.adapters.registry import command_line
from tablecert.harness.lab_files import write_atomically
from tablecert.harness.model import Failure, RunMeta, replay_name
from tablecert.harness.suites.reader import json_line
from tablecert.harness.vendor_text import for_terminal
from tablecert import __version__
from tablecert.reports.data import ReportData, open_run_db
from tablecert.reports.template_cache import lab_cache

REPORT_NAME = "report.html"
SIDECAR = "report-vectors"  # the chunks of a page of more than EMBEDDED_ROWS vectors, beside it
PAGE_ROWS = 50              # failing vectors drawn at a time
CHUNK_ROWS = 2_000          # vectors' lines per chunk (inline or one sidecar script; the first page waits for one)
EMBEDDED_ROWS = 50_000      # up to this many vectors the page holds them all
TEXT_SHOWN = 4000           # characters of one vendor-written value shown (the rest counted)


@dataclass(frozen=True)
class FailingVector:
    """One failing vector as the page shows it: its cause (index into the causes), where it is,
    and what differs, field by field (path, the oracle's value, the vendor's)."""

    cause: int
    op: str
    file: str
    tc_id: int
    replay: str
    differences: tuple[tuple[str, str, str], ...]
    expected: str
    actual: str
    case: str
    config: str


def shown(value: Any) -> str:
    """A value as the page prints it: JSON (sorted keys) for data, vendor text made visible
    (control and bidi characters as their escapes, never acting) and clipped at TEXT_SHOWN."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return for_terminal(text, TEXT_SHOWN)


NOT_ANALYSED = "not analysed by cause (past the analysis window)"
"""The title of the page's last cause: the failing vectors past
:data:`~tablecert.harness.answers.causes.CAUSE_WINDOW`, which the analysis counts but files under
no cause."""


def _row(f: Failure, causes: dict[str, int] | None, other: int, configs: dict[str, str]) -> FailingVector:
    """One stored failure as the page shows it: the differences as the findings mark them (a cut
    answer's as kept with it), expected and answered in the same shape, the case and table config
    as stored (sorted-key JSON; each config made visible once, in ``configs``); its cause found
    again from its differences as the analysis finds it (``causes``: key -> index; None: past the
    window, ``other``)."""
    expected, actual = json_line(f.expected.encode()), json_line(f.actual.encode())
    primary = stored_differences(f.op, expected, actual)[0]
    cause = other if causes is None else causes.get(cause_key(f.op, primary)[1], other)
    diffs = primary if is_cut(actual) else all_differences(f.op, expected, actual)
    config = configs.get(f.config)
    if config is None:
        config = configs[f.config] = shown(f.config)
    return FailingVector(cause, f.op, f.file, f.tc_id, replay_name(f.file, f.op, f.tg_id),
                         tuple((d.path, shown(d.expected), shown(d.actual)) for d in diffs),
                         shown(unwrapped(expected)), shown(answered(actual)), shown(f.case), config)


def failing_vectors(data: ReportData) -> Iterator[FailingVector]:
    """Every failing vector of the run (its ``failures``, read through the store's reader in
    suite order, the analysis's order), each with the index of its cause in ``data.causes``; those
    past the analysis window (:data:`~tablecert.harness.answers.causes.CAUSE_WINDOW`) under one
    last cause, :data:`NOT_ANALYSED`. A hand suite's wrong hands are counted by cause, not listed."""
    causes = data.causes.causes if data.causes else []
    by_key = {c.key: i for i, c in enumerate(causes)}
    analysed = data.causes.failed if data.causes else 0      # the first failures in suite order
    configs: dict[str, str] = {}
    with open_run_db(data.run_dir) as db:
        for n, f in enumerate(db.failures()):
            yield _row(f, by_key if n < analysed else None, len(causes), configs)


def replay_command(meta: Mapping[str, Any]) -> str:
    """The vendor's command as the run started it, to put before ``< failures/FILE``: a Python
    plugin served on stdin/stdout by ``tablecert serve-vendor``; ``VENDOR`` for a vendor that is
    not a command line (a URL, offline answers)."""
    run = RunMeta.of(meta)
    command = command_line(run.adapter, run.target)
    return "VENDOR" if command is None else for_terminal(command, TEXT_SHOWN)


TRANSITIONS_SHOWN = 6       # "expected -> answered" pairs in a cause's "how the values differ" cell


def how_they_differ(cause: Cause) -> str:
    """A cause's "how the values differ" cell, for every kind of cause: an amount's measure over
    its failures (``detail``: units, ratio, range); else what the oracle's values were answered as
    (a label, disposition, point or error: ``transitions``, most frequent first, hand suites'
    label causes included); else the first of its smallest failures' first difference."""
    if cause.detail:
        return cause.detail
    if cause.transitions:
        shown = [f"{t.replace(' -> ', ' answered as ')} ({n:,})" for t, n in cause.transitions[:TRANSITIONS_SHOWN]]
        rest = len(cause.transitions) - TRANSITIONS_SHOWN
        return "; ".join(shown) + (f"; and {rest:,} more (summary.json lists them)" if rest > 0 else "")
    for example in cause.examples:
        for d in example.differences[:1]:
            return f"e.g. tcId {example.tc_id}: {d.path} {_compact(d.expected)} answered as {_compact(d.actual)}"
    return f"{cause.kind}: see its vectors below"


def cause_words(cause: Cause) -> str:
    """What a text search of the page matches a cause's vectors by, besides their own lines: the
    cause's title and the factors every one of its failures shares ("a hand holds the joker")."""
    return " ".join([cause.title, *(f.name for f in cause.factors)])


def _compact(value: Any) -> str:
    """JSON that cannot end the script element it sits in (``<`` written as ``\\u003c``), in ASCII:
    a vendor's text that is not valid Unicode (a lone surrogate) is written as its escape, never as
    bytes the page cannot be encoded with."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")


COLUMN_BASE = 0x30          # a small integer column as one character each: chr(COLUMN_BASE + value)


def column(values: Iterable[int]) -> str:
    """Small integers (cause and op indexes) as a string of one character each, printable and
    below the surrogates: a million of them in about a megabyte of the page, decoded with
    ``charCodeAt``. The tcIds go as the first and then the steps between them (mostly 1)."""
    out = []
    for value in values:
        if not 0 <= value < 0xD800 - COLUMN_BASE:
            raise ValueError(f"report.html: index {value} out of the column's range")
        out.append(chr(COLUMN_BASE + value))
    return "".join(out)


@dataclass(frozen=True)
class Embedded:
    """The page's failing vectors: the index (columns ``cause`` and ``op`` as :func:`column`
    strings, ``tc`` as steps; ops and the strings that repeat, table configs, files, fields, as
    indexes into ``ops`` and ``strings``) and the detail chunks, each ``CHUNK_ROWS`` lines of one
    JSON array per vector in index order; ``rows`` vectors, the last cause index ``causes``."""

    index: str
    chunks: list[str]
    rows: int
    causes: int

    @property
    def inline(self) -> bool:
        return len(self.chunks) * CHUNK_ROWS <= EMBEDDED_ROWS

    def sidecar(self) -> dict[str, bytes]:
        """File name (under ``report-vectors/``) -> bytes, for a page whose chunks are not inline."""
        return {} if self.inline else {f"{k:04d}.js": f"tablecertChunk({k},{_compact(text)});\n".encode("utf-8")
                                       for k, text in enumerate(self.chunks)}


def embedded_vectors(rows: Iterable[FailingVector]) -> Embedded:
    """The failing vectors as the page embeds them (see :class:`Embedded`), cause by cause (most
    severe first, as the causes table), each cause's in the order given (suite order). One pass:
    each vector is kept as its line and three small integers, never as a record."""
    strings: dict[str, int] = {}
    ops: dict[str, int] = {}

    def at(text: str) -> int:
        return strings.setdefault(text, len(strings))

    lines: list[str] = []
    keys: list[tuple[int, int, int]] = []        # (cause, op as first met, tcId)
    for r in rows:
        lines.append(_compact([at(r.file), at(r.replay), [[at(p), e, a] for p, e, a in r.differences], r.expected,
                               r.actual, r.case, at(r.config)]))
        keys.append((r.cause, ops.setdefault(r.op, len(ops)), r.tc_id))
    order = sorted(range(len(keys)), key=lambda i: keys[i][0])           # stable: suite order within a cause
    names = sorted(ops)
    op_index = {ops[name]: i for i, name in enumerate(names)}
    tcs = [keys[i][2] for i in order]
    index = {"cause": column(keys[i][0] for i in order), "op": column(op_index[keys[i][1]] for i in order),
             "ops": names, "tc": tcs[:1] + [b - a for a, b in zip(tcs, tcs[1:])], "strings": list(strings),
             "chunk": CHUNK_ROWS, "sidecar": SIDECAR}
    chunks = ["\n".join(lines[i] for i in order[k:k + CHUNK_ROWS]) for k in range(0, len(order), CHUNK_ROWS)]
    return Embedded(_compact(index), chunks, len(order), max((k[0] for k in keys), default=-1) + 1)


def environment() -> Environment:
    """The pages' Jinja2 environment (templates in ``reports/templates``, HTML escaped)."""
    return Environment(loader=PackageLoader("tablecert.reports", "templates"), bytecode_cache=lab_cache(),
                       autoescape=select_autoescape(["j2"]),
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render_page(data: ReportData, rows: Iterable[FailingVector] | None = None) -> tuple[bytes, dict[str, bytes]]:
    """The page's bytes and its sidecar files (none up to EMBEDDED_ROWS vectors); deterministic
    for the same data. ``rows`` defaults to :func:`failing_vectors` (the benchmark passes its own)."""
    vectors = embedded_vectors(failing_vectors(data) if rows is None else rows)
    causes = data.causes.causes if data.causes else []
    titles = [str(c.title) for c in causes] + [NOT_ANALYSED] * (vectors.causes > len(causes))
    page = environment().get_template("report.html.j2").render(
        d=data, causes=causes, vectors=vectors, titles=titles, page_rows=PAGE_ROWS, version=__version__,
        column_base=COLUMN_BASE, vendor={k: shown(v) for k, v in data.vendor.items()},
        replay=replay_command(data.meta), shown=shown, how_they_differ=how_they_differ,
        cause_words=[cause_words(c) for c in causes], failed=sum(c.failed for c in causes))
    return page.encode("utf-8"), vectors.sidecar()


def write_html_report(data: ReportData, out: Path | None = None, rows: Iterable[FailingVector] | None = None) -> Path:
    """report.html into the run folder (or ``out``), written whole and renamed into place, its
    sidecar chunks (if any) into ``report-vectors/`` beside it first; ``rows`` as for
    :func:`render_page`."""
    path = out if out is not None else data.run_dir / REPORT_NAME
    page, sidecar = render_page(data, rows)
    if sidecar:
        (path.parent / SIDECAR).mkdir(mode=0o700, exist_ok=True)
        for name, chunk in sidecar.items():
            write_atomically(path.parent / SIDECAR / name, chunk)
    return write_atomically(path, page)
