"""Compiled kernels of the raw battery (:mod:`tablecert.rng.nist`): the loops that numpy cannot
vectorise, each over one sequence of bits (``uint8`` 0/1).

* :func:`block_longest_runs` - the longest run of ones in each block (SP 800-22 section 2.4);
* :func:`gf2_ranks` - the rank over GF(2) of each 32 x 32 matrix (2.5);
* :func:`template_counts` - non-overlapping matches of every template in every block (2.7),
  in one pass: a window equals at most one template;
* :func:`overlapping_counts` - overlapping matches of one template in each block (2.8);
* :func:`universal_sum` - Maurer's sum of log2 distances (2.9);
* :func:`linear_complexities` - Berlekamp-Massey on each block (2.10), bit-parallel on 64-bit words.
"""

from __future__ import annotations

import numpy as np
from numba import njit



@njit(cache=True)
def block_longest_runs(bits: np.ndarray, m: int, blocks: int) -> np.ndarray:
    out = np.zeros(blocks, dtype=np.int64)
    for b in range(blocks):
        run = best = 0
        for i in range(b * m, (b + 1) * m):
            if bits[i]:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
        out[b] = best
    return out


@njit(cache=True)
def gf2_ranks(rows: np.ndarray) -> np.ndarray:
    """``rows``: ``(N, 32)`` uint32, a matrix a row of 32 bits each; the rank of each."""
    count = rows.shape[0]
    out = np.zeros(count, dtype=np.int64)
    work = np.empty(32, dtype=np.uint32)
    for k in range(count):
        for r in range(32):
            work[r] = rows[k, r]
        rank = 0
        for col in range(31, -1, -1):
            bit = np.uint32(1) << np.uint32(col)
            pivot = -1
            for r in range(rank, 32):
                if work[r] & bit:
                    pivot = r
                    break
            if pivot < 0:
                continue
            tmp = work[rank]
            work[rank] = work[pivot]
            work[pivot] = tmp
            for r in range(32):
                if r != rank and work[r] & bit:
                    work[r] ^= work[rank]
            rank += 1
        out[k] = rank
    return out


@njit(cache=True)
def windows(bits: np.ndarray, m: int, wrap: bool) -> np.ndarray:
    """The value of every m-bit window (first bit most significant); ``wrap`` appends the first
    m - 1 bits so there are n windows, else n - m + 1."""
    n = bits.size
    count = n if wrap else n - m + 1
    out = np.empty(count, dtype=np.int64)
    mask = (1 << m) - 1
    value = 0
    for i in range(m - 1):
        value = (value << 1) | bits[i]
    for i in range(count):
        j = i + m - 1
        value = ((value << 1) | bits[j if j < n else j - n]) & mask
        out[i] = value
    return out


@njit(cache=True)
def template_counts(values: np.ndarray, index: np.ndarray, templates: int, m: int, block: int,
                    blocks: int) -> np.ndarray:
    """``values``: m-bit windows (no wrap); ``index[v]``: the template with value v, or -1.
    Non-overlapping match counts ``(templates, blocks)``: after a match of a template the
    search for that template resumes m bits on."""
    out = np.zeros((templates, blocks), dtype=np.int64)
    resume = np.zeros(templates, dtype=np.int64)
    for b in range(blocks):
        start = b * block
        for t in range(templates):
            resume[t] = start
        for i in range(start, start + block - m + 1):
            t = index[values[i]]
            if t >= 0 and i >= resume[t]:
                out[t, b] += 1
                resume[t] = i + m
    return out


@njit(cache=True)
def overlapping_counts(values: np.ndarray, target: int, m: int, block: int, blocks: int) -> np.ndarray:
    out = np.zeros(blocks, dtype=np.int64)
    for b in range(blocks):
        start = b * block
        for i in range(start, start + block - m + 1):
            if values[i] == target:
                out[b] += 1
    return out


@njit(cache=True)
def universal_sum(bits: np.ndarray, L: int, Q: int, K: int) -> float:
    last = np.zeros(1 << L, dtype=np.int64)
    total = 0.0
    for i in range(Q + K):
        v = 0
        for j in range(L):
            v = (v << 1) | bits[i * L + j]
        if i >= Q:
            total += np.log2(i + 1 - last[v])
        last[v] = i + 1
    return total


@njit(cache=True)
def _parity(x: np.uint64) -> int:
    x ^= x >> np.uint64(32)
    x ^= x >> np.uint64(16)
    x ^= x >> np.uint64(8)
    x ^= x >> np.uint64(4)
    x ^= x >> np.uint64(2)
    x ^= x >> np.uint64(1)
    return int(x & np.uint64(1))


@njit(cache=True)
def linear_complexities(bits: np.ndarray, M: int, blocks: int) -> np.ndarray:
    """Berlekamp-Massey: the linear complexity of each M-bit block. Polynomials and the window
    of past bits are arrays of 64-bit words (bit i of the window is s[N - i])."""
    words = (M + 64) // 64 + 1
    out = np.zeros(blocks, dtype=np.int64)
    C = np.zeros(words, dtype=np.uint64)
    B = np.zeros(words, dtype=np.uint64)
    T = np.zeros(words, dtype=np.uint64)
    W = np.zeros(words, dtype=np.uint64)
    one = np.uint64(1)
    for blk in range(blocks):
        base = blk * M
        for w in range(words):
            C[w] = 0
            B[w] = 0
            W[w] = 0
        C[0] = one
        B[0] = one
        L = 0
        m = -1
        for N in range(M):
            # window <<= 1, then bit 0 = s[N]; the window has N + 1 bits and deg C <= N: only the
            # first `live` words hold any
            live = min(words, (N + 1) // 64 + 1)
            for w in range(live - 1, 0, -1):
                W[w] = (W[w] << one) | (W[w - 1] >> np.uint64(63))
            W[0] = (W[0] << one) | np.uint64(bits[base + N])
            acc = np.uint64(0)
            for w in range(live):
                acc ^= C[w] & W[w]
            if _parity(acc):
                for w in range(words):
                    T[w] = C[w]
                shift = N - m
                ws, bs = shift // 64, np.uint64(shift % 64)
                for w in range(live - 1, ws - 1, -1):         # deg(B x^(N - m)) <= N + 1
                    v = B[w - ws] << bs
                    if bs and w - ws - 1 >= 0:
                        v |= B[w - ws - 1] >> (np.uint64(64) - bs)
                    C[w] ^= v
                if L <= N // 2:
                    L = N + 1 - L
                    m = N
                    for w in range(words):
                        B[w] = T[w]
        out[blk] = L
    return out
