"""Broadcasting under every mode, on random mutually broadcastable shapes (hypothesis):
cotangents come back summed to each input's shape and dtype, tangents broadcast out."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

SHAPES = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3)
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None)


def unbroadcast(g, shape):
    """Sum `g` over the axes that broadcasting added to or stretched in `shape`."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g


def values(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.uniform(-1.0, 1.0, s), dtype=dtype) for s in shapes]


def f(a, b):
    return fnp.sin(a) * b + a / (2.0 + b ** 2)


def df_da(a, b):
    return np.cos(a) * b + 1.0 / (2.0 + b ** 2)


def df_db(a, b):
    return np.sin(a) - 2.0 * a * b / (2.0 + b ** 2) ** 2


@SETTINGS
@given(SHAPES, st.sampled_from([np.float64, np.float32]), st.integers(0, 2 ** 16))
def test_vjp_sums_cotangents_back_to_input_shapes(shapes, dtype, seed):
    a, b = values(shapes.input_shapes, dtype, seed)
    out, pull = fgrad.vjp(f, a, b)
    assert np.shape(out) == shapes.result_shape
    ct = np.asarray(np.random.default_rng(seed + 1).standard_normal(shapes.result_shape), dtype=np.asarray(out).dtype)
    ga, gb = pull(ct)
    assert np.shape(ga) == np.shape(a) and np.shape(gb) == np.shape(b)
    assert np.asarray(ga).dtype == dtype and np.asarray(gb).dtype == dtype
    tol = 1e-12 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(ga, unbroadcast(ct * df_da(a, b), a.shape), rtol=tol, atol=tol)
    np.testing.assert_allclose(gb, unbroadcast(ct * df_db(a, b), b.shape), rtol=tol, atol=tol)


@SETTINGS
@given(SHAPES, st.integers(0, 2 ** 16))
def test_grad_of_broadcast_sum(shapes, seed):
    a, b = values(shapes.input_shapes, np.float64, seed)
    ga, gb = fgrad.grad(lambda a, b: fnp.sum(f(a, b)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, unbroadcast(np.broadcast_to(df_da(a, b), shapes.result_shape), a.shape),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gb, unbroadcast(np.broadcast_to(df_db(a, b), shapes.result_shape), b.shape),
                               rtol=1e-12, atol=1e-14)


@SETTINGS
@given(SHAPES, st.integers(0, 2 ** 16))
def test_jvp_broadcasts_tangents(shapes, seed):
    a, b = values(shapes.input_shapes, np.float64, seed)
    ta, tb = values(shapes.input_shapes, np.float64, seed + 7)
    _out, t = fgrad.jvp(f, (a, b), (ta, tb))
    assert np.shape(t) == shapes.result_shape
    np.testing.assert_allclose(t, df_da(a, b) * ta + df_db(a, b) * tb, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("op", ["add", "rsub", "mul", "neg_add"])
def test_jvp_fits_a_tangent_to_a_wider_output(op):
    """A float32 (3,) input meets a float64 (2, 3) constant: the output tangent takes the
    output's shape and dtype, whether the partial is 1, -1 or an array (forward mode's
    elementwise path applies partials inline, then fits)."""
    a, ta, b = np.arange(3, dtype=np.float32), np.full(3, 0.5, np.float32), np.full((2, 3), 2.0)
    fn = {"add": lambda a: a + b, "rsub": lambda a: b - a, "mul": lambda a: a * b, "neg_add": lambda a: -a + b}[op]
    slope = {"add": 1.0, "rsub": -1.0, "mul": 2.0, "neg_add": -1.0}[op]
    out, t = fgrad.jvp(fn, (a,), (ta,))
    assert t.shape == out.shape == (2, 3) and t.dtype == out.dtype == np.float64
    np.testing.assert_array_equal(t, np.full((2, 3), 0.5 * slope))


@SETTINGS
@given(SHAPES, st.integers(0, 2 ** 16))
def test_jacobians_of_broadcasting_agree(shapes, seed):
    a, b = values(shapes.input_shapes, np.float64, seed)
    jf = fgrad.jacfwd(f, argnums=(0, 1))(a, b)
    jr = fgrad.jacrev(f, argnums=(0, 1))(a, b)
    for x, j1, j2 in zip((a, b), jf, jr):
        assert j1.shape == shapes.result_shape + x.shape
        np.testing.assert_allclose(j1, j2, rtol=1e-12, atol=1e-14)


@SETTINGS
@given(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), st.integers(0, 2 ** 16))
def test_reductions_with_random_axes_and_keepdims(shape, seed):
    x = values([shape], np.float64, seed)[0]
    rng = np.random.default_rng(seed)
    axis = int(rng.integers(-len(shape), len(shape)))
    keepdims = bool(rng.integers(0, 2))

    def h(x):
        return fnp.sum(fnp.mean(x ** 2, axis=axis, keepdims=keepdims) * fnp.sum(x, axis=axis, keepdims=keepdims))

    n = shape[axis]
    m = np.mean(x ** 2, axis=axis, keepdims=True)
    s = np.sum(x, axis=axis, keepdims=True)
    expected = 2 * x / n * s + m
    np.testing.assert_allclose(fgrad.grad(h)(x), expected, rtol=1e-12, atol=1e-14)
