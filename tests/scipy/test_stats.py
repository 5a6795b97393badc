"""fgrad.scipy.stats beyond the op table (tests/op_db_stats.py): the names it covers, the
derivatives that raise instead of returning a wrong number, derivatives at the points where
a guarded branch matters (out of the support, at its edges, at 0), the device of results
made from Python-number parameters, and the multivariate functions' argument handling."""
import numpy as np
import pytest
import scipy.special as sps
import scipy.stats as ss

import fgrad
import fgrad.numpy as fnp
import fgrad.scipy.stats as fst

inf, nan = np.inf, np.nan

# jax.scipy.stats's distributions and functions (JAX 0.10.2), gaussian_kde and poisson.entropy aside
JAX_NAMES = {
    "bernoulli": "logpmf pmf cdf ppf", "beta": "cdf logcdf logpdf logsf pdf sf", "betabinom": "logpmf pmf",
    "binom": "logpmf pmf", "cauchy": "cdf isf logcdf logpdf logsf pdf ppf sf",
    "chi2": "cdf logcdf logpdf logsf pdf sf", "dirichlet": "logpdf pdf", "expon": "cdf logcdf logpdf logsf pdf ppf sf",
    "gamma": "cdf logcdf logpdf logsf pdf sf", "gennorm": "cdf logpdf pdf", "geom": "logpmf pmf",
    "gumbel_l": "logpdf pdf logcdf cdf ppf sf logsf", "gumbel_r": "logpdf pdf logcdf cdf ppf sf logsf",
    "laplace": "cdf logpdf pdf", "logistic": "cdf isf logpdf pdf ppf sf", "multinomial": "logpmf pmf",
    "multivariate_normal": "logpdf pdf", "nbinom": "logpmf pmf", "norm": "cdf logcdf logpdf logsf pdf ppf sf isf",
    "pareto": "logcdf logpdf logsf cdf pdf ppf sf", "poisson": "logpmf pmf cdf", "t": "logpdf pdf",
    "truncnorm": "cdf logcdf logpdf pdf logsf sf", "uniform": "logpdf pdf cdf ppf", "vonmises": "logpdf pdf",
    "wrapcauchy": "logpdf pdf",
}


def test_covers_jax_names():
    assert len(JAX_NAMES) == 26
    for dist, names in JAX_NAMES.items():
        module = getattr(fst, dist)
        for name in names.split():
            assert callable(getattr(module, name)), f"{dist}.{name}"
            assert hasattr(getattr(ss, dist), name), f"{dist}.{name}"  # (SciPy's name too)
        assert sorted(module.__all__) == module.__all__
        assert set(names.split()) <= set(module.__all__)
    for name in ("mode", "rankdata", "sem"):
        assert callable(getattr(fst, name))
    assert fgrad.scipy.stats is fst
    assert fst.t.cdf is not None and fst.t.sf is not None  # beyond JAX's t


# (function, argument, function of that argument alone at a smooth point)
TAILS = ("cdf", "sf", "logcdf", "logsf")
NO_CLOSED_FORM = [
    ("t.cdf", "df", lambda df: fst.t.cdf(0.7, df, 0.1, 1.3), 3.5),
    ("t.sf", "df", lambda df: fst.t.sf(-1.7, df), 2.5),
    *[(f"gamma.{m}", "a", lambda a, m=m: getattr(fst.gamma, m)(1.3, a, 0.2, 1.5), 2.5) for m in TAILS],
    *[(f"chi2.{m}", "df", lambda df, m=m: getattr(fst.chi2, m)(2.3, df), 3.0) for m in TAILS],
    *[(f"beta.{m}", "a", lambda a, m=m: getattr(fst.beta, m)(0.4, a, 2.0), 1.5) for m in TAILS],
    *[(f"beta.{m}", "b", lambda b, m=m: getattr(fst.beta, m)(0.4, 1.5, b), 2.0) for m in TAILS],
    ("gennorm.cdf", "beta", lambda beta: fst.gennorm.cdf(0.8, beta), 1.5),
    ("gennorm.sf", "beta", lambda beta: fst.gennorm.sf(0.8, beta), 1.5),
]


@pytest.mark.parametrize("name,arg,f,at", NO_CLOSED_FORM, ids=[f"{n}-{a}" for n, a, _, _ in NO_CLOSED_FORM])
def test_no_closed_form_derivative_raises(name, arg, f, at):
    message = f"fgrad.scipy.stats.{name}: the derivative with respect to {arg} has no closed form"
    f(at)  # the value is fine, and so is a traced value that is not differentiated:
    np.testing.assert_allclose(fgrad.vmap(f)(np.array([at, at * 1.1])), [f(at), f(at * 1.1)], rtol=1e-13)
    np.testing.assert_allclose(fgrad.compile(f)(np.float64(at)), f(at), rtol=1e-13)
    fgrad.make_graph(f)(at)  # (recording a differentiable program asks for no derivative yet)
    with pytest.raises(NotImplementedError, match=message):
        fgrad.grad(f)(at)
    with pytest.raises(NotImplementedError, match=message):
        fgrad.jvp(f, (np.array([at, at]),), (np.ones(2),))


def test_held_parameter_traced_but_not_differentiated():
    """A shape parameter that vmap batches or compile traces does not raise when the
    derivative is with respect to x alone, in either mode."""
    dfs = np.array([2.5, 3.5, 7.0])
    got = fgrad.vmap(lambda df: fgrad.grad(lambda x: fst.t.cdf(x, df))(0.3))(dfs)
    np.testing.assert_allclose(got, ss.t.pdf(0.3, dfs), rtol=1e-12)
    got = fgrad.vmap(lambda a: fgrad.jvp(lambda x: fst.beta.cdf(x, a, 2.0), (0.4,), (1.0,))[1])(dfs)
    np.testing.assert_allclose(got, ss.beta.pdf(0.4, dfs, 2.0), rtol=1e-12)
    grad_x = fgrad.compile(lambda x, a: fgrad.grad(lambda x: fst.gamma.logsf(x, a))(x))
    for a in (2.5, 3.5):
        np.testing.assert_allclose(grad_x(np.float64(1.3), np.float64(a)),
                                   -ss.gamma.pdf(1.3, a) / ss.gamma.sf(1.3, a), rtol=1e-12)
    hess = fgrad.hessian(lambda x, df: fst.t.sf(x, fgrad.stop_gradient(df)))(0.7, 3.0)
    np.testing.assert_allclose(hess, -fgrad.grad(lambda x: fst.t.pdf(x, 3.0))(0.7), rtol=1e-10)


def test_other_arguments_still_differentiate():
    """With the shape parameter stopped (or a Python number), x, loc and scale differentiate:
    the derivative of a cdf in x is the pdf."""
    x, df = 0.7, 3.5
    got = fgrad.grad(lambda x, df: fst.t.cdf(x, fgrad.stop_gradient(df), 0.2, 1.5))(x, df)
    np.testing.assert_allclose(got, ss.t.pdf(x, df, 0.2, 1.5), rtol=1e-12)
    got = fgrad.grad(lambda loc: fst.gamma.cdf(1.3, 2.5, loc, 1.5))(0.2)
    np.testing.assert_allclose(got, -ss.gamma.pdf(1.3, 2.5, 0.2, 1.5), rtol=1e-12)
    got = fgrad.grad(lambda x: fst.beta.sf(x, 1.5, 2.0))(0.4)
    np.testing.assert_allclose(got, -ss.beta.pdf(0.4, 1.5, 2.0), rtol=1e-12)
    # the densities are differentiable in every parameter: d/ddf of t.logpdf by central differences
    h = 1e-6
    got = fgrad.grad(lambda df: fst.t.logpdf(0.7, df, 0.1, 1.3))(3.5)
    want = (ss.t.logpdf(0.7, 3.5 + h, 0.1, 1.3) - ss.t.logpdf(0.7, 3.5 - h, 0.1, 1.3)) / (2 * h)
    np.testing.assert_allclose(got, want, rtol=1e-7)


# ---- derivatives where a guarded branch matters: (name, function, point, expected gradient)
def _pdf_at(dist, *args):
    return getattr(ss, dist).pdf(*args)


GUARDED = [
    # out of the support: the log density is a constant (-inf), its derivative 0 in every argument
    ("gamma.logpdf below", lambda x, a: fst.gamma.logpdf(x, a), (-0.5, 2.5), (0.0, 0.0)),
    ("chi2.logpdf below", lambda x, df: fst.chi2.logpdf(x, df), (-0.5, 2.5), (0.0, 0.0)),
    ("beta.logpdf above", lambda x, a, b: fst.beta.logpdf(x, a, b), (1.5, 2.5, 0.7), (0.0, 0.0, 0.0)),
    ("expon.logpdf below", lambda x, scale: fst.expon.logpdf(x, 0.0, scale), (-0.5, 2.0), (0.0, 0.0)),
    ("uniform.logpdf above", lambda x, scale: fst.uniform.logpdf(x, 0.0, scale), (2.5, 2.0), (0.0, 0.0)),
    ("pareto.logpdf below", lambda x, b: fst.pareto.logpdf(x, b), (0.5, 2.0), (0.0, 0.0)),
    ("wrapcauchy.logpdf outside", lambda x, c: fst.wrapcauchy.logpdf(x, c), (-0.5, 0.5), (0.0, 0.0)),
    ("truncnorm.logpdf outside", lambda x, a, b: fst.truncnorm.logpdf(x, a, b), (2.5, -1.0, 1.0), (0.0, 0.0, 0.0)),
    ("truncnorm.logcdf below", lambda x, a, b: fst.truncnorm.logcdf(x, a, b), (-2.5, -1.0, 1.0), (0.0, 0.0, 0.0)),
    ("truncnorm.logsf above", lambda x, a, b: fst.truncnorm.logsf(x, a, b), (2.5, -1.0, 1.0), (0.0, 0.0, 0.0)),
    ("gamma.cdf below", lambda x: fst.gamma.cdf(x, 0.5), (-0.5,), (0.0,)),
    ("gamma.logcdf below", lambda x: fst.gamma.logcdf(x, 0.5), (-0.5,), (0.0,)),
    ("beta.logsf above", lambda x: fst.beta.logsf(x, 0.5, 0.5), (1.5,), (0.0,)),
    ("expon.logcdf below", lambda x: fst.expon.logcdf(x), (-0.5,), (0.0,)),
    ("poisson.logpmf below", lambda mu: fst.poisson.logpmf(-1, mu), (2.0,), (0.0,)),
    ("binom.logpmf above", lambda p: fst.binom.logpmf(7, 5, p), (0.3,), (0.0,)),
    ("geom.logpmf below", lambda p: fst.geom.logpmf(0, p), (0.3,), (0.0,)),
    ("multinomial.logpmf off", lambda p: fst.multinomial.logpmf(np.array([1, 2, 4]), 6, p),
     (np.array([0.2, 0.3, 0.5]),), (np.zeros(3),)),
    # at the edges and kinks where the branches meet
    ("t.cdf at loc", lambda x: fst.t.cdf(x, 3.0, 0.5, 2.0), (0.5,), (_pdf_at("t", 0.5, 3.0, 0.5, 2.0),)),
    ("t.sf at loc", lambda x: fst.t.sf(x, 1.0), (0.0,), (-1 / np.pi,)),
    ("t.cdf far", lambda x: fst.t.cdf(x, 0.5), (-1e30,), (_pdf_at("t", -1e30, 0.5),)),
    ("gennorm.cdf at 0", lambda x: fst.gennorm.cdf(x, 3.0), (0.0,), (_pdf_at("gennorm", 0.0, 3.0),)),
    ("gennorm.cdf at 0, beta < 1", lambda x: fst.gennorm.cdf(x, 0.5), (0.0,), (_pdf_at("gennorm", 0.0, 0.5),)),
    ("gennorm.logpdf at 0", lambda x, beta: fst.gennorm.logpdf(x, beta), (0.0, 2.0),
     (0.0, 1 / 2.0 + sps.digamma(0.5) / 4.0)),
    ("cauchy.ppf at 1/2", lambda q: fst.cauchy.ppf(q), (0.5,), (np.pi,)),
    ("laplace.cdf far left", lambda x: fst.laplace.cdf(x), (-800.0,), (0.0,)),
    ("laplace.cdf far right", lambda x: fst.laplace.cdf(x), (800.0,), (0.0,)),
    ("cauchy.logpdf at 1", lambda x: fst.cauchy.logpdf(x), (1.0,), (-1.0,)),
]


@pytest.mark.parametrize("name,f,at,want", GUARDED, ids=[g[0] for g in GUARDED])
def test_derivatives_at_guarded_points(name, f, at, want):
    got = fgrad.grad(f, argnums=tuple(range(len(at))))(*at)
    for g, w in zip(got, want):
        assert np.all(np.isfinite(g)), (name, got)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_second_derivatives_at_the_centre():
    """Smooth through 0: logistic.logpdf'' = -1/2 and t.cdf'' = pdf'(0) = 0 there."""
    np.testing.assert_allclose(fgrad.grad(fgrad.grad(fst.logistic.logpdf))(0.0), -0.5, rtol=1e-12)
    np.testing.assert_allclose(fgrad.grad(fgrad.grad(lambda x: fst.t.cdf(x, 2.5)))(0.0), 0.0, atol=1e-12)
    np.testing.assert_allclose(fgrad.grad(fgrad.grad(lambda x: fst.norm.logpdf(x, 0.3, 2.0)))(0.0), -0.25,
                               rtol=1e-12)


# ---- every function on another device, its parameters Python numbers ----------------------
ON_DEVICE = [
    *[(f"norm.{m}", lambda x, m=m: getattr(fst.norm, m)(x, 0.5, 2.0)) for m in fst.norm.__all__],
    *[(f"t.{m}", lambda x, m=m: getattr(fst.t, m)(x, 3.0, 0.5, 2.0)) for m in fst.t.__all__],
    *[(f"gamma.{m}", lambda x, m=m: getattr(fst.gamma, m)(x, 2.5, -1.0, 2.0)) for m in fst.gamma.__all__],
    *[(f"chi2.{m}", lambda x, m=m: getattr(fst.chi2, m)(x, 2.5, -1.0, 2.0)) for m in fst.chi2.__all__],
    *[(f"beta.{m}", lambda x, m=m: getattr(fst.beta, m)(x, 2.5, 1.5, -1.0, 3.0)) for m in fst.beta.__all__],
    *[(f"{d}.{m}", lambda x, d=d, m=m: getattr(getattr(fst, d), m)(x, 0.5, 2.0))
      for d in ("expon", "laplace", "logistic", "uniform", "cauchy", "gumbel_l", "gumbel_r")
      for m in getattr(fst, d).__all__],
    *[(f"pareto.{m}", lambda x, m=m: getattr(fst.pareto, m)(x, 1.5, -1.0)) for m in fst.pareto.__all__],
    *[(f"gennorm.{m}", lambda x, m=m: getattr(fst.gennorm, m)(x, 1.5)) for m in fst.gennorm.__all__],
    *[(f"truncnorm.{m}", lambda x, m=m: getattr(fst.truncnorm, m)(x, -1.0, 2.0, 0.1)) for m in fst.truncnorm.__all__],
    ("vonmises.logpdf", lambda x: fst.vonmises.logpdf(x, 2.0)),
    ("wrapcauchy.pdf", lambda x: fst.wrapcauchy.pdf(x, 0.3)),
    ("poisson.logpmf", lambda mu: fst.poisson.logpmf(2, mu)), ("poisson.cdf", lambda mu: fst.poisson.cdf(2, mu)),
    ("bernoulli.cdf", lambda p: fst.bernoulli.cdf(0, p)), ("bernoulli.ppf", lambda q: fst.bernoulli.ppf(q, 0.3)),
    ("binom.logpmf", lambda p: fst.binom.logpmf(2, 5, p)), ("geom.logpmf", lambda p: fst.geom.logpmf(2, p)),
    ("nbinom.logpmf", lambda p: fst.nbinom.logpmf(2, 3.5, p)),
    ("betabinom.logpmf", lambda a: fst.betabinom.logpmf(2, 5, a, 1.5)),
    ("multivariate_normal.logpdf", lambda x: fst.multivariate_normal.logpdf(x, 0.0, 2.0)),
    ("multivariate_normal.logpdf[allow_singular]",
     lambda x: fst.multivariate_normal.logpdf(x, None, 2.0, allow_singular=True)),
    ("sem", fst.sem), ("rankdata", lambda x: fst.rankdata(x, method="ordinal")), ("mode", lambda x: fst.mode(x)[0]),
]


@pytest.mark.parametrize("name,f", ON_DEVICE, ids=[n for n, _ in ON_DEVICE])
def test_python_number_parameters_on_another_device(name, f):
    """Constants made from Python numbers (and branches of them alone) live on the device of
    the array arguments."""
    device = fgrad.device(fgrad.backend.register_numpy_device(1))
    x = np.array([0.15, 0.3, 0.45, 0.3])
    got = f(device.send(x))
    assert fgrad.backend.device_of(got) == device, name
    np.testing.assert_array_equal(fgrad.device("cpu").send(got), f(x))


def test_dtypes():
    x32 = np.array([0.2, 0.5], dtype=np.float32)
    assert fst.norm.logpdf(x32, 0.5, 2.0).dtype == np.float32
    assert fst.gamma.logpdf(x32, 2, 0, 1).dtype == np.float32
    assert fst.poisson.logpmf(np.array([1, 2]), x32).dtype == np.float32
    assert fst.poisson.logpmf(np.array([1, 2]), 2.0).dtype == np.float64  # integer k, Python mu
    assert np.shape(fst.norm.cdf(0.3)) == () and np.shape(fst.t.logpdf(np.zeros((2, 1)), np.ones(3))) == (2, 3)


def test_t_cdf_accuracy():
    """Against SciPy's stdtr where it is accurate (not within ~1e-3 of 0 for df = 1, where
    stdtr loses digits fgrad keeps), tails included."""
    rng = np.random.default_rng(0)
    for df in (0.3, 1.0, 2.5, 12.0, 300.0):
        x = np.concatenate([rng.normal(size=50) * 3, rng.normal(size=20) * 50, [-1e8, 1e8, 0.0, inf, -inf]])
        x = x[np.abs(x) > 1e-2]
        np.testing.assert_allclose(fst.t.cdf(x, df), ss.t.cdf(x, df), rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(fst.t.sf(x, df), ss.t.sf(x, df), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(fst.t.cdf(1e-9, 1.0), 0.5 + 1e-9 / np.pi, rtol=1e-15)


# ---- multivariate ----------------------------------------------------------------------
def test_multivariate_normal_arguments():
    rng = np.random.default_rng(0)
    b = rng.normal(size=(3, 3))
    cov, mean = b @ b.T + np.eye(3), rng.normal(size=3)
    x = rng.normal(size=(2, 4, 3))
    want = ss.multivariate_normal.logpdf(x, mean, cov)
    np.testing.assert_allclose(fst.multivariate_normal.logpdf(x, mean, cov), want, rtol=1e-12)
    with pytest.raises(ValueError, match="mean"):
        fst.multivariate_normal.logpdf(x, np.zeros(2), cov)
    with pytest.raises(ValueError, match="Dimension mismatch"):
        fst.multivariate_normal.logpdf(x, mean, np.eye(2))
    with pytest.raises(ValueError, match="components"):
        fst.multivariate_normal.logpdf(np.zeros((4, 2)), mean, cov)
    u = rng.normal(size=(3, 2))
    with pytest.raises(np.linalg.LinAlgError, match="allow_singular"):
        fst.multivariate_normal.logpdf(x, mean, u @ u.T)
    with pytest.raises(ValueError, match="positive semidefinite"):
        fst.multivariate_normal.logpdf(x, mean, -cov, allow_singular=True)
    # gradients with respect to cov are symmetric (Note [symmetric gradients])
    g = fgrad.grad(lambda c: fnp.sum(fst.multivariate_normal.logpdf(x, mean, c)))(cov)
    np.testing.assert_allclose(g, g.T, rtol=1e-12)
    # ... and equal, for cov's symmetric part, the closed form -1/2 (inv(cov) - inv(cov) d d^T inv(cov)) per point
    inv = np.linalg.inv(cov)
    d = (x - mean).reshape(-1, 3)
    want = sum(-0.5 * (inv - inv @ np.outer(di, di) @ inv) for di in d)
    np.testing.assert_allclose(g, want, rtol=1e-10)


def test_dirichlet_and_multinomial_arguments():
    alpha = np.array([0.7, 2.0, 3.5])
    assert fst.dirichlet.logpdf(np.array([0.5, 0.6, -0.1]), alpha) == -inf
    assert fst.dirichlet.logpdf(np.array([0.5, 0.6, 0.1]), alpha) == -inf
    assert np.isnan(fst.dirichlet.logpdf(np.array([0.5, 0.3, 0.2]), -alpha))
    with pytest.raises(ValueError, match="one dimensional"):
        fst.dirichlet.logpdf(np.array([0.5, 0.5]), np.ones((2, 2)))
    with pytest.raises(ValueError, match="entries"):
        fst.dirichlet.logpdf(np.array([0.5, 0.5]), np.ones(4))
    p = np.array([0.2, 0.5, 0.3])
    assert fst.multinomial.logpmf(np.array([1, 2, 4]), 6, p) == -inf
    assert np.isnan(fst.multinomial.logpmf(np.array([1, 2, 3]), -6, p))
    with pytest.raises(ValueError, match="Size of each quantile"):
        fst.multinomial.logpmf(np.array([1, 5]), 6, p)
    # differentiable in p, the unconstrained formula: d/dp_i = x_i / p_i
    np.testing.assert_allclose(fgrad.grad(lambda p: fst.multinomial.logpmf(np.array([1, 2, 3]), 6, p))(p),
                               np.array([1, 2, 3]) / p, rtol=1e-13)


def test_summaries():
    a = np.array([[3.0, 1.0, 2.0, 1.0], [2.0, 2.0, 5.0, 5.0]])
    np.testing.assert_allclose(fst.sem(a, axis=None), ss.sem(a, axis=None), rtol=1e-13)
    np.testing.assert_allclose(fst.sem(np.array([1.0, nan, 3.0]), nan_policy="omit"),
                               ss.sem(np.array([1.0, nan, 3.0]), nan_policy="omit"), rtol=1e-13)
    np.testing.assert_allclose(fgrad.grad(lambda a: fst.sem(a, axis=None))(a), fgrad.grad(
        lambda a: fnp.std(a, ddof=1) / np.sqrt(8))(a), rtol=1e-13)
    np.testing.assert_array_equal(fst.rankdata(a), ss.rankdata(a))
    result = fst.mode(a, axis=None)
    assert (float(result.mode), int(result.count)) == (2.0, 3)
    assert np.isnan(fst.mode(np.array([1.0, nan, nan, 2.0])).mode)
    with pytest.raises(NotImplementedError, match="nan_policy"):
        fst.rankdata(a, nan_policy="omit")
    with pytest.raises(ValueError, match="unknown method"):
        fst.rankdata(a, method="first")
