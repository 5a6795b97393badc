"""fgrad.scipy.signal beyond the op table: the cotangent of a convolution is a correlation,
every mode and size against SciPy (directly and through the FFT), vmap's batching cases, and
errors for what fgrad lacks."""
import itertools

import numpy as np
import pytest
import scipy.signal as ss

import fgrad
import fgrad.numpy as fnp
import fgrad.scipy.signal as fss

rng = np.random.default_rng(0)
X, Y = rng.normal(size=7), rng.normal(size=3)


def test_the_cotangent_of_a_convolution_is_a_correlation():
    g = rng.normal(size=9)
    _, pull = fgrad.vjp(lambda x, y: fss.convolve(x, y), X, Y)
    gx, gy = pull(g)
    np.testing.assert_allclose(gx, ss.correlate(g, Y, mode="valid"), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gy, ss.correlate(g, X, mode="valid"), rtol=1e-12, atol=1e-12)


def _by_fft(fn):
    def by_fft(a, b, mode):
        return fn(a, b, mode, method="fft")
    by_fft.__name__ = f"{fn.__name__}_fft"
    return by_fft


FUNCTIONS = [(fss.convolve, ss.convolve), (fss.correlate, ss.correlate), (fss.convolve2d, ss.convolve2d),
             (fss.correlate2d, ss.correlate2d), (fss.fftconvolve, ss.fftconvolve),
             (_by_fft(fss.convolve), _by_fft(ss.convolve)), (_by_fft(fss.correlate), _by_fft(ss.correlate))]
SIZES = [1, 2, 3, 4]


@pytest.mark.parametrize("fns", FUNCTIONS, ids=lambda f: f[0].__name__)
def test_every_mode_and_size_matches_scipy(fns):
    """2-D arrays of every combination of sizes 1..4 (odd and even, either input larger): the
    centring of 'same', the swap of 'valid', and the shapes SciPy refuses."""
    ours, theirs = fns
    for s1, s2 in itertools.product(itertools.product(SIZES, repeat=2), repeat=2):
        a, b = rng.normal(size=s1), rng.normal(size=s2)
        for mode in ("full", "same", "valid"):
            try:
                want = theirs(a, b, mode)
            except ValueError:
                with pytest.raises(ValueError, match="valid"):
                    ours(a, b, mode)
                continue
            np.testing.assert_allclose(ours(a, b, mode), want, rtol=1e-12, atol=1e-12, err_msg=f"{s1} {s2} {mode}")


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (0, None), (1, 0)])
def test_vmap_over_either_or_both_inputs(mode, in_axes):
    """Each batching case of the primitive's rule: one input batched (a length-1 axis on the other),
    or both, or y alone in 'valid' mode (one convolution per example)."""
    xs, ys = rng.normal(size=(3, 6, 5)), rng.normal(size=(3, 2, 3))
    x_in = xs if in_axes[0] == 0 else np.moveaxis(xs, 0, 1) if in_axes[0] == 1 else xs[0]
    y_in = ys if in_axes[1] == 0 else ys[0]
    got = fgrad.vmap(lambda x, y: fss.correlate(x, y, mode), in_axes=in_axes)(x_in, y_in)
    want = np.stack([ss.correlate(xs[i] if in_axes[0] is not None else xs[0],
                                  ys[i] if in_axes[1] is not None else ys[0], mode) for i in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_gradient_of_a_loss_through_convolve2d_matches_finite_differences():
    image, kernel = rng.normal(size=(5, 6)), rng.normal(size=(3, 3))

    def loss(image, kernel):
        return fnp.sum(fnp.tanh(fss.convolve2d(image, kernel, mode="same")) ** 2)
    fgrad.testing.check_grads(loss, (image, kernel), order=2)


def test_integer_inputs_give_scipys_integers():
    np.testing.assert_array_equal(fss.convolve([1, 2, 3], [0, 1]), ss.convolve([1, 2, 3], [0, 1]))


# ---- through the FFT --------------------------------------------------------------------------------
def test_fftconvolve_over_some_axes_broadcasts_the_others_and_takes_complex_inputs():
    a = rng.normal(size=(3, 7, 5)) + 1j * rng.normal(size=(3, 7, 5))
    b = rng.normal(size=(1, 3, 5))
    for axes in (None, [1], (1, 2), 1):
        for mode in ("full", "same", "valid"):
            np.testing.assert_allclose(fss.fftconvolve(a, b, mode, axes=axes), ss.fftconvolve(a, b, mode, axes=axes),
                                       rtol=1e-12, atol=1e-12)
    fgrad.testing.check_grads(lambda a, b: fss.fftconvolve(a, b, "same", axes=1), (a, b), order=2)


def test_the_gradient_through_the_fft_is_the_direct_one():
    image, kernel = rng.normal(size=(6, 5)), rng.normal(size=(3, 2))
    for mode in ("full", "same", "valid"):
        def loss(image, kernel, method):
            return fnp.sum(fnp.tanh(fss.correlate(image, kernel, mode, method=method)) ** 2)
        by_fft = fgrad.grad(loss, argnums=(0, 1))(image, kernel, "fft")
        direct = fgrad.grad(loss, argnums=(0, 1))(image, kernel, "direct")
        for a, b in zip(by_fft, direct):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_integer_inputs_by_fft_give_scipys_integers():
    got, want = fss.convolve([1, 2, 3], [0, 1], method="fft"), ss.convolve([1, 2, 3], [0, 1], method="fft")
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(fss.fftconvolve([1, 2, 3], [0, 1]), ss.fftconvolve([1, 2, 3], [0, 1]), atol=1e-12)


# ---- what fgrad does not provide raises, naming it -------------------------------------------------

@pytest.mark.parametrize("fn", [fss.convolve2d, fss.correlate2d])
@pytest.mark.parametrize("boundary", ["wrap", "symm", "circular", "symmetric"])
def test_boundaries_other_than_fill_raise(fn, boundary):
    with pytest.raises(NotImplementedError, match=f"boundary='{boundary}'"):
        fn(np.ones((3, 3)), np.ones((2, 2)), boundary=boundary)


def test_nonzero_fillvalue_raises():
    with pytest.raises(NotImplementedError, match=r"fillvalue=1\.5"):
        fss.convolve2d(np.ones((3, 3)), np.ones((2, 2)), fillvalue=1.5)
    np.testing.assert_allclose(fss.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="pad"),
                               ss.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="pad"))


@pytest.mark.parametrize("call, error, message", [
    (lambda: fss.convolve(X, Y, mode="middle"), ValueError, "mode"),
    (lambda: fss.convolve(X, Y, method="fast"), ValueError, "method"),
    (lambda: fss.convolve(X, np.ones((2, 2))), ValueError, "same dimensionality"),
    (lambda: fss.convolve2d(X, Y), ValueError, "2-D"),
    (lambda: fss.convolve2d(np.ones((3, 3)), np.ones((2, 2)), boundary="edge"), ValueError, "boundary"),
    (lambda: fss.convolve(np.ones((2, 5)), np.ones((3, 2)), mode="valid"), ValueError, "at least as large"),
    (lambda: fss.correlate(X + 1j, Y), TypeError, "complex"),
    (lambda: fss.convolve(X + 1j, Y, method="fft"), TypeError, "complex"),
    (lambda: fss.fftconvolve(X, Y, mode="middle"), ValueError, "mode"),
    (lambda: fss.fftconvolve(X, np.ones((2, 2))), ValueError, "same dimensionality"),
    (lambda: fss.fftconvolve(np.ones((2, 5)), np.ones((3, 2)), mode="valid"), ValueError, "at least as large"),
    (lambda: fss.fftconvolve(np.ones((2, 5)), np.ones((3, 2)), axes=1), ValueError, "incompatible shapes"),
    (lambda: fss.fftconvolve(X, Y, axes=[]), ValueError, "cannot be empty"),
    (lambda: fss.fftconvolve(X, Y, axes=[0, 0]), ValueError, "unique"),
    (lambda: fss.fftconvolve(X, Y, axes=2), ValueError, "exceed"),
])
def test_invalid_arguments_raise(call, error, message):
    with pytest.raises(error, match=message):
        call()
