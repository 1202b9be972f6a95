"""The compiled kernel of :mod:`tablecert.oracle.hand_features`: one feature mask per 7-card hand
(bit ``i`` = ``KERNEL_IDS[i]``), for many hands at once. Apart so that reading the catalogue (every
report, every summary) does not import numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit


# Windows of five consecutive ranks, lowest first (0: the wheel A-2-3-4-5 as A,2,3,4,5).
WINDOWS = np.array([[12, 0, 1, 2, 3]] + [[lo + i for i in range(5)] for lo in range(9)], dtype=np.int64)


@njit(cache=True, nogil=True)
def _best_window(mask: int, joker: bool, windows: np.ndarray) -> tuple[int, int]:
    """(highest window held, the missing position the joker fills or -1); (-1, -1) if none."""
    for w in range(windows.shape[0] - 1, -1, -1):
        missing = -1
        n_missing = 0
        for i in range(5):
            if not (mask >> windows[w, i]) & 1:
                n_missing += 1
                missing = i
        if n_missing == 0:
            return w, -1
        if joker and n_missing == 1:
            return w, missing
    return -1, -1


@njit(cache=True, nogil=True)
def features(cards: np.ndarray, windows: np.ndarray, out: np.ndarray) -> None:
    for k in range(cards.shape[0]):
        joker = False
        rank_mask = 0
        suit_mask = np.zeros(4, dtype=np.int64)
        rank_count = np.zeros(13, dtype=np.int64)
        for j in range(7):
            c = cards[k, j]
            if c == 52:
                joker = True
                continue
            r, s = c // 4, c % 4
            rank_mask |= 1 << r
            suit_mask[s] |= 1 << r
            rank_count[r] += 1
        bits = 0
        # five aces
        five_aces = joker and rank_count[12] == 4
        if five_aces:
            bits |= 1 << 0
        # straight flushes, per suit
        joker_sf = False
        for s in range(4):
            n_suited = 0
            for r in range(13):
                n_suited += (suit_mask[s] >> r) & 1
            nat, _ = _best_window(suit_mask[s], False, windows)
            if joker:
                jw, miss = _best_window(suit_mask[s], True, windows)
                if jw > nat and miss >= 0:
                    joker_sf = True
                    bits |= 1 << (1 if jw == windows.shape[0] - 1 else 2)
            if nat >= 0 and n_suited >= 6:
                top = 0                          # the five highest ranks of the suit (ace high)
                taken = 0
                for r in range(12, -1, -1):
                    if (suit_mask[s] >> r) & 1 and taken < 5:
                        top |= 1 << r
                        taken += 1
                window = 0
                for i in range(5):
                    window |= 1 << windows[nat, i]
                if window != top:
                    bits |= 1 << 3
        # flushes
        most = 0
        for s in range(4):
            n_suited = 0
            for r in range(13):
                n_suited += (suit_mask[s] >> r) & 1
            most = max(most, n_suited)
        joker_flush = joker and most == 4
        if joker_flush:
            bits |= 1 << 4
        if most == 7:
            bits |= 1 << 8
        elif most == 6:
            bits |= 1 << 9
        # straights
        nat, _ = _best_window(rank_mask, False, windows)
        best = nat
        joker_straight = False
        if joker:
            jw, miss = _best_window(rank_mask, True, windows)
            if jw > nat and miss >= 0:
                joker_straight = True
                best = jw
                bits |= 1 << (5 if miss == 0 else 6 if miss == 4 else 7)
        if best < 0:
            held = 0
            for r in (10, 11, 12, 0, 1):
                held += (rank_mask >> r) & 1
            if held + (1 if joker else 0) >= 5:
                bits |= 1 << 10
        if best == 0:
            bits |= 1 << 11
        if best >= 0:
            paired = False
            for r in range(13):
                if rank_count[r] >= 2:
                    paired = True
            if paired:
                bits |= 1 << 12
        if joker and not (five_aces or joker_sf or joker_flush or joker_straight):
            bits |= 1 << 13
        out[k] = bits
