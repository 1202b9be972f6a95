"""Progress display for long work: a tqdm bar with rate and ETA on a terminal, plain lines elsewhere
(with the answers per second and the time left, for parallel and cluster runs in a job log).

Callers pass the callable this module builds (``progress(done, total)``) into long-running
oracle and harness functions, which stay free of any display code.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from tqdm import tqdm


def progress_callback(label: str, unit: str = "hands") -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callable: a tqdm bar on a terminal, else a line every 10 s."""
    if sys.stderr.isatty():
        bar: list[tqdm] = []

        def update(done: int, total: int) -> None:
            if not bar:
                bar.append(tqdm(total=total, desc=label, unit=f" {unit}", unit_scale=True, dynamic_ncols=True))
            bar[0].update(done - bar[0].n)
            if done >= total:
                bar[0].close()

        return update

    last = [0.0]
    first: list[tuple[float, int]] = []

    def log(done: int, total: int) -> None:
        now = time.monotonic()
        if not first:
            first.append((now, done))
        if done >= total or now - last[0] >= 10:
            last[0] = now
            pct = 100 * done // total if total else 100
            print(f"{label}: {done:,}/{total:,} {unit} ({pct}%){pace(first[0], now, done, total)}",
                  file=sys.stderr, flush=True)

    return log


def pace(start: tuple[float, int], now: float, done: int, total: int) -> str:
    """``", R answers/s, about T left"`` from the answers since ``start`` (time, done): the rate of
    this process (a resumed or sharded run counts from where it began), '' before any. A slow
    rate (a live table's vector is a whole session, its vendor killed and restarted) is said as
    ``one answer every S``, never as 0 answers/s."""
    seconds, answered = now - start[0], done - start[1]
    if seconds <= 0 or answered <= 0:
        return ""
    rate = answered / seconds
    left = max(0, total - done) / rate
    said = (f"{rate:,.0f} answers/s" if rate >= 10 else f"{rate:.1f} answers/s" if rate >= 1
            else f"one answer every {duration(1 / rate)}")
    return f", {said}, about {duration(left)} left"


def duration(seconds: float) -> str:
    """A short human duration: 45 s, 12 min, 3.5 h, 2.1 days."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
