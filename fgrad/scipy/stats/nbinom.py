"""The negative binomial distribution, as scipy.stats.nbinom (and jax.scipy.stats.nbinom).

logpmf and pmf are differentiable in n (a positive real) and p (k is an integer: its
derivative is not taken); n <= 0 or p outside (0, 1] gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import inf, lattice, promote, quiet

__all__ = ["logpmf", "pmf"]


@quiet
def logpmf(k, n, p, loc=0):
    """log P(K = k), as scipy.stats.nbinom.logpmf: -inf off the integers >= loc."""
    k, n, p, loc = promote(k, n, p, loc)

    def fn(y):
        coeff = special.gammaln(n + y) - special.gammaln(y + 1) - special.gammaln(n)
        return coeff + n * fnp.log(p) + special.xlog1py(y, -p)
    return lattice(k, loc, 0.0, inf, fnp.logical_and(n > 0, fnp.logical_and(p > 0, p <= 1)), fn, 0.0)


def pmf(k, n, p, loc=0):
    """P(K = k), as scipy.stats.nbinom.pmf."""
    return fnp.exp(logpmf(k, n, p, loc))
