"""The configuration space a lab can set, read from ``config_space.toml``: every field of the
craps table config with its legal range and boundary values, the pai gow bonus cap's boundary
values, and the range of amounts every vendor must handle (2^53 - 1 minor units).

:func:`config_space` returns a :class:`ConfigSpace`; :meth:`ConfigSpace.craps_config` turns one
choice per factor into a protocol table config, and :func:`is_legal` says whether the regulation
allows it (well-formed and without a regulatory finding). The covering configurations of the
``configs`` suite and ``tablecert fuzz`` both draw from this one statement of the space.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Mapping

from tablecert.oracle.errors import ConfigError
from tablecert.oracle.register import load_data
from tablecert.oracle.table_config import TableConfig, parse_table_config, regulatory_findings

#: The factors of a craps table config, in the order the covering array lists them.
CRAPS_FACTORS = ("unit", "odds", "commission_rate", "commission_rounding", "commission_unit",
                 "payout_rounding", "bar")


@dataclass(frozen=True)
class ConfigSpace:
    """Boundary values per craps factor (``odds`` names a free/max shape), the pai gow caps, the
    largest amount a vendor must handle and the integer widths whose crossings are tested."""

    values: Mapping[str, tuple[Any, ...]]
    odds_shapes: Mapping[str, tuple[dict[str, str], dict[str, str]]]
    paigow_caps: tuple[int, ...]
    max_amount: int
    crossings: tuple[int, ...]

    def craps_config(self, choice: Mapping[str, Any]) -> dict[str, Any]:
        """The protocol table config of one value per factor of :data:`CRAPS_FACTORS`."""
        free, top = self.odds_shapes[choice["odds"]]
        return {
            "unit": choice["unit"], "free_odds": dict(free), "max_odds": dict(top),
            "commission_rate": choice["commission_rate"], "commission_rounding": choice["commission_rounding"],
            "commission_unit": choice["commission_unit"], "payout_rounding": choice["payout_rounding"],
            "bar": choice["bar"],
        }


@cache
def config_space() -> ConfigSpace:
    """Read ``config_space.toml`` (package data)."""
    raw = load_data("config_space.toml")
    shapes = {name: (dict(shape["free"]), dict(shape["max"])) for name, shape in raw["odds"].items()}
    values: dict[str, tuple[Any, ...]] = {"odds": tuple(shapes)}
    for factor in CRAPS_FACTORS:
        if factor != "odds":
            values[factor] = tuple(raw[factor]["values"])
    return ConfigSpace(values=values, odds_shapes=shapes, paigow_caps=tuple(raw["paigow"]["cap"]["values"]),
                       max_amount=int(raw["amounts"]["max_minor_units"]),
                       crossings=tuple(raw["amounts"]["crossings"]))


def is_legal(config: object) -> bool:
    """True when ``config`` is a well-formed craps table config the regulation allows."""
    try:
        parsed = parse_table_config(config)
    except ConfigError:
        return False
    return _allowed(replace(parsed, bar=12))  # the bar number never makes a finding


@cache
def _allowed(config: TableConfig) -> bool:
    return not regulatory_findings(config)
