"""The NaN-ignoring reductions in NumPy's dtypes: of integers and bools (which hold no NaN) the
plain reduction's (nansum of ints is int64, nanmax of int8 int8: the NaN fill had made both
float64), of float32 and float16 their own (the count divided them into float64), dtype= as
NumPy computes in it; a slice with no degrees of freedom left is NaN (nanvar with ddof=1 of an
all-NaN slice gave -0.0). Plain, under vmap and compile, and gradients where they exist."""
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

NAMES = ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd", "nancumsum", "nancumprod"]
DTYPES = ["bool", "int8", "int32", "int64", "uint8", "float16", "float32", "float64", "complex64"]
VALUES = {"no_nan": [[1, 2, 3], [4, 0, 1]], "nan": [[1, np.nan, 3], [np.nan, np.nan, np.nan]]}
KWARGS = [{}, {"axis": 0}, {"axis": -1, "keepdims": True}, {"dtype": "float32"}, {"ddof": 1}]


def _accepts(name, kwargs):
    return not (("dtype" in kwargs and name in ("nanmax", "nanmin"))
                or ("keepdims" in kwargs and name.startswith("nancum"))
                or ("ddof" in kwargs and name not in ("nanvar", "nanstd")))


CASES = [(name, dtype, values, kw) for name in NAMES for dtype in DTYPES for values in VALUES
         for kw in range(len(KWARGS)) if _accepts(name, KWARGS[kw])
         and not (values == "nan" and dtype[0] in "biu")
         and not (name in ("nanmax", "nanmin") and dtype == "complex64")]


def _numpy(name, x, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(getattr(np, name)(x, **kwargs))


@pytest.mark.parametrize("name, dtype, values, kw", CASES)
@pytest.mark.parametrize("transform", ["plain", "vmap", "compile"])
def test_nan_reduction_dtype_and_values_match_numpy(name, dtype, values, kw, transform):
    kwargs = KWARGS[kw]
    x = np.array(VALUES[values], dtype)
    want = _numpy(name, x, kwargs)
    f = lambda v: getattr(fnp, name)(v, **kwargs)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if transform == "vmap":
            got, want = np.asarray(fgrad.vmap(f)(np.stack([x, x]))), np.stack([want, want])
        else:
            got = np.asarray((fgrad.compile(f) if transform == "compile" else f)(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = {"float16": 1e-3, "float32": 1e-6, "complex64": 1e-6}.get(dtype, 1e-12)
    if kwargs.get("dtype") == "float32":
        tol = max(tol, 1e-6)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_nansum_of_ints_is_numpys_int64():
    """The issue's case: fgrad.numpy.nansum(np.array([1, 2])) is int64 3, as np.nansum (was float64 3.0)."""
    got = fnp.nansum(np.array([1, 2]))
    assert np.asarray(got).dtype == np.int64 and got == 3
    assert np.asarray(fnp.nansum(np.array([True, True], dtype=bool))).dtype == np.int64
    assert np.asarray(fnp.nansum(np.array([1, 2], dtype=np.uint8))).dtype == np.uint64


@pytest.mark.parametrize("name", ["nanmean", "nanvar", "nanstd", "nansum"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_reduction_gradients_skip_the_nans(name, dtype):
    """The gradient in the reduction's dtype, zero at the NaNs, finite elsewhere (an all-NaN
    slice with ddof=1 included: its NaN comes from the mask, not a 0/0 in the backward pass)."""
    x = np.array([[1.0, np.nan, 3.0, 2.5], [np.nan, np.nan, np.nan, np.nan]], dtype)
    kwargs = {"axis": 1, "ddof": 1} if name in ("nanvar", "nanstd") else {"axis": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        g = fgrad.grad(lambda v: fnp.sum(getattr(fnp, name)(v, **kwargs)[:1]))(x)
    assert g.dtype == x.dtype
    assert np.all(g[:, 1] == 0) and np.all(g[1] == 0) and np.all(np.isfinite(g))
    h, row = 1e-3 if dtype == "float32" else 1e-6, x[0, [0, 2, 3]].astype(np.float64)
    base = {"nanmean": np.mean, "nansum": np.sum, "nanvar": lambda r: np.var(r, ddof=1),
            "nanstd": lambda r: np.std(r, ddof=1)}[name]
    want = [(base(row + h * e) - base(row - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g[0, [0, 2, 3]], want, rtol=1e-3 if dtype == "float32" else 1e-6)
