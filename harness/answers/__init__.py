"""Judging answers: one answer against its expected value, in bulk, declared capabilities, hand-suite codes, causes, round divergences."""
