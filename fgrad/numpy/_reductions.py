"""NumPy-compatible functions: elementwise, reductions, shapes, indexing, constructors.

Each function takes NumPy's signature, normalizes static arguments (axes, shapes,
indices) once, and binds primitives. On plain arrays the result is a plain array of
the same backend; on traced values it is traced. Composites are written here in fgrad
ops, so they differentiate to any order without rules of their own.
"""
import builtins
import itertools
import math
import types

import numpy as np

from ..backend import CPU, array_module, device_of
from ..ir.value import Tracer, concrete, decided, is_batched, is_staged, peek
from ..ops import broadcasting as bc
from ..ops import elementwise as ew
from ..ops import indexing as ix
from ..ops import reductions as rd
from ..ops import shape as sh

# ---- elementwise: the primitives' entry functions are the functions, under the NumPy names
# each declares (ops/elementwise.py: its name and `aliases`)
for _entry in list(vars(ew).values()):
    for _name in getattr(_entry, "numpy_names", ()):
        globals()[_name] = _entry
astype = ew.astype


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


# ---- static-argument normalization ---------------------------------------------------
def _ndim(x):
    return x.ndim if hasattr(x, "ndim") else np.ndim(x)


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def normalize_axis(axis, ndim, fn="reduction"):
    """None, or a sorted tuple of non-negative axes; out-of-range axes raise naming fn."""
    if axis is None:
        return None
    if axis.__class__ is int and 0 <= axis < ndim:  # the common case
        return (axis,)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < builtins.max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise np.exceptions.AxisError(f"fgrad.numpy.{fn}: axis {a} is out of bounds "
                                          f"for an array of dimension {ndim}")
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ValueError(f"fgrad.numpy.{fn}: repeated axis in {axis!r}")
    return tuple(sorted(out))


def _as_operand(x):
    """Python scalars and lists become arrays; traced values and arrays pass through."""
    if isinstance(x, Tracer) or hasattr(x, "shape"):
        return x
    return asarray(x)


def _on_device_of(x, value):
    """A constant (a NumPy array, or anything np.asarray takes) on the device of x."""
    return array_module(peek(x)).asarray(value)


def _check_out(fn, out):
    if out is not None:
        raise TypeError(f"fgrad.numpy.{fn}: the out= argument is not supported (arrays are not mutated)")


# ---- reductions ------------------------------------------------------------------------
def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    if out is not None:
        _check_out("sum", out)
    a = _as_operand(a)
    if dtype is not None:
        a = astype(a, dtype)
    elif a.dtype.kind == "b":
        a = astype(a, np.int64)
    if axis is not None:
        axis = normalize_axis(axis, a.ndim, "sum")
        if axis == ():
            return a
    return bc.reduce_sum(a, axis=axis, keepdims=bool(keepdims))


def _count(a, axis):
    shape = _shape(a)
    return math.prod(shape) if axis is None else math.prod(shape[i] for i in axis)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    _check_out("mean", out)
    a = _as_operand(a)
    if dtype is None and not np.issubdtype(a.dtype, np.inexact):
        dtype = np.float64
    axis = normalize_axis(axis, a.ndim, "mean")
    return sum(a, axis=axis, dtype=dtype, keepdims=keepdims) / _count(a, axis)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    _check_out("var", out)
    a = _as_operand(a)
    axis = normalize_axis(axis, a.ndim, "var")
    d = a - mean(a, axis=axis, dtype=dtype, keepdims=True)
    return sum(abs2(d), axis=axis, keepdims=keepdims) / (_count(a, axis) - ddof)


def abs2(x):
    """|x|**2 elementwise, real: x * x, or for complex x the sum of its parts squared (as
    NumPy's var and norm compute it; a complex traced value raises at .real)."""
    if x.dtype.kind == "c":
        re, im = x.real, x.imag
        return re * re + im * im
    return x * x


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return ew.sqrt(var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims))


def _extremum(prim, name):
    def reduce(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        _check_out(name, out)
        if initial is not None or where is not None:
            raise TypeError(f"fgrad.numpy.{name}: initial= and where= are not supported")
        a = _as_operand(a)
        axis = normalize_axis(axis, a.ndim, name)
        if _count(a, None) == 0:
            raise ValueError(f"fgrad.numpy.{name}: zero-size array to reduction operation which has no identity")
        return prim(a, axis=axis, keepdims=bool(keepdims))
    reduce.__name__ = name
    reduce.__doc__ = f"np.{name}: ties share the gradient evenly."
    return reduce


max = amax = _extremum(rd.reduce_max, "max")
min = amin = _extremum(rd.reduce_min, "min")


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    _check_out("prod", out)
    a = _as_operand(a)
    if dtype is not None:
        a = astype(a, dtype)
    axis = normalize_axis(axis, a.ndim, "prod")
    return rd.reduce_prod(a, axis=axis, keepdims=bool(keepdims))


def ptp(a, axis=None, keepdims=False):
    return max(a, axis=axis, keepdims=keepdims) - min(a, axis=axis, keepdims=keepdims)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    a = _as_operand(a)
    return sum(where(ew.isnan(a), 0.0, a), axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    a = _as_operand(a)
    n = sum(ew.logical_not(ew.isnan(a)), axis=axis, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims) / n


def _scan(prim, name):
    def scan(a, axis=None, dtype=None, out=None):
        _check_out(name, out)
        a = _as_operand(a)
        if dtype is not None:
            a = astype(a, dtype)
        if axis is None:
            a, axis = ravel(a), 0
        (axis,) = normalize_axis(axis, a.ndim, name)
        return prim(a, axis=axis)
    scan.__name__ = name
    return scan


cumsum = _scan(rd.cumsum, "cumsum")
cumprod = _scan(rd.cumprod, "cumprod")


def _arg_reduction(prim, name):
    def reduce(a, axis=None, out=None, keepdims=False):
        _check_out(name, out)
        return prim(_as_operand(a), axis=axis, keepdims=keepdims)
    reduce.__name__ = name
    return reduce


argmax = _arg_reduction(rd.argmax, "argmax")
argmin = _arg_reduction(rd.argmin, "argmin")


def argsort(a, axis=-1, kind=None, order=None):
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), -1
    return rd.argsort(a, axis=axis)


def sort(a, axis=-1, kind=None, order=None):
    """np.sort, differentiable: a gather by the sorting permutation."""
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), -1
    return take_along_axis(a, argsort(a, axis=axis), axis=axis)


# ---- shapes ----------------------------------------------------------------------------
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
    axes = tuple(reversed(range(ndim))) if axes is None else tuple(int(x) % ndim for x in axes)
    if sorted(axes) != list(range(ndim)):
        raise ValueError(f"fgrad.numpy.transpose: axes {axes} don't match an array of dimension {ndim}")
    return a if axes == tuple(range(ndim)) else sh.transpose(a, axes=axes)


def permute_dims(a, axes=None):
    return transpose(a, axes)


def swapaxes(a, axis1, axis2):
    a = _as_operand(a)
    axes = list(range(a.ndim))
    axis1, axis2 = axis1 % a.ndim, axis2 % a.ndim
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return transpose(a, axes)


def moveaxis(a, source, destination):
    return sh.moveaxis(_as_operand(a), source, destination)


def expand_dims(a, axis):
    return sh.expand_dims(_as_operand(a), axis)


def squeeze(a, axis=None):
    a = _as_operand(a)
    shape = _shape(a)
    axes = tuple(i for i, d in enumerate(shape) if d == 1) if axis is None else normalize_axis(axis, a.ndim, "squeeze")
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
        arrays = [astype(a, dtype) for a in arrays]
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
    lead = (slice(None),) * (axis % ary.ndim)
    return [ary[lead + (slice(lo, builtins.max(lo, hi)),)] for lo, hi in itertools.pairwise(bounds)]


def split(ary, indices_or_sections, axis=0):
    if isinstance(indices_or_sections, (int, np.integer)) and _shape(ary)[axis] % indices_or_sections:
        raise ValueError(f"fgrad.numpy.split: array split does not result in an equal division "
                         f"({_shape(ary)[axis]} into {indices_or_sections})")
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
    if axis is None:
        a, axis = ravel(a), 0
    axis = axis % a.ndim
    index = np.repeat(np.arange(_shape(a)[axis]), repeats)
    return take(a, index, axis=axis)


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
    for s, ax in zip(shifts.tolist(), axes.tolist()):
        n = _shape(a)[ax]
        a = take(a, (np.arange(n) - s) % n, axis=ax)
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
            array = take(array, np.pad(np.arange(_shape(array)[ax]), w, mode=mode, **kwargs), axis=ax)
    return array


# ---- indexing ----------------------------------------------------------------------------
class at:
    """Functional updates of the elements `index` selects, as JAX's `x.at[index]`:
    `fnp.at(x)[index].set(v)`, `.add(v)`, `.get()` (traced values also have `x.at`). They
    return a new array and never change `x`, so they work on traced values and plain arrays
    alike, where `b[i] = v` into a NumPy array would drop v's derivative.

    set: as NumPy's `b[index] = v` (v broadcast to the selection; a repeated index takes
    the last value). add: as `np.add.at` (a repeated index adds each value)."""

    __slots__ = ("x", "index")

    def __init__(self, x, index=None):
        self.x, self.index = _as_operand(x), index

    def __getitem__(self, index):
        return at(self.x, ix.normalize_index(index))

    def get(self):
        return ix.getitem(self.x, index=self._index())

    def add(self, values):
        x, index = self.x, self._index()
        selected = np.empty(_shape(x), bool)[index].shape  # (only the selection's shape is read)
        return x + ix.scatter_add(broadcast_to(astype(_as_operand(values), x.dtype), selected), index=index,
                                  shape=_shape(x))

    def set(self, values):
        x, index = self.x, self._index()
        ids = np.arange(_count(x, None)).reshape(_shape(x))[index]  # the flat position each selected element has
        source = np.full(_count(x, None), -1)
        source[ids.ravel()] = np.arange(ids.size)  # which value lands where (NumPy's order: the last one wins)
        hit = source >= 0
        flat = ravel(broadcast_to(astype(_as_operand(values), x.dtype), ids.shape))
        picked = ix.getitem(flat, index=(np.where(hit, source, 0),)) if ids.size else zeros_like(ravel(x))
        return reshape(where(_on_device_of(x, hit), picked, ravel(x)), _shape(x))

    def _index(self):
        if self.index is None:
            raise TypeError("fgrad.numpy.at: index it first, as in fnp.at(x)[i].set(v)")
        return self.index


def getitem(a, index):
    """a[index] with ints, slices, None, Ellipsis, integer arrays and boolean masks (and, under
    vmap, integer arrays that differ between examples: ops/indexing.py's gather)."""
    template, operands = ix.split_dynamic(ix.normalize_index(index, dynamic=True))
    if operands:
        return ix.gather(a, *operands, template=template)
    return ix.getitem(a, index=template)


def take(a, indices, axis=None, out=None, mode=None):
    _check_out("take", out)
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = axis % a.ndim
    if is_batched(indices) or is_staged(indices):  # (gathered per example, or as a step: fnp.getitem)
        return getitem(a, (slice(None),) * axis + (indices,))
    indices = np.asarray(concrete(indices))
    n = _shape(a)[axis]
    if indices.size and (indices.max() >= n or indices.min() < -n):
        raise IndexError(f"fgrad.numpy.take: index {int(indices.max())} is out of bounds for axis {axis} with size {n}")
    return getitem(a, (slice(None),) * axis + (indices,))


def take_along_axis(arr, indices, axis):
    arr = _as_operand(arr)
    indices = indices if is_batched(indices) or is_staged(indices) else np.asarray(concrete(indices))
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = axis % arr.ndim
    if indices.ndim != arr.ndim:
        raise ValueError(f"fgrad.numpy.take_along_axis: indices has {indices.ndim} dimensions but arr has {arr.ndim}")
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = _shape(arr)[d]
            index.append(np.arange(_shape(arr)[d]).reshape(shape))
    return getitem(arr, tuple(index))


def diagonal(a, offset=0, axis1=0, axis2=1):
    a = _as_operand(a)
    return sh.diagonal(a, offset=int(offset), axis1=axis1 % a.ndim, axis2=axis2 % a.ndim)


def diag(v, k=0):
    v = _as_operand(v)
    if v.ndim == 1:
        n = _shape(v)[0] + builtins.abs(k)
        return sh.diagonal_scatter(v, shape=(n, n), offset=int(k), axis1=0, axis2=1)
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError(f"fgrad.numpy.diag: input must be 1- or 2-d, got {v.ndim}-d")


def diagflat(v, k=0):
    return diag(ravel(_as_operand(v)), k)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


def _tri_mask(a, k, upper):
    m, n = _shape(a)[-2:]
    lower = array_module(peek(a)).tri(m, n, k - 1 if upper else k, dtype=bool)  # (on a's device)
    return ~lower if upper else lower


def triu(m, k=0):
    m = _as_operand(m)
    return where(_tri_mask(m, k, True), m, 0.0 if np.issubdtype(m.dtype, np.inexact) else 0)


def tril(m, k=0):
    m = _as_operand(m)
    return where(_tri_mask(m, k, False), m, 0.0 if np.issubdtype(m.dtype, np.inexact) else 0)


# ---- constructors ------------------------------------------------------------------------
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


def array(object, dtype=None, copy=True, ndmin=0):
    """np.array; nested lists may hold traced scalars or arrays (they are stacked)."""
    if isinstance(object, (list, tuple)) and _to_stack(object):
        out = stack([array(o) for o in object]) if object else asarray(np.array(object))
        if dtype is not None:
            out = astype(out, dtype)
        return reshape(out, (1,) * (ndmin - out.ndim) + _shape(out)) if out.ndim < ndmin else out
    if isinstance(object, Tracer):
        out = object if dtype is None else astype(object, dtype)
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
        return broadcast_to(fill_value if dtype is None else astype(fill_value, dtype),
                            (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape))
    return np.full(shape, fill_value, dtype=dtype, order=order)


def zeros_like(a, dtype=None, shape=None):
    c = peek(a)
    return array_module(c).zeros(_shape(a) if shape is None else shape, dtype=c.dtype if dtype is None else dtype) \
        if hasattr(c, "dtype") else np.zeros_like(c, dtype=dtype, shape=shape)


def ones_like(a, dtype=None, shape=None):
    return zeros_like(a, dtype, shape) + 1


def full_like(a, fill_value, dtype=None, shape=None):
    return zeros_like(a, dtype, shape) + fill_value if not isinstance(fill_value, Tracer) else \
        broadcast_to(astype(fill_value, dtype or a.dtype), _shape(a) if shape is None else shape)


def empty_like(a, dtype=None, shape=None):
    return zeros_like(a, dtype, shape)


def shape(a):
    return _shape(a)


def ndim(a):
    return _ndim(a)


def size(a, axis=None):
    s = _shape(a)
    return math.prod(s) if axis is None else s[axis]


def result_type(*arrays_and_dtypes):
    return np.result_type(*[peek(a) for a in arrays_and_dtypes])


def isscalar(element):
    return np.isscalar(peek(element))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.allclose(decided(a, "fnp.allclose"), decided(b, "fnp.allclose"), rtol=rtol, atol=atol,
                       equal_nan=equal_nan)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(decided(a, "fnp.isclose"), decided(b, "fnp.isclose"), rtol=rtol, atol=atol, equal_nan=equal_nan)


def any(a, axis=None, keepdims=False):
    # Under vmap, each example's: a count of its nonzero elements. Under compile the same, as
    # steps of the program, so a decision on it is guarded, not all of a's values.
    if is_batched(a) or is_staged(a):
        return ew.greater(count_nonzero(a, axis, keepdims), 0)
    return np.any(concrete(a), axis=axis, keepdims=keepdims)


def all(a, axis=None, keepdims=False):
    if is_batched(a) or is_staged(a):
        axes = normalize_axis(axis, a.ndim, "all")
        return ew.equal(count_nonzero(a, axis, keepdims), _count(a, axes))
    return np.all(concrete(a), axis=axis, keepdims=keepdims)


def count_nonzero(a, axis=None, keepdims=False):
    if is_batched(a) or is_staged(a):
        return sum(astype(ew.not_equal(a, 0), np.int64), axis=axis, keepdims=keepdims)
    return np.count_nonzero(concrete(a), axis=axis, keepdims=keepdims)


def copy(a):
    """np.copy: a new array; on traced values the identity with derivative 1."""
    return ew.copy(_as_operand(a))


# The NumPy-facing names (not the modules and helpers this file imports).
__all__ = [name for name, value in list(globals().items())
           if not name.startswith("_") and not isinstance(value, types.ModuleType)
           and name not in {"array_module", "Tracer", "concrete", "normalize_axis", "abs2"}]
