"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# No test writes to the lab user's suite cache (harness/suite_cache.py): every test process, and the
# tablecert processes it starts, keep theirs in a temporary folder.
_CACHE = tempfile.mkdtemp(prefix="tablecert-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE


@pytest.fixture(scope="session", autouse=True)
def _private_suite_cache() -> Iterator[None]:
    yield
    shutil.rmtree(_CACHE, ignore_errors=True)


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
