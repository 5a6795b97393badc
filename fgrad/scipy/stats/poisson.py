"""The Poisson distribution, as scipy.stats.poisson (and jax.scipy.stats.poisson).

Every function is differentiable in mu (k is an integer: its derivative is not taken); mu < 0
gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import inf, lattice, nan, promote, quiet

__all__ = ["cdf", "logpmf", "pmf"]


@quiet
def logpmf(k, mu, loc=0):
    """log P(K = k), as scipy.stats.poisson.logpmf: -inf off the integers >= loc."""
    k, mu, loc = promote(k, mu, loc)
    return lattice(k, loc, 0.0, inf, mu >= 0,
                   lambda y: special.xlogy(y, mu) - special.gammaln(y + 1) - mu, 0.0)


def pmf(k, mu, loc=0):
    """P(K = k), as scipy.stats.poisson.pmf."""
    return fnp.exp(logpmf(k, mu, loc))


@quiet
def cdf(k, mu, loc=0):
    """P(K <= k), as scipy.stats.poisson.cdf (k need not be an integer)."""
    k, mu, loc = promote(k, mu, loc)
    y = k - loc
    inside = fnp.logical_and(y >= 0, y < inf)
    value = special.gammaincc(fnp.floor(fnp.where(inside, y, 0.0)) + 1, mu)
    value = fnp.where(inside, value, fnp.where(y == inf, 1.0, 0.0))
    return fnp.where(fnp.logical_and(mu >= 0, ~fnp.isnan(y)), value, nan)
