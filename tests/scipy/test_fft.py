"""fgrad.scipy.fft beyond the op table (tests/op_db_fft.py): inverses, dtypes, the transpose of
the orthonormal transforms, and SciPy's errors (and fgrad's refusal of orthogonalize=False)."""
import numpy as np
import pytest
import scipy.fft as sf

import fgrad
import fgrad.numpy as fnp
import fgrad.scipy.fft as fsf

rng = np.random.default_rng(0)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_idct_inverts_dct_and_dctn(type, norm):
    x = rng.standard_normal((3, 5))
    np.testing.assert_allclose(fsf.idct(fsf.dct(x, type=type, norm=norm), type=type, norm=norm), x, atol=1e-12)
    np.testing.assert_allclose(fsf.idctn(fsf.dctn(x, type=type, norm=norm), type=type, norm=norm), x, atol=1e-12)


@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("n", [5, 6])
def test_the_orthonormal_dct_has_its_inverse_as_gradient(n, type):
    """An orthonormal map's vjp is its inverse: the cotangent of dct(norm='ortho') is idct of it."""
    g = rng.standard_normal(n)
    _, pull = fgrad.vjp(lambda x: fsf.dct(x, type=type, norm="ortho"), rng.standard_normal(n))
    np.testing.assert_allclose(pull(g)[0], sf.idct(g, type=type, norm="ortho"), atol=1e-12)


def test_dtypes_as_scipy():
    x = rng.standard_normal(6).astype(np.float32)
    assert fsf.dct(x).dtype == sf.dct(x).dtype == np.float32
    assert fsf.dct(x + 1j * x).dtype == sf.dct(x + 1j * x).dtype
    np.testing.assert_allclose(fsf.dct(np.arange(5)), sf.dct(np.arange(5)), atol=1e-12)


def test_the_fft_names_are_fgrad_numpys():
    assert fsf.fft is fnp.fft.fft and fsf.irfftn is fnp.fft.irfftn and fsf.fftshift is fnp.fft.fftshift


@pytest.mark.parametrize("call, error, message", [
    (lambda: fsf.dct(np.ones(1), type=1), ValueError, "type 1 needs at least 2 points"),
    (lambda: fsf.dct(np.ones(4), type=5), ValueError, "invalid DCT type"),
    (lambda: fsf.dct(np.ones(4), norm="half"), ValueError, "invalid norm value 'half'"),
    (lambda: fsf.dct(np.ones(4), norm="ortho", orthogonalize=False), NotImplementedError, "orthogonalize"),
    (lambda: fsf.dct(np.ones(4), n=0), ValueError, r"invalid number of data points \(0\)"),
    (lambda: fsf.dct(np.ones(4), axis=1), np.exceptions.AxisError, "axis 1"),
    (lambda: fsf.dctn(np.ones((2, 3)), axes=(1, 1)), ValueError, "unique"),
    (lambda: fsf.dctn(np.ones((2, 3)), s=(2, 3, 4), axes=(0, 1)), ValueError, "same length"),
    (lambda: fsf.dct(np.float64(1.0)), np.exceptions.AxisError, "0-d"),
])
def test_bad_arguments_raise(call, error, message):
    with pytest.raises(error, match=message):
        call()
