"""The uniform distribution on [loc, loc + scale], as scipy.stats.uniform (and
jax.scipy.stats.uniform).

Every function is differentiable in its first argument (x or q) and in loc and scale (the
densities are piecewise constant: 0 in x); an invalid scale (<= 0) gives nan, as SciPy's.
"""
from ... import numpy as fnp
from ._util import check, inf, nan, promote, quiet
from ._util import standardize as _y

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@quiet
def logpdf(x, loc=0, scale=1):
    """log of the density at x, as scipy.stats.uniform.logpdf: -inf outside [loc, loc + scale]."""
    y, scale = _y(x, loc, scale)
    out = fnp.logical_or(y < 0, y > 1)
    return check(fnp.where(out, -inf, fnp.where(fnp.isnan(y), nan, -fnp.log(scale))), scale > 0)


def pdf(x, loc=0, scale=1):
    """The density at x, as scipy.stats.uniform.pdf."""
    return fnp.exp(logpdf(x, loc, scale))


def _clipped(y):
    """y clipped to [0, 1] (nan stays nan)."""
    return fnp.where(y <= 0, 0.0, fnp.where(y >= 1, 1.0, y))


@quiet
def cdf(x, loc=0, scale=1):
    """P(X <= x), as scipy.stats.uniform.cdf."""
    y, scale = _y(x, loc, scale)
    return check(_clipped(y), scale > 0)


@quiet
def sf(x, loc=0, scale=1):
    """P(X > x), as scipy.stats.uniform.sf."""
    y, scale = _y(x, loc, scale)
    return check(1.0 - _clipped(y), scale > 0)


def logcdf(x, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.uniform.logcdf."""
    return _log(cdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    """log P(X > x), as scipy.stats.uniform.logsf."""
    return _log(sf(x, loc, scale))


@quiet
def _log(p):
    zero = p == 0
    return fnp.where(zero, -inf, fnp.log(fnp.where(zero, 1.0, p)))


@quiet
def ppf(q, loc=0, scale=1):
    """The quantile function, as scipy.stats.uniform.ppf: nan outside [0, 1]."""
    q, loc, scale = promote(q, loc, scale)
    bad = fnp.logical_or(q < 0, q > 1)
    return check(fnp.where(bad, nan, q * scale + loc), scale > 0)
