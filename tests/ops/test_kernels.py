"""Kernel-level shortcuts of the primitives: each must give what the plain kernels give."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.ops import broadcasting as bc
from fgrad.ops import linalg as la

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("vector_on", ["right", "left"])
def test_matmul_pair_matches_two_products(dtype, vector_on):
    A = RNG.standard_normal((7, 5)).astype(dtype)
    if vector_on == "right":
        x, v = (RNG.standard_normal(5).astype(dtype) for _ in range(2))
        args, tangents, want = (A, x), (None, v), (A @ x, A @ v)
    else:
        x, v = (RNG.standard_normal(7).astype(dtype) for _ in range(2))
        args, tangents, want = (x, A), (v, None), (x @ A, v @ A)
    out, t_out = la._matmul_pair(args, tangents, {})
    # A sum of products in float32 may cancel: the error bound is eps times the sum of |terms|
    # (one BLAS kernel for the pair, another for each product: their roundings differ).
    bound = np.finfo(dtype).eps * 8 * float(np.abs(A).max()) * float(np.abs(np.concatenate([x, v])).max()) * 7
    for got, ref in zip((out, t_out), want):
        assert got.dtype == dtype and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=0, atol=bound)


def test_matmul_pair_declines_what_it_does_not_fuse():
    A, B = RNG.standard_normal((4, 4)), RNG.standard_normal((4, 3))
    x = RNG.standard_normal(4)
    assert la._matmul_pair((A, B), (None, B), {}) is None                       # matrix times matrix
    assert la._matmul_pair((A, x), (A, x), {}) is None                          # both operands traced
    assert la._matmul_pair((A, x), (None, x.astype(np.float32)), {}) is None    # tangent of another dtype


def test_jvp_through_matmul_pairs_agree_with_separate_products():
    A = RNG.standard_normal((6, 6))
    x, v = RNG.standard_normal(6), RNG.standard_normal(6)
    f = lambda x: fnp.tanh(A @ x) @ A  # noqa: E731  (both pair layouts)
    out, t = fgrad.jvp(f, (x,), (v,))
    np.testing.assert_allclose(out, np.tanh(A @ x) @ A, rtol=1e-13)
    np.testing.assert_allclose(t, ((1 - np.tanh(A @ x) ** 2) * (A @ v)) @ A, rtol=1e-12)
    hv = fgrad.hvp(lambda x: fnp.sum(fnp.tanh(A @ x) ** 2), (x,), (v,))[1]
    tt = np.tanh(A @ x) ** 2
    np.testing.assert_allclose(hv, ((2 - 6 * tt) * (1 - tt) * (A @ v)) @ A, rtol=1e-12)


def test_an_op_on_constants_inside_a_transform_runs_its_kernel():
    seen = []

    def f(x):
        c = fnp.sin(np.ones(3))  # no traced argument: a plain array, recorded nowhere
        seen.append(type(c))
        return fnp.sum(x * c)
    g = fgrad.grad(f)(np.zeros(3))
    assert seen == [np.ndarray]
    np.testing.assert_allclose(g, np.sin(np.ones(3)))


@pytest.mark.parametrize("shape", [(3, 4), (100, 100)])  # below and above the size where a copy is made
def test_broadcast_to_value_and_gradient(shape):
    x = RNG.standard_normal(shape[-1:])
    y = bc.broadcast_to(x, shape=shape)
    np.testing.assert_array_equal(y, np.broadcast_to(x, shape))
    g = fgrad.grad(lambda x: fnp.sum(fnp.broadcast_to(x, shape) * 2.0))(x)
    np.testing.assert_allclose(g, np.full(x.shape, 2.0 * shape[0]))
