"""The beta distribution, as scipy.stats.beta (and jax.scipy.stats.beta).

logpdf and pdf are differentiable in x, a, b, loc and scale. cdf, sf, logcdf and logsf are
differentiable in x, loc and scale; their derivative with respect to the shapes a and b
raises NotImplementedError (they are betainc's, whose derivative in its parameters has no
closed form). a <= 0, b <= 0 or scale <= 0 gives nan, as SciPy's.
"""
from ... import numpy as fnp
from .. import special
from ._util import NoClosedForm, check, inf, interior, promote, quiet

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _valid(a, b, scale):
    return fnp.logical_and(fnp.logical_and(a > 0, b > 0), scale > 0)


@quiet
def logpdf(x, a, b, loc=0, scale=1):
    """log of the density at x, as scipy.stats.beta.logpdf: -inf outside [loc, loc + scale]."""
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    y = (x - loc) / scale
    out = fnp.logical_or(y < 0, y > 1)
    ys = fnp.where(out, 0.5, y)  # (Note [guarded branches], _util.py)
    value = special.xlog1py(b - 1.0, -ys) + special.xlogy(a - 1.0, ys) - special.betaln(a, b)
    return check(fnp.where(out, -inf, value - fnp.log(scale)), _valid(a, b, scale))


def pdf(x, a, b, loc=0, scale=1):
    """The density at x, as scipy.stats.beta.pdf."""
    return fnp.exp(logpdf(x, a, b, loc, scale))


def _cdf(a, b, y):
    return special.betainc(a, b, y)


def _sf(a, b, y):
    return special.betainc(b, a, 1.0 - y)


def _make(name, fn, below, above):
    held_a = NoClosedForm(f"beta.{name}", "a", "betainc")
    held_b = NoClosedForm(f"beta.{name}", "b", "betainc")

    @quiet
    def method(x, a, b, loc=0, scale=1):
        x, a, b, loc, scale = promote(x, a, b, loc, scale)
        a, b = held_a.enter(a), held_b.enter(b)
        y = (x - loc) / scale
        out = check(interior(y, 0.0, 1.0, lambda ys: fn(a, b, ys), below, above, 0.5), _valid(a, b, scale))
        return held_b.leave(held_a.leave(out, a), b)

    method.__name__ = method.__qualname__ = name
    return method


cdf = _make("cdf", _cdf, 0.0, 1.0)
cdf.__doc__ = "P(X <= x), as scipy.stats.beta.cdf. Not differentiable in a or b (it raises)."
sf = _make("sf", _sf, 1.0, 0.0)
sf.__doc__ = "P(X > x), as scipy.stats.beta.sf. Not differentiable in a or b (it raises)."
logcdf = _make("logcdf", lambda a, b, y: fnp.log(_cdf(a, b, y)), -inf, 0.0)
logcdf.__doc__ = "log P(X <= x), as scipy.stats.beta.logcdf. Not differentiable in a or b (it raises)."
logsf = _make("logsf", lambda a, b, y: fnp.log(_sf(a, b, y)), 0.0, -inf)
logsf.__doc__ = "log P(X > x), as scipy.stats.beta.logsf. Not differentiable in a or b (it raises)."
