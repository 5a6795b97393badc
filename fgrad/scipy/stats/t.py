"""Student's t distribution, as scipy.stats.t (and jax.scipy.stats.t).

logpdf and pdf are differentiable in x, df, loc and scale. cdf and sf (and their logs) are differentiable in
x, loc and scale; their derivative with respect to df raises NotImplementedError (they are
betainc's, whose derivative in its parameters has no closed form). df = inf is the normal
distribution; df <= 0 or scale <= 0 gives nan, as SciPy's.

cdf and sf agree with SciPy's stdtr to ~1e-14 relative, far tails included, for moderate df;
for large df, betainc's argument df / (df + x^2), rounded, costs ~df * 2e-16 of relative
accuracy in the tails (1e-13 at df = 1000; stdtr keeps it). Near x = loc fgrad is the more accurate:
stdtr(1, 1e-7) has lost 3 digits of its distance from 1/2.
"""
import numpy as np

from ... import numpy as fnp
from ...ops.stop_gradient import stop_gradient
from .. import special
from . import norm
from ._util import NoClosedForm, check, inf, nan, promote, quiet

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_PI = float(np.log(np.pi))


def _valid(df, scale):
    return fnp.logical_and(df > 0, scale > 0)


def _log_normalizer(df):
    """log(Gamma((df + 1) / 2) / (Gamma(df / 2) sqrt(df pi))), as SciPy writes it."""
    return fnp.log(special.poch(0.5 * df, 0.5)) - 0.5 * (fnp.log(df) + _LOG_PI)


@quiet
def logpdf(x, df, loc=0, scale=1):
    """log of the density at x, as scipy.stats.t.logpdf."""
    x, df, loc, scale = promote(x, df, loc, scale)
    z = (x - loc) / scale
    normal = df == inf
    d = fnp.where(normal, 1.0, df)  # (Note [guarded branches], _util.py)
    value = fnp.where(normal, norm.logpdf(z), _log_normalizer(d) - (d + 1) / 2 * fnp.log1p(z * z / d))
    return check(value - fnp.log(scale), _valid(df, scale))


def pdf(x, df, loc=0, scale=1):
    """The density at x, as scipy.stats.t.pdf."""
    return fnp.exp(logpdf(x, df, loc, scale))


def _cdf(z, df):
    """P(T <= z) for finite df > 0, from betainc: of z^2 / (df + z^2) near the centre (where
    that is below 1/2), of df / (df + z^2) in the tails (so that neither subtracts from 1 a
    number near 1), each at its own points; within 1e-8 of 0, the tangent line
    1/2 + pdf(0) z (exact to rounding there, where betainc's derivative is 0 * inf)."""
    tiny = fnp.abs(z) < 1e-8
    finite = fnp.logical_and(~tiny, fnp.isfinite(z))
    zf, dff = stop_gradient(fnp.where(finite, z, 1.0)), stop_gradient(df)
    centre = fnp.logical_and(finite, special.betainc(0.5, 0.5 * dff, zf * zf / (dff + zf * zf)) < 0.5)
    tails = fnp.logical_and(finite, ~centre)
    zc = fnp.where(centre, z, 1.0)  # (Note [guarded branches], _util.py)
    zc2 = zc * zc
    near = 0.5 + 0.5 * fnp.sign(zc) * special.betainc(0.5, 0.5 * df, zc2 / (df + zc2))  # 1/2 +- P(|T| < |z|)/2
    zt = fnp.where(tails, z, 1.0)
    p = 0.5 * special.betainc(0.5 * df, 0.5, df / (df + zt * zt))  # P(T > |z|)
    far = fnp.where(zt > 0, 1.0 - p, p)
    line = 0.5 + z * fnp.exp(_log_normalizer(df))
    out = fnp.where(centre, near, fnp.where(tails, far, fnp.where(tiny, line, fnp.where(z > 0, 1.0, 0.0))))
    return fnp.where(fnp.isnan(z), nan, out)


_CDF_DF = NoClosedForm("t.cdf", "df", "betainc")
_SF_DF = NoClosedForm("t.sf", "df", "betainc")


def _tail(sign, x, df, loc, scale):
    z = sign * ((x - loc) / scale)
    normal = df == inf
    d = fnp.where(fnp.logical_or(normal, ~(df > 0)), 1.0, df)
    return check(fnp.where(normal, special.ndtr(z), _cdf(z, d)), _valid(df, scale))


@quiet
def cdf(x, df, loc=0, scale=1):
    """P(T <= x), as scipy.stats.t.cdf. Not differentiable in df (it raises)."""
    x, df, loc, scale = promote(x, df, loc, scale)
    df = _CDF_DF.enter(df)
    return _CDF_DF.leave(_tail(1.0, x, df, loc, scale), df)


@quiet
def sf(x, df, loc=0, scale=1):
    """P(T > x), as scipy.stats.t.sf. Not differentiable in df (it raises)."""
    x, df, loc, scale = promote(x, df, loc, scale)
    df = _SF_DF.enter(df)
    return _SF_DF.leave(_tail(-1.0, x, df, loc, scale), df)


@quiet
def logcdf(x, df, loc=0, scale=1):
    """log P(T <= x), as scipy.stats.t.logcdf (which is SciPy's log of its cdf too). Not
    differentiable in df (it raises)."""
    return fnp.log(cdf(x, df, loc, scale))


@quiet
def logsf(x, df, loc=0, scale=1):
    """log P(T > x), as scipy.stats.t.logsf. Not differentiable in df (it raises)."""
    return fnp.log(sf(x, df, loc, scale))
