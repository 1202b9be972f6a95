"""How long a test waits for a process it started before it calls that a hang.

Every wait of a test on its own subprocess (``subprocess.run(..., timeout=HANG)``, ``communicate``,
``wait``) is a safety net against the test itself hanging, never a measure: what a test checks is
waited for by observable progress or counted in work. It is set far above what any such process
takes at rest (the longest, an install, about 2 minutes) so that the whole suite passes with both
cores saturated by a CPU hog (issue 33), where a process takes up to 12 times as long, and still
below CI's 90-minute limit, so that a real hang fails there with its test named."""

HANG = 1800
"""Seconds a test waits for a subprocess of its own before it fails as hung."""
