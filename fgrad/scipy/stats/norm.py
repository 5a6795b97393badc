"""The normal distribution, as scipy.stats.norm (and jax.scipy.stats.norm).

Every function is differentiable in its first argument (x or q) and in loc and scale; an
invalid scale (<= 0) gives nan, as SciPy's.
"""
import numpy as np

from ... import numpy as fnp
from .. import special
from ._util import check, promote, quiet

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_LOG_SQRT_2PI = float(np.log(2 * np.pi) / 2.0)


@quiet
def logpdf(x, loc=0, scale=1):
    """log of the normal density at x, as scipy.stats.norm.logpdf."""
    x, loc, scale = promote(x, loc, scale)
    z = (x - loc) / scale
    return check(-(z * z) / 2.0 - _LOG_SQRT_2PI - fnp.log(scale), scale > 0)


def pdf(x, loc=0, scale=1):
    """The normal density at x, as scipy.stats.norm.pdf."""
    return fnp.exp(logpdf(x, loc, scale))


@quiet
def cdf(x, loc=0, scale=1):
    """P(X <= x), as scipy.stats.norm.cdf."""
    x, loc, scale = promote(x, loc, scale)
    return check(special.ndtr((x - loc) / scale), scale > 0)


@quiet
def logcdf(x, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.norm.logcdf (accurate far in the left tail)."""
    x, loc, scale = promote(x, loc, scale)
    return check(special.log_ndtr((x - loc) / scale), scale > 0)


@quiet
def sf(x, loc=0, scale=1):
    """P(X > x), as scipy.stats.norm.sf."""
    x, loc, scale = promote(x, loc, scale)
    return check(special.ndtr(-((x - loc) / scale)), scale > 0)


@quiet
def logsf(x, loc=0, scale=1):
    """log P(X > x), as scipy.stats.norm.logsf."""
    x, loc, scale = promote(x, loc, scale)
    return check(special.log_ndtr(-((x - loc) / scale)), scale > 0)


@quiet
def ppf(q, loc=0, scale=1):
    """The quantile function (inverse of cdf), as scipy.stats.norm.ppf: -inf at q = 0, inf at
    q = 1, nan outside [0, 1]."""
    q, loc, scale = promote(q, loc, scale)
    return check(special.ndtri(q) * scale + loc, scale > 0)


@quiet
def isf(q, loc=0, scale=1):
    """The inverse of sf, as scipy.stats.norm.isf."""
    q, loc, scale = promote(q, loc, scale)
    return check(-special.ndtri(q) * scale + loc, scale > 0)
