#!/usr/bin/python3
"""Fits the rational tanh of core/common/fast_math.h: tanh(x) = x P(x^2) / Q(x^2) on [0, 8].

Run with Debian's python3 (numpy): /usr/bin/python3 scripts/fit-tanh.py [--degrees 4 4]
It prints P's and Q's coefficients (lowest degree first, Q(0) = 1) and the largest relative
error of the fit in double precision. The fit is linearised least squares on the relative error
of tanh(x) / x, reweighted by 1 / |Q| until it settles (Sanathanan-Koerner iteration).
"""
import argparse

import numpy as np


def fit(dp, dq, clamp, points, iterations):
    x = np.linspace(1e-4, clamp, points)
    t = x * x
    f = np.tanh(x) / x
    w = np.ones_like(t)
    for _ in range(iterations):
        a = np.hstack([np.vander(t, dp + 1, increasing=True),
                       -f[:, None] * np.vander(t, dq + 1, increasing=True)[:, 1:]])
        rows = (w / f)[:, None]
        scale = np.abs(a * rows).max(0)
        c, *_ = np.linalg.lstsq(a * rows / scale, w, rcond=None)
        c /= scale
        p, q = c[:dp + 1], np.concatenate([[1.0], c[dp + 1:]])
        qt = np.polyval(q[::-1], t)
        w = 1 / np.abs(qt)
    err = np.abs((np.polyval(p[::-1], t) / qt - f) / f).max()
    return p, q, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--degrees', type=int, nargs=2, default=[4, 4], metavar=('P', 'Q'))
    ap.add_argument('--clamp', type=float, default=8.0,
                    help='fit on [0, clamp] (fast::tanh\'s constants: 8; it clamps its input at 7.75, inside)')
    ap.add_argument('--points', type=int, default=200000)
    ap.add_argument('--iterations', type=int, default=30)
    args = ap.parse_args()
    p, q, err = fit(*args.degrees, args.clamp, args.points, args.iterations)
    print('P:', ', '.join('%.9e' % v for v in p))
    print('Q:', ', '.join('%.9e' % v for v in q))
    print('largest relative error on [0, %g]: %.2e' % (args.clamp, err))


if __name__ == '__main__':
    main()
