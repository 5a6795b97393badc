"""The geometric distribution on 1, 2, ..., as scipy.stats.geom (and jax.scipy.stats.geom).

logpmf and pmf are differentiable in p (k is an integer: its derivative is not taken);
p outside (0, 1] gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import inf, lattice, promote, quiet

__all__ = ["logpmf", "pmf"]


@quiet
def logpmf(k, p, loc=0):
    """log P(K = k), as scipy.stats.geom.logpmf: -inf off the integers >= loc + 1."""
    k, p, loc = promote(k, p, loc)
    return lattice(k, loc, 1.0, inf, fnp.logical_and(p > 0, p <= 1),
                   lambda y: special.xlog1py(y - 1, -p) + fnp.log(p), 1.0)


def pmf(k, p, loc=0):
    """P(K = k), as scipy.stats.geom.pmf."""
    return fnp.exp(logpmf(k, p, loc))
