"""fgrad.numpy.fft beyond the op table (tests/op_db_fft.py): NumPy's own calls on traced values
reach it, the transposes of rfft and irfft against dense matrices, dtypes, higher order,
NumPy's errors, and the CuPy path."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.testing import check_grads

rng = np.random.default_rng(0)


@pytest.mark.parametrize("call", [
    lambda v: np.sum(np.abs(np.fft.fft(v)) ** 2 * np.arange(6.0)),
    lambda v: np.sum(np.fft.irfft(np.fft.rfft(v, n=8) * np.exp(1j * np.arange(5.0)), n=7) ** 2),
    lambda v: np.sum(np.real(np.fft.fft2(np.outer(v, v), norm="ortho")) * np.arange(36.0).reshape(6, 6)),
    lambda v: np.sum(np.fft.fftshift(np.fft.hfft(v + 1j * v[::-1])) * np.arange(10.0)),
], ids=["fft", "rfft_irfft", "fft2", "hfft_fftshift"])
def test_numpy_calls_on_traced_values_reach_fgrad(call):
    """np.fft.<name>(traced) dispatches (__array_function__) to fgrad.numpy.fft.<name>."""
    x = rng.standard_normal(6)
    g = fgrad.grad(call)(x)
    eps = 1e-6
    fd = np.array([(call(x + eps * e) - call(x - eps * e)) / (2 * eps) for e in np.eye(6)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def _matrix(f, n):
    """The real matrix of the R-linear map f on R^n (complex outputs as [real; imag])."""
    cols = []
    for e in np.eye(n):
        y = np.asarray(f(e))
        cols.append(np.concatenate([y.real, y.imag]) if y.dtype.kind == "c" else y)
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("n", [5, 6])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_the_rfft_cotangent_is_the_transpose_of_its_matrix(n, norm):
    """rfft's vjp (an irfft of conj(g) with the bins irfft counts twice halved) is the transpose
    of rfft's dense matrix, for odd and even lengths (with and without a Nyquist bin)."""
    m = n // 2 + 1
    R = _matrix(lambda x: np.fft.rfft(x, norm=norm), n)  # (2m, n)
    g = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    _, pull = fgrad.vjp(lambda x: fnp.fft.rfft(x, norm=norm), rng.standard_normal(n))
    # under <a, b> = Re(sum a b): the cotangent of x is R^T [Re g; -Im g]
    np.testing.assert_allclose(pull(g)[0], R.T @ np.concatenate([g.real, -g.imag]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [5, 6])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_the_irfft_cotangent_is_the_transpose_of_its_matrix(n, norm):
    m = n // 2 + 1
    # irfft as a map of the 2m reals (Re c, Im c)
    A = np.stack([np.fft.irfft(e[:m] + 1j * e[m:], n=n, norm=norm) for e in np.eye(2 * m)], axis=1)
    g = rng.standard_normal(n)
    c = rng.standard_normal(m) + 1j * rng.standard_normal(m)
    _, pull = fgrad.vjp(lambda c: fnp.fft.irfft(c, n=n, norm=norm), c)
    got = pull(g)[0]
    want = A.T @ g
    np.testing.assert_allclose(np.concatenate([got.real, -got.imag]), want, rtol=1e-12, atol=1e-12)


def test_single_precision_stays_single():
    x = rng.standard_normal((4, 6)).astype(np.float32)
    for y in (fnp.fft.fft(x), fnp.fft.rfft(x), fnp.fft.rfftn(x), fnp.fft.fft2(x.astype(np.complex64))):
        assert y.dtype == np.complex64
    assert fnp.fft.irfft(fnp.fft.rfft(x)).dtype == np.float32
    g = fgrad.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.rfft2(x)) ** 2))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, fgrad.grad(lambda x: fnp.sum(fnp.abs(fnp.fft.rfft2(x)) ** 2))(
        x.astype(np.float64)), rtol=1e-4, atol=1e-3)


def test_integer_input_is_transformed_in_double_precision():
    assert fnp.fft.fft(np.arange(4)).dtype == np.fft.fft(np.arange(4)).dtype
    np.testing.assert_allclose(fnp.fft.rfft(np.arange(5)), np.fft.rfft(np.arange(5)))


def test_hessian_and_jvp_of_grad_of_a_spectral_loss():
    """Second order: the Hessian of a power spectrum's weighted energy (a quadratic form, so
    constant) against finite differences, and forward over reverse."""
    w = np.arange(1.0, 6.0)

    def loss(x):
        return fnp.sum(w * fnp.abs(fnp.fft.rfft(x, n=8)) ** 2) + fnp.sum(fnp.fft.irfft(fnp.fft.fft(x) ** 2, n=6))
    x = rng.standard_normal(6)
    check_grads(loss, (x,), order=3, modes=("fwd", "rev"))
    H = fgrad.hessian(loss)(x)
    v = rng.standard_normal(6)
    _, hv = fgrad.jvp(fgrad.grad(loss), (x,), (v,))
    np.testing.assert_allclose(H @ v, hv, rtol=1e-10, atol=1e-10)


def test_vmap_of_grad_over_a_batch_of_signals():
    xs = rng.standard_normal((3, 2, 8))

    def loss(x):
        return fnp.sum(fnp.abs(fnp.fft.rfftn(x, axes=(0, 1), norm="ortho")) ** 2 * np.arange(5.0))
    got = fgrad.vmap(fgrad.grad(loss), in_axes=2, out_axes=1)(np.moveaxis(xs, 0, 2))
    want = np.stack([fgrad.grad(loss)(x) for x in xs], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_compiled_gradient_replays():
    def loss(x):
        return fnp.sum(fnp.fft.irfft2(fnp.fft.rfft2(x) * np.exp(-np.arange(3.0)), s=(4, 4)) ** 2)
    compiled = fgrad.compile(fgrad.grad(loss))
    compiled(rng.standard_normal((4, 4)))
    x = rng.standard_normal((4, 4))
    np.testing.assert_allclose(compiled(x), fgrad.grad(loss)(x), rtol=1e-12, atol=1e-12)
    assert compiled.cache_info().misses == 1


def test_fftfreq_and_rfftfreq():
    np.testing.assert_allclose(fnp.fft.fftfreq(7, 0.25), np.fft.fftfreq(7, 0.25))
    np.testing.assert_allclose(fnp.fft.rfftfreq(8), np.fft.rfftfreq(8))
    assert fgrad.grad(lambda d: fnp.sum(fnp.fft.rfftfreq(8, d) ** 2))(0.5) == pytest.approx(
        -2 * np.sum(np.fft.rfftfreq(8) ** 2) / 0.5 ** 3)


@pytest.mark.parametrize("call, error, message", [
    (lambda: fnp.fft.fft(np.ones(4), norm="unitary"), ValueError, "invalid norm value 'unitary'"),
    (lambda: fnp.fft.rfft(np.ones(4), n=0), ValueError, r"invalid number of FFT data points \(0\)"),
    (lambda: fnp.fft.irfft(np.ones(1)), ValueError, r"invalid number of FFT data points \(0\)"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), s=(2, -3), axes=(0, 1)), ValueError, "data points"),
    (lambda: fnp.fft.fft(np.ones(4), axis=1), np.exceptions.AxisError, "axis 1 is out of bounds"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), axes=(0, 2)), np.exceptions.AxisError, "axis 2"),
    (lambda: fnp.fft.fftn(np.ones((2, 3)), s=(2,), axes=(0, 1)), ValueError, "shape and axes"),
    (lambda: fnp.fft.fft(np.float64(1.0)), np.exceptions.AxisError, "0-d"),
    (lambda: fnp.fft.rfft(np.ones(4) + 1j), TypeError, "must be real"),
    (lambda: fnp.fft.rfftn(np.ones((2, 3)), axes=()), np.exceptions.AxisError, "no axes"),
    (lambda: fnp.fft.fft(np.ones(4), out=np.ones(4, complex)), TypeError, "out="),
])
def test_bad_arguments_raise_as_numpy(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_repeated_axes_transform_twice_and_s_without_axes_warns_as_numpy():
    x = rng.standard_normal((3, 4))
    np.testing.assert_allclose(fnp.fft.fftn(x, axes=(1, 1)), np.fft.fftn(x, axes=(1, 1)), atol=1e-12)
    with pytest.warns(DeprecationWarning, match="axes"):
        got = fnp.fft.fftn(x, s=(2, 3))
    with pytest.warns(DeprecationWarning):
        want = np.fft.fftn(x, s=(2, 3))
    np.testing.assert_allclose(got, want, atol=1e-12)
    np.testing.assert_allclose(fnp.fft.irfftn(x, s=(3, -1), axes=(0, 1)), np.fft.irfftn(x, s=(3, -1), axes=(0, 1)),
                               atol=1e-12)


@pytest.mark.gpu
def test_cupy_arrays_go_to_cupy_fft():
    """On a GPU the kernels are cupy.fft's: values and gradients stay CuPy arrays and agree with NumPy's."""
    if not fgrad.backend.cupy_available():
        pytest.skip("no CUDA device")
    import cupy
    x = rng.standard_normal((4, 6))

    def loss(x, w):  # (w on x's device: a CPU constant beside a CUDA array is a DeviceMismatchError)
        return fnp.sum(fnp.abs(fnp.fft.rfft2(x, s=(4, 8))) ** 2 * fnp.fft.fftshift(w) +
                       fnp.real(fnp.fft.ifft(fnp.fft.fft(x, axis=0) ** 2, axis=0, norm="ortho")) ** 2)
    g = fgrad.grad(loss)(cupy.asarray(x), cupy.arange(5.0))
    assert isinstance(g, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(g), fgrad.grad(loss)(x, np.arange(5.0)), rtol=1e-10, atol=1e-10)
    y = fnp.fft.irfft(fnp.fft.rfft(cupy.asarray(x), norm="forward"), n=6, norm="forward")
    assert isinstance(y, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(y), x, atol=1e-12)
