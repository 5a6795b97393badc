"""What every fgrad.numpy function does to its arguments first: make them operands, read
their shapes, normalize axes, refuse `out=`.

They sit below every other module of the package, so they build on ops alone: a nested
list holding traced values is stacked here with the shape primitives, as np.array would
read it (fgrad.numpy.stack, above, stacks the same way).
"""
import math

import numpy as np

from ..backend import CPU, array_module, device_of, to_host
from ..ir.value import Tracer, decided, peek
from ..ops import axes as ax
from ..ops import shape as sh

__all__ = ["_as_operand", "_check_out", "_count", "_ndim", "_on_device_of", "_on_host", "_shape", "_stacked",
           "_to_stack", "axis_index", "normalize_axis"]


def _ndim(x):
    return x.ndim if hasattr(x, "ndim") else np.ndim(x)


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def _count(a, axis):
    shape = _shape(a)
    return math.prod(shape) if axis is None else math.prod(shape[i] for i in axis)


def normalize_axis(axis, ndim, fn="reduction", ordered=False, reduction=False):
    """None, or a tuple of non-negative axes (sorted; as given when `ordered`); an axis out of
    range raises AxisError, a repeated one ValueError, naming fgrad.numpy.fn (ops/axes.py's check).
    For a `reduction` as NumPy's ufuncs reduce (sum, prod, max, any, ...), a 0-d array's one int
    axis 0 or -1 is (): NumPy reduces over no axes there (a tuple such as (0,) raises, as NumPy's)."""
    if axis is None:
        return None
    if axis.__class__ is int and 0 <= axis < ndim:  # the common case
        return (axis,)
    if ndim == 0 and reduction and isinstance(axis, (int, np.integer)) and axis in (0, -1):
        return ()
    axes = ax.axis_tuple(axis, ndim, f"fgrad.numpy.{fn}")
    return axes if ordered else tuple(sorted(axes))


def axis_index(axis, ndim, fn):
    """One axis as an index in range(ndim); out of range raises AxisError naming fgrad.numpy.fn."""
    return ax.axis_index(axis, ndim, f"fgrad.numpy.{fn}")


def _check_out(fn, out):
    if out is not None:
        raise TypeError(f"fgrad.numpy.{fn}: the out= argument is not supported (arrays are not mutated)")


def _to_stack(obj):
    """Does a nested list hold a traced value, or an array of a device other than the CPU? Then
    its entries are stacked (NumPy would convert them to one CPU array)."""
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, Tracer) or (hasattr(x, "shape") and x.__class__ is not np.ndarray and device_of(x) != CPU):
            return True
        if isinstance(x, (list, tuple)):
            stack.extend(x)
    return False


def _stacked(items):
    """A nested list that `_to_stack` picked, as one value: each entry an array (a nested list
    stacked in turn), the entries stacked along a new first axis."""
    parts = [_stacked(o) if isinstance(o, (list, tuple)) and _to_stack(o) else
             o if isinstance(o, Tracer) else array_module(o).array(o) for o in items]
    shapes = {_shape(p) for p in parts}
    if len(shapes) != 1:
        raise ValueError(f"fgrad.numpy.stack: all input arrays must have the same shape, got {sorted(shapes)}")
    parts = [sh.expand_dims(p, 0) for p in parts]
    return parts[0] if len(parts) == 1 else sh.concatenate(*parts, axis=0)


def _as_operand(x):
    """Python scalars and lists become arrays; traced values and arrays pass through."""
    if isinstance(x, Tracer) or hasattr(x, "shape"):
        return x
    if isinstance(x, (list, tuple)) and _to_stack(x):
        return _stacked(x)
    return array_module(x).asarray(x)


def _on_device_of(x, value):
    """A constant (a NumPy array, or anything np.asarray takes) on the device of x."""
    return array_module(peek(x)).asarray(value)


def _on_host(x, what):
    """The values beneath x as a NumPy array on the host (a CuPy array copied), for a decision
    NumPy makes there: which elements, how many, in what order (`what` names it, for decided's
    error under vmap). Results that go back to the user go back to x's device (_on_device_of)."""
    return to_host(decided(x, what))
