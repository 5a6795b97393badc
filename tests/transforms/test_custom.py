"""custom_vjp, custom_jvp and checkpoint under every transform and under nesting.

The rules below are deliberately *different* from the true derivative, so a test can
tell whether fgrad used the rule (at the level it should) or differentiated the body.
"""
import functools
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


# ---- results that do not fit (issue 27) ---------------------------------------------------------
def _jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax


def _doubled_sin_fwd(x):
    return fnp.sin(fnp.concatenate([x, x])), x   # an output of shape (6,) for fun's (3,)


def _sin_fwd_float32(x):
    return fnp.astype(fnp.sin(x), np.float32), x


def _sin_fwd_tuple(x):
    return (fnp.sin(x),), x


@pytest.mark.parametrize("fwd, words", [
    (_doubled_sin_fwd, ["fwd (_doubled_sin_fwd) returned an output with shape (6,) and dtype float64",
                        "output has shape (3,) and dtype float64"]),
    (_sin_fwd_float32, ["dtype float32", "shape (3,) and dtype float64"]),
    (_sin_fwd_tuple, ["structure PyTreeSpec((*,))", "structure PyTreeSpec(*)"]),
])
def test_fwd_output_must_be_the_functions(fwd, words):
    @custom_vjp
    def f(x):
        return fnp.sin(x)

    f.defvjp(fwd, lambda x, g: (fnp.cos(x) * g,))
    loss = lambda x: fnp.sum(f(x))  # noqa: E731
    runs = {
        "value_and_grad": lambda: fgrad.value_and_grad(loss)(XV),
        "vjp": lambda: vjp(f, XV),
        "jvp": lambda: jvp(f, (XV,), (XV,)),
        "vmap_grad": lambda: fgrad.vmap(grad(loss))(np.stack([XV, XV])),
        "grad_vmap": lambda: grad(lambda v: fnp.sum(fgrad.vmap(f)(v)))(np.stack([XV, XV])),
        "compile_grad": lambda: fgrad.compile(grad(loss))(XV),
    }
    for name, run in runs.items():
        with pytest.raises(TypeError, match="custom_vjp f: ") as e:
            run()
        assert all(w in str(e.value) for w in words), (name, str(e.value))


def test_jvp_rule_primal_must_be_the_functions():
    @custom_jvp
    def f(x):
        return fnp.sin(x)

    f.defjvp(lambda p, t: (fnp.concatenate([p[0], p[0]]), fnp.concatenate([t[0], t[0]])))
    for run in (lambda: jvp(f, (XV,), (XV,)), lambda: grad(lambda x: fnp.sum(f(x)))(XV),
                lambda: fgrad.vmap(lambda x: jvp(f, (x,), (x,)))(np.stack([XV, XV])),
                lambda: jvp(fgrad.vmap(f), (np.stack([XV, XV]),), (np.stack([XV, XV]),))):
        with pytest.raises(TypeError, match=r"custom_jvp f: the jvp rule returned an output with shape \(6,\)"):
            run()

    @f.defjvp
    def f32(p, t):
        return fnp.astype(fnp.sin(p[0]), np.float32), fnp.astype(t[0], np.float32)
    with pytest.raises(TypeError, match=r"the jvp rule \(f32\) returned an output with shape \(3,\) and dtype "
                                        r"float32, but f's output has shape \(3,\) and dtype float64"):
        jvp(f, (XV,), (XV,))


def test_a_rule_calling_the_function_costs_no_extra_run():
    """fun's output type is learnt where fun runs anyway (the rule calling the function, as JAX's
    examples do); a fwd computing the output itself makes fun run once per type of arguments."""
    calls = []

    @custom_vjp
    def f(x):
        calls.append("f")
        return fnp.sin(x)

    f.defvjp(lambda x: (calls.append("fwd"), (f(x), fnp.cos(x)))[1], lambda c, g: (c * g,))
    for _ in range(3):
        assert grad(f)(0.5) == pytest.approx(np.cos(0.5))
    assert calls == ["fwd", "f"] * 3
    calls.clear()
    f.defvjp(lambda x: (calls.append("fwd"), (fnp.sin(x), fnp.cos(x)))[1], lambda c, g: (c * g,))
    f._fun_types.clear()
    for _ in range(3):
        grad(f)(0.5)
    grad(lambda v: fnp.sum(f(v)))(XV)   # a new type of argument: fun runs once more
    grad(lambda v: fnp.sum(f(v)))(XV)
    assert calls == ["fwd", "f", "fwd", "fwd", "fwd", "f", "fwd"]


def test_an_output_shape_that_depends_on_values_is_not_refused():
    @custom_vjp
    def positive(x):
        return x[x > 0] * 2.0

    positive.defvjp(lambda x: (x[x > 0] * 2.0, x > 0), lambda keep, g: (fnp.where(keep, 3.0, 0.0),))
    np.testing.assert_array_equal(grad(lambda x: fnp.sum(positive(x)))(np.array([1.0, -1.0, 2.0])), [3, 0, 3])
    np.testing.assert_array_equal(grad(lambda x: fnp.sum(positive(x)))(np.array([1.0, 1.0, -2.0])), [3, 3, 0])


def test_bwd_tuple_for_a_dict_argument_raises_as_in_jax():
    @custom_vjp
    def f(p):
        return p["a"] * 2.0 + p["b"] * 3.0

    f.defvjp(lambda p: (f(p), None), lambda _, g: ((g * 2.0, g * 3.0),))   # a tuple: sorted keys would swap
    for run in (lambda: grad(f)({"b": 1.0, "a": 2.0}),
                lambda: fgrad.vmap(grad(f))({"a": XV, "b": XV}),
                lambda: grad(lambda a: fnp.sum(fgrad.vmap(f)({"a": a, "b": a})))(XV)):
        with pytest.raises(TypeError, match=r"custom_vjp f: bwd's cotangent for args\[0\] has structure "
                                            r"PyTreeSpec\(\(\*, \*\)\), but args\[0\] has structure "
                                            r"PyTreeSpec\(\{'a': \*, 'b': \*\}\)"):
            run()
    f.defvjp(lambda p: (f(p), None), lambda _, g: ({"b": g * 3.0, "a": g * 2.0},))
    assert grad(f)({"b": 1.0, "a": 2.0}) == {"a": 2.0, "b": 3.0}


def test_bwd_none_is_a_zero_as_in_jax():
    jax, jnp = _jax(), pytest.importorskip("jax.numpy")

    def build(cv, np_):
        @cv
        def f(p, y):
            return p["a"] * p["b"] * y

        f.defvjp(lambda p, y: (f(p, y), (p, y)), lambda r, g: ({"a": None, "b": g * r[0]["a"]}, None))
        return f
    p = {"a": 2.0, "b": 3.0}
    ours = grad(build(custom_vjp, fnp), argnums=(0, 1))(p, 4.0)
    want = jax.grad(build(jax.custom_vjp, jnp), argnums=(0, 1))(p, 4.0)
    assert ours == ({"a": 0.0, "b": float(want[0]["b"])}, 0.0) and float(want[0]["a"]) == 0.0

    @custom_vjp
    def g(x, y):
        return x * y

    g.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (None, ct * r[0]))
    assert grad(g, argnums=(0, 1))(2.0, 3.0) == (0.0, 2.0)
    assert jvp(g, (2.0, 3.0), (1.0, 1.0))[1] == 2.0                      # transposing bwd
    np.testing.assert_allclose(fgrad.vmap(grad(g, argnums=1))(XV, XV), XV)
    np.testing.assert_allclose(grad(lambda v: fnp.sum(fgrad.vmap(g)(v, v)))(XV), XV)  # only y's part


# ---- defjvps and nondiff_argnums: JAX's custom-derivatives tutorial ----------------------------
def test_defjvps_cells_of_the_jax_tutorial():
    jax, jnp = _jax(), pytest.importorskip("jax.numpy")

    def f_sin_y(cj, np_):
        @cj
        def f(x, y):
            return np_.sin(x) * y
        f.defjvps(lambda x_dot, primal_out, x, y: np_.cos(x) * x_dot * y,
                  lambda y_dot, primal_out, x, y: np_.sin(x) * y_dot)
        return f

    def log1pexp(cj, np_):
        @cj
        def f(x):
            return np_.log(1. + np_.exp(x))
        f.defjvps(lambda t, ans, x: (1 - 1 / (1 + np_.exp(x))) * t)
        return f

    def sqrt_convention(cj, np_):
        @cj
        def f(x):
            return x / (1 + np_.sqrt(x))
        f.defjvps(lambda t, ans, x: ((np_.sqrt(x) + 2) / (2 * (np_.sqrt(x) + 1) ** 2)) * t)
        return f

    def sin(cj, np_):
        @cj
        def f(x):
            return np_.sin(x)
        f.defjvps(lambda t, ans, x: np_.cos(x) * t)
        return f

    def square_y(cj, np_, second=True):
        @cj
        def f(x, y):
            return x ** 2 * y
        f.defjvps(lambda x_dot, primal_out, x, y: 2 * x * y * x_dot,
                  (lambda y_dot, primal_out, x, y: x ** 2 * y_dot) if second else None)
        return f

    def check(build, run):
        ours, want = run(build(custom_jvp, fnp), fgrad), run(build(jax.custom_jvp, jnp), jax)
        for a, b in zip(np.atleast_1d(np.asarray(ours, dtype=float)).ravel(),
                        np.atleast_1d(np.asarray(want, dtype=float)).ravel()):
            assert a == pytest.approx(b, rel=1e-14, abs=1e-300)

    check(f_sin_y, lambda f, t: (f(2., 3.), *t.jvp(f, (2., 3.), (1., 0.)), t.grad(f)(2., 3.)))
    check(log1pexp, lambda f, t: (t.grad(f)(100.), f(3.), t.grad(f)(3.), *t.vmap(t.grad(f))(np.arange(3.))))
    check(sqrt_convention, lambda f, t: t.grad(f)(0.))
    check(sin, lambda f, t: (t.grad(f)(3.), t.grad(t.grad(f))(3.)))
    check(square_y, lambda f, t: (t.grad(f)(2., 3.), t.grad(f, 0)(2., 3.), t.grad(f, 1)(2., 3.)))
    check(lambda cj, np_: square_y(cj, np_, second=False),
          lambda f, t: (t.grad(f)(2., 3.), t.grad(f, 0)(2., 3.), t.grad(f, 1)(2., 3.)))
    assert fgrad.compile(fgrad.grad(log1pexp(custom_jvp, fnp)))(3.) == pytest.approx(1 - 1 / (1 + np.exp(3.)))


def test_defjvps_errors_name_the_rule():
    f = custom_jvp(lambda x, y: x * y)
    f.defjvps(lambda t, ans, x, y: t * y)
    with pytest.raises(TypeError, match=r"defjvps was given 1 rule\(s\), but the function was called with 2"):
        grad(f)(2.0, 3.0)
    f.defjvps(lambda t, ans, x, y: fnp.ones(3), None)
    with pytest.raises(TypeError, match=r"the tangent defjvps' rule for args\[0\] returned for output\[0\] has "
                                        r"shape \(3,\)"):
        grad(f)(2.0, 3.0)
    with pytest.raises(TypeError, match="defjvps cannot be used with nondiff_argnums"):
        custom_jvp(lambda n, x: x, nondiff_argnums=(0,)).defjvps(lambda t, ans, n, x: t)


def test_nondiff_argnums_cells_of_the_jax_tutorial():
    app = custom_jvp(lambda f, x: f(x), nondiff_argnums=(0,))
    app.defjvp(lambda f, primals, tangents: (f(primals[0]), 2. * tangents[0]))
    assert app(lambda x: x ** 3, 3.) == 27.0 and grad(app, 1)(lambda x: x ** 3, 3.) == 2.0

    app2 = custom_jvp(lambda f, x, g: f(g(x)), nondiff_argnums=(0, 2))
    app2.defjvp(lambda f, g, primals, tangents: (f(g(primals[0])), 3. * tangents[0]))
    assert app2(lambda x: x ** 3, 3., lambda y: 5 * y) == 3375.0
    assert grad(app2, 1)(lambda x: x ** 3, 3., lambda y: 5 * y) == 3.0

    appv = custom_vjp(lambda f, x: f(x), nondiff_argnums=(0,))
    appv.defvjp(lambda f, x: (f(x), x), lambda f, x, g: (5 * g,))
    assert appv(lambda x: x ** 2, 4.) == 16.0 and grad(appv, 1)(lambda x: x ** 2, 4.) == 5.0
    np.testing.assert_array_equal(fgrad.vmap(grad(appv, 1), in_axes=(None, 0))(lambda x: x ** 2, XV), [5.0] * 3)


def test_fixed_point_of_the_jax_tutorial():
    """The implicit-function vjp with a function as its nondiff argument (a Python loop for
    JAX's while_loop), against JAX's values."""
    def fixed_point(f, a, x_guess):
        x_prev, x = x_guess, f(a, x_guess)
        while fnp.abs(x_prev - x) > 1e-6:
            x_prev, x = x, f(a, x)
        return x
    fixed_point = custom_vjp(fixed_point, nondiff_argnums=(0,))

    def rev_iter(f, packed, u):
        a, x_star, x_star_bar = packed
        _, vjp_x = vjp(lambda x: f(a, x), x_star)
        return x_star_bar + vjp_x(u)[0]

    def fixed_point_rev(f, res, x_star_bar):
        a, x_star = res
        _, vjp_a = vjp(lambda a: f(a, x_star), a)
        a_bar, = vjp_a(fixed_point(functools.partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
        return a_bar, fnp.zeros_like(x_star)

    fixed_point.defvjp(lambda f, a, x: (lambda s: (s, (a, s)))(fixed_point(f, a, x)), fixed_point_rev)
    newton_sqrt = lambda a: fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)  # noqa: E731
    assert newton_sqrt(2.) == pytest.approx(np.sqrt(2.0))
    assert grad(newton_sqrt)(2.) == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-6)
    assert grad(grad(newton_sqrt))(2.) == pytest.approx(-0.25 * 2.0 ** -1.5, rel=1e-5)


def test_nondiff_arguments_come_in_positional_order():
    seen = []
    f = custom_vjp(lambda a, x, b: x * a * b, nondiff_argnums=(2, 0))
    f.defvjp(lambda a, x, b: (x * a * b, None), lambda s1, s2, _, g: (seen.append((s1, s2)), (g * s1 * s2,))[1])
    assert grad(f, argnums=1)(2.0, 3.0, 5.0) == 10.0 and seen == [(2.0, 5.0)]   # JAX: (a, b)
    h = custom_jvp(lambda a, x, b: x * a * b, nondiff_argnums=(2, 0))
    h.defjvp(lambda a, b, p, t: (p[0] * a * b, t[0] * a * 100.0))
    assert grad(h, argnums=1)(2.0, 3.0, 5.0) == 200.0
    with pytest.raises(TypeError, match="nondiff_argnums must be non-negative ints"):
        custom_vjp(lambda a, x: x, nondiff_argnums=(-2,))


@pytest.mark.parametrize("kind", ["custom_vjp", "custom_jvp"])
def test_a_differentiated_value_as_a_nondiff_argument_raises(kind):
    """JAX raises for custom_vjp and returns zero for custom_jvp; fgrad raises for both."""
    if kind == "custom_vjp":
        power = custom_vjp(lambda n, x: x ** n, nondiff_argnums=(0,))
        power.defvjp(lambda n, x: (x ** n, x), lambda n, x, g: (g * n * x ** (n - 1),))
    else:
        power = custom_jvp(lambda n, x: x ** n, nondiff_argnums=(0,))
        power.defjvp(lambda n, p, t: (p[0] ** n, n * p[0] ** (n - 1) * t[0]))
    with pytest.raises(TypeError, match=rf"{kind} <lambda>: args\[0\] is in nondiff_argnums, but it holds a "
                                        r"value grad differentiates"):
        grad(lambda n: power(n, 2.0))(3.0)
    # a value of an outer level is fine: that level differentiates through the rule
    assert grad(lambda n: grad(lambda x: power(n, x))(2.0))(3.0) == pytest.approx(4.0 + 12.0 * np.log(2.0))


def test_checkpoint_takes_integer_and_non_array_arguments_as_constants():
    # (JAX's checkpoint accepts them; fgrad's raised "can only differentiate ... the int 3")
    f = fgrad.checkpoint(lambda x, n, idx: fnp.sum(x[idx] ** n))
    x, idx = np.array([1.0, 2.0, 3.0]), np.array([0, 2])
    assert np.allclose(fgrad.grad(lambda x: f(x, 3, idx))(x), [3.0, 0.0, 27.0])
    assert np.allclose(fgrad.hessian(lambda x: f(x, 3, idx))(x), np.diag([6.0, 0.0, 18.0]))
    assert np.allclose(fgrad.vmap(fgrad.grad(lambda x: f(x, 2, idx)))(np.stack([x, 2 * x])), [[2, 0, 6], [4, 0, 12]])


def test_checkpoint_takes_a_traced_integer_argument_as_a_constant():
    # (an index batched by vmap is a traced value of integer dtype: not differentiated)
    f = fgrad.checkpoint(lambda x, i: fnp.sum(fnp.take(x, i) ** 2))
    x = np.array([1.0, 2.0, 3.0])
    g = fgrad.vmap(lambda i: fgrad.grad(lambda x: f(x, i))(x))(np.array([[0, 1], [2, 2]]))
    assert np.allclose(g, [[2.0, 4.0, 0.0], [0.0, 0.0, 12.0]])
