"""Building and rearranging arrays: append, insert, delete, block, rot90, resize, the split
variants, unstack, and the function appliers (apply_along_axis, vectorize, fromfunction).

All are concatenations, gathers and reshapes in fgrad ops (differentiable in every array
argument); appliers call the user's function on traced slices, one call per slice, and
stack the results.
"""
import itertools

import numpy as np

from ..ir.value import Tracer, decided
from . import _core as fnp

__all__ = ["append", "apply_along_axis", "apply_over_axes", "block", "delete", "dsplit", "einsum_path",
           "fromfunction", "hsplit", "insert", "resize", "rollaxis", "rot90", "unstack", "vectorize", "vsplit"]


def append(arr, values, axis=None):
    arr, values = fnp._as_operand(arr), fnp._as_operand(values)
    if axis is None:
        return fnp.concatenate([fnp.ravel(arr), fnp.ravel(values)])
    return fnp.concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None):
    arr = fnp._as_operand(arr)
    if axis is None:
        arr, axis = fnp.ravel(arr), 0
    (axis,) = fnp.normalize_axis(axis, arr.ndim, "delete")
    n = fnp._shape(arr)[axis]
    keep = np.ones(n, dtype=bool)
    keep[np.arange(n)[obj] if isinstance(obj, slice) else np.asarray(decided(obj, "fgrad.numpy.delete's index"))] \
        = False
    return fnp.take(arr, np.flatnonzero(keep), axis=axis)


def insert(arr, obj, values, axis=None):
    """np.insert: the values placed before the given indices (a gather from arr and values)."""
    arr = fnp._as_operand(arr)
    if axis is None:
        arr, axis = fnp.ravel(arr), 0
    (axis,) = fnp.normalize_axis(axis, arr.ndim, "insert")
    n = fnp._shape(arr)[axis]
    positions = np.arange(n + 1)[obj] if isinstance(obj, slice) else np.asarray(decided(obj, "an index"))
    positions = np.where(positions < 0, positions + n, positions)
    values = fnp.astype(fnp._as_operand(values), arr.dtype)
    shape = list(fnp._shape(arr))
    if positions.ndim == 0:  # one place: values become a block there (NumPy's rule for a scalar index)
        values = fnp.reshape(values, (1,) * (arr.ndim - values.ndim) + fnp._shape(values))
        values = fnp.moveaxis(values, 0, axis)
        shape[axis] = fnp._shape(values)[axis]
        positions = np.full(shape[axis], positions)
    else:
        shape[axis] = positions.shape[0]
    values = fnp.broadcast_to(values, tuple(shape))
    keys = np.concatenate([np.arange(n), positions - 0.5])  # (each before the element it precedes)
    return fnp.take(fnp.concatenate([arr, values], axis=axis), np.argsort(keys, kind="stable"), axis=axis)


def block(arrays):
    """np.block: nested lists concatenated, innermost along the last axis."""
    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) else 0
    levels = depth(arrays)
    if levels == 0:
        return fnp._as_operand(arrays)
    leaves = []

    def collect(x):
        if isinstance(x, list):
            for y in x:
                collect(y)
        else:
            leaves.append(fnp._as_operand(x))
    collect(arrays)
    ndim = max(levels, max(fnp._ndim(v) for v in leaves))

    def build(x, level):
        if not isinstance(x, list):
            v = fnp._as_operand(x)
            return fnp.reshape(v, (1,) * (ndim - v.ndim) + fnp._shape(v))
        return fnp.concatenate([build(y, level + 1) for y in x], axis=-(levels - level))
    return build(arrays, 0)


def rot90(m, k=1, axes=(0, 1)):
    m = fnp._as_operand(m)
    k %= 4
    a0, a1 = axes
    if k == 0:
        return m
    if k == 2:
        return fnp.flip(fnp.flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return fnp.transpose(fnp.flip(m, a1), perm) if k == 1 else fnp.flip(fnp.transpose(m, perm), a1)


def resize(a, new_shape):
    """The elements of a repeated (cyclically) to fill new_shape."""
    a = fnp.ravel(fnp._as_operand(a))
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    total = int(np.prod(shape, dtype=np.int64))
    n = fnp._shape(a)[0]
    if total == 0 or n == 0:
        return fnp.zeros_like(a, shape=shape)
    return fnp.reshape(a[np.arange(total) % n], shape)


def rollaxis(a, axis, start=0):
    a = fnp._as_operand(a)
    n = a.ndim
    axis = axis % n
    start = start % (n + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return fnp.moveaxis(a, axis, start) if axis != start else a


def hsplit(ary, indices_or_sections):
    return fnp.split(ary, indices_or_sections, axis=1 if fnp._ndim(ary) > 1 else 0)


def vsplit(ary, indices_or_sections):
    return fnp.split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    return fnp.split(ary, indices_or_sections, axis=2)


def unstack(x, /, *, axis=0):
    x = fnp._as_operand(x)
    (axis,) = fnp.normalize_axis(axis, x.ndim, "unstack")
    return tuple(fnp.moveaxis(x, axis, 0)[i] for i in range(fnp._shape(x)[axis]))


# ---- appliers ----------------------------------------------------------------------------
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d on every 1-D slice along axis (one call per slice), the results stacked in place
    of that axis."""
    arr = fnp._as_operand(arr)
    (axis,) = fnp.normalize_axis(axis, arr.ndim, "apply_along_axis")
    moved = fnp.moveaxis(arr, axis, -1)
    outer = fnp._shape(moved)[:-1]
    results = [fnp._as_operand(func1d(moved[i], *args, **kwargs)) for i in itertools.product(*map(range, outer))]
    out = fnp.reshape(fnp.stack(results), outer + fnp._shape(results[0]))
    r = fnp._ndim(results[0])
    return fnp.moveaxis(out, tuple(range(len(outer), len(outer) + r)), tuple(range(axis, axis + r))) if r else out


def apply_over_axes(func, a, axes):
    out = fnp._as_operand(a)
    for ax in np.atleast_1d(axes):
        res = func(out, int(ax))
        out = res if fnp._ndim(res) == out.ndim else fnp.expand_dims(res, int(ax))
    return out


class vectorize:
    """np.vectorize: pyfunc called on each element (traced scalars), results stacked."""

    def __init__(self, pyfunc, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        if signature is not None:
            raise NotImplementedError("fgrad.numpy.vectorize: signature= is not implemented")
        self.pyfunc, self.excluded = pyfunc, set(excluded or ())

    def __call__(self, *args, **kwargs):
        if not any(isinstance(a, Tracer) for a in list(args) + list(kwargs.values())):
            return np.vectorize(self.pyfunc, excluded=self.excluded)(*args, **kwargs)
        mapped = [i for i in range(len(args)) if i not in self.excluded]
        arrays = fnp.broadcast_arrays(*[fnp._as_operand(args[i]) for i in mapped])
        shape = fnp._shape(arrays[0])
        results = []
        for index in itertools.product(*map(range, shape)):
            call = list(args)
            for i, a in zip(mapped, arrays):
                call[i] = a[index]
            results.append(fnp._as_operand(self.pyfunc(*call, **kwargs)))
        return fnp.reshape(fnp.stack(results), shape)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    return function(*np.indices(shape, dtype=dtype), **kwargs)


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's contraction path, from the operands' shapes."""
    return np.einsum_path(subscripts, *[np.empty(fnp._shape(o)) for o in operands], optimize=optimize)
