"""The left-skewed Gumbel distribution, as scipy.stats.gumbel_l (and
jax.scipy.stats.gumbel_l).

Every function is differentiable in its first argument (x or q) and in loc and scale; an
invalid scale (<= 0) gives nan, as SciPy's.
"""
from ... import numpy as fnp
from ._util import check, promote, quiet
from ._util import standardize as _y

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@quiet
def logpdf(x, loc=0, scale=1):
    """log of the density at x, as scipy.stats.gumbel_l.logpdf."""
    y, scale = _y(x, loc, scale)
    return check(y - fnp.exp(y) - fnp.log(scale), scale > 0)


def pdf(x, loc=0, scale=1):
    """The density at x, as scipy.stats.gumbel_l.pdf."""
    return fnp.exp(logpdf(x, loc, scale))


@quiet
def cdf(x, loc=0, scale=1):
    """P(X <= x), as scipy.stats.gumbel_l.cdf."""
    y, scale = _y(x, loc, scale)
    return check(-fnp.expm1(-fnp.exp(y)), scale > 0)


@quiet
def logcdf(x, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.gumbel_l.logcdf."""
    y, scale = _y(x, loc, scale)
    return check(fnp.log(-fnp.expm1(-fnp.exp(y))), scale > 0)


@quiet
def sf(x, loc=0, scale=1):
    """P(X > x), as scipy.stats.gumbel_l.sf."""
    y, scale = _y(x, loc, scale)
    return check(fnp.exp(-fnp.exp(y)), scale > 0)


@quiet
def logsf(x, loc=0, scale=1):
    """log P(X > x), as scipy.stats.gumbel_l.logsf."""
    y, scale = _y(x, loc, scale)
    return check(-fnp.exp(y), scale > 0)


@quiet
def ppf(q, loc=0, scale=1):
    """The quantile function, as scipy.stats.gumbel_l.ppf: -inf at q = 0, inf at q = 1, nan
    outside [0, 1]."""
    q, loc, scale = promote(q, loc, scale)
    return check(fnp.log(-fnp.log1p(-q)) * scale + loc, scale > 0)


@quiet
def isf(q, loc=0, scale=1):
    """The inverse of sf, as scipy.stats.gumbel_l.isf."""
    q, loc, scale = promote(q, loc, scale)
    return check(fnp.log(-fnp.log(q)) * scale + loc, scale > 0)
