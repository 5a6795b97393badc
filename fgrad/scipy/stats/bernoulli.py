"""The Bernoulli distribution, as scipy.stats.bernoulli (and jax.scipy.stats.bernoulli).

logpmf, pmf and cdf are differentiable in p (k is an integer: its derivative is not taken);
ppf is piecewise constant (derivative 0). p outside [0, 1] gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import lattice, nan, promote, quiet

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def _valid(p):
    return fnp.logical_and(p >= 0, p <= 1)


@quiet
def logpmf(k, p, loc=0):
    """log P(K = k), as scipy.stats.bernoulli.logpmf: -inf unless k - loc is 0 or 1."""
    k, p, loc = promote(k, p, loc)

    def fn(y):  # SciPy's: binom's with n = 1
        combiln = special.gammaln(2.0) - (special.gammaln(y + 1) + special.gammaln(2.0 - y))
        return combiln + special.xlogy(y, p) + special.xlog1py(1.0 - y, -p)
    return lattice(k, loc, 0.0, 1.0, _valid(p), fn, 0.0)


def pmf(k, p, loc=0):
    """P(K = k), as scipy.stats.bernoulli.pmf."""
    return fnp.exp(logpmf(k, p, loc))


@quiet
def cdf(k, p, loc=0):
    """P(K <= k), as scipy.stats.bernoulli.cdf: 0 below loc, 1 - p up to loc + 1, then 1."""
    k, p, loc = promote(k, p, loc)
    y = k - loc
    value = fnp.where(y < 0, 0.0, fnp.where(y < 1, 1.0 - p, 1.0))
    return fnp.where(fnp.logical_and(_valid(p), ~fnp.isnan(y)), value, nan)


@quiet
def ppf(q, p, loc=0):
    """The least k with cdf(k) >= q, as scipy.stats.bernoulli.ppf: loc - 1 at q = 0, loc + 1 at q = 1, nan
    outside [0, 1]."""
    q, p, loc = promote(q, p, loc)
    value = fnp.where(q == 0, -1.0, fnp.where(q == 1, 1.0, fnp.where(q <= 1.0 - p, 0.0, 1.0))) + loc
    good = fnp.logical_and(_valid(p), fnp.logical_and(q >= 0, q <= 1))
    return fnp.where(good, value, nan)
