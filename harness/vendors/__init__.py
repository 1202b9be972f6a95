"""Vendors shipped with the harness: the demo vendor and the kit for vendors that differ from the reference in a few answers."""
