"""A confined vendor that cannot start because a file of its own is not readable by the user it
runs as (issue 53): the hint names that file and its mode, not ``--vendor-path``."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from tablecert.harness.adapters.vendor_process import CONFINED_HINT, confined_start_hint, unreadable_hint
from tablecert.harness.contract import FaultKind, VendorFault


def test_permission_denied_names_the_folder_or_file_and_its_mode() -> None:
    top = Path(tempfile.mkdtemp(prefix="tablecert-hint-"))
    try:
        top.chmod(0o755)
        _names_the_folder_or_file_and_its_mode(top)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _names_the_folder_or_file_and_its_mode(top: Path) -> None:
    build = top / "kit" / "build"
    build.mkdir(parents=True)
    program = build / "example"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    line = f"setpriv: failed to execute {program}: Permission denied"
    bound = (str(build),)
    assert unreadable_hint(line, bound) is None
    (top / "kit").chmod(0o711)                 # above the bound folder: searchable is enough (issue 47)
    assert unreadable_hint(line, bound) is None
    (top / "kit").chmod(0o700)                 # inside the sandbox it keeps the host's mode: the cause
    assert unreadable_hint(line, bound) == (f"; the folder {top / 'kit'} is mode 0700: the vendor runs as a user of "
                                            f"its own, which cannot enter it (chmod o+x {top / 'kit'})")
    (top / "kit").chmod(0o755)
    build.chmod(0o700)
    assert unreadable_hint(line, bound) == (f"; the folder {build} is mode 0700: the vendor runs as a user of its own, "
                                            f"which cannot enter it (chmod o+rx {build})")
    build.chmod(0o755)
    program.chmod(0o700)
    assert unreadable_hint(line, bound) == (f"; the file {program} is mode 0700: the vendor runs as a user of its own, "
                                            f"which cannot run it (chmod o+rx {program})")
    fault = confined_start_hint(VendorFault(FaultKind.CRASH, "vendor closed its output: exited with status 126", line), bound)
    assert "--vendor-path" not in fault.detail and "is mode 0700" in fault.detail


def test_a_missing_file_still_gets_the_vendor_path_hint(tmp_path: Path) -> None:
    line = "error while loading shared libraries: libacme.so: cannot open shared object file: No such file or directory"
    assert unreadable_hint(line, ()) is None
    fault = confined_start_hint(VendorFault(FaultKind.CRASH, "exited with status 127", line), ())
    assert fault.detail.endswith(CONFINED_HINT)
