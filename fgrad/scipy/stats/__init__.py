"""fgrad.scipy.stats: scipy.stats's distributions as functions, differentiable, mirroring
jax.scipy.stats: one module per distribution, `fgrad.scipy.stats.norm.logpdf(x, loc, scale)`.

Each function takes SciPy's arguments (the shape parameters, then loc and scale where SciPy
has them), broadcasts them, and matches scipy.stats's values, outside the support and at its
edges too (-inf log densities, nan for invalid parameters). Densities and masses are
differentiable in every continuous argument; a cdf built on betainc or gammainc raises
NotImplementedError for the derivative with respect to a shape parameter (they have no
closed form there), naming the function and the parameter. Each distribution is a
composite of fgrad ops and fgrad.scipy.special, so it differentiates to any order, batches
under vmap, compiles and runs on the device of its inputs.
"""
from . import (
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
from ._core import ModeResult, mode, rankdata, sem

__all__ = [
    "ModeResult",
    "bernoulli",
    "beta",
    "betabinom",
    "binom",
    "cauchy",
    "chi2",
    "dirichlet",
    "expon",
    "gamma",
    "gennorm",
    "geom",
    "gumbel_l",
    "gumbel_r",
    "laplace",
    "logistic",
    "mode",
    "multinomial",
    "multivariate_normal",
    "nbinom",
    "norm",
    "pareto",
    "poisson",
    "rankdata",
    "sem",
    "t",
    "truncnorm",
    "uniform",
    "vonmises",
    "wrapcauchy",
]
