"""quantile, percentile and median of a slice that holds a NaN are NaN, as NumPy's: NaN sorts
last, so interpolation below q = 1 read only finite values and gave a finite number (quantile of
[1, 2, nan] at 0 gave 1.0, median of [1, 2, 3, nan] 2.5). Plain, under vmap and under compile."""
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp

CALLS = [(lambda m, a, ax: m.quantile(a, 0.0, axis=ax)), (lambda m, a, ax: m.quantile(a, [0.2, 0.9], axis=ax)),
         (lambda m, a, ax: m.percentile(a, 30.0, axis=ax)), (lambda m, a, ax: m.median(a, axis=ax)),
         (lambda m, a, ax: m.nanquantile(a, 0.3, axis=ax))]


def _numpy(call, a, axis):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (an all-NaN slice's warning)
        return call(np, a, axis)


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_a_nan_makes_its_slice_nan(shape):
    rng = np.random.default_rng(len(shape))
    for _ in range(10):
        a = rng.standard_normal(shape)
        a[rng.random(shape) < 0.2] = np.nan
        for axis in (None, 0, -1):
            for call in CALLS:
                np.testing.assert_allclose(call(fnp, a, axis), _numpy(call, a, axis), equal_nan=True,
                                           err_msg=f"{shape} axis {axis}")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    np.testing.assert_allclose(fgrad.compile(lambda a, c=call, ax=axis: c(fnp, a, ax))(a),
                                               _numpy(call, a, axis), equal_nan=True)


def test_under_vmap_each_row_decides_for_itself():
    rows = np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(fgrad.vmap(lambda r: fnp.quantile(r, 0.3))(rows), [np.nan, 1.6])
    np.testing.assert_allclose(fgrad.vmap(fnp.median)(rows), [np.nan, 2.0])


def test_the_gradient_of_a_finite_slice_is_unchanged():
    x = np.array([4.0, 1.0, 3.0, 2.0])
    np.testing.assert_allclose(fgrad.grad(lambda x: fnp.quantile(x, 0.3))(x), [0.0, 0.1, 0.0, 0.9])
