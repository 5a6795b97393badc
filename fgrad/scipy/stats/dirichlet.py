"""The Dirichlet distribution, as scipy.stats.dirichlet (and jax.scipy.stats.dirichlet).

logpdf and pdf are differentiable in x and alpha. x holds the K components on its first axis
(further axes are points), or K - 1 of them, the last being 1 minus their sum (the form to
differentiate in x: it stays on the simplex). Where SciPy raises for x off the simplex,
fgrad gives -inf (a value can be traced); alpha <= 0 gives nan.
"""
import numpy as np

from ... import numpy as fnp
from .. import special
from ._util import inf, nan, promote, quiet

__all__ = ["logpdf", "pdf"]


@quiet
def logpdf(x, alpha):
    """log of the density at x, as scipy.stats.dirichlet.logpdf."""
    x, alpha = promote(x, alpha)
    if fnp.ndim(alpha) != 1:
        raise ValueError(f"Parameter vector 'a' must be one dimensional, but a.shape = {fnp.shape(alpha)}.")
    k = fnp.shape(alpha)[0]
    if fnp.ndim(x) == 0 or fnp.shape(x)[0] not in (k, k - 1):
        raise ValueError(f"Vector 'x' must have either the same number of entries as, or one entry fewer than, "
                         f"parameter vector 'a', but alpha.shape = {fnp.shape(alpha)} and x.shape = {fnp.shape(x)}.")
    if fnp.shape(x)[0] == k - 1:
        x = fnp.concatenate([x, 1.0 - fnp.sum(x, axis=0, keepdims=True)], axis=0)
    a = fnp.reshape(alpha, (k,) + (1,) * (fnp.ndim(x) - 1))
    tol = max(1e-9, 10 * np.finfo(x.dtype).eps)
    simplex = fnp.logical_and(fnp.all(fnp.logical_and(x >= 0, x <= 1), axis=0),
                              fnp.abs(fnp.sum(x, axis=0) - 1.0) <= tol)
    xs = fnp.where(simplex, x, 1.0 / k)  # (Note [guarded branches], _util.py)
    log_b = fnp.sum(special.gammaln(alpha)) - special.gammaln(fnp.sum(alpha))
    value = -log_b + fnp.sum(special.xlogy(a - 1, xs), axis=0)
    value = fnp.where(simplex, value, -inf)
    return fnp.squeeze(fnp.where(fnp.all(alpha > 0), value, nan))


def pdf(x, alpha):
    """The density at x, as scipy.stats.dirichlet.pdf."""
    return fnp.exp(logpdf(x, alpha))
