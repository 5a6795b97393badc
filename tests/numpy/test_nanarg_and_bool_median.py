"""nanargmax/nanargmin of an all-NaN slice raise NumPy's ValueError (had given 0, a wrong index
without an error), under fgrad.compile too (guarded on where the NaNs are); under vmap, where no
example may raise, the slice's index is -1 (JAX's). median and nanmedian of bools are float64,
the mean of the middle values, as NumPy's (had raised TypeError subtracting bools)."""
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

X = np.array([[np.nan, 1.0, 3.0], [np.nan, np.nan, np.nan], [2.0, np.nan, 0.5]])


def _numpy(name, x, **kw):
    try:
        return np.asarray(getattr(np, name)(x, **kw))
    except ValueError as e:
        return e


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("rows", [slice(None), slice(0, 1), slice(1, 2), slice(2, 3)])
@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"axis": 1}, {"axis": -1, "keepdims": True}])
@pytest.mark.parametrize("transform", ["plain", "compile"])
def test_nanarg_matches_numpy(name, dtype, rows, kw, transform):
    x = X[rows].astype(dtype)
    want = _numpy(name, x, **kw)
    f = lambda v: getattr(fnp, name)(v, **kw)  # noqa: E731
    f = fgrad.compile(f) if transform == "compile" else f
    if isinstance(want, ValueError):
        with pytest.raises(ValueError, match="All-NaN slice encountered"):
            f(x)
    else:
        got = np.asarray(f(x))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_nanarg_compiled_is_guarded_on_the_nans():
    f = fgrad.compile(fnp.nanargmax)
    assert int(f(X[0])) == 2
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        f(X[1])
    assert int(f(X[2])) == 0


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg_under_vmap_is_minus_one_for_an_all_nan_slice(name):
    got = np.asarray(fgrad.vmap(getattr(fnp, name))(X))
    want = [getattr(np, name)(row) if not np.isnan(row).all() else -1 for row in X]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "uint8"])
def test_nanarg_of_ints_and_bools_is_argmax(name, dtype):
    x = np.array([[1, 0, 1], [0, 0, 1]], dtype)
    for kw in ({}, {"axis": 0}, {"axis": 1}):
        np.testing.assert_array_equal(np.asarray(getattr(fnp, name)(x, **kw)), getattr(np, name)(x, **kw))


BOOLS = [[True, False, True], [True, False], [[True, False], [True, True]], [[False, False, True], [True, True, False]]]


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("values", range(len(BOOLS)))
@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"axis": -1}, {"axis": -1, "keepdims": True}])
@pytest.mark.parametrize("transform", ["plain", "compile"])
def test_median_of_bools_matches_numpy(name, values, kw, transform):
    x = np.array(BOOLS[values])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(getattr(np, name)(x, **kw))
        f = lambda v: getattr(fnp, name)(v, **kw)  # noqa: E731
        got = np.asarray((fgrad.compile(f) if transform == "compile" else f)(x))
    assert got.dtype == want.dtype == np.float64 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_median_of_bools_under_vmap():
    x = np.array(BOOLS[3])
    np.testing.assert_array_equal(np.asarray(fgrad.vmap(fnp.median)(x)), np.median(x, axis=1))
