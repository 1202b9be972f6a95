"""The small files a lab gives with ``tablecert report``: the *submission* (who submitted what, who
signs) and the vendor's *declared* return figures. Both are TOML, or JSON when the name ends in
``.json``. Every value is a string: a declared figure as a number would already have gone through
binary floating point, which an exact comparison cannot undo.

Submission (every key optional)::

    lab = "Example Gaming Laboratories"
    product = "Acme Table Games Suite"
    submission_id = "EGL-2026-0117"
    signatory = "J. Doe"
    signatory_title = "Director of Compliance"

Declared figures (names as ``tablecert math --json`` or the report's game-math table list them)::

    tolerance = "0.0005%"                       # optional; this is the default
    "pass.flat" = "1.414%"                      # a percentage ...
    "dont_pass.max_odds.per_wagered" = "3/875"  # ... or an exact fraction ...
    "paigow.imperial.house_edge" = "0.02807"    # ... or a decimal fraction
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

SUBMISSION_KEYS = ("lab", "product", "submission_id", "signatory", "signatory_title")
NOT_GIVEN = "not given"
#: Half a unit in the third decimal place of a percentage: a declared figure agrees when it is the
#: exact figure rounded to three decimals (as ``tablecert math`` prints them).
DEFAULT_TOLERANCE = "0.0005%"


class ReportInputError(ValueError):
    """A submission or declared-figures file that cannot be used (one-line message)."""


@dataclass(frozen=True)
class Submission:
    """Who submitted the product and who signs; ``NOT_GIVEN`` where the lab gave nothing."""

    lab: str = NOT_GIVEN
    product: str = NOT_GIVEN
    submission_id: str = NOT_GIVEN
    signatory: str = ""
    signatory_title: str = ""
    given: bool = False


@dataclass(frozen=True)
class DeclaredFigure:
    name: str
    text: str          # as the vendor wrote it
    value: Fraction    # exact


@dataclass(frozen=True)
class Declared:
    figures: list[DeclaredFigure] = field(default_factory=list)
    tolerance: Fraction = Fraction(0)
    tolerance_text: str = DEFAULT_TOLERANCE
    source: str = ""

    @property
    def source_name(self) -> str:
        return Path(self.source).name


def read_mapping(path: str | Path) -> dict[str, Any]:
    """A TOML or JSON file's top-level table (JSON when the name ends in ``.json``)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as err:
        raise ReportInputError(f"{p}: cannot read: {err.strerror or err}") from None
    try:
        text = data.decode("utf-8")
        parsed = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, tomllib.TOMLDecodeError) as err:
        kind = "JSON" if p.suffix.lower() == ".json" else "TOML"
        raise ReportInputError(f"{p}: not valid {kind}: {err}") from None
    if not isinstance(parsed, dict):
        raise ReportInputError(f"{p}: the top level must be a table of names and strings")
    return parsed


def load_submission(path: str | Path | None) -> Submission:
    """The submission file, or placeholders when there is none."""
    if path is None:
        return Submission()
    raw = read_mapping(path)
    unknown = sorted(set(raw) - set(SUBMISSION_KEYS))
    if unknown:
        raise ReportInputError(f"{path}: unknown key {unknown[0]!r}; known keys: {', '.join(SUBMISSION_KEYS)}")
    for key, value in raw.items():
        if not isinstance(value, str):
            raise ReportInputError(f"{path}: {key} must be a string")
    values = {k: v.strip() for k, v in raw.items()}
    for key in ("lab", "product", "submission_id"):
        if not values.get(key):
            values[key] = NOT_GIVEN
    return Submission(**values, given=True)


def parse_figure(text: str) -> Fraction:
    """``"1.414%"`` -> 1414/100000; ``"7/495"`` -> 7/495; ``"0.01414"`` -> 1414/100000 (exact)."""
    s = text.strip().replace("_", "")
    percent = s.endswith("%")
    if percent:
        s = s[:-1].strip()
    if not s:
        raise ValueError("empty")
    if "/" in s:
        num, _, den = s.partition("/")
        value = Fraction(int(num.strip()), int(den.strip()))
    else:
        value = Fraction(s)
    return value / 100 if percent else value


def load_declared(path: str | Path | None) -> Declared | None:
    """The vendor's declared figures, exact; None when no file is given."""
    if path is None:
        return None
    raw = read_mapping(path)
    tolerance_text = raw.pop("tolerance", DEFAULT_TOLERANCE)
    if not isinstance(tolerance_text, str):
        raise ReportInputError(f"{path}: tolerance must be a string such as \"0.0005%\"")
    try:
        tolerance = abs(parse_figure(tolerance_text))
    except (ValueError, ZeroDivisionError):
        raise ReportInputError(f"{path}: tolerance {tolerance_text!r} is not a percentage or fraction") from None
    figures = []
    for name in sorted(raw):
        text = raw[name]
        if not isinstance(text, str):
            raise ReportInputError(f"{path}: {name}: give the figure as a string (\"1.414%\" or \"7/495\"), "
                                   "not a number, so that no binary rounding creeps in")
        try:
            value = parse_figure(text)
        except (ValueError, ZeroDivisionError):
            raise ReportInputError(f"{path}: {name}: {text!r} is not a percentage, fraction or decimal") from None
        figures.append(DeclaredFigure(name, text, value))
    return Declared(figures, tolerance, tolerance_text, str(path))
