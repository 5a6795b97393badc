"""Complex arrays (issue 17, case 17): on plain complex arrays every fgrad.numpy function
returns exactly what NumPy returns, or raises; a derivative through complex values is the
right one, by JAX's convention (Note [complex derivatives] in fgrad/ops/conversion.py), where
it once raised."""
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.transforms import trees
from tests.op_db import OPS
from tests.op_db_linalg import LINALG

A = np.array([1 + 2j, 3 - 1j])
B = np.array([2 - 1j, 1 + 1j])


def test_vdot_conjugates_its_first_argument():
    assert fnp.vdot(A, B) == np.vdot(A, B)
    assert fnp.vdot(B, A) == np.vdot(B, A)


@pytest.mark.parametrize("kwargs", [{}, {"ord": 2}, {"ord": 1}, {"ord": np.inf}, {"ord": 0}, {"ord": 3}])
def test_vector_norms_of_complex_arrays_are_numpys(kwargs):
    got, expected = fnp.linalg.norm(A, **kwargs), np.linalg.norm(A, **kwargs)
    assert np.asarray(got).dtype == np.asarray(expected).dtype and got == pytest.approx(expected)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 2, 1, np.inf])
def test_matrix_norms_of_complex_arrays_are_numpys(ord):
    m = np.outer(A, B)  # the Frobenius norm of this came out 0j
    got, expected = fnp.linalg.norm(m, ord=ord), np.linalg.norm(m, ord=ord)
    assert np.asarray(got).dtype == np.asarray(expected).dtype and got == pytest.approx(expected)


def _complex(args, rng):
    return tuple(a + 1j * rng.uniform(-1, 1, np.shape(a))
                 if isinstance(a, (np.ndarray, np.floating, float)) and np.asarray(a).dtype.kind == "f" else a
                 for a in args)


@pytest.mark.parametrize("op", OPS + LINALG, ids=str)
def test_every_op_on_plain_complex_arrays_returns_numpys_value_or_raises(op):
    rng = np.random.default_rng(0)
    for args in op.samples(rng):
        cargs = _complex(args, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = op.ref(*cargs, **op.kwargs)
            except Exception:
                expected = None  # NumPy refuses: fgrad must too
            try:
                got = op.fn(*cargs, **op.kwargs)
            except Exception:
                continue  # raising is allowed
        assert expected is not None, f"{op.name}: NumPy refuses complex inputs but fgrad returned {got!r}"
        got_leaves, expected_leaves = trees.flatten(got)[0], trees.flatten(expected)[0]
        assert len(got_leaves) == len(expected_leaves)
        for g, e in zip(got_leaves, expected_leaves):
            assert np.shape(g) == np.shape(e) and np.asarray(g).dtype == np.asarray(e).dtype, op.name
            np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12, err_msg=op.name)


@pytest.mark.parametrize("fun, slope", [
    (lambda x: fnp.abs(x * 1j), 1.0),                   # a rule without conjugates gave -1
    (lambda x: fnp.abs(x * (1 + 1j)) ** 2, 4 * 1.5),    # and 0 here
    (lambda x: fnp.abs(fnp.astype(x, np.complex128)), 1.0),
    (lambda x: fnp.linalg.norm(fnp.stack([x, x]) * 1j), np.sqrt(2.0)),
])
def test_a_derivative_through_complex_values_is_right(fun, slope):
    """The functions that raised while fgrad's rules could not take complex values: real in,
    real out, complex in between; grad and jvp give the true slope."""
    assert fgrad.grad(fun)(1.5) == pytest.approx(slope, rel=1e-12)
    assert fgrad.jvp(fun, (1.5,), (1.0,))[1] == pytest.approx(slope, rel=1e-12)


def test_holomorphic_forward_mode_is_right():
    x = 1.5
    _, t = fgrad.jvp(lambda x: fnp.exp(x * 1j), (x,), (1.0,))
    assert t == pytest.approx(1j * np.exp(1j * x))


def test_real_imag_conj_of_traced_values():
    g = fgrad.grad(lambda x: fnp.sum(x.real * 2.0 + x.imag + x.conj()))(np.ones(2))
    np.testing.assert_array_equal(g, [3.0, 3.0])
    # (x * 1j).real is 0 for real x, and ((x + 2j) * 1j).imag is x: JAX's 0 and 1
    np.testing.assert_array_equal(fgrad.grad(lambda x: fnp.sum((x * 1j).real))(np.ones(2)), [0.0, 0.0])
    np.testing.assert_array_equal(fgrad.grad(lambda x: fnp.sum(((x + 2j) * 1j).imag))(np.ones(2)), [1.0, 1.0])


# ---- special values (issue 17, case 13): JAX's values, not NaN ------------------------------
def test_logaddexp_at_infinities():
    inf = np.inf
    assert fgrad.grad(lambda x: fnp.logaddexp(x, 1.0))(inf) == 1.0
    assert fgrad.grad(lambda x: fnp.logaddexp(x, inf))(1.0) == 0.0
    assert fgrad.grad(lambda x: fnp.logaddexp(x, x))(inf) == 1.0  # each side 1/2: d(x + log 2)/dx
    assert fgrad.grad(lambda x: fnp.logaddexp(x, x))(-inf) == 1.0
    assert fgrad.grad(lambda x: fnp.logaddexp2(x, 0.0))(inf) == 1.0
    # a tie of infinities splits 1/2 each (JAX and torch: nan; docs/sharp-bits.md says why)
    for f in (fnp.logaddexp, fnp.logaddexp2):
        assert fgrad.grad(f, argnums=(0, 1))(-inf, -inf) == (0.5, 0.5)
        assert fgrad.grad(f, argnums=(0, 1))(inf, inf) == (0.5, 0.5)
    fgrad.testing.check_grads(fnp.logaddexp, (np.array([0.3, -1.0]), np.array([2.0, -1.0])), order=2)


def test_hypot_at_the_origin():
    assert fgrad.grad(fnp.hypot, argnums=(0, 1))(0.0, 0.0) == (0.5, 0.5)  # JAX's values
    assert fgrad.grad(lambda x: fnp.hypot(x, 2.0 * x))(0.0) == 1.5
    fgrad.testing.check_grads(fnp.hypot, (np.array([0.3, -1.0]), np.array([2.0, -1.0])), order=2)


def test_real_if_close_returns_the_real_part_only_where_numpy_does():
    z = np.array([1.5, -0.5]) + 1e-15j
    np.testing.assert_array_equal(fnp.real_if_close(z), np.real_if_close(z))
    assert fnp.real_if_close(np.array([1.0 + 1e-3j])).dtype == np.complex128
    # (close: the real part, differentiable; not close: the complex value itself)
    close = fgrad.grad(lambda x: fnp.sum(fnp.real_if_close(x + 1e-15j) ** 2))(np.array([1.5, -0.5]))
    np.testing.assert_allclose(close, [3.0, -1.0])
    far = fgrad.grad(lambda x: fnp.sum(fnp.abs(fnp.real_if_close(x + 1e-3j)) ** 2))(np.array([1.5, -0.5]))
    np.testing.assert_allclose(far, [3.0, -1.0])
    assert fgrad.jvp(lambda x: fnp.real_if_close(x + 1e-3j), (np.ones(1),), (np.ones(1),))[0].dtype.kind == "c"
    assert fgrad.jvp(lambda x: fnp.real_if_close(x + 0j, tol=1e-20), (np.ones(1),), (np.ones(1),))[0].dtype.kind == "f"
    real = np.array([1.0, 2.0])
    assert fgrad.grad(lambda x: fnp.sum(fnp.real_if_close(x)))(real).tolist() == [1.0, 1.0]
