"""The gamma distribution, as scipy.stats.gamma (and jax.scipy.stats.gamma).

logpdf and pdf are differentiable in x, a, loc and scale. cdf, sf, logcdf and logsf are
differentiable in x, loc and scale; their derivative with respect to the shape a raises
NotImplementedError (they are gammainc's, whose derivative in its parameter has no closed
form). a <= 0 or scale <= 0 gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import NoClosedForm, check, inf, interior, promote, quiet

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _valid(a, scale):
    return fnp.logical_and(a > 0, scale > 0)


@quiet
def logpdf(x, a, loc=0, scale=1):
    """log of the density at x, as scipy.stats.gamma.logpdf: -inf below loc."""
    x, a, loc, scale = promote(x, a, loc, scale)
    y = (x - loc) / scale
    out = y < 0
    ys = fnp.where(out, 1.0, y)  # (Note [guarded branches], _util.py)
    value = special.xlogy(a - 1.0, ys) - ys - special.gammaln(a) - fnp.log(scale)
    return check(fnp.where(out, -inf, value), _valid(a, scale))


def pdf(x, a, loc=0, scale=1):
    """The density at x, as scipy.stats.gamma.pdf."""
    return fnp.exp(logpdf(x, a, loc, scale))


def _make(name, fn, below, above):
    held = NoClosedForm(f"gamma.{name}", "a", "gammainc")

    @quiet
    def method(x, a, loc=0, scale=1):
        x, a, loc, scale = promote(x, a, loc, scale)
        a = held.enter(a)
        y = (x - loc) / scale
        return held.leave(check(interior(y, 0.0, inf, lambda ys: fn(a, ys), below, above, 1.0), _valid(a, scale)), a)

    method.__name__ = method.__qualname__ = name
    return method


cdf = _make("cdf", special.gammainc, 0.0, 1.0)
cdf.__doc__ = "P(X <= x), as scipy.stats.gamma.cdf. Not differentiable in a (it raises)."
sf = _make("sf", special.gammaincc, 1.0, 0.0)
sf.__doc__ = "P(X > x), as scipy.stats.gamma.sf. Not differentiable in a (it raises)."
logcdf = _make("logcdf", lambda a, y: fnp.log(special.gammainc(a, y)), -inf, 0.0)
logcdf.__doc__ = "log P(X <= x), as scipy.stats.gamma.logcdf. Not differentiable in a (it raises)."
logsf = _make("logsf", lambda a, y: fnp.log(special.gammaincc(a, y)), 0.0, -inf)
logsf.__doc__ = "log P(X > x), as scipy.stats.gamma.logsf. Not differentiable in a (it raises)."
