"""Playing a live replay (a line of ``failures/*.tgN.jsonl``) again on a vendor, as a lab would:
a fresh ``state_dir`` of the vendor's, its instance started and closed around the replay.

This is a test helper module, not a test file (the live, station and pai gow test files use it).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablecert.harness.confine.sandbox import vendor_uid
from tablecert.harness.contract import SessionOptions
from tablecert.harness.adapters.registry import VendorTarget
from tablecert.harness.instance.vendor_instance import VendorInstance
from tablecert.harness.live.instance import vendor_state_dir

Replayer = Callable[[dict[str, Any], VendorInstance], Exception | None]
"""``replay_live``, ``replay_stations`` or ``replay_paigow``."""


def replayed(replayer: Replayer, replay: dict[str, Any], cmd: str, options: SessionOptions,
             base: Path) -> Exception | None:
    """What ``replayer`` meets playing ``replay`` on the vendor ``cmd`` (None: every answer the oracle's)."""
    with vendor_state_dir(base, vendor_uid(shlex.split(cmd), options)) as state:
        control = VendorInstance(VendorTarget("subprocess", cmd, options).live_opener(state))
        try:
            return replayer(replay, control)
        finally:
            control.drop()
