"""NumPy's remaining elementwise and array-API functions, and the cross product, as
composites of fgrad ops.

The complex parts (real, imag, conj, angle) are primitives for complex values (Note [complex
derivatives] in ops/conversion.py), and a real value's own parts, the value and zeros,
without a node. Functions of several results (frexp, modf, divmod) are their parts, each
differentiable where it has a derivative. linalg.py builds on this module (linalg.cross is
cross; the functions that take real values only check here).
"""
import builtins
import operator

import numpy as np

from ..backend import array_module, to_host
from ..ir.value import Tracer, decided, peek
from ..ops import conversion as cv
from ..ops import elementwise as ew
from ._arguments import _as_operand, _ndim, _on_device_of, _shape, normalize_axis
from ._creation import full_like, ones_like, zeros_like
from ._elementwise import astype
from ._reductions import cumprod, cumsum
from ._shaping import broadcast_arrays, broadcast_to, concatenate, expand_dims, moveaxis, stack

__all__ = ["angle", "array_equal", "array_equiv", "bartlett", "blackman", "concat", "conj", "conjugate", "cross",
           "cumulative_prod", "cumulative_sum", "divmod", "frexp", "geomspace", "hamming", "hanning", "imag",
           "iscomplex", "isneginf", "isposinf", "isreal", "kaiser", "linspace", "logspace", "modf", "nan_to_num", "pow",
           "real", "real_if_close"]

pow = ew.power
bartlett, blackman, hamming, hanning, kaiser = np.bartlett, np.blackman, np.hamming, np.hanning, np.kaiser


def real(val):
    """The real part: the value itself for real input."""
    x = _as_operand(val)
    if x.dtype.kind != "c":
        return x
    return cv.real(x) if isinstance(x, Tracer) else array_module(x).real(x)


def imag(val):
    """The imaginary part: zeros (a constant) for real input."""
    x = _as_operand(val)
    if x.dtype.kind != "c":
        return zeros_like(x) if isinstance(x, Tracer) else array_module(x).imag(x)
    return cv.imag(x) if isinstance(x, Tracer) else array_module(x).imag(x)


def conj(x):
    """The complex conjugate: the value itself for real input."""
    x = _as_operand(x)
    if x.dtype.kind != "c":
        return x
    return cv.conj(x) if isinstance(x, Tracer) else array_module(x).conj(x)


conjugate = conj


def real_if_close(a, tol=100):
    """np.real_if_close: the real part where every imaginary part is within `tol` machine epsilons
    of 0 (tol <= 1: an absolute tolerance), else `a` unchanged. Which of the two is a decision on
    the value (a guard under compile; per example under vmap it cannot be made)."""
    x = _as_operand(a)
    if not isinstance(x, Tracer):
        return array_module(x).real_if_close(x, tol=tol)
    if x.dtype.kind != "c":
        return x
    v = decided(x, "fgrad.numpy.real_if_close's choice")
    tol = np.finfo(x.dtype).eps * tol if tol > 1 else tol
    return cv.real(x) if bool(array_module(v).all(array_module(v).abs(v.imag) < tol)) else x


def angle(z, deg=False):
    """The argument, arctan2(imag, real) (as NumPy and JAX: its derivative is nan at 0); for
    real input 0 for x >= 0 and pi for x < 0, a constant."""
    z = _as_operand(z)
    if not isinstance(z, Tracer):
        return array_module(z).angle(z, deg=deg)
    if z.dtype.kind == "c":
        out = ew.arctan2(cv.imag(z), cv.real(z))
        return out * (180.0 / np.pi) if deg else out
    out = ew.where(ew.signbit(z), 180.0 if deg else np.pi, 0.0)
    return astype(out, np.result_type(z.dtype, np.float16))


def isreal(x):
    x = _as_operand(x)
    if not isinstance(x, Tracer):
        return array_module(x).isreal(x)
    return ew.equal(cv.imag(x), 0.0) if x.dtype.kind == "c" else ones_like(x, dtype=bool)


def iscomplex(x):
    return ew.logical_not(isreal(x))


def isposinf(x):
    return ew.logical_and(ew.isinf(x), ew.logical_not(ew.signbit(x)))


def isneginf(x):
    return ew.logical_and(ew.isinf(x), ew.signbit(x))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced; the derivative passes where x is finite, and is 0 elsewhere."""
    x = _as_operand(x)
    if x.dtype.kind not in "fc":
        return x
    if x.dtype.kind == "c":  # each part on its own, as NumPy
        re, im = real(x), imag(x)
        return (nan_to_num(re, nan=nan, posinf=posinf, neginf=neginf)
                + nan_to_num(im, nan=nan, posinf=posinf, neginf=neginf) * 1j)
    big = np.finfo(x.dtype)
    out = ew.where(ew.isnan(x), nan, x)
    out = ew.where(isposinf(x), big.max if posinf is None else posinf, out)
    return ew.where(isneginf(x), big.min if neginf is None else neginf, out)


def modf(x):
    """(fractional part, integral part): the fraction has slope 1, the integral part 0."""
    x = _as_operand(x)
    whole = ew.trunc(x)
    return x - whole, whole


def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2**exponent; the mantissa's slope is 2**-exponent."""
    x = _as_operand(x)
    _, e = array_module(peek(x)).frexp(decided(x, "fgrad.numpy.frexp's exponent"))
    return ew.ldexp(x, -e), e


def divmod(x1, x2):
    return ew.floor_divide(x1, x2), ew.remainder(x1, x2)


def array_equal(a1, a2, equal_nan=False):
    """A Python bool, as NumPy's (a decision on the values)."""
    return builtins.bool(np.array_equal(decided(a1, "fnp.array_equal"), decided(a2, "fnp.array_equal"),
                                        equal_nan=equal_nan))


def array_equiv(a1, a2):
    return builtins.bool(np.array_equiv(decided(a1, "fnp.array_equiv"), decided(a2, "fnp.array_equiv")))


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """NumPy 2's cumsum (axis required above one dimension; optionally a leading 0)."""
    return _cumulative(cumsum, 0, x, axis, dtype, include_initial, "cumulative_sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return _cumulative(cumprod, 1, x, axis, dtype, include_initial, "cumulative_prod")


def _cumulative(scan, initial, x, axis, dtype, include_initial, name):
    x = _as_operand(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"fgrad.numpy.{name}: axis must be given for an array of more than one dimension")
        axis = 0
    out = scan(x if dtype is None else astype(x, dtype), axis=axis)
    if not include_initial:
        return out
    axis = normalize_axis(axis, x.ndim, name)[0]
    shape = list(_shape(out))
    shape[axis] = 1
    return concatenate([full_like(out, initial, shape=tuple(shape)), out], axis=axis)


def concat(arrays, /, axis=0):
    return concatenate(arrays, axis=axis)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """np.linspace; differentiable in start and stop (each point is start + i * step, the last one
    stop itself when endpoint is True, as NumPy computes them)."""
    if not isinstance(start, Tracer) and not isinstance(stop, Tracer):
        return array_module(start, stop).linspace(start, stop, num=num, endpoint=endpoint, retstep=retstep,
                                                  dtype=dtype, axis=axis)
    if operator.index(num) < 0:
        raise ValueError(f"fgrad.numpy.linspace: number of samples, {num}, must be non-negative")
    traced = start if isinstance(start, Tracer) else stop
    start, stop = (a if isinstance(a, Tracer) else _on_device_of(traced, a) for a in (start, stop))
    div = num - 1 if endpoint else num
    delta = stop - start
    step = delta / div if div > 0 else delta * np.nan  # (NumPy's step of a single point)
    i = _on_device_of(traced, np.arange(num, dtype=np.float64))
    i = i.reshape((num,) + (1,) * _ndim(delta))
    out = start + i * (step if div > 0 else delta)
    if endpoint and num > 1:
        out = concatenate([out[:-1], expand_dims(broadcast_to(stop, _shape(out)[1:]), 0)], axis=0)
    out = moveaxis(out, 0, axis) if axis else out
    if dtype is not None:
        out = astype(ew.floor(out) if np.issubdtype(dtype, np.integer) else out, dtype)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """np.logspace: base ** linspace(start, stop); differentiable in start, stop and base."""
    if not any(isinstance(a, Tracer) for a in (start, stop, base)):
        return array_module(start, stop).logspace(start, stop, num=num, endpoint=endpoint, base=base, dtype=dtype,
                                                  axis=axis)
    traced = next(a for a in (start, stop, base) if isinstance(a, Tracer))
    start, stop, base = (a if isinstance(a, Tracer) else _on_device_of(traced, a) for a in (start, stop, base))
    ndim = builtins.max(_ndim(start), _ndim(stop), _ndim(base))
    start, stop, base = (a.reshape((1,) * (ndim - _ndim(a)) + _shape(a)) for a in (start, stop, base))
    out = ew.power(expand_dims(base, axis), linspace(start, stop, num=num, endpoint=endpoint, axis=axis))
    return out if dtype is None else astype(out, dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """np.geomspace; differentiable in start and stop (positive)."""
    if not isinstance(start, Tracer) and not isinstance(stop, Tracer):
        xp = array_module(start, stop)
        if not hasattr(xp, "geomspace"):  # (CuPy has none: NumPy's on the host, sent back)
            return xp.asarray(np.geomspace(to_host(start), to_host(stop), num=num, endpoint=endpoint, dtype=dtype,
                                           axis=axis))
        return xp.geomspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    out = ew.exp(linspace(ew.log(_as_operand(start)), ew.log(_as_operand(stop)), num=num, endpoint=endpoint,
                          axis=axis))
    return out if dtype is None else astype(out, dtype)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (or the z component for 2-vectors)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(_as_operand(a), axisa, -1)
    b = moveaxis(_as_operand(b), axisb, -1)
    na, nb = _shape(a)[-1], _shape(b)[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("fgrad.numpy.cross: incompatible dimensions for cross product (dimension must be 2 or 3)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2] if na == 3 else 0.0
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2] if nb == 3 else 0.0
    if na == 2 and nb == 2:
        return a0 * b1 - a1 * b0
    out = stack(broadcast_arrays(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=-1)
    return moveaxis(out, -1, axisc)
