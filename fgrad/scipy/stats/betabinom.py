"""The beta-binomial distribution, as scipy.stats.betabinom (and
jax.scipy.stats.betabinom).

logpmf and pmf are differentiable in a and b (k and n are integers: their derivatives are
not taken); n < 0, a non-integer n, a <= 0 or b <= 0 gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import integral, lattice, promote, quiet

__all__ = ["logpmf", "pmf"]


@quiet
def logpmf(k, n, a, b, loc=0):
    """log P(K = k), as scipy.stats.betabinom.logpmf: -inf off the integers in [loc, loc + n]."""
    k, n, a, b, loc = promote(k, n, a, b, loc)
    ok = fnp.logical_and(fnp.logical_and(n >= 0, integral(n)), fnp.logical_and(a > 0, b > 0))

    def fn(y):
        combiln = -fnp.log(n + 1) - special.betaln(n - y + 1, y + 1)
        return combiln + special.betaln(y + a, n - y + b) - special.betaln(a, b)
    return lattice(k, loc, 0.0, n, ok, fn, 0.0)


def pmf(k, n, a, b, loc=0):
    """P(K = k), as scipy.stats.betabinom.pmf."""
    return fnp.exp(logpmf(k, n, a, b, loc))
