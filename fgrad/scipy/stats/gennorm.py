"""The generalized normal distribution, density beta / (2 Gamma(1 / beta)) exp(-|x|^beta),
as scipy.stats.gennorm (and jax.scipy.stats.gennorm).

logpdf and pdf are differentiable in x, beta, loc and scale (at x = loc, where |x|^beta has
no derivative in x for beta <= 1, the derivative is 0). cdf and sf are differentiable in x,
loc and scale; their derivative with respect to beta raises NotImplementedError (they are
gammaincc's, whose derivative in its parameter has no closed form). beta <= 0 or
scale <= 0 gives nan, as SciPy's. (SciPy's loc and scale are accepted; JAX's functions have
neither.)
"""
from ... import numpy as fnp
from .. import special
from ._util import NoClosedForm, check, promote, quiet

__all__ = ["cdf", "logpdf", "pdf", "sf"]


def _args(x, beta, loc, scale):
    x, beta, loc, scale = promote(x, beta, loc, scale)
    return (x - loc) / scale, beta, scale, fnp.logical_and(beta > 0, scale > 0)


def _power(y, beta):
    """|y| ** beta, 0 at y = 0 with the derivatives there 0 (not 0 * log 0)."""
    ay = fnp.abs(y)
    zero = ay == 0
    return fnp.where(zero, 0.0, fnp.where(zero, 1.0, ay) ** beta)


@quiet
def logpdf(x, beta, loc=0, scale=1):
    """log of the density at x, as scipy.stats.gennorm.logpdf."""
    y, beta, scale, ok = _args(x, beta, loc, scale)
    value = fnp.log(0.5 * beta) - special.gammaln(1.0 / beta) - _power(y, beta)
    return check(value - fnp.log(scale), ok)


def pdf(x, beta, loc=0, scale=1):
    """The density at x, as scipy.stats.gennorm.pdf."""
    return fnp.exp(logpdf(x, beta, loc, scale))


def _cdf(y, beta):
    """SciPy's (1/2 + c) - c gammaincc(1 / beta, |y|^beta), c = sign(y) / 2; where |y|^beta is
    below 1e-100, the tangent line 1/2 + pdf(0) y (exact to rounding there, where gammaincc's
    derivative is 0 * inf)."""
    tiny = _power(y, beta) < 1e-100
    ys = fnp.where(tiny, 1.0, y)  # (Note [guarded branches], _util.py)
    c = 0.5 * fnp.sign(ys)
    value = (0.5 + c) - c * special.gammaincc(1.0 / beta, _power(ys, beta))
    line = 0.5 + y * fnp.exp(fnp.log(0.5 * beta) - special.gammaln(1.0 / beta))
    return fnp.where(tiny, line, value)


_CDF_BETA = NoClosedForm("gennorm.cdf", "beta", "gammaincc")
_SF_BETA = NoClosedForm("gennorm.sf", "beta", "gammaincc")


@quiet
def cdf(x, beta, loc=0, scale=1):
    """P(X <= x), as scipy.stats.gennorm.cdf. Not differentiable in beta (it raises)."""
    y, beta, _, ok = _args(x, _CDF_BETA.enter(beta), loc, scale)
    return _CDF_BETA.leave(check(_cdf(y, beta), ok), beta)


@quiet
def sf(x, beta, loc=0, scale=1):
    """P(X > x), as scipy.stats.gennorm.sf. Not differentiable in beta (it raises)."""
    y, beta, _, ok = _args(x, _SF_BETA.enter(beta), loc, scale)
    return _SF_BETA.leave(check(_cdf(-y, beta), ok), beta)


