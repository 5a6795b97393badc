"""NumPy's elementwise functions: the primitives' entry functions under NumPy's names, and
the few composites around them (round, clip, where, float_power, the angle conversions,
the comparisons isclose and allclose).

The entry functions are the functions (`fgrad.numpy.sin is ops.elementwise.sin`): no call
in between on the hot path. Each primitive declares its NumPy names in ops/elementwise.py
(its name and `aliases`); tests/numpy/test_namespace.py checks fgrad.numpy has every one.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import decided, peek
from ..ops import elementwise as ew
from ..ops.elementwise import (  # the primitives' entry functions: these are fgrad.numpy's functions
    absolute,
    add,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    bitwise_and,
    bitwise_count,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    cbrt,
    ceil,
    copysign,
    cos,
    cosh,
    divide,
    equal,
    exp,
    exp2,
    expm1,
    floor,
    floor_divide,
    fmax,
    fmin,
    fmod,
    gcd,
    greater,
    greater_equal,
    heaviside,
    hypot,
    isfinite,
    isinf,
    isnan,
    lcm,
    ldexp,
    left_shift,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logaddexp2,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    nextafter,
    not_equal,
    power,
    reciprocal,
    remainder,
    right_shift,
    rint,
    sign,
    signbit,
    sin,
    sinc,
    sinh,
    spacing,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    trunc,
)
from ._arguments import _as_operand
from ._creation import asarray

__all__ = ["abs", "absolute", "acos", "acosh", "add", "allclose", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
           "arctan2", "arctanh", "around", "asin", "asinh", "astype", "atan", "atan2", "atanh", "bitwise_and",
           "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
           "bitwise_right_shift", "bitwise_xor", "cbrt", "ceil", "clip", "copy", "copysign", "cos", "cosh",
           "deg2rad", "degrees", "divide", "equal", "exp", "exp2", "expm1", "fabs", "fix", "float_power", "floor",
           "floor_divide", "fmax", "fmin", "fmod", "gcd", "greater", "greater_equal", "heaviside", "hypot", "invert",
           "isclose", "isfinite", "isinf", "isnan", "lcm", "ldexp", "left_shift", "less", "less_equal", "log",
           "log1p", "log2", "log10", "logaddexp", "logaddexp2", "logical_and", "logical_not", "logical_or",
           "logical_xor", "maximum", "minimum", "mod", "multiply", "negative", "nextafter", "nonzero", "not_equal",
           "positive", "power", "rad2deg", "radians", "reciprocal", "remainder", "right_shift", "rint", "round",
           "sign", "signbit", "sin", "sinc", "sinh", "spacing", "sqrt", "square", "subtract", "tan", "tanh",
           "true_divide", "trunc", "where"]

# NumPy's other names for them (as each declares them: `aliases` in ops/elementwise.py)
abs = fabs = absolute
true_divide = divide
asin, acos, atan, asinh, acosh, atanh, atan2 = arcsin, arccos, arctan, arcsinh, arccosh, arctanh, arctan2
mod = remainder
fix = trunc
invert = bitwise_invert = bitwise_not
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift
astype = ew.astype


def copy(a):
    """np.copy: a new array; on traced values the identity with derivative 1."""
    return ew.copy(_as_operand(a))


def positive(x):
    return x


def round(a, decimals=0):
    """np.round: zero derivative."""
    return ew.around(a, decimals=decimals)


around = round


def _real_only(name, x):
    """x, or NumPy's TypeError for a ufunc that has no complex loop."""
    if getattr(x, "dtype", None) is not None and x.dtype.kind == "c":
        raise TypeError(f"fgrad.numpy.{name}: ufunc '{name}' not supported for complex input (as NumPy)")
    return x


def deg2rad(x):
    return _real_only("deg2rad", x) * (np.pi / 180.0)


def rad2deg(x):
    return _real_only("rad2deg", x) * (180.0 / np.pi)


radians, degrees = deg2rad, rad2deg


def float_power(x1, x2):
    """np.float_power: power computed in float64 (complex128 for complex inputs)."""
    dtype = np.complex128 if np.result_type(peek(x1), peek(x2)).kind == "c" else np.float64
    return ew.power(asarray(x1, dtype=dtype), asarray(x2, dtype=dtype))


def abs2(x):
    """|x|**2 elementwise, real: x * x, or for complex x the sum of its parts squared (as
    NumPy's var and norm compute it). Not exported: NumPy has no abs2. By square, which is
    nan_safe: sqrt(sum(abs2(x))) at 0 has the subgradient 0 (Note [zero cotangents stay zero]
    in ops/elementwise.py)."""
    if x.dtype.kind == "c":
        return ew.square(x.real) + ew.square(x.imag)
    return ew.square(x)


def clip(a, a_min=None, a_max=None):
    """np.clip as maximum/minimum, so bounds may be traced too."""
    if a_min is not None:
        a = ew.maximum(a, a_min)
    if a_max is not None:
        a = ew.minimum(a, a_max)
    return a


def where(condition, x=None, y=None):
    """np.where(condition, x, y), or np.where(condition) (indices, not differentiable)."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("fgrad.numpy.where: either both or neither of x and y should be given")
    return ew.select(condition, x, y)


def nonzero(a):
    c = decided(a, "fnp.nonzero")
    return array_module(c).nonzero(c)


# ---- closeness: NumPy's, on the values (decisions: no derivative) ------------------------
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.allclose(decided(a, "fnp.allclose"), decided(b, "fnp.allclose"), rtol=rtol, atol=atol,
                       equal_nan=equal_nan)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(decided(a, "fnp.isclose"), decided(b, "fnp.isclose"), rtol=rtol, atol=atol, equal_nan=equal_nan)
