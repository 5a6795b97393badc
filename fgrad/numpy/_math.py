"""NumPy's remaining elementwise and array-API functions, as composites of fgrad ops.

Real values only (Note [no complex derivatives] in ops/broadcasting.py): the complex parts
of a real value are the value and zeros. Functions of several results (frexp, modf, divmod)
are their parts, each differentiable where it has a derivative.
"""
import builtins

import numpy as np

from ..backend import array_module
from ..ir.value import Tracer, decided, peek
from ..ops import elementwise as ew
from . import _core as fnp
from .linalg import matmul

__all__ = ["angle", "array_equal", "array_equiv", "bartlett", "blackman", "concat", "conj", "conjugate",
           "cumulative_prod", "cumulative_sum", "divmod", "frexp", "geomspace", "hamming", "hanning", "imag",
           "iscomplex", "isneginf", "isposinf", "isreal", "kaiser", "matrix_transpose", "matvec", "modf",
           "nan_to_num", "pow", "real", "vecdot", "vecmat"]

pow = ew.power
bartlett, blackman, hamming, hanning, kaiser = np.bartlett, np.blackman, np.hamming, np.hanning, np.kaiser


def _real_operand(name, x, traced_only=True):
    x = fnp._as_operand(x)
    if x.dtype.kind == "c" and (isinstance(x, Tracer) or not traced_only):
        raise TypeError(f"fgrad.numpy.{name}: complex values are not supported here (fgrad differentiates real "
                        f"values: Note [no complex derivatives]); compute with real and imaginary parts")
    return x


def real(val):
    """The real part: the value itself for real input."""
    x = fnp._as_operand(val)
    if x.dtype.kind != "c":
        return x
    return array_module(x).real(x) if not isinstance(x, Tracer) else _real_operand("real", x)


def imag(val):
    """The imaginary part: zeros (a constant) for real input."""
    x = _real_operand("imag", val)
    return fnp.zeros_like(x) if isinstance(x, Tracer) else array_module(x).imag(x)


def conj(x):
    """The complex conjugate: the value itself for real input."""
    x = fnp._as_operand(x)
    if x.dtype.kind != "c":
        return x
    return array_module(x).conj(x) if not isinstance(x, Tracer) else _real_operand("conj", x)


conjugate = conj


def angle(z, deg=False):
    """The argument: 0 for x >= 0, pi for x < 0 (a constant), for real input."""
    z = _real_operand("angle", z)
    if not isinstance(z, Tracer):
        return array_module(z).angle(z, deg=deg)
    out = ew.where(ew.signbit(z), 180.0 if deg else np.pi, 0.0)
    return fnp.astype(out, np.result_type(z.dtype, np.float16))


def isreal(x):
    x = _real_operand("isreal", x)
    return fnp.ones_like(x, dtype=bool) if isinstance(x, Tracer) else array_module(x).isreal(x)


def iscomplex(x):
    return ew.logical_not(isreal(x))


def isposinf(x):
    return ew.logical_and(ew.isinf(x), ew.logical_not(ew.signbit(x)))


def isneginf(x):
    return ew.logical_and(ew.isinf(x), ew.signbit(x))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced; the derivative passes where x is finite, and is 0 elsewhere."""
    x = fnp._as_operand(x)
    if x.dtype.kind not in "fc":
        return x
    big = np.finfo(x.dtype)
    out = ew.where(ew.isnan(x), nan, x)
    out = ew.where(isposinf(x), big.max if posinf is None else posinf, out)
    return ew.where(isneginf(x), big.min if neginf is None else neginf, out)


def modf(x):
    """(fractional part, integral part): the fraction has slope 1, the integral part 0."""
    x = fnp._as_operand(x)
    whole = ew.trunc(x)
    return x - whole, whole


def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2**exponent; the mantissa's slope is 2**-exponent."""
    x = fnp._as_operand(x)
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
    return _cumulative(fnp.cumsum, 0, x, axis, dtype, include_initial, "cumulative_sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return _cumulative(fnp.cumprod, 1, x, axis, dtype, include_initial, "cumulative_prod")


def _cumulative(scan, initial, x, axis, dtype, include_initial, name):
    x = fnp._as_operand(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"fgrad.numpy.{name}: axis must be given for an array of more than one dimension")
        axis = 0
    out = scan(x if dtype is None else fnp.astype(x, dtype), axis=axis)
    if not include_initial:
        return out
    axis = fnp.normalize_axis(axis, x.ndim, name)[0]
    shape = list(fnp._shape(out))
    shape[axis] = 1
    return fnp.concatenate([fnp.full_like(out, initial, shape=tuple(shape)), out], axis=axis)


def matrix_transpose(x, /):
    """The last two axes swapped."""
    x = fnp._as_operand(x)
    if x.ndim < 2:
        raise ValueError("fgrad.numpy.matrix_transpose: the input needs at least two dimensions")
    return fnp.swapaxes(x, -1, -2)


def concat(arrays, /, axis=0):
    return fnp.concatenate(arrays, axis=axis)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of vectors along `axis` (broadcast over the others; real values)."""
    return fnp.sum(ew.multiply(_real_operand("vecdot", x1, False), _real_operand("vecdot", x2, False)), axis=axis)


def matvec(x1, x2, /):
    """Matrix (..., m, n) times vector (..., n)."""
    return matmul(x1, fnp.expand_dims(x2, -1))[..., 0]


def vecmat(x1, x2, /):
    """Vector (..., m) times matrix (..., m, n) (real values: NumPy conjugates a complex vector)."""
    return matmul(fnp.expand_dims(_real_operand("vecmat", x1, False), -2), x2)[..., 0, :]


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """np.geomspace; differentiable in start and stop (positive)."""
    if not isinstance(start, Tracer) and not isinstance(stop, Tracer):
        return array_module(start, stop).geomspace(start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)
    start, stop = fnp._as_operand(start), fnp._as_operand(stop)
    t = fnp._on_device_of(start if isinstance(start, Tracer) else stop, np.linspace(0.0, 1.0, num, endpoint=endpoint))
    log_start, log_stop = ew.log(start), ew.log(stop)
    shape = (num,) + (1,) * max(fnp._ndim(log_start), fnp._ndim(log_stop))
    out = ew.exp(log_start + t.reshape(shape) * (log_stop - log_start))
    out = fnp.moveaxis(out, 0, axis) if axis else out
    return out if dtype is None else fnp.astype(out, dtype)
