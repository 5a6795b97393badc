"""fgrad.numpy.fft: numpy.fft's names and signatures, differentiable (`np.fft.fft(traced)` runs these).

Three primitives do the transforms (fgrad/ops/fft.py: fft over any axes, rfft and irfft along
one); everything else is written here with them. `n` and `s` crop or zero-pad the input first
(the slice and pad primitives, whose rules are their own), real input to a complex transform
is cast to complex (a differentiable cast: its cotangent is the real part), and the n-D real
transforms are an rfft along the last axis and an fft along the others, in NumPy's order.
hfft and ihfft are irfft and rfft of the conjugate with the norm's direction swapped, as in
NumPy. fftfreq and rfftfreq are constants (divided by `d`, which may be traced); fftshift and
ifftshift are rolls.
"""
import operator as _operator
import warnings as _warnings

import numpy as _np

from ..backend import device as _device
from ..ops import axes as _axes
from ..ops import conversion as _conversion
from ..ops import fft as _ops
from ..ops import indexing as _indexing
from ..ops import shape as _shape_ops
from ._arguments import _as_operand, _check_out, _on_device_of, _shape
from ._math import conj as _conj
from ._shaping import roll as _roll

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft",
           "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]


# ---- arguments -----------------------------------------------------------------------------
def _norm(fn, norm):
    if norm is None:
        return "backward"
    if norm not in _ops.NORMS:
        raise ValueError(f'fgrad.numpy.fft.{fn}: invalid norm value {norm!r}; should be "backward", "ortho" or '
                         f'"forward"')
    return norm


def _swapped(fn, norm):
    """hfft's and ihfft's norm: the same scale on the other direction (NumPy's _swap_direction)."""
    return _ops.DUAL[_norm(fn, norm)]


def _axis(fn, axis, ndim):
    return _axes.axis_index(axis, ndim, f"fgrad.numpy.fft.{fn}")


def _points(fn, n):
    n = _operator.index(n)
    if n < 1:
        raise ValueError(f"fgrad.numpy.fft.{fn}: invalid number of FFT data points ({n}) specified")
    return n


def _operand(fn, a, out):
    _check_out(f"fft.{fn}", out)
    a = _as_operand(a)
    if a.ndim == 0:
        raise _np.exceptions.AxisError(f"fgrad.numpy.fft.{fn}: a 0-d array has no axis to transform")
    return a


def _sizes_and_axes(fn, a, s, axes, inverse_real=False):
    """numpy.fft's (s, axes) of an n-D transform: the output length along each axis (the last
    one's an irfft length where `inverse_real`), axes non-negative and in the caller's order."""
    shape = _shape(a)
    given = s is not None
    if axes is None:
        if given:
            _warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0); pass the "
                           "axes that `s` refers to", DeprecationWarning, stacklevel=3)
            axes = range(-len(s), 0)
        else:
            axes = range(len(shape))
    axes = [_axis(fn, ax, len(shape)) for ax in axes]
    s = list(s) if given else [-1] * len(axes)
    if len(s) != len(axes):
        raise ValueError(f"fgrad.numpy.fft.{fn}: shape and axes have different lengths ({len(s)} and {len(axes)})")
    if None in s:
        _warnings.warn("an entry None in `s` is deprecated in NumPy 2.0: pass -1 (or the default length)",
                       DeprecationWarning, stacklevel=3)
    sizes = [shape[ax] if v is None or v == -1 else _points(fn, v) for v, ax in zip(s, axes)]
    if inverse_real and axes and (not given or s[-1] is None):  # (irfft's default length; -1 is the input's)
        sizes[-1] = _points(fn, 2 * (shape[axes[-1]] - 1))
    return sizes, axes


# ---- the pieces every transform is made of ----------------------------------------------------
def _resized(x, axis, n):
    """x cropped or zero-padded to length n along axis (x itself when it has that length)."""
    length = _shape(x)[axis]
    if n < length:
        return _indexing.getitem(x, index=(slice(None),) * axis + (slice(0, n),))
    if n > length:
        widths = [(0, 0)] * x.ndim
        widths[axis] = (0, n - length)
        return _shape_ops.pad_constant(x, pad_width=tuple(widths), constant=0)
    return x


def _as_complex(x):
    if x.dtype.kind == "c":
        return x
    return _conversion.convert(x, dtype=_np.result_type(x.dtype, _np.complex64))


def _as_real(fn, x):
    if x.dtype.kind == "c":
        raise TypeError(f"fgrad.numpy.fft.{fn}: the input must be real, got {x.dtype} (NumPy's {fn} takes real "
                        f"input; fft takes complex)")
    if x.dtype.kind == "f":
        return x
    return _conversion.convert(x, dtype=_np.result_type(x.dtype, _np.float32))


def _c2c(x, sizes, axes, inverse, norm):
    """The complex transform of x over axes, each first cropped or padded to its size. A
    repeated axis is transformed once per mention, last axis first, as in NumPy."""
    if len(set(axes)) < len(axes):
        for n, ax in reversed(list(zip(sizes, axes))):
            x = _c2c(x, [n], [ax], inverse, norm)
        return x
    for n, ax in zip(sizes, axes):
        x = _resized(x, ax, n)
    return _ops.fft(_as_complex(x), axes=tuple(axes), inverse=inverse, norm=norm)


def _r2c(fn, x, n, axis, norm):
    return _ops.rfft(_resized(_as_real(fn, x), axis, n), axis=axis, norm=norm)


def _c2r(x, n, axis, norm):
    return _ops.irfft(_resized(_as_complex(x), axis, n // 2 + 1), axis=axis, n=n, norm=norm)


# ---- one axis ---------------------------------------------------------------------------------
def _one(fn, a, n, axis, out):
    a = _operand(fn, a, out)
    axis = _axis(fn, axis, a.ndim)
    return a, (_shape(a)[axis] if n is None else _points(fn, n)), axis


def fft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.fft: the discrete Fourier transform along `axis`."""
    a, n, axis = _one("fft", a, n, axis, out)
    return _c2c(a, [n], [axis], False, _norm("fft", norm))


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.ifft: the inverse discrete Fourier transform along `axis`."""
    a, n, axis = _one("ifft", a, n, axis, out)
    return _c2c(a, [n], [axis], True, _norm("ifft", norm))


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.rfft: the transform of real input, its n // 2 + 1 non-negative frequencies."""
    a, n, axis = _one("rfft", a, n, axis, out)
    return _r2c("rfft", a, n, axis, _norm("rfft", norm))


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.irfft: n real values (default 2 (m - 1)) from a half spectrum of m bins."""
    a = _operand("irfft", a, out)
    axis = _axis("irfft", axis, a.ndim)
    n = _points("irfft", 2 * (_shape(a)[axis] - 1) if n is None else n)
    return _c2r(a, n, axis, _norm("irfft", norm))


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.hfft: the (real) transform of a Hermitian-symmetric signal given by its first half."""
    a = _operand("hfft", a, out)
    axis = _axis("hfft", axis, a.ndim)
    n = _points("hfft", 2 * (_shape(a)[axis] - 1) if n is None else n)
    return _c2r(_conj(a), n, axis, _swapped("hfft", norm))


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.ihfft: the inverse of hfft, for real input (n // 2 + 1 bins)."""
    a, n, axis = _one("ihfft", a, n, axis, out)
    return _conj(_r2c("ihfft", a, n, axis, _swapped("ihfft", norm)))


# ---- several axes -----------------------------------------------------------------------------
def fftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.fftn: the transform over `axes` (all by default), cropped or padded to `s`."""
    a = _operand("fftn", a, out)
    sizes, axes = _sizes_and_axes("fftn", a, s, axes)
    return _c2c(a, sizes, axes, False, _norm("fftn", norm)) if axes else a


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.ifftn: the inverse transform over `axes` (all by default)."""
    a = _operand("ifftn", a, out)
    sizes, axes = _sizes_and_axes("ifftn", a, s, axes)
    return _c2c(a, sizes, axes, True, _norm("ifftn", norm)) if axes else a


def _no_axes(fn):
    return _np.exceptions.AxisError(f"fgrad.numpy.fft.{fn}: no axes to transform (axes is empty)")


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.rfftn: rfft along the last of `axes`, then fft along the others."""
    a = _operand("rfftn", a, out)
    sizes, axes = _sizes_and_axes("rfftn", a, s, axes)
    if not axes:
        raise _no_axes("rfftn")
    norm = _norm("rfftn", norm)
    x = _r2c("rfftn", a, sizes[-1], axes[-1], norm)
    return _c2c(x, sizes[:-1], axes[:-1], False, norm) if len(axes) > 1 else x


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.irfftn: ifft along all of `axes` but the last, then irfft along it (its
    length s[-1], by default 2 (m - 1))."""
    a = _operand("irfftn", a, out)
    sizes, axes = _sizes_and_axes("irfftn", a, s, axes, inverse_real=True)
    if not axes:
        raise _no_axes("irfftn")
    norm = _norm("irfftn", norm)
    x = a
    if len(axes) > 1:
        rest = list(zip(sizes[:-1], axes[:-1]))
        if len(set(axes[:-1])) < len(rest):  # (NumPy's order: first axis first)
            for n, ax in rest:
                x = _c2c(x, [n], [ax], True, norm)
        else:
            x = _c2c(x, sizes[:-1], axes[:-1], True, norm)
    return _c2r(x, sizes[-1], axes[-1], norm)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.fft2: fftn over the last two axes."""
    return fftn(a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.ifft2: ifftn over the last two axes."""
    return ifftn(a, s, axes, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.rfft2: rfftn over the last two axes."""
    return rfftn(a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.irfft2: irfftn over the last two axes."""
    return irfftn(a, s, axes, norm, out)


# ---- frequencies and shifts -------------------------------------------------------------------
def _frequencies(numpy_fn, n, d, device):
    """numpy_fn(n) / d: constants, with a derivative in d only (d may be traced; the constants
    are made on d's device when d is an array)."""
    k = numpy_fn(_operator.index(n))
    if device is not None:
        k = _device(device).send(k)
    elif hasattr(d, "shape"):
        k = _on_device_of(d, k)
    if isinstance(d, (int, float)) and d == 1:
        return k
    return k / d


def fftfreq(n, d=1.0, device=None):
    """numpy.fft.fftfreq: the frequencies of fft's bins for sample spacing d."""
    return _frequencies(_np.fft.fftfreq, n, d, device)


def rfftfreq(n, d=1.0, device=None):
    """numpy.fft.rfftfreq: the frequencies of rfft's bins for sample spacing d."""
    return _frequencies(_np.fft.rfftfreq, n, d, device)


def _shift(x, axes, sign):
    x = _as_operand(x)
    shape = _shape(x)
    axes = list(range(len(shape))) if axes is None else [axes] if isinstance(axes, (int, _np.integer)) else list(axes)
    if not axes:
        return x
    return _roll(x, [sign * (shape[ax] // 2) for ax in axes], axes)


def fftshift(x, axes=None):
    """numpy.fft.fftshift: the zero frequency moved to the centre (a roll by half of each axis)."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift: the inverse of fftshift."""
    return _shift(x, axes, -1)
