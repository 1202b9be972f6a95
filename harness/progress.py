"""Progress display for long work: a tqdm bar with rate and ETA on a terminal, plain lines elsewhere.

Callers pass the callable this module builds (``progress(done, total)``) into long-running
oracle and harness functions, which stay free of any display code.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def progress_callback(label: str, unit: str = "hands") -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callable: a tqdm bar on a terminal, else a line every 10 s."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar: list[tqdm] = []

        def update(done: int, total: int) -> None:
            if not bar:
                bar.append(tqdm(total=total, desc=label, unit=f" {unit}", unit_scale=True, dynamic_ncols=True))
            bar[0].update(done - bar[0].n)
            if done >= total:
                bar[0].close()

        return update

    last = [0.0]

    def log(done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - last[0] >= 10:
            last[0] = now
            pct = 100 * done // total if total else 100
            print(f"{label}: {done:,}/{total:,} {unit} ({pct}%)", file=sys.stderr, flush=True)

    return log
