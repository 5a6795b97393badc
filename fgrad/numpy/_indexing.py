"""Index builders (ix_, indices, mgrid, r_, c_, ...), index arithmetic, and selections
by condition (select, piecewise, choose, compress, extract).

Index builders make integer arrays from shapes: NumPy's own. Selections are gathers
and `where`s in fgrad ops, differentiable in the values selected; a condition that
decides which elements are kept (compress, extract) is a decision on its values.
"""
import numpy as np

from ..ir.value import Tracer, decided
from ..ops import elementwise as ew
from . import _core as fnp

__all__ = ["c_", "choose", "compress", "diag_indices", "diag_indices_from", "extract", "fill_diagonal", "index_exp",
           "indices", "ix_", "mask_indices", "meshgrid", "mgrid", "ogrid", "piecewise", "place", "put",
           "put_along_axis", "r_", "ravel_multi_index", "s_", "select", "tril_indices", "tril_indices_from",
           "triu_indices", "triu_indices_from", "unravel_index"]

# Integer arrays from shapes alone (or a traced value's shape): NumPy's.
indices, ix_, mgrid, ogrid, s_, index_exp = np.indices, np.ix_, np.mgrid, np.ogrid, np.s_, np.index_exp
diag_indices, tril_indices, triu_indices, mask_indices = np.diag_indices, np.tril_indices, np.triu_indices, \
    np.mask_indices


def diag_indices_from(arr):
    shape = fnp._shape(arr)
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
    shape = fnp._shape(arr)
    if len(shape) != 2:
        raise ValueError(f"fgrad.numpy.{name}: input array must be 2-d")
    return shape


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    return np.ravel_multi_index(tuple(np.asarray(decided(i, "an index")) for i in multi_index), dims, mode=mode,
                                order=order)


def unravel_index(indices, shape, order="C"):
    return np.unravel_index(np.asarray(decided(indices, "an index")), shape, order=order)


class _Concatenator:
    """r_ and c_: NumPy's index-expression concatenation, stacking traced pieces with fgrad."""

    def __init__(self, numpy_version, columns):
        self._np, self._columns = numpy_version, columns

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if not any(isinstance(v, Tracer) for v in items):
            return self._np[key]
        if any(isinstance(v, (slice, str)) for v in items):
            raise TypeError("fgrad.numpy.r_/c_: slices and directive strings are not supported beside traced values")
        parts = [fnp.atleast_1d(fnp._as_operand(v)) for v in items]
        if self._columns:
            parts = [p[:, None] if p.ndim == 1 else p for p in parts]
            return fnp.concatenate(parts, axis=-1)
        return fnp.concatenate(parts, axis=0)


r_ = _Concatenator(np.r_, columns=False)
c_ = _Concatenator(np.c_, columns=True)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays: broadcasts of the inputs (differentiable in them)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("fgrad.numpy.meshgrid: indexing must be 'xy' or 'ij'")
    xs = [fnp.ravel(fnp._as_operand(x)) for x in xi]
    n = len(xs)
    shapes = []
    for i in range(n):
        shape = [1] * n
        shape[i] = -1
        if indexing == "xy" and n >= 2 and i < 2:
            shape[0], shape[1] = shape[1], shape[0]
        shapes.append(tuple(shape))
    out = [fnp.reshape(x, s) for x, s in zip(xs, shapes)]
    if sparse:
        return tuple(out)
    return tuple(fnp.broadcast_arrays(*out))


# ---- selections -------------------------------------------------------------------------
def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, else default (a chain of where)."""
    if len(condlist) != len(choicelist):
        raise ValueError("fgrad.numpy.select: list of cases must be same length as list of conditions")
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = ew.where(cond, choice, out)
    return fnp._as_operand(out) if not isinstance(out, Tracer) else out


def piecewise(x, condlist, funclist, *args, **kw):
    """Each function evaluated on the elements its condition selects (gathered, so a function
    never sees elements it does not apply to), scattered back; differentiable in x."""
    x = fnp._as_operand(x)
    if isinstance(condlist, (bool, np.bool_)) or (hasattr(condlist, "ndim") and condlist.ndim == fnp._ndim(x)
                                                  and not isinstance(condlist, list)):
        condlist = [condlist]
    conds = [np.broadcast_to(np.asarray(decided(c, "fgrad.numpy.piecewise's condition"), dtype=bool),
                             fnp._shape(x)) for c in condlist]
    if len(funclist) == len(conds) + 1:
        conds.append(~np.any(conds, axis=0))
    elif len(funclist) != len(conds):
        raise ValueError("fgrad.numpy.piecewise: with N conditions, give N or N+1 functions")
    out = fnp.zeros_like(x)
    for cond, fn in zip(conds, funclist):
        if not cond.any():
            continue
        idx = np.nonzero(cond)
        value = fn(x[idx], *args, **kw) if callable(fn) else fn
        out = fnp.at(out)[idx].set(fnp.broadcast_to(fnp.astype(fnp._as_operand(value), x.dtype), (len(idx[0]),))
                                   if fnp._ndim(fnp._as_operand(value)) == 0 else value)
    return out


def choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i] for each i (the index array decides; the chosen values carry derivatives)."""
    fnp._check_out("choose", out)
    idx = np.asarray(decided(a, "fgrad.numpy.choose's index"))
    if mode == "raise" and (idx.min(initial=0) < 0 or idx.max(initial=0) >= len(choices)):
        raise ValueError("fgrad.numpy.choose: invalid entry in choice array")
    idx = np.clip(idx, 0, len(choices) - 1) if mode == "clip" else idx % len(choices)
    chosen = [fnp._as_operand(c) for c in choices]
    shape = np.broadcast_shapes(idx.shape, *[fnp._shape(c) for c in chosen])
    stacked = fnp.stack([fnp.broadcast_to(c, shape) for c in chosen])
    return fnp.take_along_axis(stacked, np.broadcast_to(idx, shape)[None].astype(np.int64), axis=0)[0]


def compress(condition, a, axis=None, out=None):
    fnp._check_out("compress", out)
    keep = np.flatnonzero(np.asarray(decided(condition, "fgrad.numpy.compress's condition"), dtype=bool))
    a = fnp._as_operand(a)
    if axis is None:
        return fnp.ravel(a)[keep]
    return fnp.take(a, keep, axis=axis)


def extract(condition, arr):
    return compress(np.ravel(np.asarray(decided(condition, "fgrad.numpy.extract's condition"))), fnp.ravel(arr))


# ---- NumPy's in-place writers: arrays only (traced values are immutable) ------------------------
def _writer(name):
    numpy_fn = getattr(np, name)

    def write(a, *args, **kwargs):
        if isinstance(a, Tracer):
            raise TypeError(f"fgrad.numpy.{name} writes into its argument, and traced values are immutable; use "
                            f"fnp.at(x)[index].set(values) (or .add) for the updated array")
        return numpy_fn(a, *args, **kwargs)
    write.__name__ = name
    write.__doc__ = f"np.{name} on an array; a traced value raises (immutable: use fnp.at)."
    return write


put, put_along_axis, place, fill_diagonal = (_writer(n) for n in ("put", "put_along_axis", "place", "fill_diagonal"))
