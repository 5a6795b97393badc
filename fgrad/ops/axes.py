"""Axis primitives: reshape and transpose, and the composites written with them (moveaxis,
expand_dims). Every other layer of ops/ moves axes with these, the batching rules too, so
they import nothing of ops/ but the primitive itself. Here too is the one check of axes that
the user names (axis_index, axis_tuple): every layer above validates with it, against the
user's number of axes (a batching rule's stacked value has one more, so an axis checked there
would accept one past the user's and name the wrong axis).
"""
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .primitive import Primitive

__all__ = ["axis_index", "axis_tuple", "expand_dims", "logical_axis", "moveaxis", "reshape", "transpose"]


def axis_index(axis, ndim, where):
    """`axis` (negative counts from the end) as an index of `ndim` axes; out of range raises
    NumPy's AxisError, its message starting with `where` (the function the user called)."""
    return normalize_axis_index(operator.index(axis), ndim, where)


def axis_tuple(axes, ndim, where):
    """An axis or a sequence of them, as indices in the order given; out of range raises
    AxisError, a repeated axis ValueError (NumPy's types), naming `where`."""
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    out = tuple(axis_index(a, ndim, where) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{where}: repeated axis in {axes!r}")
    return out


def logical_axis(axis, ndim, d=0):
    """A per-example axis (negative counts from the end of the example's `ndim` axes) as an
    axis of the stacked value whose batch axis is at d (first by default). Out of range raises:
    the wrappers check the user's axes first, so one here is a caller's bug (taken modulo, it
    would name the batch axis's neighbour). An example of no axes has none to name."""
    axis = axis_index(axis, ndim, "fgrad (a batching rule)")
    return axis + (axis >= d)


def _reshape_batch(args, dims, shape):
    x = moveaxis(args[0], dims[0], 0)
    return reshape(x, shape=(x.shape[0], *shape)), 0


def _transpose_batch(args, dims, axes):
    d = dims[0]  # the batch axis stays where it is; the others are permuted around it
    return transpose(args[0], axes=(d, *(a + (a >= d) for a in axes))), 0


# The array's own methods: np.reshape and np.transpose are Python wrappers around them.
reshape = Primitive("reshape", lambda x, shape: x.reshape(shape) if hasattr(x, "reshape") else np.reshape(x, shape),
                    saves="nothing", torch_name="View", batch=_reshape_batch,
                    view=lambda base, view_value, shape: reshape(view_value, shape=base.shape))
reshape.defvjp(lambda g, ans, x, shape: reshape(g, shape=x.shape)).defjvp(
    lambda t, ans, x, shape: reshape(t, shape=shape))

transpose = Primitive("transpose",
                      lambda x, axes: x.transpose(axes) if hasattr(x, "transpose") else np.transpose(x, axes),
                      saves="nothing", torch_name="Permute", batch=_transpose_batch,
                      view=lambda base, view_value, axes: transpose(view_value, axes=tuple(np.argsort(axes))))
transpose.defvjp(lambda g, ans, x, axes: transpose(g, axes=tuple(np.argsort(axes)))).defjvp(
    lambda t, ans, x, axes: transpose(t, axes=axes))


def moveaxis(x, source, destination, where="fgrad.moveaxis"):
    """np.moveaxis via transpose (x itself when nothing moves); bad axes raise naming `where`."""
    ndim = x.ndim
    if source.__class__ is int and destination.__class__ is int:  # (the common case)
        src, dst = [axis_index(source, ndim, where)], [axis_index(destination, ndim, where)]
    else:
        src, dst = axis_tuple(source, ndim, where), axis_tuple(destination, ndim, where)
        if len(src) != len(dst):
            raise ValueError(f"{where}: `source` and `destination` arguments must have the same number of elements")
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, axes=tuple(order)) if order != list(range(ndim)) else x


def expand_dims(x, axis, where="fgrad.expand_dims"):
    """np.expand_dims via reshape; axes of the result, bad ones raise naming `where`."""
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = sorted(axis_tuple(axes, x.ndim + len(axes), where))
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    return reshape(x, shape=tuple(shape))
