"""Transforms composed to any depth: perturbation confusion in every pair of modes,
higher derivatives, closures over outer traced values, linearize, stop_gradient."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import grad, jacfwd, jacrev, jvp, linearize, stop_gradient, vjp


def d_fwd(f, x):
    """df/dx by forward mode (jvp)."""
    return jvp(f, (x,), (1.0,))[1]


def d_rev(f, x):
    """df/dx by reverse mode (grad)."""
    return grad(f)(x)


def d_vjp(f, x):
    """df/dx by reverse mode (vjp)."""
    return vjp(f, x)[1](1.0)[0]


def d_jacfwd(f, x):
    return jacfwd(f)(x)


def d_jacrev(f, x):
    return jacrev(f)(x)


MODES = {"fwd": d_fwd, "rev": d_rev, "vjp": d_vjp, "jacfwd": d_jacfwd, "jacrev": d_jacrev}
PAIRS = [(o, i) for o in MODES for i in MODES]
XS = [-1.5, 0.0, 0.5, 2.0]


# ---- perturbation confusion ----------------------------------------------------------------
@pytest.mark.parametrize("outer,inner", PAIRS, ids=[f"{o}-over-{i}" for o, i in PAIRS])
@pytest.mark.parametrize("x", XS)
def test_perturbation_confusion_sum(outer, inner, x):
    """d/dx [ x * (d/dy (x + y)) ] == 1: the inner derivative must not see x's perturbation."""
    result = MODES[outer](lambda x: x * MODES[inner](lambda y: x + y, 1.0), x)
    assert float(result) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("outer,inner", PAIRS, ids=[f"{o}-over-{i}" for o, i in PAIRS])
@pytest.mark.parametrize("x", XS)
def test_perturbation_confusion_product(outer, inner, x):
    """d/dx [ x * (d/dy (x * y)) ] == 2x (the classic variant)."""
    result = MODES[outer](lambda x: x * MODES[inner](lambda y: x * y, 1.0), x)
    assert float(result) == pytest.approx(2 * x, abs=1e-14)


@pytest.mark.parametrize("modes", [("fwd", "fwd", "fwd"), ("rev", "rev", "rev"), ("fwd", "rev", "fwd"),
                                   ("rev", "fwd", "rev"), ("rev", "rev", "fwd")])
def test_three_levels_do_not_confuse(modes):
    """d/dx [ x * d/dy [ y * d/dz (x*y*z) ] ] = d/dx [ x * d/dy (x y^2) ] = d/dx 2 x^2 y|_{y=1} = 4x."""
    a, b, c = (MODES[m] for m in modes)
    x = 1.7
    result = a(lambda x: x * b(lambda y: y * c(lambda z: x * y * z, 1.0), 1.0), x)
    assert float(result) == pytest.approx(4 * x, rel=1e-14)


def test_perturbation_confusion_with_arrays():
    x = np.array([0.5, -1.0])

    def outer(x):
        inner = grad(lambda y: fnp.sum(x * y))(np.ones(2))   # == x, constant in y
        return fnp.sum(x * inner)                            # == sum(x^2)

    np.testing.assert_allclose(grad(outer)(x), 2 * x)
    np.testing.assert_allclose(jacfwd(outer)(x), 2 * x)
    np.testing.assert_allclose(jvp(outer, (x,), (np.ones(2),))[1], np.sum(2 * x))


# ---- higher derivatives ----------------------------------------------------------------------
@pytest.mark.parametrize("x", [-0.8, 0.3, 1.9])
def test_third_derivative_every_mode_mix(x):
    f = lambda x: fnp.sin(x) * fnp.exp(x / 2)  # noqa: E731
    # f = Im(exp((1/2 + i) x)), so its third derivative is Im((1/2 + i)^3 exp((1/2 + i) x))
    d3 = np.imag((0.5 + 1j) ** 3 * np.exp((0.5 + 1j) * x))
    for a in ("fwd", "rev"):
        for b in ("fwd", "rev"):
            for c in ("fwd", "rev"):
                got = MODES[a](lambda x: MODES[b](lambda y: MODES[c](f, y), x), x)
                assert float(got) == pytest.approx(d3, rel=1e-12), (a, b, c)
    assert grad(grad(grad(f)))(x) == pytest.approx(d3, rel=1e-12)


def test_grad_grad_grad_polynomial():
    assert grad(grad(grad(lambda x: x ** 4)))(2.0) == pytest.approx(48.0)
    assert grad(grad(grad(grad(lambda x: x ** 4))))(2.0) == pytest.approx(24.0)
    assert grad(grad(grad(grad(grad(lambda x: x ** 4)))))(2.0) == pytest.approx(0.0)


def test_jvp_of_grad_is_hessian_vector_product():
    x, v = np.array([0.3, -0.7, 1.1]), np.array([1.0, 2.0, -1.0])
    f = lambda x: fnp.sum(fnp.sin(x) * x[0])  # noqa: E731
    g, hv = jvp(grad(f), (x,), (v,))
    H = fgrad.hessian(f)(x)
    np.testing.assert_allclose(hv, H @ v, rtol=1e-13)
    np.testing.assert_allclose(fgrad.hvp(f, (x,), (v,))[1], H @ v, rtol=1e-13)
    np.testing.assert_allclose(g, grad(f)(x))


def test_grad_of_function_calling_jvp():
    x = 0.6
    f = lambda x: jvp(fnp.sin, (x,), (1.0,))[1] * x  # x cos x  # noqa: E731
    assert grad(f)(x) == pytest.approx(np.cos(x) - x * np.sin(x), rel=1e-14)
    g = lambda x: jvp(lambda y: y ** 3, (x,), (x,))[1]  # 3x^2 * x = 3x^3  # noqa: E731
    assert grad(g)(x) == pytest.approx(9 * x ** 2, rel=1e-14)
    assert grad(grad(g))(x) == pytest.approx(18 * x, rel=1e-14)


def test_grad_of_function_calling_vjp_and_linearize():
    x = np.array([0.2, 0.9])
    f = lambda x: fnp.sum(vjp(lambda y: fnp.sin(y) * y, x)[1](np.ones(2))[0])  # noqa: E731
    np.testing.assert_allclose(grad(f)(x), 2 * np.cos(x) - x * np.sin(x), rtol=1e-14)
    h = lambda x: fnp.sum(linearize(lambda y: y ** 3, x)[1](np.ones(2)))  # noqa: E731
    np.testing.assert_allclose(grad(h)(x), 6 * x, rtol=1e-14)


def test_jacfwd_of_jacrev_equals_jacrev_of_jacfwd():
    x = np.array([0.4, -0.3, 1.2])
    f = lambda x: fnp.tanh(x) * fnp.sum(x ** 2) + x[::-1] * x[0]  # noqa: E731
    a = jacfwd(jacrev(f))(x)
    b = jacrev(jacfwd(f))(x)
    c = jacfwd(jacfwd(f))(x)
    d = jacrev(jacrev(f))(x)
    assert a.shape == (3, 3, 3)
    for other in (b, c, d):
        np.testing.assert_allclose(a, other, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a, np.swapaxes(a, 1, 2), atol=1e-14)  # symmetric second derivative


def test_closures_over_outer_traced_values():
    def f(x):
        def inner(y):
            return fnp.sin(x * y) + x * y ** 2
        return grad(inner)(x) * x          # (x cos(x^2) + 2x^2) * x

    x = 0.8
    expected = lambda x: x ** 2 * np.cos(x ** 2) + 2 * x ** 3  # noqa: E731
    d_expected = 2 * x * np.cos(x ** 2) - 2 * x ** 3 * np.sin(x ** 2) + 6 * x ** 2
    assert f(x) == pytest.approx(expected(x), rel=1e-14)
    assert grad(f)(x) == pytest.approx(d_expected, rel=1e-13)
    assert jvp(f, (x,), (1.0,))[1] == pytest.approx(d_expected, rel=1e-13)


def test_python_control_flow_changes_between_calls_and_levels():
    def f(x):
        if x > 0:
            return x ** 3
        return -x ** 2

    assert grad(f)(2.0) == pytest.approx(12.0)
    assert grad(f)(-2.0) == pytest.approx(4.0)
    assert grad(grad(f))(2.0) == pytest.approx(12.0)
    assert grad(grad(f))(-2.0) == pytest.approx(-2.0)
    assert jvp(grad(f), (-1.0,), (1.0,))[1] == pytest.approx(-2.0)

    def loop(x):
        y = x
        while y < 10.0:   # the trip count depends on the value
            y = y * 2.0
        return y

    assert grad(loop)(1.5) == pytest.approx(8.0)    # 1.5 -> 12: three doublings
    assert grad(loop)(3.0) == pytest.approx(4.0)    # 3 -> 12: two doublings


def test_linearize_matches_jvp():
    x = np.array([0.3, 1.2, -0.4])
    f = lambda x: fnp.stack([fnp.sum(fnp.exp(x) * x), x[0] * x[1], fnp.prod(x)])  # noqa: E731
    y, f_jvp = linearize(f, x)
    np.testing.assert_allclose(y, f(x))
    for t in (np.array([1.0, 0.0, 0.0]), np.array([0.2, -0.3, 0.7])):
        np.testing.assert_allclose(f_jvp(t), jvp(f, (x,), (t,))[1], rtol=1e-14)


def test_linearize_does_not_rerun_the_function():
    calls = []

    def f(x):
        calls.append(1)
        return fnp.sin(x) * 2.0

    _, f_jvp = linearize(f, np.ones(2))
    for _ in range(3):
        f_jvp(np.ones(2))
    assert len(calls) == 1


def test_linearize_with_several_arguments():
    f = lambda x, y: x * fnp.sin(y)  # noqa: E731
    _y, f_jvp = linearize(f, 2.0, 0.5)
    _, t = jvp(f, (2.0, 0.5), (0.3, -1.0))
    assert f_jvp(0.3, -1.0) == pytest.approx(t, rel=1e-14)


# ---- stop_gradient at every level ------------------------------------------------------------
def test_stop_gradient_first_order():
    f = lambda x: x * stop_gradient(x)  # noqa: E731
    assert grad(f)(3.0) == pytest.approx(3.0)
    assert jvp(f, (3.0,), (1.0,)) == (pytest.approx(9.0), pytest.approx(3.0))
    np.testing.assert_allclose(jacfwd(lambda x: x * stop_gradient(x))(np.array([1.0, 2.0])), np.diag([1.0, 2.0]))
    np.testing.assert_allclose(jacrev(lambda x: x * stop_gradient(x))(np.array([1.0, 2.0])), np.diag([1.0, 2.0]))


def test_stop_gradient_second_order():
    x = np.array([1.0, 2.0])
    H = fgrad.hessian(lambda x: fnp.sum(x ** 2 * stop_gradient(x)))(x)
    np.testing.assert_allclose(H, np.diag(2 * x))
    assert grad(grad(lambda x: x ** 2 * stop_gradient(x)))(3.0) == pytest.approx(6.0)


def test_stop_gradient_of_an_inner_value_stops_every_level():
    """stop_gradient(y * x) inside the inner grad is a constant for the outer grad too."""
    f = lambda x: grad(lambda y: stop_gradient(y * x) * y)(x)   # == x * x, but all stopped  # noqa: E731
    assert f(3.0) == pytest.approx(9.0)
    assert grad(f)(3.0) == pytest.approx(0.0)
    assert jvp(f, (3.0,), (1.0,))[1] == pytest.approx(0.0)


def test_stop_gradient_of_an_outer_value_inside_an_inner_transform():
    # inner: d/dy [y^2 sg(x)] = 2 y sg(x); at y = x the outer sees 2 x sg(x) -> derivative 2 sg(x)
    f = lambda x: grad(lambda y: y * stop_gradient(x) * y)(x)  # noqa: E731
    assert grad(f)(3.0) == pytest.approx(6.0)
    assert jvp(f, (3.0,), (1.0,))[1] == pytest.approx(6.0)


def test_stop_gradient_passes_pytrees_and_plain_values_through():
    tree = {"a": 1.0, "b": (np.ones(2), None)}
    out = stop_gradient(tree)
    assert out["b"][1] is None and out["a"] == 1.0 and type(out["b"][0]) is np.ndarray

    def f(p):
        q = stop_gradient(p)
        return p["a"] * q["a"] + fnp.sum(q["b"][0] * p["b"][0])

    g = grad(f)({"a": 2.0, "b": (np.array([1.0, 3.0]), None)})
    assert g["a"] == pytest.approx(2.0)
    np.testing.assert_allclose(g["b"][0], [1.0, 3.0])
