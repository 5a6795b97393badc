"""The chi-squared distribution, as scipy.stats.chi2 (and jax.scipy.stats.chi2).

logpdf and pdf are differentiable in x, df, loc and scale. cdf, sf, logcdf and logsf are
differentiable in x, loc and scale; their derivative with respect to df raises
NotImplementedError (they are gammainc's, whose derivative in its parameter has no closed
form). df <= 0 or scale <= 0 gives nan, as SciPy's.
"""
import numpy as np

from ... import numpy as fnp
from .. import special
from ._util import NoClosedForm, check, inf, interior, promote, quiet

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG2 = float(np.log(2))


def _valid(df, scale):
    return fnp.logical_and(df > 0, scale > 0)


@quiet
def logpdf(x, df, loc=0, scale=1):
    """log of the density at x, as scipy.stats.chi2.logpdf: -inf below loc."""
    x, df, loc, scale = promote(x, df, loc, scale)
    y = (x - loc) / scale
    out = y < 0
    ys = fnp.where(out, 1.0, y)  # (Note [guarded branches], _util.py)
    value = special.xlogy(df / 2.0 - 1, ys) - ys / 2.0 - special.gammaln(df / 2.0) - (_LOG2 * df) / 2.0
    return check(fnp.where(out, -inf, value - fnp.log(scale)), _valid(df, scale))


def pdf(x, df, loc=0, scale=1):
    """The density at x, as scipy.stats.chi2.pdf."""
    return fnp.exp(logpdf(x, df, loc, scale))


def _make(name, fn, below, above):
    held = NoClosedForm(f"chi2.{name}", "df", "gammainc")

    @quiet
    def method(x, df, loc=0, scale=1):
        x, df, loc, scale = promote(x, df, loc, scale)
        df = held.enter(df)
        y = (x - loc) / scale
        out = interior(y, 0.0, inf, lambda ys: fn(df / 2.0, ys / 2.0), below, above, 1.0)
        return held.leave(check(out, _valid(df, scale)), df)

    method.__name__ = method.__qualname__ = name
    return method


cdf = _make("cdf", special.gammainc, 0.0, 1.0)
cdf.__doc__ = "P(X <= x), as scipy.stats.chi2.cdf. Not differentiable in df (it raises)."
sf = _make("sf", special.gammaincc, 1.0, 0.0)
sf.__doc__ = "P(X > x), as scipy.stats.chi2.sf. Not differentiable in df (it raises)."
logcdf = _make("logcdf", lambda a, y: fnp.log(special.gammainc(a, y)), -inf, 0.0)
logcdf.__doc__ = "log P(X <= x), as scipy.stats.chi2.logcdf. Not differentiable in df (it raises)."
logsf = _make("logsf", lambda a, y: fnp.log(special.gammaincc(a, y)), 0.0, -inf)
logsf.__doc__ = "log P(X > x), as scipy.stats.chi2.logsf. Not differentiable in df (it raises)."
