"""Op-database rows for fgrad.scipy.stats's distributions (see op_db.py).

One row per (distribution, method), named "stats.<distribution>.<method>", each against
scipy.stats's function. Continuous distributions are sampled inside their support, at
x = loc + scale y for standard points y in an open interval (quantile functions at q in
(0, 1)), where they are smooth and finite differences are accurate; every float argument
is differentiated: x, the shape parameters, loc and scale. A shape parameter whose derivative
raises (the cdfs built on betainc and gammainc) is passed as a tuple of Python floats, which
the table holds fixed (tests/scipy/test_stats.py checks that differentiating it raises).
Discrete distributions take k (and n) as integer arrays, held fixed. The "[edges]" rows
check values only: points outside the support, at its edges, infinite and nan inputs, and
invalid parameters, against every method of the distribution at once.
"""
import numpy as np
import scipy.stats as ss

import fgrad.scipy.stats as fst

from .op_db import custom, uniform
from .op_db_linalg import fsym, spd, sym

inf, nan = np.inf, np.nan

# shapes of (y, each shape parameter, loc, scale) in each sample: scalars, then broadcasting
CONFIGS = (((), (), (), ()), ((3,), (3,), (), (3,)), ((2, 3), (), (3,), ()))


def _methods(dist, method):
    return getattr(getattr(fst, dist), method), getattr(getattr(ss, dist), method)


def continuous(dist, method, lo, hi, params=(), fixed=False, quantile=False, suffix="", **kw):
    """dist.method(x, *params, loc, scale) at x = loc + scale y, y uniform in (lo, hi) (or at
    q = y for a quantile function); params: an interval for each shape parameter (with
    fixed=True, passed as one tuple of Python floats, held constant)."""
    def samples(rng):
        rows = []
        for ys, ps, ls, cs in CONFIGS:
            loc, scale = uniform(rng, ls, -1.0, 1.0), uniform(rng, cs, 0.5, 2.0)
            y = uniform(rng, ys, lo, hi)
            x = y if quantile else loc + scale * y
            if fixed:
                rows.append((x, tuple(float(rng.uniform(a, b)) for a, b in params), loc, scale))
            else:
                rows.append((x, *(uniform(rng, ps, a, b) for a, b in params), loc, scale))
        return rows
    f, r = _methods(dist, method)
    if fixed:
        fn, ref = (lambda x, p, loc, scale: f(x, *p, loc, scale)), (lambda x, p, loc, scale: r(x, *p, loc, scale))
    else:
        fn, ref = f, r
    return custom(f"stats.{dist}.{method}{suffix}", samples, fn=fn, ref=ref, **kw)


def family(dist, methods, lo, hi, params=(), fixed=(), quantiles=(), **kw):
    """One row per method: `fixed` names the methods whose shape parameters are held."""
    return [continuous(dist, m, *((0.05, 0.95) if m in quantiles else (lo, hi)), params=params,
                       fixed=m in fixed, quantile=m in quantiles, **kw) for m in methods]


def grid(*values):
    """The arguments as arrays broadcasting to every combination of their values."""
    n = len(values)
    return tuple(np.asarray(v, dtype=float).reshape((-1,) + (1,) * (n - 1 - i)) for i, v in enumerate(values))


def edges(dist, methods, first, *params, suffix=""):
    """Values only: every method of dist at every combination of the given points."""
    fs = [_methods(dist, m) for m in methods]
    args = grid(first, *params)
    return custom(f"stats.{dist}[edges{suffix}]", lambda rng: [args],
                  fn=lambda *a: tuple(f(*a) for f, _ in fs), ref=lambda *a: tuple(r(*a) for _, r in fs),
                  differentiable=False)


X = [-inf, -3.0, -1.0, 0.0, 1e-300, 0.3, 0.5, 1.0, 1.5, 2 * np.pi, 7.0, 40.0, inf, nan]
Q = [-0.5, 0.0, 0.05, 0.5, 0.7, 1.0, 1.5, nan]
LOC, SCALE = [0.0, 0.7], [1.0, 2.5, 0.0, -1.0]
ALL = "logpdf pdf cdf logcdf sf logsf".split()
QUANTILES = ("ppf", "isf")


def ints(*values):
    return np.array(values)


# ---- discrete distributions: k (and n) integers, the parameters differentiated
def discrete(dist, method, samples, **kw):
    f, r = _methods(dist, method)
    return custom(f"stats.{dist}.{method}", samples, fn=f, ref=r, **kw)


def _poisson(rng):
    return [(ints(3), uniform(rng, (), 0.5, 4.0)), (ints(0, 1, 4), uniform(rng, (3,), 0.5, 4.0)),
            (ints([0, 2, 5], [1, 3, 7]), uniform(rng, (), 0.5, 4.0))]


def _bernoulli(rng):
    return [(ints(1), uniform(rng, (), 0.1, 0.8)), (ints(0, 1, 1), uniform(rng, (3,), 0.1, 0.8)),
            (ints([0, 1, 0], [1, 1, 0]), uniform(rng, (), 0.1, 0.8))]


def _bernoulli_cdf(rng):
    return [(ints(0), uniform(rng, (), 0.1, 0.8)), (ints(-1, 0, 2), uniform(rng, (3,), 0.1, 0.8)),
            (ints([0, 1, 0], [1, 3, -2]), uniform(rng, (), 0.1, 0.8))]


def _bernoulli_ppf(rng):
    """q at least 0.05 away from 1 - p, where the quantile jumps."""
    rows = []
    for shape in ((), (3,), (2, 3)):
        p = uniform(rng, shape, 0.1, 0.8)
        low = rng.random(shape) < 0.5
        rows.append((np.where(low, (1 - p) * 0.5, 1 - p * 0.5)[()], p))
    return rows


def _binom(rng):
    return [(ints(3), ints(5), uniform(rng, (), 0.1, 0.9)), (ints(0, 2, 4), ints(4), uniform(rng, (3,), 0.1, 0.9)),
            (ints([0, 2, 5], [1, 3, 6]), ints(6, 3, 7), uniform(rng, (), 0.1, 0.9))]


def _betabinom(rng):
    return [(ints(3), ints(5), uniform(rng, (), 0.5, 3.0), uniform(rng, (), 0.5, 3.0)),
            (ints(0, 2, 4), ints(4), uniform(rng, (3,), 0.5, 3.0), uniform(rng, (), 0.5, 3.0)),
            (ints([0, 2, 5], [1, 3, 6]), ints(6, 3, 7), uniform(rng, (3,), 0.5, 3.0), uniform(rng, (2, 3), 0.5, 3.0))]


def _geom(rng):
    return [(ints(3), uniform(rng, (), 0.1, 0.9)), (ints(1, 2, 6), uniform(rng, (3,), 0.1, 0.9)),
            (ints([1, 2, 5], [4, 3, 1]), uniform(rng, (), 0.1, 0.9))]


def _nbinom(rng):
    return [(ints(3), uniform(rng, (), 0.5, 5.0), uniform(rng, (), 0.1, 0.9)),
            (ints(0, 2, 6), uniform(rng, (3,), 0.5, 5.0), uniform(rng, (), 0.1, 0.9)),
            (ints([0, 2, 5], [4, 3, 1]), uniform(rng, (), 0.5, 5.0), uniform(rng, (3,), 0.1, 0.9))]


def _multinomial(rng):
    return [(ints(1, 2, 3), ints(6), rng.dirichlet([2.0, 2.0, 2.0])),
            (ints([1, 2, 3], [0, 4, 0]), ints(6, 4), rng.dirichlet([2.0, 2.0, 2.0])),
            (ints(2, 0, 1, 1), ints(4), rng.dirichlet([2.0, 2.0, 2.0, 2.0], size=2))]


# ---- multivariate
def _mvn(rng):
    return [(rng.normal(size=(3,)), rng.normal(size=(3,)), spd(rng, (3, 3))),
            (rng.normal(size=(4, 3)), rng.normal(size=(3,)), spd(rng, (3, 3))),
            (rng.normal(size=(2, 2, 2)), rng.normal(size=(2,)), spd(rng, (2, 2)))]


def _mvn_diagonal(rng):
    return [(rng.normal(size=(3,)), rng.normal(size=(3,)), uniform(rng, (3,), 0.5, 2.0)),
            (rng.normal(size=(4, 3)), rng.normal(size=(3,)), uniform(rng, (), 0.5, 2.0)),
            (rng.normal(size=(4,)), uniform(rng, (), -1.0, 1.0), uniform(rng, (), 0.5, 2.0))]  # one dimension


def _mvn_singular(rng):
    """Rank 2 in 3 dimensions: points on the support (mean + the column space) and off it."""
    u = rng.normal(size=(3, 2))
    mean = rng.normal(size=(3,))
    on = mean + rng.normal(size=(3, 2)) @ u.T
    return [(np.concatenate([on, rng.normal(size=(2, 3))]), mean, u @ u.T)]


def _dirichlet(rng):
    """x without its last component (1 minus the others'), so it stays on the simplex."""
    alpha = [uniform(rng, (3,), 0.5, 3.0), uniform(rng, (4,), 0.5, 3.0), uniform(rng, (3,), 0.5, 3.0)]
    return [(rng.dirichlet([2.0] * 3)[:2], alpha[0]), (rng.dirichlet([2.0] * 4)[:3], alpha[1]),
            (rng.dirichlet([2.0] * 3, size=4).T[:2], alpha[2])]


def _dirichlet_full(rng):
    """Every component of x given (held: a tuple), alpha differentiated."""
    return [(tuple(rng.dirichlet([2.0] * 3)), uniform(rng, (3,), 0.5, 3.0)),
            (tuple(map(tuple, rng.dirichlet([2.0] * 3, size=4).T)), uniform(rng, (3,), 0.5, 3.0))]


def _truncnorm(lo, hi):
    """(x, a, b, loc, scale) with a in (lo, lo + 1), b = a + (1, 2), y inside (a, b)."""
    def samples(rng):
        rows = []
        for ys, ps, ls, cs in CONFIGS:
            loc, scale = uniform(rng, ls, -1.0, 1.0), uniform(rng, cs, 0.5, 2.0)
            a = uniform(rng, ps, lo, hi)
            b = a + uniform(rng, ps, 1.0, 2.0)
            y = a + (b - a) * uniform(rng, ys, 0.2, 0.8)
            rows.append((loc + scale * y, a, b, loc, scale))
        return rows
    return samples


def _truncnorm_rows(method):
    f, r = _methods("truncnorm", method)
    return [custom(f"stats.truncnorm.{method}{suffix}", _truncnorm(lo, hi), fn=f, ref=r)
            for suffix, lo, hi in (("", -1.5, -0.5), ("[left_tail]", -6.0, -4.0), ("[right_tail]", 3.0, 4.0))]


def _sem(rng):
    return [(uniform(rng, (5,)),), (uniform(rng, (3, 4)),)]


def _ranked(rng):
    return [(np.array([3.0, 1.0, 2.0, 1.0, 2.0, 2.0]),), (np.array([[3.0, 1.0, 2.0, 1.0], [2.0, 2.0, 5.0, 5.0]]),),
            (np.array([[1.0, nan, 2.0], [1.0, 2.0, 3.0]]),), (uniform(rng, (2, 5)),)]


STATS_OPS = [
    # ---- continuous, location and scale only
    *family("norm", ALL + ["ppf", "isf"], -3.0, 3.0, quantiles=QUANTILES),
    *family("expon", ALL + ["ppf"], 0.05, 4.0, quantiles=QUANTILES),
    *family("laplace", ALL, 0.05, 3.0),
    continuous("laplace", "cdf", -3.0, -0.05, suffix="[negative]"),
    *family("logistic", ALL + ["ppf", "isf"], -4.0, 4.0, quantiles=QUANTILES),
    *family("uniform", ALL + ["ppf"], 0.05, 0.95, quantiles=QUANTILES),
    *family("cauchy", ALL + ["ppf", "isf"], -4.0, 4.0, quantiles=QUANTILES),
    *family("gumbel_l", ALL + ["ppf", "isf"], -3.0, 2.0, quantiles=QUANTILES),
    *family("gumbel_r", ALL + ["ppf", "isf"], -2.0, 3.0, quantiles=QUANTILES),
    # ---- continuous, with shape parameters (held in the cdfs of betainc and gammainc)
    *family("t", ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"], -4.0, 4.0, params=[(1.5, 8.0)],
            fixed=("cdf", "sf", "logcdf", "logsf")),
    *family("gamma", ALL, 0.1, 5.0, params=[(0.6, 4.0)], fixed=("cdf", "logcdf", "sf", "logsf")),
    *family("chi2", ALL, 0.2, 8.0, params=[(1.0, 6.0)], fixed=("cdf", "logcdf", "sf", "logsf")),
    *family("beta", ALL, 0.05, 0.95, params=[(0.6, 4.0), (0.6, 4.0)], fixed=("cdf", "logcdf", "sf", "logsf")),
    *family("pareto", ALL + ["ppf"], 1.1, 5.0, params=[(0.5, 3.0)], quantiles=QUANTILES),
    *family("gennorm", ["logpdf", "pdf", "cdf", "sf"], 0.1, 2.0, params=[(1.2, 4.0)], fixed=("cdf", "sf")),
    continuous("gennorm", "cdf", -2.0, -0.1, params=[(0.5, 1.0)], fixed=True, suffix="[negative]"),
    *family("vonmises", ["logpdf", "pdf"], -3.0, 3.0, params=[(0.1, 5.0)]),
    *family("wrapcauchy", ["logpdf", "pdf"], 0.1, 6.1, params=[(0.1, 0.9)]),
    *[row for m in ALL for row in _truncnorm_rows(m)],
    # ---- discrete
    discrete("poisson", "logpmf", _poisson), discrete("poisson", "pmf", _poisson),
    discrete("poisson", "cdf", _poisson),
    discrete("bernoulli", "logpmf", _bernoulli), discrete("bernoulli", "pmf", _bernoulli),
    discrete("bernoulli", "cdf", _bernoulli_cdf), discrete("bernoulli", "ppf", _bernoulli_ppf),
    discrete("binom", "logpmf", _binom), discrete("binom", "pmf", _binom),
    discrete("betabinom", "logpmf", _betabinom), discrete("betabinom", "pmf", _betabinom),
    discrete("geom", "logpmf", _geom), discrete("geom", "pmf", _geom),
    discrete("nbinom", "logpmf", _nbinom), discrete("nbinom", "pmf", _nbinom),
    discrete("multinomial", "logpmf", _multinomial), discrete("multinomial", "pmf", _multinomial),
    # ---- multivariate (cov symmetrized: Note [symmetric gradients] in fgrad/ops/linalg.py)
    *[custom(f"stats.multivariate_normal.{m}", _mvn, fn=lambda x, mean, cov, f=f: f(x, mean, fsym(cov)),
             ref=lambda x, mean, cov, r=r: r(x, mean, sym(cov))) for m in ("logpdf", "pdf") for f, r in
      [_methods("multivariate_normal", m)]],
    custom("stats.multivariate_normal.entropy", lambda rng: [(rng.normal(size=(3,)), spd(rng, (3, 3))),
                                                             (rng.normal(size=(2,)), spd(rng, (2, 2)))],
           fn=lambda mean, cov: fst.multivariate_normal.entropy(mean, fsym(cov)),
           ref=lambda mean, cov: ss.multivariate_normal.entropy(mean, sym(cov))),
    custom("stats.multivariate_normal.entropy[scalar, diagonal]",
           lambda rng: [(rng.normal(size=(1,)), np.float64(rng.uniform(0.5, 2.0))),
                        (rng.normal(size=(3,)), rng.uniform(0.5, 2.0, 3))],
           fn=fst.multivariate_normal.entropy, ref=ss.multivariate_normal.entropy),
    custom("stats.multivariate_normal.logpdf[diagonal]", _mvn_diagonal, fn=fst.multivariate_normal.logpdf,
           ref=ss.multivariate_normal.logpdf),
    custom("stats.multivariate_normal.logpdf[allow_singular]", _mvn,
           fn=lambda x, mean, cov: fst.multivariate_normal.logpdf(x, mean, fsym(cov), allow_singular=True),
           ref=lambda x, mean, cov: ss.multivariate_normal.logpdf(x, mean, sym(cov), allow_singular=True)),
    custom("stats.multivariate_normal.logpdf[singular]", _mvn_singular,
           fn=lambda x, mean, cov: fst.multivariate_normal.logpdf(x, mean, cov, allow_singular=True),
           ref=lambda x, mean, cov: ss.multivariate_normal.logpdf(x, mean, cov, allow_singular=True),
           differentiable=False),
    custom("stats.dirichlet.logpdf", _dirichlet, fn=fst.dirichlet.logpdf, ref=ss.dirichlet.logpdf),
    custom("stats.dirichlet.pdf", _dirichlet, fn=fst.dirichlet.pdf, ref=ss.dirichlet.pdf),
    custom("stats.dirichlet.logpdf[full_x]", _dirichlet_full, fn=lambda x, a: fst.dirichlet.logpdf(np.array(x), a),
           ref=lambda x, a: ss.dirichlet.logpdf(np.array(x), a), one_device=False),
    # ---- summaries
    custom("stats.sem", _sem, fn=fst.sem, ref=ss.sem),
    custom("stats.sem[axis=None,ddof=0]", _sem, fn=lambda a: fst.sem(a, axis=None, ddof=0),
           ref=lambda a: ss.sem(a, axis=None, ddof=0)),
    *[custom(f"stats.rankdata[method={m}]", _ranked, fn=lambda a, m=m: fst.rankdata(a, method=m, axis=-1),
             ref=lambda a, m=m: ss.rankdata(a, method=m, axis=-1).astype(float), differentiable=False)
      for m in ("average", "min", "max", "dense", "ordinal")],
    custom("stats.mode", _ranked, fn=lambda a: fst.mode(a, axis=-1),
           ref=lambda a: tuple(ss.mode(a, axis=-1)), differentiable=False),
    # ---- values only: outside the support, at its edges, inf, nan, invalid parameters
    edges("norm", ALL, X, LOC, SCALE), edges("norm", QUANTILES, Q, LOC, SCALE, suffix=",q"),
    edges("t", ["logpdf", "pdf", "cdf", "sf", "logcdf", "logsf"], X, [0.5, 3.0, inf, 0.0, -1.0], LOC, SCALE),
    edges("gamma", ALL, X, [0.5, 1.0, 2.5, 0.0, -1.0], LOC, SCALE),
    edges("chi2", ALL, X, [1.0, 2.0, 3.5, 0.0], LOC, SCALE),
    edges("beta", ALL, X, [0.5, 1.0, 2.5, 0.0], [0.7, 1.0, -1.0], LOC, SCALE),
    edges("expon", ALL + ["ppf"], X, LOC, SCALE),
    edges("laplace", ALL, X, LOC, SCALE),
    edges("logistic", ALL + ["ppf", "isf"], X, LOC, SCALE),
    edges("uniform", ALL + ["ppf"], X, LOC, SCALE),
    edges("cauchy", ALL + ["ppf", "isf"], X, LOC, SCALE),
    edges("pareto", ALL + ["ppf"], X, [0.5, 3.0, 0.0], LOC, SCALE),
    edges("gumbel_l", ALL + ["ppf", "isf"], X, LOC, SCALE),
    edges("gumbel_r", ALL + ["ppf", "isf"], X, LOC, SCALE),
    edges("gennorm", ["logpdf", "pdf", "cdf", "sf"], X, [0.5, 2.0, 8.0, 0.0], LOC, SCALE),
    edges("vonmises", ["logpdf", "pdf"], X, [0.0, 3.0, 50.0, -1.0], LOC, SCALE),
    edges("wrapcauchy", ["logpdf", "pdf"], X, [0.2, 0.9, 1.0], LOC, SCALE),
    edges("truncnorm", ALL, X, [-inf, -2.0, 0.25, 1.0], [-1.0, 1.2, inf], LOC, SCALE),
    edges("poisson", ["logpmf", "pmf", "cdf"], [-inf, -1, 0, 1.5, 2, 10, inf, nan], [0.0, 3.0, -1.0], LOC),
    edges("bernoulli", ["logpmf", "pmf", "cdf"], [-1, 0, 0.5, 1, 2, nan], [0.0, 0.3, 1.0, 1.2], LOC),
    edges("bernoulli", ["ppf"], Q, [0.0, 0.3, 1.0, 1.2], LOC, suffix=",q"),
    edges("binom", ["logpmf", "pmf"], [-1, 0, 1.5, 2, 5, 6, nan], [0, 5, 2.5, -1], [0.0, 0.3, 1.0, 1.2], LOC),
    edges("betabinom", ["logpmf", "pmf"], [-1, 0, 1.5, 2, 5, 6, nan], [0, 5, 2.5], [2.0, 0.0], [0.7, -1.0], LOC),
    edges("geom", ["logpmf", "pmf"], [-1, 0, 1, 1.5, 3, nan], [0.5, 1.0, 0.0, 1.2], LOC),
    edges("nbinom", ["logpmf", "pmf"], [-1, 0, 1.5, 3, nan], [1.0, 0.0], [0.5, 1.0, 0.0, 1.2], LOC),
]

__all__ = ["STATS_OPS"]
