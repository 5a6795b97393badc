"""fgrad.scipy.signal: scipy.signal's convolutions, differentiable in both inputs (as jax.scipy.signal).

convolve, correlate (N-D), convolve2d and correlate2d, in modes 'full', 'same' and 'valid'.
Computed directly (method 'auto' and 'direct'), one primitive does the work: the 'full' or
'valid' convolution (fgrad/ops/signal.py, whose vjp and jvp are convolutions again); 'same'
crops 'full' as SciPy centres it, and a correlation is a convolution with the second input
flipped. method='fft' and fftconvolve compute through the FFT (fgrad.numpy.fft's rfftn and
irfftn of zero-padded inputs, whose rules are the FFT primitives'), over all axes or, for
fftconvolve, the given `axes` (the others broadcast). convolve2d and correlate2d take
boundary='fill' with fillvalue=0 only. fftconvolve takes complex inputs; the others real
inputs only.
"""
import numpy as _np
from scipy.fft import next_fast_len as _next_fast_len

from .. import numpy as _fnp
from ..numpy._arguments import _as_operand
from ..ops import signal as _ops

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "fftconvolve"]

_MODES = ("full", "same", "valid")


def _operands(fn, in1, in2, mode):
    in1, in2 = _as_operand(in1), _as_operand(in2)
    if mode not in _MODES:
        raise ValueError(f"fgrad.scipy.signal.{fn}: acceptable mode flags are 'valid', 'same', or 'full', got {mode!r}")
    if in1.ndim != in2.ndim:
        raise ValueError(f"fgrad.scipy.signal.{fn}: in1 and in2 should have the same dimensionality, got shapes "
                         f"{_fnp.shape(in1)} and {_fnp.shape(in2)}")
    if in1.dtype.kind == "c" or in2.dtype.kind == "c":
        raise TypeError(f"fgrad.scipy.signal.{fn}: complex inputs are not supported (its convolutions are written "
                        f"for real arrays; call scipy.signal.{fn} on plain complex arrays)")
    return in1, in2


def _method(fn, method):
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"fgrad.scipy.signal.{fn}: acceptable method flags are 'auto', 'direct', or 'fft', got "
                         f"{method!r}")


def _convolve(fn, in1, in2, mode, round_up=False, method="direct"):
    """The convolution of checked operands in `mode`, as scipy.signal.convolve gives it ('same'
    rounds the centre's offset down; correlate2d's rounds it up: round_up)."""
    s1, s2 = _fnp.shape(in1), _fnp.shape(in2)
    if in1.ndim == 0:  # (SciPy: a product of scalars)
        return in1 * in2
    if not in1.size or not in2.size:
        return _np.array([])
    if mode == "valid":
        if all(a <= b for a, b in zip(s1, s2)) and s1 != s2:  # (a convolution commutes: SciPy swaps the inputs)
            in1, in2, s1, s2 = in2, in1, s2, s1
        elif not all(a >= b for a, b in zip(s1, s2)):
            raise ValueError(f"fgrad.scipy.signal.{fn}: for 'valid' mode, one must be at least as large as the "
                             f"other in every dimension, got shapes {s1} and {s2}")
    if method == "fft":  # (over every axis, as SciPy's convolve calls fftconvolve)
        out = _fftconvolve(fn, in1, in2, mode, list(range(in1.ndim)))
        if in1.dtype.kind in "biu" and in2.dtype.kind in "biu":  # (SciPy rounds back to integers)
            out = _fnp.astype(_fnp.round(out), _np.result_type(in1.dtype, in2.dtype))
        return out
    if mode == "valid":
        return _ops.convolve(in1, in2, mode="valid")
    full = _ops.convolve(in1, in2, mode="full")
    if mode == "full":
        return full
    start = [(f - s + round_up) // 2 for f, s in zip(_fnp.shape(full), s1)]  # 'same': in1's shape, centred
    return full[tuple(slice(a, a + s) for a, s in zip(start, s1))]


def convolve(in1, in2, mode="full", method="auto"):
    """scipy.signal.convolve of two real N-D arrays (directly computed, or through the FFT for
    method='fft'; differentiable in both).

    Examples
    --------
    >>> fgrad.scipy.signal.convolve(np.array([1.0, 2.0]), np.array([1.0, 1.0, 1.0]))
    array([1., 3., 3., 2.])
    >>> fgrad.grad(lambda k: fnp.sum(fgrad.scipy.signal.convolve(np.array([1.0, 2.0]), k)))(np.ones(3))
    array([3., 3., 3.])
    """
    _method("convolve", method)
    in1, in2 = _operands("convolve", in1, in2, mode)
    return _convolve("convolve", in1, in2, mode, method=method)


def correlate(in1, in2, mode="full", method="auto"):
    """scipy.signal.correlate of two real N-D arrays: the convolution with in2 flipped.

    Examples
    --------
    >>> fgrad.scipy.signal.correlate(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0]), mode="valid")
    array([3., 5.])
    """
    _method("correlate", method)
    in1, in2 = _operands("correlate", in1, in2, mode)
    return _convolve("correlate", in1, _fnp.flip(in2) if in2.ndim else in2, mode, method=method)


def _two_d(fn, in1, in2, mode, boundary, fillvalue):
    if boundary not in ("fill", "pad"):
        if boundary in ("wrap", "circular", "symm", "symmetric"):
            raise NotImplementedError(f"fgrad.scipy.signal.{fn}: boundary={boundary!r} is not supported; only "
                                      f"boundary='fill' (with fillvalue=0)")
        raise ValueError(f"fgrad.scipy.signal.{fn}: acceptable boundary flags are 'fill', 'circular' (or 'wrap'), "
                         f"and 'symmetric' (or 'symm'), got {boundary!r}")
    if _fnp.ndim(fillvalue) != 0 or fillvalue != 0:
        raise NotImplementedError(f"fgrad.scipy.signal.{fn}: fillvalue={fillvalue!r} is not supported; only "
                                  f"fillvalue=0")
    in1, in2 = _operands(fn, in1, in2, mode)
    if in1.ndim != 2:
        raise ValueError(f"fgrad.scipy.signal.{fn}: inputs must both be 2-D arrays, got shapes {_fnp.shape(in1)} "
                         f"and {_fnp.shape(in2)}")
    return in1, in2


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """scipy.signal.convolve2d with boundary='fill' and fillvalue=0.

    Examples
    --------
    >>> fgrad.scipy.signal.convolve2d(np.ones((2, 2)), np.ones((2, 2)))
    array([[1., 2., 1.], [2., 4., 2.], [1., 2., 1.]])
    """
    in1, in2 = _two_d("convolve2d", in1, in2, mode, boundary, fillvalue)
    return _convolve("convolve2d", in1, in2, mode)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """scipy.signal.correlate2d with boundary='fill' and fillvalue=0. (Its 'same' output is centred
    differently from correlate's when in2 has an even size: SciPy's, kept.)

    Examples
    --------
    >>> fgrad.scipy.signal.correlate2d(np.arange(9.0).reshape(3, 3), np.ones((2, 2)), mode="valid")
    array([[ 8., 12.], [20., 24.]])
    """
    in1, in2 = _two_d("correlate2d", in1, in2, mode, boundary, fillvalue)
    return _convolve("correlate2d", in1, _fnp.flip(in2), mode, round_up=True)


# ---- through the FFT --------------------------------------------------------------------------
def _centred(x, shape):
    """The centre of x of `shape` (SciPy's _centered: the offset rounded down)."""
    return x[tuple(slice((n - m) // 2, (n - m) // 2 + m) for n, m in zip(_fnp.shape(x), shape))]


def _fftconvolve(fn, in1, in2, mode, axes):
    """The convolution of operands of equal rank over `axes` (non-negative; the other axes
    broadcast), by a product of spectra, then cropped for `mode` as SciPy's fftconvolve."""
    s1, s2 = _fnp.shape(in1), _fnp.shape(in2)
    axes = [a for a in axes if s1[a] != 1 and s2[a] != 1]  # (a length-1 axis is a product: broadcasting)
    if any(s1[a] != s2[a] and 1 not in (s1[a], s2[a]) for a in range(len(s1)) if a not in axes):
        raise ValueError(f"fgrad.scipy.signal.{fn}: incompatible shapes for in1 and in2: {s1} and {s2}")
    if mode == "valid" and not all(s1[a] >= s2[a] for a in axes):
        if not all(s2[a] >= s1[a] for a in axes):
            raise ValueError(f"fgrad.scipy.signal.{fn}: for 'valid' mode, one must be at least as large as the "
                             f"other in every dimension, got shapes {s1} and {s2}")
        in1, in2, s1, s2 = in2, in1, s2, s1  # (a convolution commutes: SciPy swaps the inputs)
    if not axes:
        out = in1 * in2
    else:
        full = [s1[a] + s2[a] - 1 for a in axes]
        real = in1.dtype.kind != "c" and in2.dtype.kind != "c"
        fast = [_next_fast_len(n, real) for n in full]
        fft = _fnp.fft
        if real:
            out = fft.irfftn(fft.rfftn(in1, fast, axes) * fft.rfftn(in2, fast, axes), fast, axes)
        else:
            out = fft.ifftn(fft.fftn(in1, fast, axes) * fft.fftn(in2, fast, axes), fast, axes)
        if fast != full:
            crop = dict(zip(axes, full))
            out = out[tuple(slice(crop[a]) if a in crop else slice(None) for a in range(len(s1)))]
    if mode == "full":
        return out
    if mode == "same":
        return _centred(out, s1)
    return _centred(out, [s1[a] - s2[a] + 1 if a in axes else n for a, n in enumerate(_fnp.shape(out))])


def fftconvolve(in1, in2, mode="full", axes=None):
    """scipy.signal.fftconvolve: the convolution of two N-D arrays (real or complex) over `axes`
    (all by default; the others broadcast), through the FFT; differentiable in both.

    Examples
    --------
    >>> bool(np.allclose(fgrad.scipy.signal.fftconvolve(np.array([1.0, 2.0]), np.ones(3)), [1.0, 3.0, 3.0, 2.0]))
    True
    """
    in1, in2 = _as_operand(in1), _as_operand(in2)
    if mode not in _MODES:
        raise ValueError(f"fgrad.scipy.signal.fftconvolve: acceptable mode flags are 'valid', 'same', or 'full', "
                         f"got {mode!r}")
    if in1.ndim != in2.ndim:
        raise ValueError(f"fgrad.scipy.signal.fftconvolve: in1 and in2 should have the same dimensionality, got "
                         f"shapes {_fnp.shape(in1)} and {_fnp.shape(in2)}")
    if in1.ndim == 0:
        return in1 * in2
    if not in1.size or not in2.size:
        return _np.array([])
    if axes is None:
        axes = list(range(in1.ndim))
    else:
        axes = [axes] if isinstance(axes, (int, _np.integer)) else list(axes)
        if not axes:
            raise ValueError("fgrad.scipy.signal.fftconvolve: when provided, axes cannot be empty")
        ndim = in1.ndim
        if any(not -ndim <= a < ndim for a in axes):
            raise ValueError(f"fgrad.scipy.signal.fftconvolve: axes exceed the dimensionality of the input "
                             f"({axes}, {ndim} axes)")
        axes = [a % ndim for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"fgrad.scipy.signal.fftconvolve: all axes must be unique, got {axes}")
    return _fftconvolve("fftconvolve", in1, in2, mode, axes)
