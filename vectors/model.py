"""What a vector set is made of, before it is written: groups of vectors sharing one op and one
config, each vector with its inputs, flags, clause ids and the reason it exists.

Generators (``craps_cases``, ``paigow_cases``) yield :class:`VectorGroup` objects whose vectors may
be lazy iterables, so a suite streams from generator to file without being held in memory. The
expected answers are not part of this model: :mod:`tablecert.vectors.writer` asks the oracle for
each one as it streams, so the oracle stays the only source of expected answers and a generator
cannot put a wrong one in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Vector:
    """One test before its tcId is assigned: the case sent to the vendor, and why it exists."""

    case: Any                      # the JSON value sent as one element of ``cases``
    comment: str                   # why the vector exists (never sent to a vendor)
    flags: tuple[str, ...]         # bug classes it catches; each is defined in notes.toml
    clauses: tuple[str, ...] = ()  # clause and interpretation ids it exercises


@dataclass
class VectorGroup:
    """Vectors sharing one op and one config (sent as one ``config`` with their cases)."""

    op: str
    config: dict[str, Any]
    comment: str
    vectors: Iterable[Vector] = field(default_factory=list)
