"""Shapes: reshaping, transposing, broadcasting, joining, splitting, tiling, flipping, padding,
building (append, insert, delete, block, rot90, resize), the shape queries (shape, ndim, size),
and the function appliers (apply_along_axis, vectorize, fromfunction).

All are reshapes, concatenations and gathers by a static index in fgrad ops (differentiable
in every array argument); appliers call the user's function on traced slices, one call per
slice, and stack the results. This module sits below creation and indexing (which use it),
so its gathers bind ops/indexing.py's getitem themselves (`_gather`).
"""
import builtins
import itertools
import math

import numpy as np

from ..ir.value import Tracer
from ..ops import broadcasting as bc
from ..ops import elementwise as ew
from ..ops import indexing as ix
from ..ops import shape as sh
from ._arguments import (
    _as_operand,
    _check_out,
    _count,
    _ndim,
    _on_device_of,
    _on_host,
    _shape,
    axis_index,
    normalize_axis,
)

__all__ = ["append", "apply_along_axis", "apply_over_axes", "array_split", "atleast_1d", "atleast_2d", "atleast_3d",
           "block", "broadcast_arrays", "broadcast_to", "column_stack", "concatenate", "delete", "dsplit", "dstack",
           "einsum_path", "expand_dims", "flip", "fliplr", "flipud", "fromfunction", "hsplit", "hstack", "insert",
           "matrix_transpose", "moveaxis", "ndim", "pad", "permute_dims", "ravel", "repeat", "reshape", "resize",
           "roll", "rollaxis", "rot90", "row_stack", "shape", "size", "split", "squeeze", "stack", "swapaxes", "tile",
           "transpose", "unstack", "vectorize", "vsplit", "vstack"]


def _gather(a, index, axis):
    """a's elements at the integer array `index` along `axis` (an index of a's axes, in bounds):
    fgrad.numpy.take's gather, which sits above this module. A host index goes to a's device."""
    return ix.getitem(a, index=ix.normalize_index((slice(None),) * axis + (_on_device_of(a, index),)))


# ---- shape queries -----------------------------------------------------------------------
def shape(a):
    return _shape(a)


def ndim(a):
    return _ndim(a)


def size(a, axis=None):
    s = _shape(a)
    return math.prod(s) if axis is None else math.prod(s[i] for i in normalize_axis(axis, len(s), "size"))


# ---- reshaping, transposing, broadcasting, joining, splitting ----------------------------
def _resolve_shape(shape, size, fn="reshape"):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise ValueError(f"fgrad.numpy.{fn}: can only specify one unknown dimension, got {shape}")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise ValueError(f"fgrad.numpy.{fn}: cannot reshape array of size {size} into shape {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if math.prod(shape) != size:
        raise ValueError(f"fgrad.numpy.{fn}: cannot reshape array of size {size} into shape {shape}")
    return shape


def reshape(a, shape=None, order="C", *, newshape=None):
    a = _as_operand(a)
    if order != "C":
        raise NotImplementedError(f"fgrad.numpy.reshape: order={order!r} is not supported, only 'C'")
    shape = _resolve_shape(newshape if shape is None else shape, _count(a, None))
    return a if shape == _shape(a) else sh.reshape(a, shape=shape)


def ravel(a, order="C"):
    a = _as_operand(a)
    return reshape(a, (_count(a, None),), order)


def transpose(a, axes=None):
    a = _as_operand(a)
    ndim = a.ndim
    axes = tuple(reversed(range(ndim))) if axes is None else normalize_axis(axes, ndim, "transpose", ordered=True)
    if len(axes) != ndim:
        raise ValueError(f"fgrad.numpy.transpose: axes {axes} don't match an array of dimension {ndim}")
    return a if axes == tuple(range(ndim)) else sh.transpose(a, axes=axes)


def permute_dims(a, axes=None):
    return transpose(a, axes)


def swapaxes(a, axis1, axis2):
    a = _as_operand(a)
    axes = list(range(a.ndim))
    axis1, axis2 = axis_index(axis1, a.ndim, "swapaxes"), axis_index(axis2, a.ndim, "swapaxes")
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return transpose(a, axes)


def matrix_transpose(x, /):
    """The last two axes swapped."""
    x = _as_operand(x)
    if x.ndim < 2:
        raise ValueError("fgrad.numpy.matrix_transpose: the input needs at least two dimensions")
    return swapaxes(x, -1, -2)


def moveaxis(a, source, destination):
    return sh.moveaxis(_as_operand(a), source, destination, "fgrad.numpy.moveaxis")


def expand_dims(a, axis):
    return sh.expand_dims(_as_operand(a), axis, "fgrad.numpy.expand_dims")


def squeeze(a, axis=None):
    a = _as_operand(a)
    shape = _shape(a)
    axes = tuple(i for i, d in enumerate(shape) if d == 1) if axis is None else \
        normalize_axis(axis, a.ndim, "squeeze", reduction=True)  # (a 0-d array's axis 0 or -1: none, as NumPy's)
    for i in axes:
        if shape[i] != 1:
            raise ValueError("fgrad.numpy.squeeze: cannot select an axis to squeeze out which has size not equal "
                             f"to one (axis {i}, shape {shape})")
    return reshape(a, tuple(d for i, d in enumerate(shape) if i not in axes))


def broadcast_to(array, shape):
    array = _as_operand(array)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    np.broadcast_shapes(_shape(array), shape)  # raises NumPy's message on mismatch
    return array if _shape(array) == shape else bc.broadcast_to(array, shape=shape)


def broadcast_arrays(*args):
    shape = np.broadcast_shapes(*[_shape(a) for a in args])
    return [broadcast_to(a, shape) for a in args]


def atleast_1d(*arys):
    res = [reshape(a, (1,)) if _ndim(a) == 0 else _as_operand(a) for a in arys]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    res = []
    for a in arys:
        a = _as_operand(a)
        res.append(reshape(a, (1, 1)) if a.ndim == 0 else reshape(a, (1,) + _shape(a)) if a.ndim == 1 else a)
    return res[0] if len(res) == 1 else res


def atleast_3d(*arys):
    res = []
    for a in arys:
        a = _as_operand(a)
        s = _shape(a)
        res.append(reshape(a, (1, 1, 1)) if a.ndim == 0 else reshape(a, (1,) + s + (1,)) if a.ndim == 1
                   else reshape(a, s + (1,)) if a.ndim == 2 else a)
    return res[0] if len(res) == 1 else res


def concatenate(arrays, axis=0, out=None, dtype=None):
    _check_out("concatenate", out)
    arrays = [_as_operand(a) for a in arrays]
    if not arrays:
        raise ValueError("fgrad.numpy.concatenate: need at least one array to concatenate")
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    if dtype is not None:
        arrays = [ew.astype(a, dtype) for a in arrays]
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("fgrad.numpy.concatenate: zero-dimensional arrays cannot be concatenated")
    (axis,) = normalize_axis(axis, ndim, "concatenate")
    return arrays[0] if len(arrays) == 1 else sh.concatenate(*arrays, axis=axis)


def stack(arrays, axis=0, out=None):
    arrays = [_as_operand(a) for a in arrays]
    if not arrays:
        raise ValueError("fgrad.numpy.stack: need at least one array to stack")
    shapes = {_shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"fgrad.numpy.stack: all input arrays must have the same shape, got {sorted(shapes)}")
    axis = normalize_axis(axis, arrays[0].ndim + 1, "stack")[0]
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis, out=out)


def hstack(tup):
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)


def vstack(tup):
    return concatenate([atleast_2d(a) for a in tup], axis=0)


row_stack = vstack


def dstack(tup):
    return concatenate([atleast_3d(a) for a in tup], axis=2)


def column_stack(tup):
    return concatenate([reshape(a, (-1, 1)) if _ndim(a) < 2 else a for a in tup], axis=1)


def array_split(ary, indices_or_sections, axis=0):
    ary = _as_operand(ary)
    axis = axis_index(axis, ary.ndim, "array_split")
    n = _shape(ary)[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise ValueError("fgrad.numpy.array_split: number sections must be larger than 0")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        bounds = [0] + [builtins.min(int(i), n) for i in indices_or_sections] + [n]
    lead = (slice(None),) * axis
    return [ary[lead + (slice(lo, builtins.max(lo, hi)),)] for lo, hi in itertools.pairwise(bounds)]


def split(ary, indices_or_sections, axis=0):
    n = _shape(ary)[axis_index(axis, _ndim(ary), "split")]
    if isinstance(indices_or_sections, (int, np.integer)) and n % indices_or_sections:
        raise ValueError(f"fgrad.numpy.split: array split does not result in an equal division "
                         f"({n} into {indices_or_sections})")
    return array_split(ary, indices_or_sections, axis)


def tile(A, reps):
    A = _as_operand(A)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    d = builtins.max(A.ndim, len(reps))
    shape = (1,) * (d - A.ndim) + _shape(A)
    reps = (1,) * (d - len(reps)) + reps
    a = reshape(A, tuple(v for s in shape for v in (1, s)))
    a = broadcast_to(a, tuple(v for r, s in zip(reps, shape) for v in (r, s)))
    return reshape(a, tuple(r * s for r, s in zip(reps, shape)))


def repeat(a, repeats, axis=None):
    a = _as_operand(a)
    if axis is None or a.ndim == 0:  # (NumPy repeats a 0-d array as one of shape (1,), along axis 0 or -1)
        a, axis = ravel(a), 0 if axis is None else axis
    axis = axis_index(axis, a.ndim, "repeat")
    index = np.repeat(np.arange(_shape(a)[axis]), repeats)
    return _gather(a, index, axis=axis)


def flip(m, axis=None):
    m = _as_operand(m)
    axis = tuple(range(m.ndim)) if axis is None else normalize_axis(axis, m.ndim, "flip")
    return sh.flip(m, axis=axis) if axis else m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    a = _as_operand(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _shape(a))
    shifts, axes = np.broadcast_arrays(np.atleast_1d(shift), np.atleast_1d(axis))
    for s, ax in zip(shifts.tolist(), axes.tolist()):  # (an axis may repeat: it is rolled again)
        ax = axis_index(ax, a.ndim, "roll")
        n = _shape(a)[ax]
        a = _gather(a, (np.arange(n) - s) % n, axis=ax)
    return a


def pad(array, pad_width, mode="constant", constant_values=0, **kwargs):
    """np.pad. Constant padding is a primitive; the other modes gather by index."""
    array = _as_operand(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (array.ndim, 2)).tolist()
    widths = tuple(tuple(w) for w in widths)
    if mode == "constant":
        if isinstance(constant_values, Tracer) or np.ndim(constant_values):
            raise NotImplementedError("fgrad.numpy.pad: constant_values must be a plain scalar")
        return sh.pad_constant(array, pad_width=widths, constant=constant_values)
    if mode not in ("edge", "reflect", "symmetric", "wrap"):
        raise NotImplementedError(f"fgrad.numpy.pad: mode={mode!r} is not supported")
    for ax, w in enumerate(widths):
        if w != (0, 0):
            array = _gather(array, np.pad(np.arange(_shape(array)[ax]), w, mode=mode, **kwargs), axis=ax)
    return array


# ---- building ----------------------------------------------------------------------------
def append(arr, values, axis=None):
    arr, values = _as_operand(arr), _as_operand(values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)])
    return concatenate([arr, values], axis=axis)


def delete(arr, obj, axis=None):
    arr = _as_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    (axis,) = normalize_axis(axis, arr.ndim, "delete")
    n = _shape(arr)[axis]
    keep = np.ones(n, dtype=bool)
    keep[np.arange(n)[obj] if isinstance(obj, slice) else _on_host(obj, "fgrad.numpy.delete's index")] \
        = False
    return _gather(arr, np.flatnonzero(keep), axis=axis)


def insert(arr, obj, values, axis=None):
    """np.insert: the values placed before the given indices (a gather from arr and values)."""
    arr = _as_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    (axis,) = normalize_axis(axis, arr.ndim, "insert")
    n = _shape(arr)[axis]
    positions = np.arange(n + 1)[obj] if isinstance(obj, slice) else _on_host(obj, "an index")
    positions = np.where(positions < 0, positions + n, positions)
    values = ew.astype(_as_operand(values), arr.dtype)
    shape = list(_shape(arr))
    if positions.ndim == 0:  # one place: values become a block there (NumPy's rule for a scalar index)
        values = reshape(values, (1,) * (arr.ndim - values.ndim) + _shape(values))
        values = moveaxis(values, 0, axis)
        shape[axis] = _shape(values)[axis]
        positions = np.full(shape[axis], positions)
    else:
        shape[axis] = positions.shape[0]
    values = broadcast_to(values, tuple(shape))
    keys = np.concatenate([np.arange(n), positions - 0.5])  # (each before the element it precedes)
    return _gather(concatenate([arr, values], axis=axis), np.argsort(keys, kind="stable"), axis=axis)


def block(arrays):
    """np.block: nested lists concatenated, innermost along the last axis."""
    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) else 0
    levels = depth(arrays)
    if levels == 0:
        return _as_operand(arrays)
    leaves = []

    def collect(x):
        if isinstance(x, list):
            for y in x:
                collect(y)
        else:
            leaves.append(_as_operand(x))
    collect(arrays)
    ndim = max(levels, max(_ndim(v) for v in leaves))

    def build(x, level):
        if not isinstance(x, list):
            v = _as_operand(x)
            return reshape(v, (1,) * (ndim - v.ndim) + _shape(v))
        return concatenate([build(y, level + 1) for y in x], axis=-(levels - level))
    return build(arrays, 0)


def rot90(m, k=1, axes=(0, 1)):
    m = _as_operand(m)
    if len(axes) != 2:
        raise ValueError("fgrad.numpy.rot90: len(axes) must be 2")
    a0, a1 = normalize_axis(axes, m.ndim, "rot90", ordered=True)  # (NumPy checks them whatever k is)
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(flip(m, a1), perm) if k == 1 else flip(transpose(m, perm), a1)


def resize(a, new_shape):
    """The elements of a repeated (cyclically) to fill new_shape."""
    a = ravel(_as_operand(a))
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    total = int(np.prod(shape, dtype=np.int64))
    n = _shape(a)[0]
    if total == 0 or n == 0:
        return _on_device_of(a, np.zeros(shape, a.dtype))
    return reshape(a[np.arange(total) % n], shape)


def rollaxis(a, axis, start=0):
    a = _as_operand(a)
    n = a.ndim
    axis = axis_index(axis, n, "rollaxis")
    start = n if start == n else axis_index(start, n, "rollaxis")  # (NumPy's range: -n to n, n after the last)
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start) if axis != start else a


def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=1 if _ndim(ary) > 1 else 0)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, axis=2)


def unstack(x, /, *, axis=0):
    x = _as_operand(x)
    (axis,) = normalize_axis(axis, x.ndim, "unstack")
    return tuple(moveaxis(x, axis, 0)[i] for i in range(_shape(x)[axis]))


# ---- appliers ----------------------------------------------------------------------------
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d on every 1-D slice along axis (one call per slice), the results stacked in place
    of that axis."""
    arr = _as_operand(arr)
    (axis,) = normalize_axis(axis, arr.ndim, "apply_along_axis")
    moved = moveaxis(arr, axis, -1)
    outer = _shape(moved)[:-1]
    results = [_as_operand(func1d(moved[i], *args, **kwargs)) for i in itertools.product(*map(range, outer))]
    out = reshape(stack(results), outer + _shape(results[0]))
    r = _ndim(results[0])
    return moveaxis(out, tuple(range(len(outer), len(outer) + r)), tuple(range(axis, axis + r))) if r else out


def apply_over_axes(func, a, axes):
    out = _as_operand(a)
    n = out.ndim
    for ax in np.atleast_1d(axes):
        ax = int(ax) + n if ax < 0 else int(ax)  # (NumPy's: a negative axis counts from the end once, so -4 of 3 is -1)
        res = func(out, ax)
        if _ndim(res) != out.ndim:
            res = sh.expand_dims(_as_operand(res), ax, "fgrad.numpy.apply_over_axes")
            if _ndim(res) != out.ndim:
                raise ValueError("fgrad.numpy.apply_over_axes: function is not returning an array of the correct shape")
        out = res
    return out


class vectorize:
    """np.vectorize: pyfunc called on each element (traced scalars), results stacked.

    Examples
    --------
    >>> f = fnp.vectorize(lambda x, y: fnp.where(x > y, x, y * 2))
    >>> f(np.array([1.0, 3.0]), 2.0), fgrad.grad(lambda x: fnp.sum(f(x, 2.0)))(np.array([1.0, 3.0]))
    (array([4., 3.]), array([0., 1.]))
    """

    def __init__(self, pyfunc, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        if signature is not None:
            raise NotImplementedError("fgrad.numpy.vectorize: signature= is not implemented")
        self.pyfunc, self.excluded = pyfunc, set(excluded or ())

    def __call__(self, *args, **kwargs):
        if not any(isinstance(a, Tracer) for a in list(args) + list(kwargs.values())):
            return np.vectorize(self.pyfunc, excluded=self.excluded)(*args, **kwargs)
        mapped = [i for i in range(len(args)) if i not in self.excluded]
        arrays = broadcast_arrays(*[_as_operand(args[i]) for i in mapped])
        shape = _shape(arrays[0])
        results = []
        for index in itertools.product(*map(range, shape)):
            call = list(args)
            for i, a in zip(mapped, arrays):
                call[i] = a[index]
            results.append(_as_operand(self.pyfunc(*call, **kwargs)))
        return reshape(stack(results), shape)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    return function(*np.indices(shape, dtype=dtype), **kwargs)


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's contraction path, from the operands' shapes."""
    return np.einsum_path(subscripts, *[np.empty(_shape(o)) for o in operands], optimize=optimize)
