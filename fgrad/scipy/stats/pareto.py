"""The Pareto distribution, as scipy.stats.pareto (and jax.scipy.stats.pareto).

Every function is differentiable in its first argument (x or q) and in b, loc and scale;
b <= 0 or scale <= 0 gives nan, as SciPy's.
"""
from ... import numpy as fnp
from ._util import check, inf, interior, nan, promote, quiet

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _y(x, b, loc, scale):
    x, b, loc, scale = promote(x, b, loc, scale)
    return (x - loc) / scale, b, loc, scale, fnp.logical_and(b > 0, scale > 0)


@quiet
def logpdf(x, b, loc=0, scale=1):
    """log of the density at x, as scipy.stats.pareto.logpdf: -inf below loc + scale."""
    y, b, _, scale, ok = _y(x, b, loc, scale)
    out = y < 1
    ys = fnp.where(out, 1.0, y)  # (Note [guarded branches], _util.py)
    return check(fnp.where(out, -inf, fnp.log(b) - (b + 1) * fnp.log(ys) - fnp.log(scale)), ok)


def pdf(x, b, loc=0, scale=1):
    """The density at x, as scipy.stats.pareto.pdf."""
    return fnp.exp(logpdf(x, b, loc, scale))


@quiet
def cdf(x, b, loc=0, scale=1):
    """P(X <= x), as scipy.stats.pareto.cdf."""
    y, b, _, _, ok = _y(x, b, loc, scale)
    return check(interior(y, 1.0, inf, lambda ys: 1 - ys ** (-b), 0.0, 1.0, 2.0), ok)


@quiet
def logcdf(x, b, loc=0, scale=1):
    """log P(X <= x), as scipy.stats.pareto.logcdf."""
    y, b, _, _, ok = _y(x, b, loc, scale)
    return check(interior(y, 1.0, inf, lambda ys: fnp.log(1 - ys ** (-b)), -inf, 0.0, 2.0), ok)


@quiet
def sf(x, b, loc=0, scale=1):
    """P(X > x), as scipy.stats.pareto.sf."""
    y, b, _, _, ok = _y(x, b, loc, scale)
    return check(interior(y, 1.0, inf, lambda ys: ys ** (-b), 1.0, 0.0, 2.0), ok)


@quiet
def logsf(x, b, loc=0, scale=1):
    """log P(X > x), as scipy.stats.pareto.logsf."""
    y, b, _, _, ok = _y(x, b, loc, scale)
    return check(interior(y, 1.0, inf, lambda ys: fnp.log(ys ** (-b)), 0.0, -inf, 2.0), ok)


@quiet
def ppf(q, b, loc=0, scale=1):
    """The quantile function, as scipy.stats.pareto.ppf: loc + scale at q = 0, inf at q = 1,
    nan outside [0, 1]."""
    q, b, loc, scale = promote(q, b, loc, scale)
    bad = fnp.logical_or(q < 0, q > 1)
    qs = fnp.where(fnp.logical_or(bad, q == 1), 0.5, q)  # (Note [guarded branches], _util.py)
    value = fnp.where(q == 1, inf, (1 - qs) ** (-1.0 / b))
    return check(fnp.where(bad, nan, value * scale + loc), fnp.logical_and(b > 0, scale > 0))
