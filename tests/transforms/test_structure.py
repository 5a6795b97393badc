"""Shapes of computation and of data: deep chains, fan-out, unused inputs, pytrees,
argnums, has_aux, and the types and dtypes that come back."""
import collections
import math
import sys

import numpy as np
import optree
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.ir.value import Tracer

_Pair = collections.namedtuple("_Pair", "a b")

# ---- deep chains and wide fan-out -----------------------------------------------------------
CHAIN = 50_000  # two primitives per step: a tape of 100,000 nodes


def chain(x):
    for _ in range(CHAIN):
        x = fnp.sin(x) * 1.0001
    return x


def chain_derivative(x):
    """d/dx of `chain`, the product of the local derivatives, in plain floats."""
    d = 1.0
    for _ in range(CHAIN):
        d *= math.cos(x) * 1.0001
        x = math.sin(x) * 1.0001
    return x, d


def test_deep_chain_grad_no_recursion():
    """A 100,000-node tape differentiates, even with little room on the Python stack."""
    value, expected = chain_derivative(0.7)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(len(_stack_depth()) + 150, 300))
    try:
        v, g = fgrad.value_and_grad(chain)(0.7)
    finally:
        sys.setrecursionlimit(limit)
    assert v == pytest.approx(value, rel=1e-12)
    assert g == pytest.approx(expected, rel=1e-9)


def _stack_depth():
    frames, f = [], sys._getframe()
    while f is not None:
        frames.append(f)
        f = f.f_back
    return frames


def test_deep_chain_jvp_and_vjp():
    value, expected = chain_derivative(0.3)
    y, t = fgrad.jvp(chain, (0.3,), (1.0,))
    assert y == pytest.approx(value, rel=1e-12) and t == pytest.approx(expected, rel=1e-9)
    y, pull = fgrad.vjp(chain, 0.3)
    (ct,) = pull(2.0)
    assert ct == pytest.approx(2.0 * expected, rel=1e-9)


def test_deep_chain_of_arrays():
    x0 = np.linspace(-1.0, 1.0, 4)

    def f(x):
        for _ in range(CHAIN // 2):
            x = fnp.tanh(x) + 0.01 * x
        return fnp.sum(x)

    g = fgrad.grad(f)(x0)
    expected = np.ones_like(x0)
    x = x0.copy()
    for _ in range(CHAIN // 2):
        expected *= 1.0 - np.tanh(x) ** 2 + 0.01
        x = np.tanh(x) + 0.01 * x
    np.testing.assert_allclose(g, expected, rtol=1e-9)


def test_wide_fan_out_scalar():
    """One input used 1,000 times: the cotangents accumulate."""
    def f(x):
        total = 0.0
        for i in range(1, 1001):
            total = total + fnp.sin(x) * i
        return total

    x = 0.4
    assert fgrad.grad(f)(x) == pytest.approx(np.cos(x) * 500500, rel=1e-12)
    assert fgrad.jvp(f, (x,), (1.0,))[1] == pytest.approx(np.cos(x) * 500500, rel=1e-12)


def test_wide_fan_out_array_and_second_order():
    x = np.array([0.1, -0.2, 0.3])

    def f(x):
        return fnp.sum(fnp.stack([x ** 2 * (i % 7) for i in range(1000)]))

    weight = sum(i % 7 for i in range(1000))
    np.testing.assert_allclose(fgrad.grad(f)(x), 2 * x * weight, rtol=1e-12)
    np.testing.assert_allclose(fgrad.hessian(f)(x), 2 * weight * np.eye(3), rtol=1e-12)


def test_fan_out_into_many_outputs():
    x = np.array([0.5, 1.5])
    outs = lambda x: [x * k for k in range(1000)]  # noqa: E731
    cts = [np.full(2, 1.0) for _ in range(1000)]
    (g,) = fgrad.vjp(outs, x)[1](cts)
    np.testing.assert_allclose(g, np.full(2, 499500.0))


# ---- unused inputs ---------------------------------------------------------------------------
def test_unused_inputs_get_zeros_of_their_shape_and_dtype():
    x = np.array([1.0, 2.0])
    y = np.ones((2, 3), np.float32)
    z = np.float64(3.0)
    gx, gy, gz = fgrad.grad(lambda x, y, z: fnp.sum(x ** 2), argnums=(0, 1, 2))(x, y, z)
    np.testing.assert_array_equal(gx, 2 * x)
    assert isinstance(gy, np.ndarray) and gy.shape == (2, 3) and gy.dtype == np.float32 and not gy.any()
    assert np.shape(gz) == () and np.asarray(gz).dtype == np.float64 and gz == 0.0


def test_unused_input_in_every_transform():
    x, y = np.array([1.0, 2.0]), np.ones(3, np.float32)
    f = lambda x, y: x * 2.0  # noqa: E731
    _, pull = fgrad.vjp(f, x, y)
    _gx, gy = pull(np.ones(2))
    assert gy.shape == (3,) and gy.dtype == np.float32 and not gy.any()
    jf = fgrad.jacfwd(f, argnums=1)(x, y)
    jr = fgrad.jacrev(f, argnums=1)(x, y)
    assert jf.shape == jr.shape == (2, 3) and not jf.any() and not jr.any()
    assert jr.dtype == np.float32  # reverse mode: cotangents take the input's dtype
    _, t = fgrad.jvp(lambda y: x * 2.0, (y,), (np.ones(3, np.float32),))
    assert t.shape == (2,) and not t.any()


def test_output_that_ignores_all_inputs():
    g = fgrad.grad(lambda x: fnp.sum(np.ones(3)))(np.ones(3))
    assert isinstance(g, np.ndarray) and g.shape == (3,) and not g.any()
    j = fgrad.jacrev(lambda x: np.ones(2))(np.ones(3))
    assert j.shape == (2, 3) and not j.any()
    j = fgrad.jacfwd(lambda x: np.ones(2))(np.ones(3))
    assert j.shape == (2, 3) and not j.any()


def test_unused_python_float_input_gives_float_zero():
    gx, gy = fgrad.grad(lambda x, y: x * 2.0, argnums=(0, 1))(1.0, 2.0)
    assert isinstance(gx, float) and isinstance(gy, float)


# ---- pytrees in and out ----------------------------------------------------------------------
def test_grad_of_nested_pytree_keeps_structure_and_none():
    params = {"w": np.array([[1.0, 2.0], [3.0, 4.0]]), "b": (np.array([0.5, -0.5]), None), "n": None,
              "layers": [np.array([1.0]), {"s": 2.0}]}

    def loss(p):
        h = p["w"] @ p["b"][0] + p["layers"][0]
        return fnp.sum(h ** 2) * p["layers"][1]["s"]

    g = fgrad.grad(loss)(params)
    assert set(g) == {"w", "b", "n", "layers"}
    assert g["n"] is None and g["b"][1] is None and isinstance(g["b"], tuple) and isinstance(g["layers"], list)
    h = params["w"] @ params["b"][0] + params["layers"][0]
    np.testing.assert_allclose(g["w"], 2 * 2.0 * np.outer(h, params["b"][0]))
    np.testing.assert_allclose(g["b"][0], 2 * 2.0 * params["w"].T @ h)
    np.testing.assert_allclose(g["layers"][0], 4.0 * h.sum(keepdims=True))
    assert g["layers"][1]["s"] == pytest.approx(np.sum(h ** 2))


def test_vjp_and_jvp_with_pytree_outputs():
    x = np.array([1.0, 2.0])

    def f(x):
        return {"a": x * 2.0, "b": (fnp.sum(x ** 2), None), "c": [fnp.sin(x)]}

    out, pull = fgrad.vjp(f, x)
    assert out["b"][1] is None and isinstance(out["c"], list)
    ct = {"a": np.ones(2), "b": (np.float64(1.0), None), "c": [np.array([1.0, 0.0])]}
    (g,) = pull(ct)
    np.testing.assert_allclose(g, 2.0 + 2 * x + np.array([np.cos(1.0), 0.0]))
    _, t = fgrad.jvp(f, (x,), (np.array([1.0, 0.0]),))
    np.testing.assert_allclose(t["a"], [2.0, 0.0])
    assert t["b"][0] == pytest.approx(2.0) and t["b"][1] is None
    np.testing.assert_allclose(t["c"][0], [np.cos(1.0), 0.0])


@pytest.mark.parametrize("make, kind", [
    (lambda a, b: a, np.ndarray),
    (lambda a, b: (a, b), tuple),
    (lambda a, b: [a, b], list),
    (lambda a, b: (a, None), tuple),
    (lambda a, b: _Pair(a, b), _Pair),
    (lambda a, b: (a, (b,)), tuple),
])
def test_jvp_keeps_the_output_structure(make, kind):
    # One array or a flat tuple of them skip optree (trees.flatten_out); every other
    # structure goes through it. Both must give back exactly what the function returned.
    x, t = np.array([1.0, 2.0]), np.array([1.0, -1.0])
    out, tan = fgrad.jvp(lambda x: make(x * 3.0, fnp.sum(x)), (x,), (t,))
    for value in (out, tan):
        assert type(value) is kind
    want_out, want_tan = make(x * 3.0, np.sum(x)), make(t * 3.0, np.sum(t))
    for got, want in ((out, want_out), (tan, want_tan)):
        got_leaves, want_leaves = optree.tree_leaves(got), optree.tree_leaves(want)
        assert len(got_leaves) == len(want_leaves)
        for g, w in zip(got_leaves, want_leaves):
            np.testing.assert_allclose(g, w)


def test_hvp_of_several_primals_and_a_pytree_primal():
    def f(a, p):
        return fnp.sum(a ** 3) * fnp.sum(p["w"] ** 2)

    a, w = np.array([1.0, 2.0]), np.array([0.5, -1.0, 2.0])
    va, vw = np.array([1.0, 0.0]), np.array([0.0, 1.0, 1.0])
    value, (ha, hp) = fgrad.hvp(f, (a, {"w": w}), (va, {"w": vw}))
    assert value == pytest.approx(np.sum(a ** 3) * np.sum(w ** 2))
    sa, sw = np.sum(a ** 3), np.sum(w ** 2)
    # H = [[6 diag(a) sw, 3 a^2 (2 w)^T], [2 w (3 a^2)^T, 2 sa I]]
    np.testing.assert_allclose(ha, 6 * a * va * sw + 3 * a ** 2 * np.dot(2 * w, vw))
    np.testing.assert_allclose(hp["w"], 2 * w * np.dot(3 * a ** 2, va) + 2 * sa * vw)


def test_jacobians_of_pytree_in_and_out():
    p = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0, 5.0])}

    def f(p):
        return {"prod": p["a"][:, None] * p["b"][None, :], "s": fnp.sum(p["a"])}

    for jac in (fgrad.jacfwd, fgrad.jacrev):
        j = jac(f)(p)
        assert j["prod"]["a"].shape == (2, 3, 2) and j["prod"]["b"].shape == (2, 3, 3)
        assert j["s"]["a"].shape == (2,) and j["s"]["b"].shape == (3,)
        np.testing.assert_allclose(j["s"]["a"], [1.0, 1.0])
        np.testing.assert_allclose(j["prod"]["a"][1, 2], [0.0, 5.0])
        np.testing.assert_allclose(j["prod"]["b"][1, 2], [0.0, 0.0, 2.0])


def test_tuple_and_list_arguments_round_trip():
    g = fgrad.grad(lambda t: t[0] * t[1][0] + t[1][1])((2.0, [3.0, 4.0]))
    assert isinstance(g, tuple) and isinstance(g[1], list)
    assert g == (3.0, [2.0, 1.0])


# ---- argnums ---------------------------------------------------------------------------------
def f3(x, y, z):
    return x * y ** 2 * fnp.sin(z)


@pytest.mark.parametrize("argnums,expected", [
    (0, lambda x, y, z: y ** 2 * np.sin(z)),
    (1, lambda x, y, z: 2 * x * y * np.sin(z)),
    (-1, lambda x, y, z: x * y ** 2 * np.cos(z)),
    ((0, 2), lambda x, y, z: (y ** 2 * np.sin(z), x * y ** 2 * np.cos(z))),
    ((-1, 0), lambda x, y, z: (x * y ** 2 * np.cos(z), y ** 2 * np.sin(z))),
    ((1,), lambda x, y, z: (2 * x * y * np.sin(z),)),
])
def test_argnums_forms(argnums, expected):
    args = (1.5, 2.0, 0.3)
    g = fgrad.grad(f3, argnums=argnums)(*args)
    want = expected(*args)
    assert type(g) is type(want) if isinstance(want, tuple) else not isinstance(g, tuple)
    np.testing.assert_allclose(g, want, rtol=1e-14)
    v, g2 = fgrad.value_and_grad(f3, argnums=argnums)(*args)
    assert v == pytest.approx(f3(*args))
    np.testing.assert_allclose(g2, want, rtol=1e-14)
    for jac in (fgrad.jacfwd, fgrad.jacrev):
        np.testing.assert_allclose(jac(f3, argnums=argnums)(*args), want, rtol=1e-14)


def test_argnums_with_keyword_arguments_not_differentiated():
    f = lambda x, y, scale=1.0: fnp.sum(x * y) * scale  # noqa: E731
    g = fgrad.grad(f, argnums=1)(np.ones(2), np.array([1.0, 2.0]), scale=3.0)
    np.testing.assert_allclose(g, [3.0, 3.0])


def test_hessian_with_argnums_tuple():
    def f(x, y):
        return fnp.sum(x ** 2 * y) + fnp.sum(y ** 3)

    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    (hxx, hxy), (hyx, hyy) = fgrad.hessian(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(hxx, np.diag(2 * y))
    np.testing.assert_allclose(hxy, np.diag(2 * x))
    np.testing.assert_allclose(hyx, np.diag(2 * x))
    np.testing.assert_allclose(hyy, np.diag(6 * y))


def test_duplicate_argnums_is_not_silent_nonsense():
    f = lambda x, y: x * y  # noqa: E731
    try:
        g = fgrad.grad(f, argnums=(0, 0))(2.0, 3.0)
    except (TypeError, ValueError) as e:
        assert "argnums" in str(e)
    else:
        assert g == (3.0, 3.0)


# ---- has_aux ---------------------------------------------------------------------------------
def aux_fun(x):
    y = fnp.sum(fnp.sin(x))
    return y, {"square": x ** 2, "label": "ok", "y": y}


def _check_aux(aux, x):
    assert aux["label"] == "ok"
    assert not isinstance(aux["square"], Tracer) and not isinstance(aux["y"], Tracer)
    np.testing.assert_allclose(aux["square"], x ** 2)
    assert aux["y"] == pytest.approx(np.sum(np.sin(x)))


X_AUX = np.array([0.1, 0.2, 0.3])


def test_grad_has_aux():
    g, aux = fgrad.grad(aux_fun, has_aux=True)(X_AUX)
    np.testing.assert_allclose(g, np.cos(X_AUX))
    _check_aux(aux, X_AUX)


def test_value_and_grad_has_aux():
    (v, aux), g = fgrad.value_and_grad(aux_fun, has_aux=True)(X_AUX)
    assert v == pytest.approx(np.sum(np.sin(X_AUX)))
    np.testing.assert_allclose(g, np.cos(X_AUX))
    _check_aux(aux, X_AUX)


def test_vjp_has_aux():
    _out, pull, aux = fgrad.vjp(aux_fun, X_AUX, has_aux=True)
    np.testing.assert_allclose(pull(np.float64(2.0))[0], 2 * np.cos(X_AUX))
    _check_aux(aux, X_AUX)


def test_jvp_has_aux():
    _out, t, aux = fgrad.jvp(aux_fun, (X_AUX,), (np.ones(3),), has_aux=True)
    assert t == pytest.approx(np.sum(np.cos(X_AUX)))
    _check_aux(aux, X_AUX)


def test_jacrev_has_aux():
    j, aux = fgrad.jacrev(aux_fun, has_aux=True)(X_AUX)
    np.testing.assert_allclose(j, np.cos(X_AUX))
    _check_aux(aux, X_AUX)


def test_jacfwd_has_aux():
    j, aux = fgrad.jacfwd(aux_fun, has_aux=True)(X_AUX)
    np.testing.assert_allclose(j, np.cos(X_AUX))
    _check_aux(aux, X_AUX)


def test_has_aux_requires_a_pair():
    with pytest.raises(TypeError, match="has_aux"):
        fgrad.grad(lambda x: x * 2.0, has_aux=True)(1.0)


# ---- types and dtypes that come back ---------------------------------------------------------
def test_python_float_in_float_out():
    f = lambda x: x ** 3 + fnp.sin(x)  # noqa: E731
    g = fgrad.grad(f)(2.0)
    assert isinstance(g, float) and g == pytest.approx(12.0 + np.cos(2.0))
    v, g = fgrad.value_and_grad(f)(2.0)
    assert isinstance(v, float) and isinstance(g, float)
    y, t = fgrad.jvp(f, (2.0,), (1.0,))
    assert isinstance(y, float) and isinstance(t, float)
    (ct,) = fgrad.vjp(f, 2.0)[1](1.0)
    assert isinstance(ct, float)
    assert isinstance(fgrad.grad(fgrad.grad(f))(2.0), float)
    assert isinstance(fgrad.linearize(f, 2.0)[1](1.0), float)


def test_python_float_in_float_out_for_jacobians():
    f = lambda x: x ** 3  # noqa: E731
    assert isinstance(fgrad.jacfwd(f)(2.0), float)
    assert isinstance(fgrad.jacrev(f)(2.0), float)
    assert isinstance(fgrad.hessian(f)(2.0), float)


def test_ndarray_in_ndarray_out():
    x = np.array([1.0, 2.0])
    assert type(fgrad.grad(lambda x: fnp.sum(x ** 2))(x)) is np.ndarray
    assert type(fgrad.jvp(lambda x: x ** 2, (x,), (x,))[1]) is np.ndarray
    assert type(fgrad.jacrev(lambda x: x ** 2)(x)) is np.ndarray
    assert type(fgrad.jacfwd(lambda x: x ** 2)(x)) is np.ndarray


F32 = np.array([0.5, -1.0, 2.0], np.float32)


@pytest.mark.parametrize("name,run", [
    ("grad", lambda: fgrad.grad(lambda x: fnp.sum(fnp.tanh(x) * 2.0))(F32)),
    ("value_and_grad", lambda: fgrad.value_and_grad(lambda x: fnp.sum(x ** 2))(F32)[1]),
    ("vjp", lambda: fgrad.vjp(lambda x: fnp.exp(x), F32)[1](np.ones(3, np.float32))[0]),
    ("jvp", lambda: fgrad.jvp(lambda x: fnp.exp(x) * x, (F32,), (np.ones(3, np.float32),))[1]),
    ("jacfwd", lambda: fgrad.jacfwd(lambda x: fnp.sin(x))(F32)),
    ("jacrev", lambda: fgrad.jacrev(lambda x: fnp.sin(x))(F32)),
    ("hessian", lambda: fgrad.hessian(lambda x: fnp.sum(x ** 3))(F32)),
    ("hvp", lambda: fgrad.hvp(lambda x: fnp.sum(x ** 3), (F32,), (np.ones(3, np.float32),))[1]),
    ("grad_grad", lambda: fgrad.grad(lambda x: fnp.sum(fgrad.grad(lambda y: fnp.sum(y ** 3))(x)))(F32)),
    ("linearize", lambda: fgrad.linearize(lambda x: x ** 2, F32)[1](np.ones(3, np.float32))),
    ("promoting_constant", lambda: fgrad.grad(lambda x: fnp.sum(x * np.ones(3)))(F32)),
])
def test_float32_in_float32_derivatives(name, run):
    out = run()
    assert out.dtype == np.float32, f"{name} gave {out.dtype}"


def test_float64_stays_float64_and_mixed_precision_cotangents():
    x64, x32 = np.ones(2), np.ones(2, np.float32)
    g64, g32 = fgrad.grad(lambda a, b: fnp.sum(a * b), argnums=(0, 1))(x64, x32)
    assert g64.dtype == np.float64 and g32.dtype == np.float32


def test_vjp_function_can_be_called_repeatedly():
    x = np.arange(3.0)
    _, pull = fgrad.vjp(lambda x: fnp.sin(x) * x, x)
    first = pull(np.ones(3))[0]
    second = pull(np.ones(3))[0]
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(pull(2.0 * np.ones(3))[0], 2.0 * first)


def test_hessian_of_dict_input_is_nested_dict():
    h = fgrad.hessian(lambda p: p["a"] ** 2 * p["b"])({"a": 1.0, "b": 2.0})
    assert set(h) == {"a", "b"} and set(h["a"]) == {"a", "b"}
    assert float(h["a"]["a"]) == 4.0 and float(h["a"]["b"]) == 2.0
    assert float(h["b"]["a"]) == 2.0 and float(h["b"]["b"]) == 0.0


def test_empty_arrays():
    assert fgrad.grad(lambda x: fnp.sum(x * 2.0))(np.ones(0)).shape == (0,)
    assert fgrad.jacrev(lambda x: x * 2.0)(np.ones(0)).shape == (0, 0)
    assert fgrad.jacfwd(lambda x: x * 2.0)(np.ones(0)).shape == (0, 0)
