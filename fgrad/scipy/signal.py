"""fgrad.scipy.signal: scipy.signal's convolutions, differentiable in both inputs (as jax.scipy.signal).

convolve, correlate (N-D), convolve2d and correlate2d, in modes 'full', 'same' and 'valid',
computed directly (method 'auto' and 'direct'). One primitive does the work: the 'full' or
'valid' convolution (fgrad/ops/signal.py, whose vjp and jvp are convolutions again); 'same'
crops 'full' as SciPy centres it, and a correlation is a convolution with the second input
flipped. fftconvolve and method='fft' are not provided: fgrad has no FFT. convolve2d and
correlate2d take boundary='fill' with fillvalue=0 only. Real inputs only.
"""
import numpy as _np

from .. import numpy as _fnp
from ..numpy._arguments import _as_operand
from ..ops import signal as _ops

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d"]

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
    if method == "fft":
        raise NotImplementedError(f"fgrad.scipy.signal.{fn}: method='fft' is not supported (fgrad has no FFT); "
                                  f"use method='direct' (or 'auto'), which gives the same values")
    if method not in ("auto", "direct"):
        raise ValueError(f"fgrad.scipy.signal.{fn}: acceptable method flags are 'auto', 'direct', or 'fft', got "
                         f"{method!r}")


def _convolve(fn, in1, in2, mode, round_up=False):
    """The convolution of checked operands in `mode`, as scipy.signal.convolve gives it ('same'
    rounds the centre's offset down; correlate2d's rounds it up: round_up)."""
    s1, s2 = _fnp.shape(in1), _fnp.shape(in2)
    if in1.ndim == 0:  # (SciPy: a product of scalars)
        return in1 * in2
    if not in1.size or not in2.size:
        return _np.array([])
    if mode == "valid":
        if all(a >= b for a, b in zip(s1, s2)):
            return _ops.convolve(in1, in2, mode="valid")
        if all(a <= b for a, b in zip(s1, s2)):  # (a convolution commutes: SciPy swaps the inputs)
            return _ops.convolve(in2, in1, mode="valid")
        raise ValueError(f"fgrad.scipy.signal.{fn}: for 'valid' mode, one must be at least as large as the other "
                         f"in every dimension, got shapes {s1} and {s2}")
    full = _ops.convolve(in1, in2, mode="full")
    if mode == "full":
        return full
    start = [(f - s + round_up) // 2 for f, s in zip(_fnp.shape(full), s1)]  # 'same': in1's shape, centred
    return full[tuple(slice(a, a + s) for a, s in zip(start, s1))]


def convolve(in1, in2, mode="full", method="auto"):
    """scipy.signal.convolve of two N-D arrays (directly computed; differentiable in both)."""
    _method("convolve", method)
    in1, in2 = _operands("convolve", in1, in2, mode)
    return _convolve("convolve", in1, in2, mode)


def correlate(in1, in2, mode="full", method="auto"):
    """scipy.signal.correlate of two real N-D arrays: the convolution with in2 flipped."""
    _method("correlate", method)
    in1, in2 = _operands("correlate", in1, in2, mode)
    return _convolve("correlate", in1, _fnp.flip(in2) if in2.ndim else in2, mode)


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
    """scipy.signal.convolve2d with boundary='fill' and fillvalue=0."""
    in1, in2 = _two_d("convolve2d", in1, in2, mode, boundary, fillvalue)
    return _convolve("convolve2d", in1, in2, mode)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """scipy.signal.correlate2d with boundary='fill' and fillvalue=0. (Its 'same' output is centred
    differently from correlate's when in2 has an even size: SciPy's, kept.)"""
    in1, in2 = _two_d("correlate2d", in1, in2, mode, boundary, fillvalue)
    return _convolve("correlate2d", in1, _fnp.flip(in2), mode, round_up=True)
