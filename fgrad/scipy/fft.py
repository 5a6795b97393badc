"""fgrad.scipy.fft: scipy.fft's discrete cosine transforms, and numpy.fft's transforms under their names.

dct, idct, dctn and idctn of types 1 to 4 (jax.scipy.fft has type 2), with norm None
("backward"), "ortho" and "forward", as SciPy defines them. They are compositions of the FFT
primitives (fgrad/ops/fft.py), so their derivatives, batching and compilation come from
those: along an axis of length N,

    dct-I:    the rfft of x's even extension (length 2 (N - 1)), whose spectrum is real;
    dct-II:   y_k = 2 sum_n x_n cos(pi k (2n + 1) / 2N)  = Re(2 e^(-i pi k / 2N) fft(v)_k);
    dct-III:  x_n = y_0 + 2 sum_(k>0) y_k cos(pi k (2n + 1) / 2N), DCT-II's transpose but for y_0's weight;
    dct-IV:   2 Re of a phase times the FFT of length 2N of x phased (its first N bins),

where v is x reordered (Makhoul's: even entries, then odd ones reversed). The inverse of
type 2 is type 3 and of type 3 type 2, types 1 and 4 their own, scaled by 1 / (the period);
for "ortho" each is made orthonormal, so its inverse is its transpose. Complex input is
transformed in its real and imaginary parts, as SciPy does. orthogonalize= other than its
default is refused with NotImplementedError.

fft, ifft, rfft, irfft, their 2-D and n-D forms, hfft, ihfft, fftfreq, rfftfreq, fftshift
and ifftshift are fgrad.numpy.fft's functions (NumPy's signatures: SciPy's overwrite_x,
workers and plan are not taken).
"""
import math as _math
import operator as _operator

import numpy as _np

from ..numpy import fft as _fnp_fft
from ..numpy._arguments import _as_operand, _on_device_of, _shape
from ..numpy._indexing import take as _take
from ..numpy._math import imag as _imag
from ..numpy._math import real as _real
from ..numpy._shaping import concatenate as _concatenate
from ..numpy.fft import (
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)

__all__ = ["dct", "dctn", "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "idct", "idctn", "ifft", "ifft2",
           "ifftn", "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]


def _along(x, values, axis):
    """The constants `values` (one per entry along `axis`) in x's precision, on x's device,
    shaped to broadcast along `axis` (counted from the end: vmap may add axes in front)."""
    values = _np.asarray(values).reshape((-1,) + (1,) * (x.ndim - 1 - axis))
    kind = values.dtype.kind
    dtype = _np.result_type(x.dtype, _np.complex64 if kind == "c" else _np.float32)
    return _on_device_of(x, values.astype(dtype))


def _even_then_odd(n):
    """Makhoul's order: x's even entries, then its odd ones reversed (a DCT-II of x is then a
    phase times an FFT of length n)."""
    return _np.concatenate([_np.arange(0, n, 2), _np.arange(n - 1 - n % 2, 0, -2)])


def _dct2(x, axis):
    """The unscaled DCT-II of real x along axis."""
    n = _shape(x)[axis]
    phase = 2 * _np.exp(-0.5j * _np.pi * _np.arange(n) / n)
    v = _take(x, _even_then_odd(n), axis=axis)
    return _real(_fnp_fft.fft(v, axis=axis) * _along(x, phase, axis))


def _dct3(y, axis):
    """The unscaled DCT-III of real y along axis: DCT-II's transpose with y_0 weighted 1/2, so
    the same FFT of the phased input, back in the natural order."""
    n = _shape(y)[axis]
    phase = 2 * _np.exp(-0.5j * _np.pi * _np.arange(n) / n)
    phase[0] /= 2
    v = _real(_fnp_fft.fft(y * _along(y, phase, axis), axis=axis))
    return _take(v, _np.argsort(_even_then_odd(n)), axis=axis)


def _dct1(x, axis):
    """The unscaled DCT-I of real x along axis: the rfft of its even extension (x, then x's inner
    entries reversed), whose spectrum is real."""
    n = _shape(x)[axis]
    inner = _take(x, _np.arange(n - 2, 0, -1), axis=axis)
    return _real(_fnp_fft.rfft(_concatenate([x, inner], axis=axis), axis=axis))


def _dct4(x, axis):
    """The unscaled DCT-IV of real x along axis: y_k = 2 Re(e^(-i pi (2k + 1) / 4N) F_k), F the FFT
    of length 2N of x_n e^(-i pi n / 2N) (zero-padded), its first N bins."""
    n = _shape(x)[axis]
    phased = x * _along(x, _np.exp(-0.5j * _np.pi * _np.arange(n) / n), axis)
    spectrum = _take(_fnp_fft.fft(phased, n=2 * n, axis=axis), _np.arange(n), axis=axis)
    return _real(spectrum * _along(x, 2 * _np.exp(-0.25j * _np.pi * (2 * _np.arange(n) + 1) / n), axis))


def _orthonormal_weights(n, first):
    w = _np.full(n, 1 / _math.sqrt(2 * n))
    w[0] = first
    return w


def _ortho(x, type, axis):
    """The orthonormal DCT of `type` (SciPy's norm='ortho' with orthogonalize=True): DCT-II's
    outputs, DCT-III's inputs, DCT-I's first and last entries of both, weighted; DCT-IV scaled."""
    n = _shape(x)[axis]
    if type == 2:
        return _dct2(x, axis) * _along(x, _orthonormal_weights(n, 1 / _math.sqrt(4 * n)), axis)
    if type == 3:
        return _dct3(x * _along(x, _orthonormal_weights(n, 1 / _math.sqrt(n)), axis), axis)
    if type == 4:
        return _dct4(x, axis) * (1 / _math.sqrt(2 * n))
    ends = _np.ones(n)
    ends[[0, -1]] = _math.sqrt(2)
    return _dct1(x * _along(x, ends, axis), axis) * _along(x, 1 / ends / _math.sqrt(2 * (n - 1)), axis)


_UNSCALED = {1: _dct1, 2: _dct2, 3: _dct3, 4: _dct4}


def _transform(x, type, axis, norm, inverse):
    """SciPy's dct of `type` of real x along axis (its idct when `inverse`), for `norm`. The inverse
    of types 2 and 3 is the other type; types 1 and 4 are their own, each scaled by 1 / (its
    period): 2 (N - 1) for type 1, 2N for the others. An orthonormal one is its own transpose."""
    core = 5 - type if inverse and type in (2, 3) else type
    if norm == "ortho":
        return _ortho(x, core, axis)
    n = _shape(x)[axis]
    y = _UNSCALED[core](x, axis)
    return y * (1 / (2 * (n - 1) if type == 1 else 2 * n)) if (norm == "forward") != inverse else y


def _one_axis(fn, x, type, n, axis, norm, orthogonalize, inverse):
    if type not in (1, 2, 3, 4):
        raise ValueError(f"fgrad.scipy.fft.{fn}: invalid DCT type {type!r}; should be 1, 2, 3 or 4")
    norm = "backward" if norm is None else norm
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f'fgrad.scipy.fft.{fn}: invalid norm value {norm!r}; should be "backward", "ortho" or '
                         f'"forward"')
    if orthogonalize is not None and bool(orthogonalize) != (norm == "ortho"):
        raise NotImplementedError(f"fgrad.scipy.fft.{fn}: orthogonalize={orthogonalize!r} with norm={norm!r} is "
                                  f"not supported (only its default, True for norm='ortho')")
    ndim = x.ndim
    axis = _operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(f"fgrad.scipy.fft.{fn}: axis {axis} is out of bounds for an array of "
                                       f"dimension {ndim}")
    axis %= ndim
    if n is not None:
        n = _operator.index(n)
        if n < 1:
            raise ValueError(f"fgrad.scipy.fft.{fn}: invalid number of data points ({n}) specified")
        x = _fnp_fft._resized(x, axis, n)
    if type == 1 and _shape(x)[axis] < 2:
        raise ValueError(f"fgrad.scipy.fft.{fn}: a DCT of type 1 needs at least 2 points, got "
                         f"{_shape(x)[axis]}")
    if x.dtype.kind == "c":  # (a real transform of each part, as SciPy's)
        return _transform(_real(x), type, axis, norm, inverse) + 1j * _transform(_imag(x), type, axis, norm, inverse)
    if x.dtype.kind != "f":
        x = _fnp_fft._as_real(fn, x)
    return _transform(x, type, axis, norm, inverse)


def _operand(fn, x):
    x = _as_operand(x)
    if x.ndim == 0:
        raise _np.exceptions.AxisError(f"fgrad.scipy.fft.{fn}: a 0-d array has no axis to transform")
    return x


def dct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """scipy.fft.dct of types 1 to 4 along `axis` (cropped or zero-padded to n).

    Examples
    --------
    >>> import scipy.fft
    >>> x = np.array([1.0, 2.0, 0.5])
    >>> bool(np.allclose(fgrad.scipy.fft.dct(x), scipy.fft.dct(x))), fgrad.jacfwd(fgrad.scipy.fft.dct)(x).shape
    (True, (3, 3))
    """
    return _one_axis("dct", _operand("dct", x), type, n, axis, norm, orthogonalize, inverse=False)


def idct(x, type=2, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, orthogonalize=None):
    """scipy.fft.idct: the inverse of dct of the same type (and norm).

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 0.5])
    >>> bool(np.allclose(fgrad.scipy.fft.idct(fgrad.scipy.fft.dct(x)), x))
    True
    """
    return _one_axis("idct", _operand("idct", x), type, n, axis, norm, orthogonalize, inverse=True)


def _n_dim(fn, x, type, s, axes, norm, orthogonalize, inverse):
    x = _operand(fn, x)
    ndim = x.ndim
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    axes = [axes] if isinstance(axes, (int, _np.integer)) else list(axes)
    if any(not -ndim <= _operator.index(a) < ndim for a in axes):
        raise ValueError(f"fgrad.scipy.fft.{fn}: axes exceed the dimensionality of the input ({axes}, {ndim} axes)")
    axes = [_operator.index(a) % ndim for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"fgrad.scipy.fft.{fn}: all axes must be unique, got {axes}")
    sizes = [None] * len(axes) if s is None else [s] if isinstance(s, (int, _np.integer)) else list(s)
    if len(sizes) != len(axes):
        raise ValueError(f"fgrad.scipy.fft.{fn}: when given, axes and shape arguments have to be of the same "
                         f"length ({len(axes)} and {len(sizes)})")
    for n, axis in zip(sizes, axes):
        x = _one_axis(fn, x, type, n, axis, norm, orthogonalize, inverse)
    return x


def dctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, orthogonalize=None):
    """scipy.fft.dctn: dct along each of `axes` (all by default), each cropped or padded to s.

    Examples
    --------
    >>> import scipy.fft
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> bool(np.allclose(fgrad.scipy.fft.dctn(x, norm="ortho"), scipy.fft.dctn(x, norm="ortho")))
    True
    """
    return _n_dim("dctn", x, type, s, axes, norm, orthogonalize, inverse=False)


def idctn(x, type=2, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, orthogonalize=None):
    """scipy.fft.idctn: the inverse of dctn of the same type (and norm).

    Examples
    --------
    >>> x = np.arange(6.0).reshape(2, 3)
    >>> bool(np.allclose(fgrad.scipy.fft.idctn(fgrad.scipy.fft.dctn(x)), x))
    True
    """
    return _n_dim("idctn", x, type, s, axes, norm, orthogonalize, inverse=True)
