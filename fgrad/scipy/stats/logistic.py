"""The logistic distribution, as scipy.stats.logistic (and jax.scipy.stats.logistic).

Every function is differentiable in its first argument (x or q) and in loc and scale; an
invalid scale (<= 0) gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import check, promote, quiet
from ._util import standardize as _y

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@quiet
def logpdf(x, loc=0, scale=1):
    """log of the density at x, as scipy.stats.logistic.logpdf."""
    y, scale = _y(x, loc, scale)
    # -|y| - 2 log1p(exp(-|y|)) (SciPy's, to the bit), written smoothly at y = 0
    return check(-2.0 * fnp.logaddexp(y / 2.0, -y / 2.0) - fnp.log(scale), scale > 0)


def pdf(x, loc=0, scale=1):
    """The density at x, as scipy.stats.logistic.pdf."""
    return fnp.exp(logpdf(x, loc, scale))


@quiet
def cdf(x, loc=0, scale=1):
    """P(X <= x), as scipy.stats.logistic.cdf."""
    y, scale = _y(x, loc, scale)
    return check(special.expit(y), scale > 0)


@quiet
def logcdf(x, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.logistic.logcdf."""
    y, scale = _y(x, loc, scale)
    return check(special.log_expit(y), scale > 0)


@quiet
def sf(x, loc=0, scale=1):
    """P(X > x), as scipy.stats.logistic.sf."""
    y, scale = _y(x, loc, scale)
    return check(special.expit(-y), scale > 0)


@quiet
def logsf(x, loc=0, scale=1):
    """log P(X > x), as scipy.stats.logistic.logsf."""
    y, scale = _y(x, loc, scale)
    return check(special.log_expit(-y), scale > 0)


@quiet
def ppf(q, loc=0, scale=1):
    """The quantile function, as scipy.stats.logistic.ppf: -inf at q = 0, inf at q = 1, nan
    outside [0, 1]."""
    q, loc, scale = promote(q, loc, scale)
    return check(special.logit(q) * scale + loc, scale > 0)


@quiet
def isf(q, loc=0, scale=1):
    """The inverse of sf, as scipy.stats.logistic.isf."""
    q, loc, scale = promote(q, loc, scale)
    return check(-special.logit(q) * scale + loc, scale > 0)
