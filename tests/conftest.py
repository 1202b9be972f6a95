"""Fixtures shared by the test modules."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def vendor_files() -> Iterator[Path]:
    """A folder for files a vendor process reads (its script, its settings). certify confines a
    ``--vendor-cmd`` vendor by default: as root it runs as ``nobody``, which cannot enter pytest's
    own temporary folders (mode 0700), so a vendor's files go here (mode 0755, outside them)."""
    folder = Path(tempfile.mkdtemp(prefix="tablecert-vendor-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
