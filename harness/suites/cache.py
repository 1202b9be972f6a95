"""The suite cache: a generated suite kept between ``certify`` runs, so that ``--suite standard``
is not generated again for every run.

Entries live under ``$XDG_CACHE_HOME/tablecert/suites/`` (default ``~/.cache/tablecert/suites/``;
``certify --suite-cache DIR`` names another folder, ``--no-suite-cache`` turns it off), one folder
per tablecert version, suite and profile (id and sha256): ``VERSION/SUITE.PROFILE.SHA256[:16]/``.

A cache is checked, never believed. An entry is copied into the run folder's ``suite/`` and the
*copy* is then anchored in the release (:func:`tablecert.vectors.anchor.anchor_suite`: every file
against the manifest, the manifest against the release's), so what is run is what was checked. An
entry that fails (a changed byte, a re-hashed manifest, a missing file) is said so on standard
error, removed and the suite generated again; it is never used. Only suites the release can anchor
without regenerating them are cached: ``edge``, ``configs``, ``standard`` and ``rounds`` on the default profile
(their manifests are committed). Another profile's suite could only be checked by generating it,
which is what the cache saves; the hand suites (``joker``, ``exhaustive``) hold a label stream the
runner reads as it goes and are anchored from committed digests, but at 40 to 300 MB a copy per run
would cost more than it saves: both are generated as before.

Entries are written atomically: built in a new folder of an unpredictable name beside them and
renamed into place; a concurrent writer's entry is kept and ours discarded.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from tablecert import __version__
from tablecert.harness.lab_files import FOLDER_MODE, new_folder, remove_our_folder
from tablecert.oracle.profiles import DEFAULT_PROFILE, load_profile
from tablecert.vectors.anchor import RELEASE, SuiteAnchor, SuiteAnchorError, anchor_suite
from tablecert.vectors.checks import SuiteCheckError, load_manifest
from tablecert.vectors.lab_mark import mark

CACHED_SUITES = ("edge", "configs", "standard", "rounds")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/tablecert/suites`` (``~/.cache`` when the variable is unset or empty)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tablecert" / "suites"


def entry_path(cache: Path, suite: str, profile_id: str) -> Path | None:
    """Where a suite's entry lives, or None when the suite is not cached (see the module)."""
    if suite not in CACHED_SUITES or profile_id != DEFAULT_PROFILE:
        return None
    sha = load_profile(profile_id).sha256
    return cache / __version__ / f"{suite}.{profile_id}.{sha[:16]}"


def _say(text: str) -> None:
    print(f"tablecert: {text}", file=sys.stderr, flush=True)


def fetch(cache: Path, suite: str, profile_id: str, build: Path) -> SuiteAnchor | None:
    """Copy the cached entry into ``build`` (a new folder beside the run's ``suite/``), anchor the
    copy, and return its anchor; None (``build`` emptied) when there is no entry or it is not the
    release's, in which case a bad entry is removed and the caller generates the suite."""
    entry = entry_path(cache, suite, profile_id)
    if entry is None or not (entry / "manifest.json").is_file() or entry.is_symlink():
        return None
    try:
        shutil.copytree(entry, build, symlinks=True, dirs_exist_ok=True)
        anchor = anchor_suite(build, suite, regenerate=False)
        if anchor.kind != RELEASE or load_manifest(build)["profile"]["id"] != profile_id:
            raise SuiteAnchorError(f"{entry}: not the {suite!r} suite of this release")
    except (OSError, SuiteAnchorError, SuiteCheckError, KeyError, TypeError) as err:
        _say(f"the cached suite {entry} is not this release's ({str(err)[:300]}); it is removed and the suite "
             "generated again")
        for path in (build, entry):
            try:
                remove_our_folder(path)
            except (OSError, ValueError):
                pass
        build.mkdir(exist_ok=True)
        return None
    return anchor


def store(cache: Path, suite: str, profile_id: str, folder: Path) -> None:
    """Keep a copy of a newly generated (release) suite folder in the cache; a cache that cannot be
    written is said so on standard error and otherwise ignored."""
    entry = entry_path(cache, suite, profile_id)
    if entry is None:
        return
    try:
        for made in (cache, entry.parent):          # the cache holds expected answers: the lab's user only
            made.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
        mark(cache, "cache")                        # no vendor's sandbox binds it (harness/confine/lab_folders.py)
        building = new_folder(entry.parent, entry.name)
        try:
            shutil.copytree(folder, building, dirs_exist_ok=True)
            if entry.exists() or entry.is_symlink():
                remove_our_folder(entry)
            os.rename(building, entry)
        except BaseException:
            remove_our_folder(building)
            raise
    except (OSError, ValueError) as err:
        _say(f"the suite cache {cache} cannot be written ({getattr(err, 'strerror', None) or err}); the suite "
             "is not cached")
