"""The multinomial distribution, as scipy.stats.multinomial (and
jax.scipy.stats.multinomial).

logpmf and pmf are differentiable in p (x, the counts on the last axis, and n are integers:
their derivatives are not taken). p is used as given: where a row of p does not sum to 1,
SciPy 1.17 replaces its last entry by 1 minus the others (with a FutureWarning; SciPy 1.18
gives nan), while fgrad evaluates the formula at p as given, so that the derivative with
respect to p is the unconstrained one. x off the integers, negative, or not summing to n
gives -inf; n < 0 or p outside [0, 1] gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import inf, nan, promote, quiet

__all__ = ["logpmf", "pmf"]


@quiet
def logpmf(x, n, p):
    """log P(X = x), as scipy.stats.multinomial.logpmf."""
    x, n, p = promote(x, n, p)
    if fnp.ndim(x) == 0:
        raise ValueError("x must be an array.")
    if fnp.shape(x)[-1] != fnp.shape(p)[-1]:
        raise ValueError(f"Size of each quantile should be size of p: received {fnp.shape(x)[-1]}, but expected "
                         f"{fnp.shape(p)[-1]}.")
    count = fnp.logical_and(x >= 0, fnp.floor(x) == x)
    xs = fnp.where(count, x, 0.0)  # (Note [guarded branches], _util.py)
    value = special.gammaln(n + 1) + fnp.sum(special.xlogy(xs, p) - special.gammaln(xs + 1), axis=-1)
    good_x = fnp.logical_and(fnp.all(count, axis=-1), fnp.sum(x, axis=-1) == n)
    good_p = fnp.logical_and(n >= 0, fnp.all(fnp.logical_and(p >= 0, p <= 1), axis=-1))
    return fnp.where(good_p, fnp.where(good_x, value, -inf), nan)


def pmf(x, n, p):
    """P(X = x), as scipy.stats.multinomial.pmf."""
    return fnp.exp(logpmf(x, n, p))
