#!/usr/bin/env python3
"""Constants of spine-triton's f64 math, printed as C++ from 50-digit mpmath.

    python3 tools/f64_math_constants.py     # the tables, and each erf piece's worst error

erf (cpp/passes/ErfF64.cpp): each piece is the Chebyshev interpolant (in 50-digit mpmath) of a smooth function on its interval,
written as a polynomial in u = x - center and rounded to doubles:

  |x| < 0.84375:         erf(x) = x + x P(x^2),     P(t) = erf(sqrt t) / sqrt t - 1
  0.84375 <= |x| < 6:    erf(x) = 1 - exp(-x^2) R(|x|),  R(a) = erfc(a) exp(a^2), in three pieces

The error is measured in an f64 emulation of the evaluation (Horner with FMAs, the exponential
correctly rounded and then one ulp off, the subtraction from 1) against 50-digit erf, in ulps of
the correctly rounded result; the degrees are the lowest that keep every piece within 1.3 ulp.
atan (cpp/passes/AtanApproximation.cpp): (atan(t) - t) / t^3 as a polynomial in z = t^2 on
[0, tan(pi/8)^2] (a margin of 0.1% beyond), the Chebyshev interpolant again; measured as
t + (t z) P(z) in f64 against 50-digit atan.
pow's extended log (logF64Extended in cpp/passes/ExpLogF64.cpp): the centers c = e^(j/10),
j = -3..3, where each starts (e^((j - 1/2) / 10)), log c split into hi + lo, and ln 2 to 42 bits
with the rest.

Needs mpmath (a dependency of torch, through sympy) and numpy.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np

mp.mp.dps = 50

# (lo, hi, degree) of erfc(a) exp(a^2); the polynomial is in a - (lo + hi) / 2.
TAIL_PIECES = [(0.84375, 1.75, 15), (1.75, 3.25, 14), (3.25, 6.0, 12)]
SMALL_LIMIT, SMALL_DEGREE = 0.84375, 10


def chebyshev_fit(f, lo, hi, degree, center):
    """Coefficients (of u^0, u^1, ...) of f's interpolant at the Chebyshev nodes of [lo, hi]."""
    n = degree + 1
    mid, half = (mp.mpf(lo) + hi) / 2, (mp.mpf(hi) - lo) / 2
    nodes = [mid + half * mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    vandermonde = mp.matrix([[(x - center) ** j for j in range(n)] for x in nodes])
    solved = mp.lu_solve(vandermonde, mp.matrix([f(x) for x in nodes]))
    return [float(solved[j]) for j in range(n)]


def fma(a, b, c):
    return float(mp.mpf(a) * mp.mpf(b) + mp.mpf(c))


def horner(coefficients, u):
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = fma(result, u, c)
    return result


def ulps(value, x):
    exact = mp.erf(mp.mpf(x))
    return abs(float(mp.mpf(value) - exact)) / np.spacing(abs(float(exact)))


def small_piece():
    def p(t):
        return mp.erf(mp.sqrt(t)) / mp.sqrt(t) - 1 if t > 0 else 2 / mp.sqrt(mp.pi) - 1

    coefficients = chebyshev_fit(p, 0, SMALL_LIMIT**2, SMALL_DEGREE, 0)
    points = np.linspace(1e-3, SMALL_LIMIT, 3000)
    worst = max(ulps(fma(x, horner(coefficients, float(x) * float(x)), x), x) for x in points)
    return coefficients, worst


def tail_piece(lo, hi, degree):
    center = (lo + hi) / 2
    coefficients = chebyshev_fit(lambda a: mp.erfc(a) * mp.exp(a * a), lo, hi, degree, center)
    worst = 0.0
    for a in np.linspace(lo, hi, 3000):
        a = float(a)
        exponential = float(mp.exp(-mp.mpf(a * a))) * (1 + 2.0**-52)
        worst = max(worst, ulps(1 - exponential * horner(coefficients, a - center), a))
    return center, coefficients, worst


def table(name, coefficients):
    rows = ",\n".join(f"    {c!r}" for c in coefficients)
    return f"constexpr double {name}[] = {{\n{rows}}};"


ATAN_DEGREE = 11


def atan_polynomial():
    limit = float((mp.sqrt(2) - 1) ** 2) * 1.001

    def p(z):
        if z == 0:
            return mp.mpf(-1) / 3
        t = mp.sqrt(z)
        return (mp.atan(t) - t) / (t * z)

    coefficients = chebyshev_fit(p, 0, limit, ATAN_DEGREE, 0)
    worst = 0.0
    for t in np.linspace(1e-4, limit**0.5, 4000):
        t = float(t)
        value = fma(t * (t * t), horner(coefficients, t * t), t)
        exact = mp.atan(mp.mpf(t))
        worst = max(worst, abs(float(mp.mpf(value) - exact)) / np.spacing(float(exact)))
    return coefficients, worst


def log_centers():
    """{from, center, log hi, log lo} rows of kLogCenters, and ln 2 split at 42 bits."""
    rows = []
    for j in range(-3, 4):
        start = 0.0 if j == -3 else float(mp.exp(mp.mpf(2 * j - 1) / 20))
        center = float(mp.exp(mp.mpf(j) / 10))
        log = mp.log(mp.mpf(center))
        rows.append((start, center, float(log), float(log - mp.mpf(float(log)))))
    body = ",\n".join("    {" + ", ".join(v.hex() for v in row) + "}" for row in rows)
    ln2_hi = float(mp.floor(mp.log(2) * 2**42) / 2**42)
    return (
        f"constexpr LogCenter kLogCenters[] = {{\n{body}}};\n"
        f"constexpr double kLn2Hi42 = {ln2_hi.hex()};\n"
        f"constexpr double kLn2Rest = {float(mp.log(2) - mp.mpf(ln2_hi)).hex()};"
    )


def main():
    print(log_centers())
    coefficients, worst = atan_polynomial()
    print(f"// atan on |t| <= tan(pi/8): worst {worst:.2f} ulp")
    print(table("kAtanOverCubeF64", coefficients))
    coefficients, worst = small_piece()
    print(f"// |x| < {SMALL_LIMIT}: worst {worst:.2f} ulp")
    print(table("kErfSmall", coefficients))
    for i, (lo, hi, degree) in enumerate(TAIL_PIECES):
        center, coefficients, worst = tail_piece(lo, hi, degree)
        print(f"// [{lo}, {hi}), center {center!r}: worst {worst:.2f} ulp")
        print(table(f"kErfcScaled{i}", coefficients))


if __name__ == "__main__":
    main()
