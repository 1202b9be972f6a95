"""tablecert.oracle: the reference implementation of the rules, from which every expected answer
comes (craps free odds and commission; Imperial pai gow bonus), plus the exact game math.

Public entry points: :mod:`~tablecert.oracle.vendor` (the protocol ops), :mod:`~tablecert.oracle.hands`
(hand labels), :mod:`~tablecert.oracle.census`, :mod:`~tablecert.oracle.game_math`,
:mod:`~tablecert.oracle.profiles` and :mod:`~tablecert.oracle.register`.
"""
