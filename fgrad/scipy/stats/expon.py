"""The exponential distribution, as scipy.stats.expon (and jax.scipy.stats.expon).

Every function is differentiable in its first argument (x or q) and in loc and scale; an
invalid scale (<= 0) gives nan, as SciPy's.
"""
from ... import numpy as fnp
from ._util import check, inf, interior, nan, promote, quiet
from ._util import standardize as _y

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@quiet
def logpdf(x, loc=0, scale=1):
    """log of the density at x, as scipy.stats.expon.logpdf: -inf below loc."""
    y, scale = _y(x, loc, scale)
    out = y < 0
    ys = fnp.where(out, 0.0, y)  # (Note [guarded branches], _util.py)
    return check(fnp.where(out, -inf, -ys - fnp.log(scale)), scale > 0)


def pdf(x, loc=0, scale=1):
    """The density at x, as scipy.stats.expon.pdf."""
    return fnp.exp(logpdf(x, loc, scale))


@quiet
def cdf(x, loc=0, scale=1):
    """P(X <= x), as scipy.stats.expon.cdf."""
    y, scale = _y(x, loc, scale)
    return check(interior(y, 0.0, inf, lambda ys: -fnp.expm1(-ys), 0.0, 1.0, 1.0), scale > 0)


@quiet
def logcdf(x, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.expon.logcdf."""
    y, scale = _y(x, loc, scale)
    return check(interior(y, 0.0, inf, lambda ys: fnp.log(-fnp.expm1(-ys)), -inf, 0.0, 1.0), scale > 0)


@quiet
def sf(x, loc=0, scale=1):
    """P(X > x), as scipy.stats.expon.sf."""
    y, scale = _y(x, loc, scale)
    return check(interior(y, 0.0, inf, lambda ys: fnp.exp(-ys), 1.0, 0.0, 1.0), scale > 0)


@quiet
def logsf(x, loc=0, scale=1):
    """log P(X > x), as scipy.stats.expon.logsf."""
    y, scale = _y(x, loc, scale)
    return check(interior(y, 0.0, inf, lambda ys: -ys, 0.0, -inf, 1.0), scale > 0)


@quiet
def ppf(q, loc=0, scale=1):
    """The quantile function, as scipy.stats.expon.ppf: loc at q = 0, inf at q = 1, nan
    outside [0, 1]."""
    q, loc, scale = promote(q, loc, scale)
    bad = fnp.logical_or(q < 0, q > 1)
    qs = fnp.where(bad, 0.5, q)
    return check(fnp.where(bad, nan, -fnp.log1p(-qs) * scale + loc), scale > 0)
