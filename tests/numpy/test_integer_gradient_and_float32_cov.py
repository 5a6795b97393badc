"""gradient of an integer array (and integer coordinates) computes in float64, as NumPy's: an
unsigned difference wrapped (gradient of uint8 [1, 2, 0] gave 127.5 and 254 where NumPy's is
-0.5 and -2). cov and corrcoef of float32 data compute in float64, as NumPy's (fgrad's were
float32, less accurate than NumPy's). Against NumPy, and the float32 input's gradient."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int8, np.int64])
def test_gradient_of_integers_as_numpy(dtype):
    f = np.array([[1, 2, 0, 7], [3, 3, 9, 1]], dtype)
    x = np.array([0, 2, 3, 7], dtype)
    for args, kw in [((), {}), ((2,), {}), ((x,), {"axis": 1}), ((), {"edge_order": 2, "axis": 1})]:
        got, want = fnp.gradient(f, *args, **kw), np.gradient(f, *args, **kw)
        for g, w in zip(got if isinstance(got, tuple) else [got], want if isinstance(want, tuple) else [want]):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w)


@pytest.mark.parametrize("name", ["cov", "corrcoef"])
def test_cov_and_corrcoef_of_float32_as_numpy(name):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 50)).astype(np.float32)
    got, want = getattr(fnp, name)(x), getattr(np, name)(x)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12)
    g = fgrad.grad(lambda x: fnp.sum(getattr(fnp, name)(x) ** 2))(x)
    assert g.dtype == np.float32  # (the input's cotangent is in the input's dtype)
