"""The binomial distribution, as scipy.stats.binom (and jax.scipy.stats.binom).

logpmf and pmf are differentiable in p (k and n are integers: their derivatives are not
taken); n < 0, a non-integer n or p outside [0, 1] gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import integral, lattice, promote, quiet

__all__ = ["logpmf", "pmf"]


@quiet
def logpmf(k, n, p, loc=0):
    """log P(K = k), as scipy.stats.binom.logpmf: -inf off the integers in [loc, loc + n]."""
    k, n, p, loc = promote(k, n, p, loc)
    ok = fnp.logical_and(fnp.logical_and(n >= 0, integral(n)), fnp.logical_and(p >= 0, p <= 1))

    def fn(y):
        combiln = special.gammaln(n + 1) - (special.gammaln(y + 1) + special.gammaln(n - y + 1))
        return combiln + special.xlogy(y, p) + special.xlog1py(n - y, -p)
    return lattice(k, loc, 0.0, n, ok, fn, 0.0)


def pmf(k, n, p, loc=0):
    """P(K = k), as scipy.stats.binom.pmf."""
    return fnp.exp(logpmf(k, n, p, loc))
