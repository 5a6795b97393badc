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

Continuous distributions, then discrete ones, then what they share:

- norm.py: the normal distribution.
- truncnorm.py: the normal distribution truncated to [a, b].
- multivariate_normal.py: the multivariate normal distribution.
- t.py: Student's t distribution.
- cauchy.py: the Cauchy distribution.
- laplace.py: the Laplace distribution.
- logistic.py: the logistic distribution.
- gennorm.py: the generalized normal distribution.
- gumbel_l.py: the left-skewed Gumbel distribution.
- gumbel_r.py: the right-skewed Gumbel distribution.
- uniform.py: the uniform distribution on [loc, loc + scale].
- expon.py: the exponential distribution.
- gamma.py: the gamma distribution.
- chi2.py: the chi-squared distribution.
- beta.py: the beta distribution.
- pareto.py: the Pareto distribution.
- dirichlet.py: the Dirichlet distribution.
- vonmises.py: the von Mises distribution (periodic in x).
- wrapcauchy.py: the wrapped Cauchy distribution on [0, 2 pi].
- bernoulli.py: the Bernoulli distribution.
- binom.py: the binomial distribution.
- betabinom.py: the beta-binomial distribution.
- nbinom.py: the negative binomial distribution.
- geom.py: the geometric distribution on 1, 2, 3, ...
- poisson.py: the Poisson distribution.
- multinomial.py: the multinomial distribution.
- _core.py: the summaries jax.scipy.stats has: sem (differentiable), rankdata and mode.
- _util.py: what the distributions share: promotion to floats, guarded branches, and the shape
  parameters whose derivative has no closed form.
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
