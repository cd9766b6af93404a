#!/usr/bin/env python3
"""The polynomial `src/lower/emit/double.rs` evaluates for `e^r` of f64 (`EXP_POLYNOMIAL`):
`e^r ≈ 1 + r + c₂r² + … + c₁₁r¹¹` on `|r| ≤ ln 2 / 2` (widened by one part in a million),
interpolating `e^r` at the ten Chebyshev nodes of that interval — solved exactly in rationals,
`e^r` at the nodes to 70 digits — each coefficient then rounded to a double. Prints the
coefficients and the largest relative error of the rounded polynomial on a grid of 801 points
(2⁻⁵⁵·⁸: below half a unit in a double's last place, so the result's error is its evaluation's).

    python3 scripts/fit_exp_polynomial.py
"""
import math
from decimal import Decimal, getcontext
from fractions import Fraction

getcontext().prec = 70
DEGREE = 11


def exp(x):
    """e^x of a Fraction, as a Fraction exact to 70 digits."""
    return Fraction((Decimal(x.numerator) / Decimal(x.denominator)).exp())


def solve(rows, rhs):
    """The exact solution of a square linear system in Fractions (Gauss–Jordan)."""
    n = len(rows)
    m = [row[:] + [b] for row, b in zip(rows, rhs)]
    for c in range(n):
        p = next(i for i in range(c, n) if m[i][c] != 0)
        m[c], m[p] = m[p], m[c]
        for i in range(n):
            if i != c and m[i][c] != 0:
                f = m[i][c] / m[c][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    half_width = Fraction(math.log(2) / 2) * Fraction(1000001, 1000000)
    free = DEGREE - 1
    nodes = [Fraction(math.cos((2 * j + 1) * math.pi / (2 * free))) * half_width for j in range(free)]
    rows = [[r ** i for i in range(2, DEGREE + 1)] for r in nodes]
    rhs = [exp(r) - 1 - r for r in nodes]
    coefficients = [float(c) for c in solve(rows, rhs)]
    worst = 0
    for k in range(-400, 401):
        r = half_width * Fraction(k, 400)
        p = 1 + r + sum(Fraction(c) * r ** (i + 2) for i, c in enumerate(coefficients))
        worst = max(worst, abs(p - exp(r)) / exp(r))
    for i, c in enumerate(coefficients):
        print(f"c{i + 2} = {c!r}")
    print(f"largest relative error: 2^{math.log2(float(worst)):.1f}")


if __name__ == "__main__":
    main()
