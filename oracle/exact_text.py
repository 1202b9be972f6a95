"""Exact fractions as the reports print them: integer arithmetic only, no float anywhere.

At the bottom of the oracle: the table configuration's checks and the game math both print
percentages with :func:`format_percent`.
"""

from __future__ import annotations

from fractions import Fraction


def format_percent(value: Fraction, places: int = 3) -> str:
    """``value`` as a percentage with ``places`` decimals and a % sign (``Fraction(7, 495)`` ->
    ``"1.414%"``), rounded half away from zero, with integer arithmetic only."""
    if places < 0:
        raise ValueError("places must be 0 or more")
    scaled = Fraction(value) * 100 * 10**places
    sign = "-" if scaled < 0 else ""
    mag = abs(scaled)
    n = (2 * mag.numerator + mag.denominator) // (2 * mag.denominator)  # floor(mag + 1/2)
    if n == 0:
        sign = ""
    digits = str(n).rjust(places + 1, "0")
    body = digits if places == 0 else f"{digits[:-places]}.{digits[-places:]}"
    return f"{sign}{body}%"
