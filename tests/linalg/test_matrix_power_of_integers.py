"""matrix_power of an integer (or bool) matrix keeps its dtype for n >= 0, as NumPy's: fgrad's
computed in float64, which rounds products past 2**53 ([[2**40, 1], [1, 1]] squared lost its
exact entries). Negative powers invert, in float64, as NumPy's."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, bool, np.float32, np.float64, np.complex128])
def test_matrix_power_as_numpy(dtype):
    a = np.array([[2, 1], [1, 3]]).astype(dtype)
    for n in (0, 1, 2, 5, -1, -3):
        if n < 0 and dtype in (bool, np.uint8):
            continue
        got, want = fnp.linalg.matrix_power(a, n), np.linalg.matrix_power(a, n)
        assert got.dtype == want.dtype, (n, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_large_integer_products_are_exact():
    b = np.array([[2 ** 40, 1], [1, 1]], dtype=np.int64)
    np.testing.assert_array_equal(fnp.linalg.matrix_power(b, 2), np.linalg.matrix_power(b, 2))
    np.testing.assert_array_equal(fgrad.compile(lambda b: fnp.linalg.matrix_power(b, 2))(b),
                                  np.linalg.matrix_power(b, 2))


def test_the_gradient_of_a_float_power_is_unchanged():
    x = np.array([[2.0, 0.5], [0.0, 1.0]])
    np.testing.assert_allclose(fgrad.grad(lambda x: fnp.sum(fnp.linalg.matrix_power(x, 3)))(x),
                               fgrad.grad(lambda x: fnp.sum(x @ x @ x))(x), rtol=1e-12)
