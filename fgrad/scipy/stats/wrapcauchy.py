"""The wrapped Cauchy distribution on [0, 2 pi], as scipy.stats.wrapcauchy (and
jax.scipy.stats.wrapcauchy), with 0 < c < 1.

logpdf and pdf are differentiable in x, c, loc and scale; c outside (0, 1) or scale <= 0
gives nan, as SciPy's. (SciPy's loc and scale are accepted; JAX's functions have neither.)
"""
import numpy as np

from ... import numpy as fnp
from ._util import check, inf, promote, quiet

__all__ = ["logpdf", "pdf"]


def _pdf(y, c):
    return (1.0 - c * c) / (2 * np.pi * (1 + c * c - 2 * c * fnp.cos(y)))


def _args(x, c, loc, scale):
    x, c, loc, scale = promote(x, c, loc, scale)
    y = (x - loc) / scale
    out = fnp.logical_or(y < 0, y > 2 * np.pi)
    ok = fnp.logical_and(fnp.logical_and(c > 0, c < 1), scale > 0)
    return fnp.where(out, 1.0, y), out, c, scale, ok  # (Note [guarded branches], _util.py)


@quiet
def logpdf(x, c, loc=0, scale=1):
    """log of the density at x, as scipy.stats.wrapcauchy.logpdf: -inf outside [0, 2 pi]."""
    y, out, c, scale, ok = _args(x, c, loc, scale)
    return check(fnp.where(out, -inf, fnp.log(_pdf(y, c)) - fnp.log(scale)), ok)


@quiet
def pdf(x, c, loc=0, scale=1):
    """The density at x, as scipy.stats.wrapcauchy.pdf: 0 outside [0, 2 pi]."""
    y, out, c, scale, ok = _args(x, c, loc, scale)
    return check(fnp.where(out, 0.0, _pdf(y, c) / scale), ok)
