"""Making arrays: np.array and asarray (nested lists may hold traced values: they are
stacked), full and the *_like constructors, and NumPy's own constructors from shapes.

An array made from a shape alone (zeros, eye, arange, ...) is a constant: fgrad.numpy
hands out NumPy's functions for it. What is made from a traced value (a traced fill
value, a list of traced scalars) is traced.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import Tracer, peek
from ..ops import elementwise as ew
from ._arguments import _shape, _stacked, _to_stack
from ._shaping import broadcast_to, reshape

__all__ = ["arange", "array", "asarray", "empty", "empty_like", "eye", "full", "full_like", "identity", "ones",
           "ones_like", "tri", "zeros", "zeros_like"]

zeros, ones, empty, eye, identity, arange, tri = np.zeros, np.ones, np.empty, np.eye, np.identity, np.arange, np.tri


def array(object, dtype=None, copy=True, ndmin=0):
    """np.array; nested lists may hold traced scalars or arrays (they are stacked)."""
    if isinstance(object, (list, tuple)) and _to_stack(object):
        out = _stacked(object)
        if dtype is not None:
            out = ew.astype(out, dtype)
        return reshape(out, (1,) * (ndmin - out.ndim) + _shape(out)) if out.ndim < ndmin else out
    if isinstance(object, Tracer):
        out = object if dtype is None else ew.astype(object, dtype)
        return reshape(out, (1,) * (ndmin - out.ndim) + _shape(out)) if out.ndim < ndmin else out
    xp = array_module(object)
    return xp.array(object, dtype=dtype, copy=copy, ndmin=ndmin)


def asarray(a, dtype=None):
    if isinstance(a, Tracer) or (isinstance(a, (list, tuple)) and _to_stack(a)):
        return array(a, dtype=dtype)
    return array_module(a).asarray(a, dtype=dtype)


def full(shape, fill_value, dtype=None, order="C"):
    """np.full; a traced fill value is broadcast (the result is traced)."""
    if isinstance(fill_value, Tracer):
        return broadcast_to(fill_value if dtype is None else ew.astype(fill_value, dtype),
                            (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape))
    return np.full(shape, fill_value, dtype=dtype, order=order)


def zeros_like(a, dtype=None, shape=None):
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return full_like(a, 1, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None):
    """np.full_like: the fill value in `a`'s dtype (2.5 into an int32 array is 2, as NumPy's), on
    `a`'s device; a traced fill value is cast and broadcast (the result is traced)."""
    c = peek(a)
    if isinstance(fill_value, Tracer):
        return broadcast_to(ew.astype(fill_value, dtype or c.dtype), _shape(a) if shape is None else shape)
    if not hasattr(c, "dtype"):  # (a Python number or a list)
        return np.full_like(c, fill_value, dtype=dtype, shape=shape)
    return array_module(c).full(_shape(a) if shape is None else shape, fill_value,
                                dtype=c.dtype if dtype is None else dtype)


def empty_like(a, dtype=None, shape=None):
    return zeros_like(a, dtype, shape)
