"""var and std with ddof at or past the count divide by max(N - ddof, 0), as NumPy's: inf (NaN
for a constant slice), where var divided by N - ddof < 0 and returned a negative variance without
an error (var([1, 2, 4], ddof=4) gave -4.67). Plain, compiled, and the Tensor face's correction=."""
import warnings

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


@pytest.mark.parametrize("ddof", [0, 1, 2, 3, 4, 5.5])
def test_var_and_std_as_numpy(ddof):
    rng = np.random.default_rng(7)
    for a in [rng.standard_normal(3), rng.standard_normal((2, 3)), np.ones((3, 2))]:
        for axis in (None, 0, -1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's degrees-of-freedom warning)
                for f, g in [(fnp.var, np.var), (fnp.std, np.std)]:
                    want = g(a, ddof=ddof, axis=axis)
                    np.testing.assert_allclose(f(a, ddof=ddof, axis=axis), want, equal_nan=True)
                    np.testing.assert_allclose(fgrad.compile(lambda a, f=f, ax=axis: f(a, ddof=ddof, axis=ax))(a),
                                               want, equal_nan=True)


def test_tensor_var_with_a_correction_past_n_is_torchs_inf():
    torch = pytest.importorskip("torch")
    m = np.arange(6.0).reshape(2, 3)
    for correction in (3, 4):
        np.testing.assert_array_equal(fgrad.tensor(m).var(dim=1, correction=correction).numpy(),
                                      torch.tensor(m).var(dim=1, correction=correction).numpy())


@pytest.mark.parametrize("ddof", [0, 1, 2, 3, 5, 9])
def test_cov_with_ddof_past_the_observations_as_numpy(ddof):
    """cov divided by N - ddof < 0 too (cov([1, 2, 4], ddof=5) gave -2.33 where NumPy's is inf)."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3))
    fw, aw = np.array([1, 2, 1]), np.array([0.5, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for kw in [{}, {"fweights": fw}, {"aweights": aw}, {"fweights": fw, "aweights": aw}]:
            np.testing.assert_allclose(fnp.cov(x, ddof=ddof, **kw), np.cov(x, ddof=ddof, **kw), equal_nan=True)
        np.testing.assert_allclose(fnp.cov([1.0, 2.0, 4.0], ddof=ddof), np.cov([1.0, 2.0, 4.0], ddof=ddof),
                                   equal_nan=True)
