"""The Cauchy distribution, as scipy.stats.cauchy (and jax.scipy.stats.cauchy).

Every function is differentiable in its first argument (x or q) and in loc and scale; an
invalid scale (<= 0) gives nan, as SciPy's.
"""
import numpy as np

from ... import numpy as fnp
from ._util import check, inf, nan, promote, quiet
from ._util import standardize as _y

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_LOG_PI = float(np.log(np.pi))


@quiet
def logpdf(x, loc=0, scale=1):
    """log of the density at x, as scipy.stats.cauchy.logpdf."""
    y, scale = _y(x, loc, scale)
    ay = fnp.abs(y)
    small = ay < 1
    ys = fnp.where(small, y, 0.0)  # (Note [guarded branches], _util.py)
    big = fnp.where(small, 1.0, ay)
    value = fnp.where(small, -_LOG_PI - fnp.log1p(ys * ys),
                      -_LOG_PI - (2 * fnp.log(big) + fnp.log1p((1 / big) ** 2)))
    return check(value - fnp.log(scale), scale > 0)


def pdf(x, loc=0, scale=1):
    """The density at x, as scipy.stats.cauchy.pdf."""
    return fnp.exp(logpdf(x, loc, scale))


@quiet
def cdf(x, loc=0, scale=1):
    """P(X <= x), as scipy.stats.cauchy.cdf."""
    y, scale = _y(x, loc, scale)
    return check(fnp.arctan2(1.0, -y) / np.pi, scale > 0)


@quiet
def sf(x, loc=0, scale=1):
    """P(X > x), as scipy.stats.cauchy.sf."""
    y, scale = _y(x, loc, scale)
    return check(fnp.arctan2(1.0, y) / np.pi, scale > 0)


@quiet
def logcdf(x, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.cauchy.logcdf."""
    return fnp.log(cdf(x, loc, scale))


@quiet
def logsf(x, loc=0, scale=1):
    """log P(X > x), as scipy.stats.cauchy.logsf."""
    return fnp.log(sf(x, loc, scale))


def _quantile(q):
    """-1 / tan(pi P) with P = q - 1 above 1/2 (Boost's form, as SciPy's); exactly 0 at 1/2, -inf at
    q = 0, inf at q = 1, nan outside [0, 1]."""
    bad = fnp.logical_or(q <= 0, q >= 1)
    p = fnp.where(bad, 0.25, q)  # (Note [guarded branches], _util.py)
    value = -1.0 / fnp.tan(np.pi * fnp.where(p > 0.5, p - 1.0, p))
    value = fnp.where(p == 0.5, np.pi * (p - 0.5), value)  # (0 there, and the derivative pi)
    edge = fnp.where(q == 0, -inf, fnp.where(q == 1, inf, nan))
    return fnp.where(bad, edge, value)


@quiet
def ppf(q, loc=0, scale=1):
    """The quantile function, as scipy.stats.cauchy.ppf."""
    q, loc, scale = promote(q, loc, scale)
    return check(_quantile(q) * scale + loc, scale > 0)


@quiet
def isf(q, loc=0, scale=1):
    """The inverse of sf, as scipy.stats.cauchy.isf."""
    q, loc, scale = promote(q, loc, scale)
    return check(-_quantile(q) * scale + loc, scale > 0)
