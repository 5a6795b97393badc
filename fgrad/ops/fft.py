"""The FFT primitives of fgrad.numpy.fft: fft (complex to complex), rfft and irfft.

Three kernels do all of numpy.fft's work (NumPy's pocketfft, or cupy.fft on CuPy arrays):

- fft(x, axes, inverse, norm): numpy.fft.fftn (ifftn when `inverse`) of complex x over `axes`;
- rfft(x, axis, norm): numpy.fft.rfft of real x along one axis, keeping its length n;
- irfft(c, axis, n, norm): numpy.fft.irfft of complex c, of length n // 2 + 1 along `axis`,
  to n real values.

Lengths are fixed before the kernel: fgrad.numpy.fft crops or zero-pads the input with the
slice and pad primitives, so `n` and `s` need no rule here. fftn, rfftn, hfft and the rest
are compositions there (rfftn is an rfft along the last axis and an fft along the others,
as NumPy computes it).

All three are linear (over the reals), so each jvp applies the op to the tangent. Each vjp
is its transpose (Note [complex derivatives] in ops/conversion.py: the pairing Re(sum a*b),
no conjugate):
- a DFT matrix is symmetric, so fft's transpose is fft with the same axes, direction and
  norm;
- rfft's transpose sends g to Re(sum_k g_k e^(-2 pi i jk/n)) over the half spectrum: an
  irfft of conj(g), with the bins that irfft counts twice (all but DC and Nyquist) halved;
- irfft's transpose sends g to conj(rfft(g)) with those bins doubled.
A norm's scale is the same number in an op and its transpose, so the transposes use the
dual norm (`DUAL`): irfft's "forward" is unscaled where rfft's "backward" is.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import peek
from .axes import logical_axis
from .conversion import conj
from .primitive import Primitive

__all__ = ["DUAL", "NORMS", "fft", "irfft", "rfft"]

NORMS = ("backward", "ortho", "forward")
# The norm of the other direction with the same scale: the transposes' (see the docstring).
DUAL = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _shifted(x, axes, d):
    """Per-example axes as axes of x, batched along d (vmap): the batch axis stays put."""
    return tuple(logical_axis(a, x.ndim - 1, d) for a in axes)


def _fft(x, axes, inverse, norm):
    xp = array_module(x).fft
    return (xp.ifftn if inverse else xp.fftn)(x, axes=axes, norm=norm)


fft = Primitive("fft", _fft, saves="nothing", torch_name="FftC2c", fresh=True,
                batch=lambda args, dims, axes, inverse, norm: (
                    fft(args[0], axes=_shifted(args[0], axes, dims[0]), inverse=inverse, norm=norm), dims[0]))
fft.defvjp(lambda g, ans, x, axes, inverse, norm: fft(g, axes=axes, inverse=inverse, norm=norm)).defjvp(
    lambda t, ans, x, axes, inverse, norm: fft(t, axes=axes, inverse=inverse, norm=norm))


def _twice(v, axis, n):
    """1 for the bins of a half spectrum of length n // 2 + 1 that irfft counts once (DC, and
    Nyquist for an even n), 2 for the others, in v's real dtype on v's device, shaped to
    broadcast along `axis` of v (counted from the end: vmap may add axes in front)."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    real = np.dtype(v.dtype.char.lower()) if v.dtype.kind == "c" else v.dtype
    w = w.reshape((-1,) + (1,) * (v.ndim - 1 - axis))
    return array_module(peek(v)).asarray(w, dtype=real)


def _rfft(x, axis, norm):
    return array_module(x).fft.rfft(x, axis=axis, norm=norm)


def _rfft_vjp(g, ans, x, axis, norm):
    n = x.shape[axis]
    return irfft(conj(g) / _twice(g, axis, n), axis=axis, n=n, norm=DUAL[norm])


rfft = Primitive("rfft", _rfft, saves="nothing", torch_name="FftR2c", fresh=True,
                 batch=lambda args, dims, axis, norm: (
                     rfft(args[0], axis=_shifted(args[0], (axis,), dims[0])[0], norm=norm), dims[0]))
rfft.defvjp(_rfft_vjp).defjvp(lambda t, ans, x, axis, norm: rfft(t, axis=axis, norm=norm))


def _irfft(c, axis, n, norm):
    return array_module(c).fft.irfft(c, n=n, axis=axis, norm=norm)


def _irfft_vjp(g, ans, c, axis, n, norm):
    return conj(rfft(g, axis=axis, norm=DUAL[norm])) * _twice(g, axis, n)


irfft = Primitive("irfft", _irfft, saves="nothing", torch_name="FftC2r", fresh=True,
                  batch=lambda args, dims, axis, n, norm: (
                      irfft(args[0], axis=_shifted(args[0], (axis,), dims[0])[0], n=n, norm=norm), dims[0]))
irfft.defvjp(_irfft_vjp).defjvp(lambda t, ans, c, axis, n, norm: irfft(t, axis=axis, n=n, norm=norm))
