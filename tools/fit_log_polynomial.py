"""Fit the polynomial of skboot's ``-log`` (skboot/_random/_exp.py, ``EXP_POLY``).

``2 atanh(s) = 2s + s R(s**2)`` with ``R(w) = sum_{j >= 1} 2 w**j / (2j + 1)``.
This script finds the minimax (smallest largest absolute error) approximation
``sum_{j=1..N} c_j w**j`` of ``R`` on ``[0, w_max]``, ``w_max = ((sqrt 2 - 1) /
(sqrt 2 + 1))**2``, by the Remez exchange algorithm in 60-digit decimal
arithmetic, and prints the coefficients rounded to doubles and the error.

    python tools/fit_log_polynomial.py [N]      # N = 7 gives EXP_POLY

With N = 7 the error is 2**-58.5, 2**-57.9 with the coefficients rounded to
doubles (6 terms: 2**-51.2, too large for a result within an ulp).  Only the
standard library is needed.
"""

from __future__ import annotations

import math
import sys
from decimal import Decimal, getcontext

getcontext().prec = 60
GRID = 4000


def target(w: Decimal) -> Decimal:
    """``R(w)`` by its series, to 58 digits."""
    total, power, j = Decimal(0), w, 1
    while True:
        term = 2 * power / (2 * j + 1)
        total += term
        if term < Decimal(10) ** -58:
            return total
        power *= w
        j += 1


def solve(rows: list[list[Decimal]], rhs: list[Decimal]) -> list[Decimal]:
    """Gauss-Jordan elimination with partial pivoting."""
    n = len(rows)
    m = [[*row, b] for row, b in zip(rows, rhs, strict=True)]
    for i in range(n):
        pivot = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[pivot] = m[pivot], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [a - f * c for a, c in zip(m[r], m[i], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def poly(c: list[Decimal], w: Decimal) -> Decimal:
    return sum((cj * w ** (j + 1) for j, cj in enumerate(c)), Decimal(0))


def alternating_extrema(err: list[Decimal], keep: int) -> list[int]:
    """Indices of the local extrema of ``err``, one per run of equal sign (the
    largest), trimmed at the ends to ``keep``."""
    ext = []
    for i in range(len(err)):
        left = abs(err[i - 1]) if i > 0 else Decimal(0)
        right = abs(err[i + 1]) if i + 1 < len(err) else Decimal(0)
        if abs(err[i]) >= left and abs(err[i]) >= right:
            ext.append(i)
    alt: list[int] = []
    for i in ext:
        if alt and (err[i] > 0) == (err[alt[-1]] > 0):
            if abs(err[i]) > abs(err[alt[-1]]):
                alt[-1] = i
        else:
            alt.append(i)
    while len(alt) > keep:
        alt.pop(0 if abs(err[alt[0]]) < abs(err[alt[-1]]) else -1)
    return alt


def fit(n_terms: int) -> tuple[list[Decimal], Decimal]:
    root2 = Decimal(2).sqrt()
    w_max = ((root2 - 1) / (root2 + 1)) ** 2
    grid = [w_max * Decimal(j) / GRID for j in range(1, GRID + 1)]
    values = [target(w) for w in grid]
    ref = [
        w_max * (1 - Decimal(math.cos(math.pi * (j + 0.5) / (n_terms + 1)))) / 2
        for j in range(n_terms + 1)
    ]
    c: list[Decimal] = []
    for _ in range(30):
        rows = [
            [x ** (k + 1) for k in range(n_terms)] + [Decimal(-1) ** j]
            for j, x in enumerate(ref)
        ]
        sol = solve(rows, [target(x) for x in ref])
        c = sol[:n_terms]
        err = [v - poly(c, w) for v, w in zip(values, grid, strict=True)]
        alt = alternating_extrema(err, n_terms + 1)
        if len(alt) < n_terms + 1:
            break
        ref = [grid[i] for i in alt]
    rounded = [Decimal(float(cj)) for cj in c]
    worst = max(abs(v - poly(rounded, w)) for v, w in zip(values, grid, strict=True))
    return c, worst


def main() -> None:
    n_terms = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    c, worst = fit(n_terms)
    print(f"EXP_POLY = {tuple(float(cj) for cj in c)!r}")
    print(f"largest error with the rounded coefficients: 2**{math.log2(worst):.2f}")


if __name__ == "__main__":
    main()
