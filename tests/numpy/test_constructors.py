"""Constructors that accept traced values: fnp.array / fnp.asarray of lists holding them."""
import numpy as np

import fgrad
import fgrad.numpy as fnp


def test_array_of_traced_scalars():
    def f(x, y):
        v = fnp.array([x * y, x + y, 2.0])
        return fnp.sum(v * np.array([1.0, 10.0, 100.0]))
    gx, gy = fgrad.grad(f, argnums=(0, 1))(3.0, 5.0)
    assert (gx, gy) == (5.0 + 10.0, 3.0 + 10.0)


def test_nested_lists_and_ndmin():
    def f(x):
        m = fnp.array([[x, 1.0], [2.0, x * x]])
        return fnp.linalg.det(m)        # x^3 - 2
    assert np.isclose(fgrad.grad(f)(2.0), 12.0)
    assert fnp.array([[1.0, 2.0]], ndmin=3).shape == (1, 1, 2)


def test_array_of_traced_arrays_and_dtype():
    def f(x):
        return fnp.sum(fnp.asarray([x, 2 * x], dtype=np.float64) ** 2)
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(fgrad.grad(f)(x), 10 * x)
    np.testing.assert_allclose(fgrad.jvp(f, (x,), (np.ones(2),))[1], np.sum(10 * x))


def test_plain_lists_stay_plain_numpy():
    out = fnp.array([[1, 2], [3, 4]], dtype=np.float32)
    assert type(out) is np.ndarray and out.dtype == np.float32
    assert type(fnp.asarray([1.0, 2.0])) is np.ndarray


def test_the_like_constructors_keep_the_arrays_dtype_as_numpys():
    """fnp.full_like(int32 array, 2.5) gave 2.5 as float64 (zeros + 2.5), where NumPy fills 2 as
    int32; ones_like of a bool array gave int64 ones."""
    import pytest
    for a in (np.arange(3, dtype=np.int32), np.array([True, False]), np.ones((2, 2), np.float32), 3.0, [1, 2]):
        for name, args in (("full_like", (2.5,)), ("ones_like", ()), ("zeros_like", ()), ("empty_like", ())):
            got, want = getattr(fnp, name)(a, *args), getattr(np, name)(a, *args)
            if name != "empty_like":
                np.testing.assert_array_equal(got, want)
            assert np.asarray(got).dtype == np.asarray(want).dtype and np.shape(got) == np.shape(want), (name, a)
    with pytest.warns(np.exceptions.ComplexWarning):  # (as NumPy: the imaginary part is dropped, with its warning)
        np.testing.assert_array_equal(fnp.full_like(np.ones(2), 1 + 2j), np.ones(2))
    assert fgrad.grad(lambda x: fnp.full_like(np.ones(3), x).sum())(2.0) == 3.0  # (a traced fill: traced result)
