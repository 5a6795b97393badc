"""The von Mises distribution, as scipy.stats.vonmises (and jax.scipy.stats.vonmises):
defined for every real x (the density is 2 pi periodic), with kappa >= 0.

logpdf and pdf are differentiable in x, kappa, loc and scale; kappa < 0 or scale <= 0 gives
nan, as SciPy's. (SciPy's loc and scale are accepted; JAX's functions have neither.)
"""
import numpy as np

from ... import numpy as fnp
from .. import special
from ._util import check, promote, quiet

__all__ = ["logpdf", "pdf"]

_LOG_2PI = float(np.log(2 * np.pi))


@quiet
def logpdf(x, kappa, loc=0, scale=1):
    """log of the density at x, as scipy.stats.vonmises.logpdf."""
    x, kappa, loc, scale = promote(x, kappa, loc, scale)
    y = (x - loc) / scale
    value = kappa * special.cosm1(y) - _LOG_2PI - fnp.log(special.i0e(kappa))
    return check(value - fnp.log(scale), fnp.logical_and(kappa >= 0, scale > 0))


def pdf(x, kappa, loc=0, scale=1):
    """The density at x, as scipy.stats.vonmises.pdf."""
    return fnp.exp(logpdf(x, kappa, loc, scale))
