"""New values for the layers of conv.py, pooling.py, normalization.py, dropout.py and sparse.py:
parameters (torch's factory kwargs dtype= and device=, and the default initialization of its
reset_parameters), and constants (masks, divisors) made on the device of the input they meet.

(Drawn from fgrad's default generator, so fgrad.manual_seed makes them repeatable; they are
not torch's numbers, whose generator differs: tests copy parameters across.)
"""
import math
import numbers

import numpy as np

from ..autograd.dtypes import get_default_dtype
from ..autograd.factories import _rng
from ..backend import array_module
from ..backend import device as to_device
from ..ir.value import peek
from .module import Parameter

__all__ = ["filled", "kaiming_uniform", "normal", "on_device_of", "real_only", "scalar_of_kind"]


def _make(array, device, dtype):
    array = np.asarray(array).astype(dtype or get_default_dtype())
    return Parameter(array if device is None else to_device(device).send(array))


def kaiming_uniform(shape, fan_in, device=None, dtype=None):
    """U(-1/sqrt(fan_in), 1/sqrt(fan_in)): torch's kaiming_uniform_(w, a=sqrt(5)) (gain sqrt(1/3)
    times sqrt(3 / fan_in)), and the bound of its biases; all zeros when fan_in is 0."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in else 0.0
    return _make(_rng[0].uniform(-bound, bound, shape), device, dtype)


def normal(shape, device=None, dtype=None):
    """N(0, 1) entries (torch's Embedding)."""
    return _make(_rng[0].standard_normal(shape), device, dtype)


def filled(shape, value, device=None, dtype=None):
    """A parameter of one value (the norms' weights 1 and biases 0)."""
    return _make(np.full(shape, value), device, dtype)


def on_device_of(x, array):
    """A constant (a NumPy array) on the device of x, so that an op never mixes two devices."""
    return array_module(peek(x)).asarray(array)


def real_only(name, *values):
    """Refuse complex inputs: these layers' rules and checks are written for real values (a
    complex batch would run formulas nobody checked), so fgrad raises rather than guess."""
    for v in values:
        if v is not None and getattr(v, "dtype", None) is not None and np.dtype(v.dtype).kind == "c":
            raise TypeError(f"fgrad.nn.functional.{name}: complex inputs are not supported (got dtype {v.dtype}); "
                            f"the layers of fgrad.nn take real values")


def scalar_of_kind(value, dtype):
    """A fill value as torch converts a Scalar argument to dtype: bool for a boolean dtype, a float
    truncated for an integer one, and torch's error where it overflows the dtype (a float outside
    [min, max]; an integer above max, or for an unsigned dtype below -max, which wraps around)."""
    d = np.dtype(dtype)
    if d.kind == "b":
        return bool(value)
    if d.kind not in "iu":
        return value
    info = np.iinfo(d)
    if isinstance(value, numbers.Integral):
        ok = (-int(info.max) if d.kind == "u" else int(info.min)) <= int(value) <= int(info.max)
    else:
        ok = bool(info.min <= float(value) <= info.max)  # (NaN fails too)
    if not ok:
        name = "int" if d == np.int32 else f"{d.name}_t"
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return int(value) % (int(info.max) + 1) if d.kind == "u" else int(value)
