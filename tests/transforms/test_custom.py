"""custom_vjp, custom_jvp and checkpoint under every transform and under nesting.

The rules below are deliberately *different* from the true derivative, so a test can
tell whether fgrad used the rule (at the level it should) or differentiated the body.
"""
import gc
import weakref

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import checkpoint, custom_jvp, custom_vjp, grad, hessian, jacfwd, jacrev, jvp, vjp
from fgrad.ir.value import concrete


# ---- custom_vjp --------------------------------------------------------------------------------
@custom_vjp
def fake_sin(x):
    """sin(x) whose "derivative" is 2 cos(x)."""
    return fnp.sin(x)


fake_sin.defvjp(lambda x: (fnp.sin(x), x), lambda x, g: (2.0 * g * fnp.cos(x),))


@custom_vjp
def clip_gradient(x):
    """The identity, with its cotangent clipped to [-0.5, 0.5]."""
    return x


clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (fnp.clip(g, -0.5, 0.5),))

XV = np.array([0.7, -0.2, 1.3])


def test_custom_vjp_value_is_the_function():
    np.testing.assert_allclose(fake_sin(XV), np.sin(XV))
    assert type(fake_sin(XV)) is np.ndarray


def test_custom_vjp_grad_uses_the_rule():
    np.testing.assert_allclose(grad(lambda x: fnp.sum(fake_sin(x)))(XV), 2 * np.cos(XV), rtol=1e-15)
    (ct,) = vjp(fake_sin, XV)[1](np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(ct, 2 * np.cos(XV) * [1.0, 2.0, 3.0], rtol=1e-15)


def test_custom_vjp_clip_gradient():
    assert grad(lambda x: clip_gradient(x) * 3.0)(2.0) == pytest.approx(0.5)
    assert grad(lambda x: clip_gradient(x) * -0.25)(2.0) == pytest.approx(-0.25)
    np.testing.assert_allclose(grad(lambda x: fnp.sum(clip_gradient(x) * np.array([3.0, 0.1, -7.0])))(XV),
                               [0.5, 0.1, -0.5])


def test_custom_vjp_rule_used_at_the_inner_level_of_grad_grad():
    """grad(grad(f)) differentiates the *rule* 2 cos(x): -2 sin(x), not -sin(x)."""
    x = 0.7
    assert grad(fake_sin)(x) == pytest.approx(2 * np.cos(x), rel=1e-15)
    assert grad(grad(fake_sin))(x) == pytest.approx(-2 * np.sin(x), rel=1e-15)
    assert grad(grad(grad(fake_sin)))(x) == pytest.approx(-2 * np.cos(x), rel=1e-15)


def test_custom_vjp_clip_inside_inner_grad():
    # inner: d/dy [clip_gradient(y x) * 3] = clip(3) * x = 0.5 x, whose outer derivative is 0.5
    assert grad(lambda x: grad(lambda y: clip_gradient(y * x) * 3.0)(x))(2.0) == pytest.approx(0.5)


def test_custom_vjp_under_forward_mode_and_jacobians():
    x = 0.7
    y, t = jvp(fake_sin, (x,), (3.0,))
    assert y == pytest.approx(np.sin(x)) and t == pytest.approx(6 * np.cos(x), rel=1e-15)
    np.testing.assert_allclose(jacfwd(fake_sin)(XV), np.diag(2 * np.cos(XV)), rtol=1e-15)
    np.testing.assert_allclose(jacrev(fake_sin)(XV), np.diag(2 * np.cos(XV)), rtol=1e-15)
    np.testing.assert_allclose(hessian(lambda v: fnp.sum(fake_sin(v)))(XV), np.diag(-2 * np.sin(XV)),
                               rtol=1e-15, atol=1e-15)
    # forward over reverse and reverse over forward agree on the rule's derivative
    assert jvp(grad(fake_sin), (x,), (1.0,))[1] == pytest.approx(-2 * np.sin(x), rel=1e-15)
    assert grad(lambda x: jvp(fake_sin, (x,), (1.0,))[1])(x) == pytest.approx(-2 * np.sin(x), rel=1e-15)


def test_custom_vjp_several_arguments_and_pytree_output():
    @custom_vjp
    def f(x, y):
        return {"s": x * y, "d": x - y}

    def fwd(x, y):
        return f(x, y), (x, y)

    def bwd(res, g):
        x, y = res
        return (g["s"] * y * 10.0 + g["d"], g["s"] * x * 10.0 - g["d"])

    f.defvjp(fwd, bwd)
    gx, gy = grad(lambda x, y: f(x, y)["s"] + 2.0 * f(x, y)["d"], argnums=(0, 1))(2.0, 3.0)
    assert gx == pytest.approx(30.0 + 2.0) and gy == pytest.approx(20.0 - 2.0)
    j = jacrev(lambda v: f(v[0], v[1]))(np.array([2.0, 3.0]))
    np.testing.assert_allclose(j["s"], [30.0, 20.0])
    np.testing.assert_allclose(jacfwd(lambda v: f(v[0], v[1]))(np.array([2.0, 3.0]))["s"], [30.0, 20.0])


def test_custom_vjp_nondiff_argnums():
    def fwd(n, x):
        return x ** n, x

    def bwd(n, x, g):
        return (g * 100.0 * n * x,)   # not the true n x^(n-1)

    power = custom_vjp(lambda n, x: x ** n, nondiff_argnums=(0,))
    power.defvjp(fwd, bwd)
    assert power(3, 2.0) == pytest.approx(8.0)
    assert grad(lambda x: power(3, x))(2.0) == pytest.approx(600.0)
    assert jvp(lambda x: power(3, x), (2.0,), (1.0,))[1] == pytest.approx(600.0)
    assert grad(grad(lambda x: power(3, x)))(2.0) == pytest.approx(300.0)
    np.testing.assert_allclose(jacrev(lambda x: power(2, x))(np.array([1.0, 2.0])), np.diag([200.0, 400.0]))
    np.testing.assert_allclose(jacfwd(lambda x: power(2, x))(np.array([1.0, 2.0])), np.diag([200.0, 400.0]))


def test_custom_vjp_closing_over_an_outer_traced_value():
    # the outer grad differentiates through the custom function's arguments, the rule at the inner level
    f = lambda a: grad(lambda x: fake_sin(a * x))(1.0)   # 2 cos(a) * a  # noqa: E731
    a = 0.4
    assert f(a) == pytest.approx(2 * np.cos(a) * a)
    assert grad(f)(a) == pytest.approx(-2 * np.sin(a) * a + 2 * np.cos(a), rel=1e-14)


# ---- custom_jvp --------------------------------------------------------------------------------
@custom_jvp
def fake_cos(x):
    """cos(x) whose "derivative" is -3 sin(x)."""
    return fnp.cos(x)


@fake_cos.defjvp
def _fake_cos_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return fnp.cos(x), -3.0 * fnp.sin(x) * t


@pytest.mark.parametrize("x", [0.7, -1.1])
def test_custom_jvp_every_transform(x):
    d1, d2, d3 = -3 * np.sin(x), -3 * np.cos(x), 3 * np.sin(x)
    assert fake_cos(x) == pytest.approx(np.cos(x))
    assert jvp(fake_cos, (x,), (1.0,))[1] == pytest.approx(d1, rel=1e-15)
    assert grad(fake_cos)(x) == pytest.approx(d1, rel=1e-15)
    assert vjp(fake_cos, x)[1](2.0)[0] == pytest.approx(2 * d1, rel=1e-15)
    assert grad(grad(fake_cos))(x) == pytest.approx(d2, rel=1e-15)
    assert grad(grad(grad(fake_cos)))(x) == pytest.approx(d3, rel=1e-14)
    assert jvp(grad(fake_cos), (x,), (1.0,))[1] == pytest.approx(d2, rel=1e-15)
    assert grad(lambda y: jvp(fake_cos, (y,), (1.0,))[1])(x) == pytest.approx(d2, rel=1e-15)
    v = np.array([x, 0.2])
    np.testing.assert_allclose(jacfwd(fake_cos)(v), np.diag(-3 * np.sin(v)), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(jacrev(fake_cos)(v), np.diag(-3 * np.sin(v)), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(hessian(lambda v: fnp.sum(fake_cos(v)))(v), np.diag(-3 * np.cos(v)),
                               rtol=1e-15, atol=1e-16)


def test_custom_jvp_nondiff_argnums():
    f = custom_jvp(lambda n, x: x ** n, nondiff_argnums=(0,))
    f.defjvp(lambda n, primals, tangents: (primals[0] ** n, 100.0 * n * tangents[0]))
    assert f(3, 2.0) == pytest.approx(8.0)
    assert grad(lambda x: f(3, x))(2.0) == pytest.approx(300.0)
    assert jvp(lambda x: f(3, x), (2.0,), (0.5,))[1] == pytest.approx(150.0)
    np.testing.assert_allclose(jacrev(lambda x: f(2, x))(np.ones(2)), 200.0 * np.eye(2))
    np.testing.assert_allclose(jacfwd(lambda x: f(2, x))(np.ones(2)), 200.0 * np.eye(2))


def test_custom_jvp_numerically_stable_log1pexp():
    """The classic use: a stable rule where the naive derivative overflows."""
    @custom_jvp
    def log1pexp(x):
        return fnp.logaddexp(0.0, x)

    @log1pexp.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return log1pexp(x), t * 0.5 * (1.0 + fnp.tanh(x / 2))   # t * expit(x), without overflow

    x = np.array([-800.0, 0.0, 800.0])
    g = grad(lambda x: fnp.sum(log1pexp(x)))(x)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, [0.0, 0.5, 1.0], atol=1e-300)


def test_custom_rules_with_several_outputs_in_nested_use():
    @custom_jvp
    def polar(r, th):
        return r * fnp.cos(th), r * fnp.sin(th)

    @polar.defjvp
    def _(primals, tangents):
        (r, th), (dr, dth) = primals, tangents
        x, y = polar(r, th)
        return (x, y), (dr * fnp.cos(th) - r * fnp.sin(th) * dth, dr * fnp.sin(th) + r * fnp.cos(th) * dth)

    r, th = 2.0, 0.3
    gr, gth = grad(lambda r, th: polar(r, th)[0] * polar(r, th)[1], argnums=(0, 1))(r, th)
    # x*y = r^2 sin(th) cos(th) = r^2 sin(2 th)/2
    assert gr == pytest.approx(r * np.sin(2 * th), rel=1e-14)
    assert gth == pytest.approx(r ** 2 * np.cos(2 * th), rel=1e-14)
    assert grad(grad(lambda th: polar(r, th)[1]))(th) == pytest.approx(-r * np.sin(th), rel=1e-14)


# ---- checkpoint --------------------------------------------------------------------------------
def _body_factory():
    calls, refs = [], []

    def body(x, w):
        calls.append(1)
        h = fnp.tanh(x @ w) * 2.0
        refs.append(weakref.ref(concrete(h)))     # the intermediate's array
        return fnp.sum(fnp.sin(h) * x[:, :1])   # (sin reads h: a residual)
    return body, calls, refs


XC = np.linspace(-1.0, 1.0, 6).reshape(3, 2)
WC = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]])


def test_checkpoint_same_value_and_gradients():
    body, _, _ = _body_factory()
    remat = checkpoint(body)
    v1, g1 = fgrad.value_and_grad(body, argnums=(0, 1))(XC, WC)
    v2, g2 = fgrad.value_and_grad(remat, argnums=(0, 1))(XC, WC)
    assert v1 == pytest.approx(v2, rel=1e-15)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-14)


@pytest.mark.parametrize("transform", ["jvp", "jacfwd", "jacrev", "hessian", "grad_grad"])
def test_checkpoint_under_other_transforms(transform):
    body, _, _ = _body_factory()
    remat = checkpoint(body)
    runs = {
        "jvp": lambda f: jvp(lambda x: f(x, WC), (XC,), (np.ones_like(XC),))[1],
        "jacfwd": lambda f: jacfwd(lambda x: f(x, WC))(XC),
        "jacrev": lambda f: jacrev(lambda x: f(x, WC))(XC),
        "hessian": lambda f: hessian(lambda x: f(x, WC))(XC),
        "grad_grad": lambda f: grad(lambda w: fnp.sum(grad(f)(XC, w) ** 2))(WC),
    }
    np.testing.assert_allclose(runs[transform](remat), runs[transform](body), rtol=1e-13, atol=1e-15)


def test_checkpoint_reruns_fun_during_backward():
    body, calls, _ = _body_factory()
    remat = checkpoint(body)
    _, pull = vjp(remat, XC, WC)
    assert len(calls) == 1
    pull(1.0)
    assert len(calls) == 2, "the backward pass must re-run fun to recompute its intermediates"
    pull(1.0)
    assert len(calls) == 3

    plain, plain_calls, _ = _body_factory()
    _, pull = vjp(plain, XC, WC)
    pull(1.0)
    assert len(plain_calls) == 1


def test_checkpoint_does_not_keep_intermediates_alive():
    """Between forward and backward, only the inputs are held: fun's intermediates are freed."""
    body, _, refs = _body_factory()
    remat = checkpoint(body)
    _out, pull = vjp(remat, XC, WC)
    gc.collect()
    assert refs[0]() is None, "checkpoint kept an intermediate of fun alive until the backward pass"
    gx, gw = pull(1.0)
    expected = grad(body, argnums=(0, 1))(XC, WC)
    np.testing.assert_allclose(gx, expected[0], rtol=1e-14)
    np.testing.assert_allclose(gw, expected[1], rtol=1e-14)


def test_without_checkpoint_intermediates_are_alive_until_backward():
    """The contrast: a plain vjp saves the intermediate as a residual."""
    body, _, refs = _body_factory()
    _out, pull = vjp(body, XC, WC)
    gc.collect()
    assert refs[0]() is not None
    del pull
    gc.collect()
    assert refs[0]() is None


def test_checkpoint_nested_and_composed():
    inner = checkpoint(lambda x: fnp.sin(x) * 2.0)
    outer = checkpoint(lambda x: fnp.sum(inner(x) ** 2))
    x = np.array([0.2, -0.5])
    np.testing.assert_allclose(grad(outer)(x), 8 * np.sin(x) * np.cos(x), rtol=1e-14)
    np.testing.assert_allclose(grad(grad(lambda x: outer(x)))(0.3), 8 * np.cos(0.6), rtol=1e-14)
