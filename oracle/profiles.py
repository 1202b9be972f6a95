"""Named table configurations (rule profiles), shipped as TOML files in ``profiles/``.

A profile file holds ``id`` (the file's name without ``.toml``), ``title``, ``description``, a
``[craps]`` table that is exactly a ``tablecert-vendor/1`` craps table config, and a ``[paigow]``
table with the bonus payout ``cap`` and the minimum bonus wager ``min_wager`` (minor units)::

    id = "odds-3-4-5x"
    title = "3-4-5x odds"
    description = "..."
    [craps]
    unit = 100
    free_odds = { "4" = "3", "5" = "4", "6" = "5", "8" = "5", "9" = "4", "10" = "3" }
    ...
    [paigow]
    cap = 4000000
    min_wager = 500

An optional ``scope`` lists the ops a table of this kind offers (``scope = ["craps.odds_limits",
"craps.place_odds", "craps.settle"]`` for a craps-only product): what ``certify --require
profile`` requires. Without it a profile requires every op.

:func:`load_profile` reads a shipped profile through ``importlib.resources`` (package data of
``tablecert.oracle``); :func:`load_profile_file` reads a user's file. :func:`resolve_profile`
takes what a user typed after ``--profile``: a shipped id, or the path of a table configuration
file, which must be compliant and is then known by its id for the rest of the process (a lab
certifying a vendor's own table). Both check the whole file
(:class:`ProfileError`, a ``ValueError``, on any fault) and record the SHA-256 of its bytes, so a
report can say exactly which configuration it certified.
"""

from __future__ import annotations

import copy
import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from tablecert.oracle.errors import ConfigError
from tablecert.oracle.names import OPS
from tablecert.oracle.table_config import (
    Finding,
    TableConfig,
    is_int,
    paigow_findings,
    parse_table_config,
    regulatory_findings,
)

#: The profile used when none is named: free odds 3-4-5x, no commission.
DEFAULT_PROFILE = "odds-3-4-5x"

_PROFILE_KEYS = ("id", "title", "description", "craps", "paigow")
_OPTIONAL_KEYS = ("scope",)
_PAIGOW_KEYS = ("cap", "min_wager")
_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


class ProfileError(ValueError):
    """A profile that does not exist or a profile file that is malformed (one-line message)."""


@dataclass(frozen=True)
class Profile:
    """One rule profile. ``craps`` is the raw protocol table config (JSON-ready: send it as a
    request's ``config``; use :meth:`craps_config` for a copy you may change), ``table_config`` its
    parsed form, ``sha256`` the hex digest of the profile file's bytes, ``source`` where it was
    read from (``profiles/<id>.toml`` for a shipped profile, else the path given)."""

    id: str
    title: str
    description: str
    craps: dict[str, Any] = field(hash=False, repr=False)
    table_config: TableConfig
    paigow_cap: int
    paigow_min_wager: int
    sha256: str
    source: str
    scope: tuple[str, ...] | None = None     # the ops a table of this kind offers (None: all)

    def craps_config(self) -> dict[str, Any]:
        """A deep copy of the raw craps table config."""
        return copy.deepcopy(self.craps)

    def findings(self) -> list[Finding]:
        """Everything the regulation does not allow in this profile (craps and pai gow); empty when
        the profile is compliant."""
        return regulatory_findings(self.table_config) + paigow_findings(self.paigow_cap, self.paigow_min_wager)


def _profiles_dir() -> Any:
    return resources.files("tablecert.oracle").joinpath("profiles")


def list_profiles() -> list[str]:
    """The ids of the shipped profiles, sorted."""
    return sorted(entry.name[: -len(".toml")] for entry in _profiles_dir().iterdir()
                  if entry.name.endswith(".toml") and entry.is_file())


_FROM_FILES: dict[str, Profile] = {}
"""Profiles read from a user's files this process (:func:`resolve_profile`), by id."""


def resolve_profile(text: str | None) -> str | None:
    """The profile id for a ``--profile`` value: a shipped id as it is (None stays None, the
    default), or the path of a table configuration file (``.toml``), which is read, checked and
    registered under its id. A file whose table breaks the regulation is refused (ProfileError
    naming its first finding): vectors for a table no lab may certify would certify nothing."""
    if text is None or text in list_profiles():
        return text
    if not (text.endswith(".toml") or "/" in text):
        return text                                    # an unknown id: load_profile says so
    profile = load_profile_file(text)
    if profile.id in list_profiles():
        if load_profile(profile.id).sha256 == profile.sha256:
            return profile.id                          # a copy of the shipped file
        raise ProfileError(f"{text}: id {profile.id!r} is a shipped profile's; give your table its own id")
    findings = profile.findings()
    if findings:
        first = findings[0]
        raise ProfileError(f"{text}: the table is not compliant ({len(findings)} regulatory finding"
                           f"{'s' if len(findings) != 1 else ''}; first: {first.id} ({first.clause}): {first.message}); "
                           f"`tablecert check-config {text}` lists them all")
    known = _FROM_FILES.get(profile.id)
    if known is not None and known.sha256 != profile.sha256:
        raise ProfileError(f"{text}: another file with id {profile.id!r} was already given")
    _FROM_FILES[profile.id] = profile
    return profile.id


def load_profile(profile_id: str) -> Profile:
    """A shipped profile by id (or one registered by :func:`resolve_profile`); ProfileError naming
    the known ids if there is none."""
    if isinstance(profile_id, str) and profile_id in _FROM_FILES:
        return _FROM_FILES[profile_id]
    known = list_profiles()
    if not isinstance(profile_id, str) or profile_id not in known:
        raise ProfileError(f"unknown profile {profile_id!r}; known profiles: {', '.join(known)}")
    name = f"profiles/{profile_id}.toml"
    data = _profiles_dir().joinpath(f"{profile_id}.toml").read_bytes()
    profile = parse_profile(data, name)
    if profile.id != profile_id:
        raise ProfileError(f"{name}: id {profile.id!r} does not match the file name")
    return profile


def load_profile_file(path: str | Path) -> Profile:
    """A profile from a TOML file the user names (any readable path)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as err:
        raise ProfileError(f"{p}: cannot read: {err.strerror or err}") from None
    return parse_profile(data, str(p))


def parse_profile(data: bytes, source: str) -> Profile:
    """Check and parse a profile file's bytes; ``source`` names it in messages."""
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ProfileError(f"{source}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise ProfileError(f"{source}: not valid TOML: {err}") from None
    for key in _PROFILE_KEYS:
        if key not in raw:
            raise ProfileError(f"{source}: missing '{key}'")
    extra = sorted(set(raw) - set(_PROFILE_KEYS) - set(_OPTIONAL_KEYS))
    if extra:
        raise ProfileError(f"{source}: unknown key '{extra[0]}'")
    for key in ("id", "title", "description"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise ProfileError(f"{source}: '{key}' must be a non-empty string")
    if not _ID.fullmatch(raw["id"]):
        raise ProfileError(f"{source}: id {raw['id']!r} must be lower-case letters, digits and hyphens")
    try:
        config = parse_table_config(raw["craps"])
    except ConfigError as err:
        raise ProfileError(f"{source}: craps.{err.field}: {err.message}") from err
    pg = raw["paigow"]
    if not isinstance(pg, dict):
        raise ProfileError(f"{source}: 'paigow' must be a table")
    for key in _PAIGOW_KEYS:
        if key not in pg:
            raise ProfileError(f"{source}: missing 'paigow.{key}'")
    extra = sorted(set(pg) - set(_PAIGOW_KEYS))
    if extra:
        raise ProfileError(f"{source}: unknown key 'paigow.{extra[0]}'")
    if not is_int(pg["cap"]) or pg["cap"] < 0:
        raise ProfileError(f"{source}: paigow.cap must be a non-negative integer of minor units")
    if not is_int(pg["min_wager"]) or pg["min_wager"] <= 0:
        raise ProfileError(f"{source}: paigow.min_wager must be a positive integer of minor units")
    scope = raw.get("scope")
    if scope is not None:
        if not isinstance(scope, list) or not scope or not all(isinstance(op, str) and op in OPS for op in scope):
            raise ProfileError(f"{source}: 'scope' must be a non-empty list of ops ({', '.join(OPS)})")
    return Profile(
        id=raw["id"],
        title=raw["title"],
        description=raw["description"],
        craps=raw["craps"],
        table_config=config,
        paigow_cap=pg["cap"],
        paigow_min_wager=pg["min_wager"],
        sha256=hashlib.sha256(data).hexdigest(),
        source=source,
        scope=tuple(scope) if scope is not None else None,
    )
