"""Vendor text is data: one escaping for each medium tablecert writes it to.

A vendor's answers, names, error messages and stderr reach the lab's terminal, ``junit.xml`` and
the PDFs, and a vendor may write anything there: ANSI escape sequences (a fake ``verdict: PASS``
after the real one, a cleared screen), carriage returns, bidi overrides, code points XML cannot
hold, lone surrogates (a JSON ``"\\udc80"``), markup (``<b>``, ``</para>``, ``&``), megabytes. Every
writer passes vendor text through the function of its medium, which shows every such character
as a visible escape (``\\x1b``, ``\\u202e``, ``\\udc80``) and never lets it act:

* :func:`for_terminal`: no C0 or C1 control byte, DEL or other non-printable character reaches
  the terminal, and the text is cut at ``limit`` characters, saying how many more there were;
* :func:`for_xml`: text and attribute values of an XML 1.0 document (``junit.xml``): every
  character XML forbids and every control but tab and line feed escaped, then ``& < > " '`` as
  entities;
* :func:`for_pdf`: ReportLab paragraph markup (the reports): every character the report fonts
  cannot show (outside printable Windows-1252) escaped and a backslash doubled (so two different
  strings never look the same), then ``& < > " '`` as entities.

``summary.json`` is JSON (its encoder escapes what it must) and needs none of these.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any
from xml.sax.saxutils import escape

_ENTITIES = {'"': "&quot;", "'": "&apos;"}


def _escaped(ch: str) -> str:
    """One character as its Python escape: ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``."""
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else _unicode_escaped(ch)


def _unicode_escaped(ch: str) -> str:
    """One character as ``\\uNNNN`` or ``\\UNNNNNNNN``."""
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _visible(text: str, shown: Callable[[str], bool], escaped: Callable[[str], str] = _escaped,
             backslash: str = "\\") -> str:
    """``text`` with every character ``shown`` refuses written as ``escaped`` gives it (a
    backslash as ``backslash``)."""
    return "".join(ch if shown(ch) else backslash if ch == "\\" else escaped(ch) for ch in text)


def for_terminal(text: Any, limit: int) -> str:
    """Vendor text made safe to print on a terminal: every character that is not printable
    (controls C0 and C1, ESC, CR, BEL, DEL, bidi and other format characters, lone surrogates)
    as its escape, and at most ``limit`` characters, saying how many more there were."""
    text = str(text)
    extra = len(text) - limit
    text = text[:limit]
    if not text.isprintable():
        text = _visible(text, lambda ch: ch.isprintable() or ch == " ")
    return f"{text}... ({extra:,} more characters)" if extra > 0 else text


def _xml_char(ch: str) -> bool:
    """Kept as itself in XML: a printable character XML 1.0 allows, a space, a tab or a line feed."""
    return (ch.isprintable() or ch in " \t\n") and ch not in "\ufffe\uffff"


def for_xml(text: Any) -> str:
    """Vendor text as XML character data, for element text and quoted attribute values alike
    (see the module docstring): the document always parses and shows the text as it was."""
    return escape(_visible(str(text), _xml_char), _ENTITIES)


@cache
def _pdf_chars() -> frozenset[str]:
    """Characters the reports show as themselves: the printable Windows-1252 repertoire."""
    chars = set()
    for b in range(0x20, 0x100):
        try:
            ch = bytes([b]).decode("cp1252")
        except UnicodeDecodeError:
            continue
        if ch.isprintable() and ch != "\\":
            chars.add(ch)
    return frozenset(chars)


def pdf_visible(text: str) -> str:
    """``text`` with every character the reports cannot show plainly as its escape, and a
    backslash doubled (the characters of :func:`for_pdf`, before markup escaping)."""
    shown = _pdf_chars()
    if all(ch in shown for ch in text):
        return text
    return _visible(text, shown.__contains__, _unicode_escaped, "\\\\")


def for_pdf(text: Any) -> str:
    """Vendor text as ReportLab paragraph markup (see the module docstring): never adds markup,
    always renders, and reads back as the escaped text."""
    return escape(pdf_visible(str(text)), _ENTITIES)


__all__ = ["for_pdf", "for_terminal", "for_xml", "pdf_visible"]
