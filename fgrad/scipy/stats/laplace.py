"""The Laplace distribution, as scipy.stats.laplace (and jax.scipy.stats.laplace).

Every function is differentiable in x, loc and scale (at x = loc, the density's kink, the
derivative of logpdf in x is taken as 0); an invalid scale (<= 0) gives nan, as SciPy's.
"""
import numpy as np

from ... import numpy as fnp
from ._util import check, promote, quiet

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG2 = float(np.log(2.0))


@quiet
def logpdf(x, loc=0, scale=1):
    """log of the density at x, as scipy.stats.laplace.logpdf."""
    x, loc, scale = promote(x, loc, scale)
    y = (x - loc) / scale
    return check(-fnp.abs(y) - _LOG2 - fnp.log(scale), scale > 0)


def pdf(x, loc=0, scale=1):
    """The density at x, as scipy.stats.laplace.pdf."""
    return fnp.exp(logpdf(x, loc, scale))


def _halves(y):
    """(0.5 exp(-y) for y > 0, 0.5 exp(y) for y <= 0), each where it serves (else 0.5)."""
    right = y > 0
    return right, 0.5 * fnp.exp(-fnp.where(right, y, 0.0)), 0.5 * fnp.exp(fnp.where(right, 0.0, y))


@quiet
def cdf(x, loc=0, scale=1):
    """P(X <= x), as scipy.stats.laplace.cdf."""
    x, loc, scale = promote(x, loc, scale)
    right, upper, lower = _halves((x - loc) / scale)
    return check(fnp.where(right, 1.0 - upper, lower), scale > 0)


@quiet
def sf(x, loc=0, scale=1):
    """P(X > x), as scipy.stats.laplace.sf."""
    x, loc, scale = promote(x, loc, scale)
    right, upper, lower = _halves(-((x - loc) / scale))
    return check(fnp.where(right, 1.0 - upper, lower), scale > 0)


@quiet
def logcdf(x, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.laplace.logcdf."""
    return fnp.log(cdf(x, loc, scale))


@quiet
def logsf(x, loc=0, scale=1):
    """log P(X > x), as scipy.stats.laplace.logsf."""
    return fnp.log(sf(x, loc, scale))
