"""The normal distribution truncated to [a, b] (in standard units: x in
[loc + a scale, loc + b scale]), as scipy.stats.truncnorm (and jax.scipy.stats.truncnorm).

Every function is differentiable in x, a, b, loc and scale; a >= b or scale <= 0 gives nan,
as SciPy's. Masses are computed as SciPy does, in the left tail and in log space, so that
far tails keep their precision.
"""
from ... import numpy as fnp
from .. import special
from . import norm
from ._util import check, inf, nan, promote, quiet

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_diff(log_p, log_q):
    """log(exp(log_p) - exp(log_q)), for log_p > log_q."""
    return log_p + fnp.log1p(-fnp.exp(log_q - log_p))


def _log_gauss_mass(a, b):
    """log of the standard normal mass on [a, b] (a < b): in the left tail where b <= 0, by
    symmetry where a > 0, and as log1p of minus the two tails in between (SciPy's cases), each
    evaluated at its own points (Note [guarded branches], _util.py)."""
    left = b <= 0
    right = a > 0
    central = ~fnp.logical_or(left, right)
    al, bl = fnp.where(left, a, -1.0), fnp.where(left, b, 0.0)
    ar, br = fnp.where(right, a, 0.0), fnp.where(right, b, 1.0)
    ac, bc = fnp.where(central, a, -1.0), fnp.where(central, b, 1.0)
    mass_left = _log_diff(special.log_ndtr(bl), special.log_ndtr(al))
    mass_right = _log_diff(special.log_ndtr(-ar), special.log_ndtr(-br))
    mass_central = fnp.log1p(-special.ndtr(ac) - special.ndtr(-bc))
    return fnp.where(left, mass_left, fnp.where(right, mass_right, mass_central))


def _args(x, a, b, loc, scale):
    x, a, b, loc, scale = promote(x, a, b, loc, scale)
    return (x - loc) / scale, a, b, scale, fnp.logical_and(a < b, scale > 0)


@quiet
def logpdf(x, a, b, loc=0, scale=1):
    """log of the density at x, as scipy.stats.truncnorm.logpdf: -inf outside [a, b]."""
    y, a, b, scale, ok = _args(x, a, b, loc, scale)
    value = norm.logpdf(y) - _log_gauss_mass(a, b) - fnp.log(scale)
    return check(fnp.where(fnp.logical_or(y < a, y > b), -inf, value), ok)


def pdf(x, a, b, loc=0, scale=1):
    """The density at x, as scipy.stats.truncnorm.pdf."""
    return fnp.exp(logpdf(x, a, b, loc, scale))


def _inner_point(a, b):
    """A point strictly inside (a, b), for the branches' unselected points."""
    fa, fb = fnp.isfinite(a), fnp.isfinite(b)
    ac, bc = fnp.where(fa, a, 0.0), fnp.where(fb, b, 0.0)
    return fnp.where(fnp.logical_and(fa, fb), (ac + bc) / 2, fnp.where(fa, ac + 1.0, fnp.where(fb, bc - 1.0, 0.0)))


def _log_tails(y, a, b):
    """(log P(Y <= y), log P(Y > y)) for y inside (a, b) (SciPy's _logcdf and _logsf: each
    from the other's log1p(-exp(.)) where it is above -0.1, against cancellation); -inf and 0
    at and below a, 0 and -inf at and above b, nan where y is nan."""
    inside = fnp.logical_and(y > a, y < b)
    ok = fnp.logical_and(a < b, inside)
    aa = fnp.where(ok, a, -1.0)
    bb = fnp.where(ok, b, 1.0)
    ys = fnp.where(ok, y, _inner_point(aa, bb))
    mass = _log_gauss_mass(aa, bb)
    lower = _log_gauss_mass(aa, ys) - mass
    upper = _log_gauss_mass(ys, bb) - mass
    big_lower, big_upper = lower > -0.1, upper > -0.1
    log_cdf = fnp.where(big_lower, fnp.log1p(-fnp.exp(fnp.where(big_lower, upper, -1.0))), lower)
    log_sf = fnp.where(big_upper, fnp.log1p(-fnp.exp(fnp.where(big_upper, lower, -1.0))), upper)

    def edges(inside_value, below, above):
        return fnp.where(inside, inside_value, fnp.where(y <= a, below, fnp.where(y >= b, above, nan)))

    return edges(log_cdf, -inf, 0.0), edges(log_sf, 0.0, -inf)


@quiet
def logcdf(x, a, b, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.truncnorm.logcdf."""
    y, a, b, _, ok = _args(x, a, b, loc, scale)
    return check(_log_tails(y, a, b)[0], ok)


@quiet
def logsf(x, a, b, loc=0, scale=1):
    """log P(X > x), as scipy.stats.truncnorm.logsf."""
    y, a, b, _, ok = _args(x, a, b, loc, scale)
    return check(_log_tails(y, a, b)[1], ok)


def cdf(x, a, b, loc=0, scale=1):
    """P(X <= x), as scipy.stats.truncnorm.cdf."""
    return fnp.exp(logcdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    """P(X > x), as scipy.stats.truncnorm.sf."""
    return fnp.exp(logsf(x, a, b, loc, scale))

