"""fgrad.scipy.special beyond the op table (tests/op_db_special.py): the names it covers, the
derivatives that raise instead of returning a wrong number, and the plain-value-only options."""
import math

import numpy as np
import pytest
import scipy.special as sps

import fgrad
import fgrad.scipy.special as fsp

# jax.scipy.special's names (JAX 0.10.2)
JAX_NAMES = """bernoulli bessel_jn beta betainc betaln boxcox boxcox1p comb dawsn digamma entr erf erfc erfcx erfinv
exp1 expi expit expn factorial fresnel gamma gammainc gammaincc gammaln gammasgn hyp1f1 hyp2f1 i0 i0e i1 i1e kl_div
log_ndtr log_softmax loggamma logit logsumexp multigammaln ndtr ndtri owens_t poch polygamma rel_entr sici softmax
spence sph_harm_y wofz xlog1py xlogy zeta""".split()


def test_covers_jax_names_and_has_scipy_names():
    assert len(JAX_NAMES) == 53
    assert not set(JAX_NAMES) - set(fsp.__all__)
    for name in ("erfcinv", "rgamma", "iv", "ive", "j0", "j1", "jn", "jv", "y0", "y1", "yn", "log_expit"):
        assert name in fsp.__all__
    assert [n for n in fsp.__all__ if not hasattr(sps, n)] == ["bessel_jn"]  # (JAX's own)
    assert fsp.jn is fsp.jv


# (name, argument, function of that argument alone at a smooth point)
NO_CLOSED_FORM = [
    ("betainc", "a", lambda a: fsp.betainc(a, 2.0, 0.3), 1.5),
    ("betainc", "b", lambda b: fsp.betainc(1.5, b, 0.3), 2.0),
    ("gammainc", "a", lambda a: fsp.gammainc(a, 1.2), 1.5),
    ("gammaincc", "a", lambda a: fsp.gammaincc(a, 1.2), 1.5),
    ("hyp1f1", "a", lambda a: fsp.hyp1f1(a, 1.5, 0.4), 0.7),
    ("hyp1f1", "b", lambda b: fsp.hyp1f1(0.7, b, 0.4), 1.5),
    ("hyp2f1", "a", lambda a: fsp.hyp2f1(a, 1.5, 2.5, 0.4), 0.7),
    ("hyp2f1", "b", lambda b: fsp.hyp2f1(0.7, b, 2.5, 0.4), 1.5),
    ("hyp2f1", "c", lambda c: fsp.hyp2f1(0.7, 1.5, c, 0.4), 2.5),
    ("zeta", "x", lambda x: fsp.zeta(x, 1.5), 2.5),
    ("zeta", "x", lambda x: fsp.zeta(x), 2.5),  # Riemann's
    ("jv", "v", lambda v: fsp.jv(v, 1.3), 0.5),
    ("jv", "v", lambda v: fsp.jn(v, 1.3), 1.0),
    ("yv", "v", lambda v: fsp.yv(v, 1.3), 0.5),
    ("iv", "v", lambda v: fsp.iv(v, 1.3), 0.5),
    ("ive", "v", lambda v: fsp.ive(v, 1.3), 0.5),
    ("kv", "v", lambda v: fsp.kv(v, 1.3), 0.5),
    ("kve", "v", lambda v: fsp.kve(v, 1.3), 0.5),
]


@pytest.mark.parametrize("name,arg,f,at", NO_CLOSED_FORM, ids=[f"{n}-{a}" for n, a, _, _ in NO_CLOSED_FORM])
def test_no_closed_form_derivative_raises(name, arg, f, at):
    message = f"fgrad.scipy.special.{name}: the derivative with respect to {arg} has no closed form"
    f(at)  # the value is fine
    with pytest.raises(NotImplementedError, match=message):
        fgrad.grad(f)(at)
    with pytest.raises(NotImplementedError, match=message):
        fgrad.jvp(f, (np.array([at, at]),), (np.ones(2),))


def test_other_arguments_still_differentiate():
    """With the raising argument held constant (or stopped), the rest differentiate."""
    x = 0.3
    got = fgrad.grad(lambda x: fsp.betainc(1.5, 2.0, x))(x)
    assert np.isclose(got, x ** 0.5 * (1 - x) / sps.beta(1.5, 2.0), rtol=1e-13)
    got = fgrad.grad(lambda a, x: fsp.gammainc(fgrad.stop_gradient(a), x), argnums=1)(1.5, 1.2)
    assert np.isclose(got, 1.2 ** 0.5 * np.exp(-1.2) / sps.gamma(1.5), rtol=1e-13)


@pytest.mark.parametrize("f", [lambda t: fsp.sph_harm_y(2, 1, t, 0.3), lambda p: fsp.sph_harm_y(2, 1, 0.7, p)],
                         ids=["sph_harm_y-theta", "sph_harm_y-phi"])
def test_sph_harm_y_angles_are_not_differentiated(f):
    x = np.array([0.5, 1.0])
    assert np.iscomplexobj(f(x))
    with pytest.raises(NotImplementedError, match=r"fgrad.scipy.special.sph_harm_y: its derivatives with respect to "
                                                  r"the angles are not implemented"):
        fgrad.jvp(f, (x,), (np.ones(2),))


def test_wofz_is_differentiated_at_real_and_complex_points():
    """w'(z) = -2 z w(z) + 2i/sqrt(pi) (holomorphic: Note [complex derivatives] in ops/conversion.py)."""
    for z in (np.array([0.5, 1.0]), np.array([0.5 + 0.3j, -1.0 + 0.8j])):
        _, t = fgrad.jvp(fsp.wofz, (z,), (np.ones_like(z),))
        np.testing.assert_allclose(t, -2 * z * sps.wofz(z) + 2j / np.sqrt(np.pi), rtol=1e-13)
        fgrad.testing.check_grads(fsp.wofz, (z,), order=2)


def test_rgamma_at_the_poles_of_gamma():
    """1/gamma is entire: at -n its slope is (-1)^n n! and its curvature -2 (-1)^n n! digamma(n + 1)."""
    for n in range(4):
        x = float(-n)
        assert fsp.rgamma(x) == 0.0
        assert np.isclose(fgrad.grad(fsp.rgamma)(x), (-1) ** n * math.factorial(n), rtol=1e-13)
        assert np.isclose(fgrad.grad(fgrad.grad(fsp.rgamma))(x),
                          -2 * (-1) ** n * math.factorial(n) * sps.digamma(n + 1.0), rtol=1e-12)


def test_removable_singularities_of_the_derivatives():
    """Derivatives with a 0/0 at one point: exprel at 0, spence at 1, j1 and i1 at 0."""
    assert np.isclose(fgrad.grad(fsp.exprel)(0.0), 0.5, rtol=1e-15)
    assert np.isclose(fgrad.grad(fgrad.grad(fsp.exprel))(0.0), 1.0 / 3.0, rtol=1e-15)
    assert np.isclose(fgrad.grad(fsp.spence)(1.0), -1.0, rtol=1e-15)
    assert np.isclose(fgrad.grad(fgrad.grad(fsp.spence))(1.0), 0.5, rtol=1e-15)
    assert fgrad.grad(fsp.j1)(0.0) == 0.5 and fgrad.grad(fsp.i1)(0.0) == 0.5
    assert np.isclose(fgrad.grad(lambda lm: fsp.boxcox(2.0, lm))(0.0), np.log(2.0) ** 2 / 2, rtol=1e-15)


def test_plain_value_options():
    assert fsp.comb(10, 3, exact=True) == 120 and fsp.comb(10, 3, exact=True, repetition=True) == 220
    np.testing.assert_array_equal(fsp.factorial(np.array([3, 5]), exact=True), [6, 120])
    np.testing.assert_array_equal(fsp.bernoulli(4), sps.bernoulli(4))
    n = np.array([1, 2])
    theta = np.array([0.3, 1.2])
    for got, want in zip(fsp.sph_harm_y(n, 1, theta, 0.4, diff_n=1), sps.sph_harm_y(n, 1, theta, 0.4, diff_n=1)):
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("f", [lambda x: fsp.comb(x, 2.0, exact=True), lambda x: fsp.factorial(x, exact=True),
                               lambda x: fsp.bessel_jn(1.0, v=x), lambda x: fsp.multigammaln(3.0, x),
                               lambda x: fsp.sph_harm_y(1, 0, x, 0.2, diff_n=1)],
                         ids=["comb", "factorial", "bessel_jn", "multigammaln", "sph_harm_y"])
def test_plain_value_options_refuse_traced_values(f):
    with pytest.raises(TypeError, match=r"fgrad\.scipy\.special\.[a-z_]+: .* must not be a traced value"):
        fgrad.grad(f)(3.0)


def test_multigammaln_domain_as_scipy():
    with pytest.raises(ValueError, match="condition a"):
        fsp.multigammaln(np.array([0.8, 3.0]), 3)
    with pytest.raises(ValueError, match="positive integer"):
        fsp.multigammaln(3.0, 2.5)


def test_scipy_ufuncs_on_traced_values_run_fgrad_functions():
    """scipy.special's ufuncs, called on traced values, differentiate (fgrad.numpy's bridge)."""
    x = 0.4
    assert fgrad.grad(lambda x: sps.betainc(1.5, 2.0, x))(x) == fgrad.grad(lambda x: fsp.betainc(1.5, 2.0, x))(x)
    assert fgrad.grad(lambda x: sps.jn(1, x))(x) == fgrad.grad(lambda x: fsp.jv(1, x))(x)
    assert np.isclose(fgrad.grad(lambda x: sps.sici(x)[1])(x), np.cos(x) / x, rtol=1e-15)
    assert np.isclose(fgrad.grad(lambda x: sps.hyp2f1(1.0, 2.0, 3.0, x))(x),
                      2.0 / 3.0 * sps.hyp2f1(2.0, 3.0, 4.0, x), rtol=1e-15)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
@pytest.mark.parametrize("axis", [2, -3, (0, 2)])
def test_softmax_axis_errors_name_the_function_called(name, axis):
    """An axis out of range raises SciPy's AxisError naming fgrad.scipy.special.<name>, not the
    fgrad.numpy function (max, logsumexp) that meets it first."""
    x = np.ones((2, 3))
    with pytest.raises(np.exceptions.AxisError):
        getattr(sps, name)(x, axis=axis)
    with pytest.raises(np.exceptions.AxisError, match=rf"^fgrad\.scipy\.special\.{name}: axis"):
        getattr(fsp, name)(x, axis=axis)
    with pytest.raises(np.exceptions.AxisError, match=rf"^fgrad\.scipy\.special\.{name}: axis"):
        fgrad.grad(lambda v: fgrad.numpy.sum(getattr(fsp, name)(v, axis=axis)))(x)
