"""The report templates' sealed bytecode cache (reports/template_cache.py): an entry is used only
when the lab's key sealed it; anything else (another key, a changed byte, a link) is compiled again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from jinja2 import Environment

from tablecert.reports import markup
from tablecert.reports.template_cache import SealedBytecodeCache, cache_folder, lab_cache
from tablecert.vectors.lab_mark import MARK

NAME = "certificate.xml.j2"


class Compiles:
    """Counts the templates an environment compiles from source."""

    def __init__(self, env: Environment) -> None:
        self.n = 0
        compile_ = env.compile

        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.n += 1
            return compile_(*args, **kwargs)

        env.compile = counted  # type: ignore[method-assign]


def environment(folder: Path, key: bytes) -> tuple[Environment, Compiles]:
    """The certificate's own environment (its filters and tests), over a cache of ``folder`` and ``key``."""
    env = markup.environment.__wrapped__()
    env.bytecode_cache = SealedBytecodeCache(folder, key)
    return env, Compiles(env)


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.j2c"))


def test_a_sealed_entry_is_used_by_the_next_process_and_written_0600_in_a_marked_0700_folder(tmp_path: Path) -> None:
    folder, key = tmp_path / "templates", b"k" * 32
    first, compiled = environment(folder, key)
    first.get_template(NAME)
    assert compiled.n == 1 and len(entries(folder)) == 1
    assert (folder.stat().st_mode & 0o777, entries(folder)[0].stat().st_mode & 0o777) == (0o700, 0o600)
    assert (folder / MARK).is_file()
    second, compiled_again = environment(folder, key)
    assert second.get_template(NAME).root_render_func.__code__.co_filename.endswith(NAME)
    assert compiled_again.n == 0                       # read from the cache, not compiled


@pytest.mark.parametrize("spoil", ["another key", "a byte changed", "cut short", "a link"])
def test_an_entry_not_sealed_by_the_lab_key_is_compiled_again_and_rewritten(tmp_path: Path, spoil: str) -> None:
    folder, key = tmp_path / "templates", b"k" * 32
    made, _ = environment(folder if spoil != "a link" else tmp_path / "elsewhere",
                          key if spoil != "another key" else b"x" * 32)
    made.get_template(NAME)
    if spoil == "a link":                              # a sealed entry, but reached through a link
        folder.mkdir(mode=0o700)
        source = entries(tmp_path / "elsewhere")[0]
        (folder / source.name).symlink_to(source)
    entry = entries(folder)[0]
    data = bytearray(entry.read_bytes()) if spoil != "a link" else bytearray()
    if spoil == "a byte changed":
        data[-10] ^= 1
        entry.write_bytes(bytes(data))
    elif spoil == "cut short":
        entry.write_bytes(bytes(data[:len(data) // 2]))
    env, compiled = environment(folder, key)
    env.get_template(NAME)
    assert compiled.n == 1
    if spoil != "a link":
        again, compiled_again = environment(folder, key)   # written again, sealed: the next process reads it
        again.get_template(NAME)
        assert compiled_again.n == 0


def test_the_lab_cache_needs_the_run_key_and_an_unwritable_folder_only_costs_a_compile(tmp_path: Path) -> None:
    code = "from tablecert.reports.template_cache import lab_cache; print(lab_cache() is not None)"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"              # no run key yet: no cache, nothing made
    assert not (tmp_path / "cache").exists()
    folder = tmp_path / "readonly" / "templates"
    folder.parent.mkdir()
    folder.parent.chmod(0o500)
    try:
        env_, compiled = environment(folder, b"k" * 32)
        env_.get_template(NAME)
        assert compiled.n == 1
    finally:
        folder.parent.chmod(0o700)
    if os.geteuid() != 0:                              # root writes through 0500
        assert not folder.exists()


def test_the_cache_folder_is_the_lab_cache_of_this_release(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder().parent == tmp_path / "tablecert" / "templates"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    assert lab_cache() is None
