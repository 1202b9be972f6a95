"""Reading JSON Lines files (suite vector files, responses files; plain or gzip) one bounded line at a time.

A line longer than its limit is refused as soon as the limit is passed, naming the file and the
line, without holding more than the limit in memory: a gzip "bomb" of one endless line costs
the limit, not its decompressed size. Gzip is decompressed as a stream.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

SUITE_LINE_BYTES = 1 << 20        # longest line of a suite's vector file (a group or a test: a few KB)
RESPONSE_LINE_BYTES = 16 << 20    # longest line of an offline responses file (one answer)


class LineTooLong(ValueError):
    """A line over its limit: ``NAME:LINE: line longer than N bytes``."""


def bounded_lines(f: BinaryIO, name: str, limit: int) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, line with its newline) of a binary stream; LineTooLong past ``limit``."""
    n = 0
    readline = f.readline
    while True:
        line = readline(limit + 1)
        if not line:
            return
        n += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            raise LineTooLong(f"{name}:{n}: line longer than {limit:,} bytes")
        yield n, line

