"""Indexing: a[index] (getitem), take and take_along_axis, the functional updates `at`,
diagonals and triangles; index builders (ix_, indices, mgrid, r_, c_, ...) and index
arithmetic; selections by condition (select, piecewise, choose, compress, extract).

A static index is a gather (ops/indexing.py), differentiable in the values gathered; an
integer index array that vmap batches, or that fgrad.compile traces, stays an operand of
the gather. Index builders make integer arrays from shapes: NumPy's own. Selections are
gathers and `where`s in fgrad ops, differentiable in the values selected; a condition that
decides which elements are kept (compress, extract) is a decision on its values.
"""
import builtins

import numpy as np

from ..backend import array_module
from ..ir.value import Tracer, concrete, is_batched, is_staged, peek
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
from ._creation import zeros_like
from ._elementwise import astype, where
from ._shaping import broadcast_arrays, broadcast_to, concatenate, ravel, reshape, stack, transpose

__all__ = ["at", "c_", "choose", "compress", "diag", "diag_indices", "diag_indices_from", "diagflat", "diagonal",
           "extract", "fill_diagonal", "getitem", "index_exp", "indices", "ix_", "mask_indices", "meshgrid", "mgrid",
           "ogrid", "piecewise", "place", "put", "put_along_axis", "r_", "ravel_multi_index", "s_", "select", "take",
           "take_along_axis", "tril", "tril_indices", "tril_indices_from", "triu", "triu_indices", "triu_indices_from",
           "unravel_index"]


# ---- a[index], take, at, diagonals, triangles ----------------------------------------------
class at:
    """Functional updates of the elements `index` selects, as JAX's `x.at[index]`:
    `fnp.at(x)[index].set(v)`, `.add(v)`, `.get()` (traced values also have `x.at`). They
    return a new array and never change `x`, so they work on traced values and plain arrays
    alike, where `b[i] = v` into a NumPy array would drop v's derivative.

    set: as NumPy's `b[index] = v` (v broadcast to the selection; a repeated index takes
    the last value). add: as `np.add.at` (a repeated index adds each value).

    Examples
    --------
    >>> fnp.at(np.zeros(3))[1].set(5.0), fnp.at(np.zeros(3))[np.array([0, 0])].add(1.0)
    (array([0., 5., 0.]), array([2., 0., 0.]))
    >>> float(fgrad.grad(lambda v: fnp.sum(fnp.at(np.zeros(3))[1].set(v) ** 2))(3.0))  # v's derivative kept
    6.0
    """

    __slots__ = ("x", "index")

    def __init__(self, x, index=None):
        self.x, self.index = _as_operand(x), index

    def __getitem__(self, index):
        return at(self.x, ix.normalize_index(index))

    def get(self):
        """x[index], as a new array: the elements the index selects (traced where x is; differentiable
        in x).
        """
        return ix.getitem(self.x, index=self._index())

    def add(self, values):
        """A copy of x with `values` (broadcast to the selection) added at `index`; a repeated index adds
        each value (np.add.at). Differentiable in x and values.
        """
        x, index = self.x, self._index()
        selected = np.empty(_shape(x), bool)[index].shape  # (only the selection's shape is read)
        return x + ix.scatter_add(broadcast_to(astype(_as_operand(values), x.dtype), selected), index=index,
                                  shape=_shape(x))

    def set(self, values):
        """A copy of x with `values` (broadcast to the selection) at `index`; of a repeated index the last
        value is kept (NumPy's b[index] = v). Differentiable in x and values (zero gradient to x where
        overwritten).
        """
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
    vmap, integer arrays that differ between examples: ops/indexing.py's gather).

    Examples
    --------
    >>> fnp.getitem(np.arange(5.0), slice(1, 3)), fgrad.grad(lambda x: fnp.sum(fnp.getitem(x, 1)))(np.ones(3))
    (array([1., 2.]), array([0., 1., 0.]))
    """
    template, operands = ix.split_dynamic(ix.normalize_index(index, dynamic=True))
    if operands:
        return ix.gather(a, *operands, template=template)
    return ix.getitem(a, index=template)


def take(a, indices, axis=None, out=None, mode=None):
    _check_out("take", out)
    a = _as_operand(a)
    if axis is None or a.ndim == 0:  # (NumPy takes from a 0-d array as from one of shape (1,), along axis 0 or -1)
        a, axis = ravel(a), 0 if axis is None else axis
    axis = axis_index(axis, a.ndim, "take")
    if is_batched(indices) or is_staged(indices):  # (gathered per example, or as a step: fnp.getitem)
        return getitem(a, (slice(None),) * axis + (indices,))
    indices = _on_device_of(a, concrete(indices))  # (a's device: a CuPy array's indices stay on the GPU)
    n = _shape(a)[axis]
    if indices.size and (indices.max() >= n or indices.min() < -n):
        raise IndexError(f"fgrad.numpy.take: index {int(indices.max())} is out of bounds for axis {axis} with size {n}")
    return getitem(a, (slice(None),) * axis + (indices,))


def take_along_axis(arr, indices, axis):
    arr = _as_operand(arr)
    indices = indices if is_batched(indices) or is_staged(indices) else _on_device_of(arr, concrete(indices))
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = axis_index(axis, arr.ndim, "take_along_axis")
    if indices.ndim != arr.ndim:
        raise ValueError(f"fgrad.numpy.take_along_axis: indices has {indices.ndim} dimensions but arr has {arr.ndim}")
    index = []
    for d in range(arr.ndim):
        if d == axis:
            index.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = _shape(arr)[d]
            index.append(_on_device_of(arr, np.arange(_shape(arr)[d]).reshape(shape)))  # (one device for all)
    return getitem(arr, tuple(index))


def diagonal(a, offset=0, axis1=0, axis2=1):
    a = _as_operand(a)
    axis1, axis2 = normalize_axis((axis1, axis2), a.ndim, "diagonal", ordered=True)
    return sh.diagonal(a, offset=int(offset), axis1=axis1, axis2=axis2)


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


def _tri_mask(a, k, upper):
    m, n = _shape(a)[-2:]
    lower = array_module(peek(a)).tri(m, n, k - 1 if upper else k, dtype=bool)  # (on a's device)
    return ~lower if upper else lower


def triu(m, k=0):
    m = _as_operand(m)
    return where(_tri_mask(m, k, True), m, m.dtype.type(0))  # (a zero of m's dtype: bool stays bool)


def tril(m, k=0):
    m = _as_operand(m)
    return where(_tri_mask(m, k, False), m, m.dtype.type(0))


# ---- index builders ----------------------------------------------------------------------
# Integer arrays from shapes alone (or a traced value's shape): NumPy's.
indices, ix_, mgrid, ogrid, s_, index_exp = np.indices, np.ix_, np.mgrid, np.ogrid, np.s_, np.index_exp
diag_indices, tril_indices, triu_indices, mask_indices = np.diag_indices, np.tril_indices, np.triu_indices, \
    np.mask_indices


def diag_indices_from(arr):
    shape = _shape(arr)
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError("fgrad.numpy.diag_indices_from: all dimensions of the input must be of equal length")
    return np.diag_indices(shape[0], len(shape))


def tril_indices_from(arr, k=0):
    n, m = _matrix_shape(arr, "tril_indices_from")
    return np.tril_indices(n, k=k, m=m)


def triu_indices_from(arr, k=0):
    n, m = _matrix_shape(arr, "triu_indices_from")
    return np.triu_indices(n, k=k, m=m)


def _matrix_shape(arr, name):
    shape = _shape(arr)
    if len(shape) != 2:
        raise ValueError(f"fgrad.numpy.{name}: input array must be 2-d")
    return shape


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    flat = np.ravel_multi_index(tuple(_on_host(i, "an index") for i in multi_index), dims, mode=mode, order=order)
    return _on_device_of(multi_index[0], flat)


def unravel_index(indices, shape, order="C"):
    return tuple(_on_device_of(indices, i) for i in np.unravel_index(_on_host(indices, "an index"), shape, order=order))


class _Concatenator:
    """r_ and c_: NumPy's index-expression concatenation, stacking traced pieces with fgrad. Slices
    (0:3, 0:1:5j) are NumPy's ranges; a first string "axis[,ndmin[,trans1d]]" is NumPy's directive."""

    def __init__(self, numpy_version, columns):
        self._np = numpy_version
        self._layout = (-1, 2, 0) if columns else (0, 1, -1)  # (axis, ndmin, trans1d), as NumPy's r_ and c_

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if not any(isinstance(v, Tracer) for v in items):
            return self._np[key]
        axis, ndmin, trans1d = self._layout
        if isinstance(items[0], str):
            axis, ndmin, trans1d = _directive(items[0], self._layout)
            items = items[1:]
        if any(isinstance(v, str) for v in items):
            raise ValueError("fgrad.numpy.r_/c_: special directives must be the first entry.")
        parts = [_upgraded(_as_operand(np.r_[v] if isinstance(v, slice) else v), ndmin, trans1d) for v in items]
        return concatenate(parts, axis=axis)


def _directive(text, layout):
    """(axis, ndmin, trans1d) of a directive string "axis[,ndmin[,trans1d]]"."""
    if text in ("r", "c"):
        raise TypeError(f"fgrad.numpy.r_/c_: the directive {text!r} makes an np.matrix, which fgrad does not trace")
    try:
        given = [int(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"fgrad.numpy.r_/c_: unknown special directive {text!r}") from None
    if len(given) > 3:
        raise ValueError(f"fgrad.numpy.r_/c_: a directive has at most 3 integers (axis, ndmin, trans1d), got {text!r}")
    return tuple(given) + layout[len(given):]


def _upgraded(p, ndmin, trans1d):
    """One piece as NumPy's AxisConcatenator makes it: 1s in front up to ndmin axes, then (trans1d
    other than -1) its own axes moved to start at axis trans1d."""
    nd = _ndim(p)
    if nd >= ndmin:
        return p
    p = reshape(p, (1,) * (ndmin - nd) + _shape(p))
    if trans1d == -1 or nd == 0:
        return p
    k1 = trans1d if trans1d >= 0 else trans1d + ndmin - nd + 1
    axes = list(range(ndmin))
    return transpose(p, tuple(axes[:k1] + axes[ndmin - nd:] + axes[k1:ndmin - nd]))


r_ = _Concatenator(np.r_, columns=False)
c_ = _Concatenator(np.c_, columns=True)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays: broadcasts of the inputs (differentiable in them)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("fgrad.numpy.meshgrid: indexing must be 'xy' or 'ij'")
    xs = [ravel(_as_operand(x)) for x in xi]
    n = len(xs)
    shapes = []
    for i in range(n):
        shape = [1] * n
        shape[i] = -1
        if indexing == "xy" and n >= 2 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        shapes.append(tuple(shape))
    out = [reshape(x, s) for x, s in zip(xs, shapes)]
    if sparse:
        return tuple(out)
    return tuple(broadcast_arrays(*out))


# ---- selections -------------------------------------------------------------------------
def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, else default (a chain of where)."""
    if len(condlist) != len(choicelist):
        raise ValueError("fgrad.numpy.select: list of cases must be same length as list of conditions")
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = ew.where(cond, choice, out)
    return _as_operand(out) if not isinstance(out, Tracer) else out


def piecewise(x, condlist, funclist, *args, **kw):
    """Each function evaluated on the elements its condition selects (gathered, so a function
    never sees elements it does not apply to), scattered back; differentiable in x."""
    x = _as_operand(x)
    if isinstance(condlist, (bool, np.bool_)) or (hasattr(condlist, "ndim") and condlist.ndim == _ndim(x)
                                                  and not isinstance(condlist, list)):
        condlist = [condlist]
    conds = [np.broadcast_to(_on_host(c, "fgrad.numpy.piecewise's condition").astype(bool, copy=False), _shape(x))
             for c in condlist]
    if len(funclist) == len(conds) + 1:
        conds.append(~np.any(conds, axis=0))
    elif len(funclist) != len(conds):
        raise ValueError("fgrad.numpy.piecewise: with N conditions, give N or N+1 functions")
    out = zeros_like(x)
    for cond, fn in zip(conds, funclist):
        if not cond.any():
            continue
        idx = tuple(_on_device_of(x, i) for i in np.nonzero(cond))
        value = fn(x[idx], *args, **kw) if callable(fn) else fn
        out = at(out)[idx].set(broadcast_to(astype(_as_operand(value), x.dtype), (len(idx[0]),))
                                   if _ndim(_as_operand(value)) == 0 else value)
    return out


def choose(a, choices, out=None, mode="raise"):
    """`choices[a[i]][i]` for each i (the index array decides; the chosen values carry derivatives)."""
    _check_out("choose", out)
    idx = _on_host(a, "fgrad.numpy.choose's index")
    if mode == "raise" and (idx.min(initial=0) < 0 or idx.max(initial=0) >= len(choices)):
        raise ValueError("fgrad.numpy.choose: invalid entry in choice array")
    idx = np.clip(idx, 0, len(choices) - 1) if mode == "clip" else idx % len(choices)
    chosen = [_as_operand(c) for c in choices]
    shape = np.broadcast_shapes(idx.shape, *[_shape(c) for c in chosen])
    stacked = stack([broadcast_to(c, shape) for c in chosen])
    return take_along_axis(stacked, np.broadcast_to(idx, shape)[None].astype(np.int64), axis=0)[0]


def compress(condition, a, axis=None, out=None):
    _check_out("compress", out)
    keep = np.flatnonzero(_on_host(condition, "fgrad.numpy.compress's condition").astype(bool, copy=False))
    a = _as_operand(a)
    return take(ravel(a) if axis is None else a, keep, axis=0 if axis is None else axis)


def extract(condition, arr):
    return compress(np.ravel(_on_host(condition, "fgrad.numpy.extract's condition")), ravel(arr))


# ---- NumPy's in-place writers: arrays only (traced values are immutable) ------------------------
def _writer(name):
    numpy_fn = getattr(np, name)

    def write(a, *args, **kwargs):
        if isinstance(a, Tracer):
            raise TypeError(f"fgrad.numpy.{name} writes into its argument, and traced values are immutable; use "
                            f"at(x)[index].set(values) (or .add) for the updated array")
        return numpy_fn(a, *args, **kwargs)
    write.__name__ = name
    write.__doc__ = f"np.{name} on an array; a traced value raises (immutable: use at)."
    return write


put, put_along_axis, place, fill_diagonal = (_writer(n) for n in ("put", "put_along_axis", "place", "fill_diagonal"))
