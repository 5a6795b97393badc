"""Searching, sorting, counting and set operations.

Which elements are found, kept or counted is a decision on the values (guarded under
fgrad.compile, refused under vmap where it would differ between examples); indices,
counts and membership have no derivative. Values returned (unique values, partitions,
set members taken from an input) are gathered from the inputs, so they carry the
inputs' derivatives, each to the first element it was taken from.
"""
from collections import namedtuple

import numpy as np

from ..ir.value import Tracer
from ..ops import reductions as rd
from ._arguments import _as_operand, _ndim, _on_device_of, _on_host, _shape, axis_index
from ._indexing import take, take_along_axis
from ._shaping import concatenate, ravel

__all__ = ["argpartition", "argwhere", "digitize", "flatnonzero", "intersect1d", "isin", "lexsort", "packbits",
           "partition", "searchsorted", "setdiff1d", "setxor1d", "sort_complex", "trim_zeros", "union1d", "unique",
           "unique_all", "unique_counts", "unique_inverse", "unique_values", "unpackbits"]


def _values(x, name):
    return _on_host(x, f"fgrad.numpy.{name}")


def _back(x, result):
    """NumPy's result on the host, returned on x's device (each array of a tuple)."""
    return tuple(_on_device_of(x, r) for r in result) if isinstance(result, tuple) else _on_device_of(x, result)


# ---- searching and counting: integer results, no derivative -------------------------------
def searchsorted(a, v, side="left", sorter=None):
    """Indices (no derivative), as a primitive: traced v stays traced (vmap maps it, fgrad.compile
    stages the search)."""
    if sorter is not None:
        a = take(_as_operand(a), _values(sorter, "searchsorted's sorter"))
    if side not in ("left", "right"):
        raise ValueError(f"fgrad.numpy.searchsorted: side must be 'left' or 'right', got {side!r}")
    return rd.searchsorted(_as_operand(a), _as_operand(v), side=side)


def digitize(x, bins, right=False):
    """The bin of each x (no derivative): a search of increasing bins, or of decreasing ones reversed."""
    b = np.asarray(_values(bins, "digitize's bins"))
    if b.dtype.kind == "c" or getattr(x, "dtype", np.dtype(float)).kind == "c":
        raise TypeError("fgrad.numpy.digitize: x may not be complex (as NumPy)")
    if b.ndim != 1:
        raise ValueError("fgrad.numpy.digitize: bins must be 1-dimensional")
    if b.size > 1 and b[0] > b[-1]:  # decreasing: NumPy's rule, n - searchsorted of the reversed bins
        return b.size - searchsorted(_as_operand(bins)[::-1], x, side="left" if right else "right")
    return searchsorted(_as_operand(bins), x, side="left" if right else "right")


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    return _back(element, np.isin(_values(element, "isin"), _values(test_elements, "isin"),
                                  assume_unique=assume_unique, invert=invert, kind=kind))


def argwhere(a):
    return _back(a, np.argwhere(_values(a, "argwhere")))


def flatnonzero(a):
    return _back(a, np.flatnonzero(_values(a, "flatnonzero")))


def lexsort(keys, axis=-1):
    return _back(keys[0], np.lexsort(tuple(_values(k, "lexsort") for k in keys), axis=axis))


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    if axis is not None:  # (before the values: a bad axis is the error to report, under vmap too)
        axis = axis_index(axis, _ndim(a) or 1, "argpartition")  # (a 0-d array's axis 0 or -1: as NumPy's)
    return _back(a, np.argpartition(_values(a, "argpartition"), kth, axis=axis))


def packbits(a, axis=None, bitorder="big"):
    return _back(a, np.packbits(_values(a, "packbits"), axis=axis, bitorder=bitorder))


def unpackbits(a, axis=None, count=None, bitorder="big"):
    return _back(a, np.unpackbits(_values(a, "unpackbits"), axis=axis, count=count, bitorder=bitorder))


# ---- values chosen by their values: gathers, differentiable ---------------------------------
def partition(a, kth, axis=-1, kind="introselect", order=None):
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), -1
    axis_index(axis, a.ndim, "partition")  # (a 0-d array's axis 0 too: np.partition raises where argpartition does not)
    return take_along_axis(a, argpartition(a, kth, axis=axis), axis=axis)


def sort_complex(a):
    """Sorted, as complex (real values: sorted, cast to complex, with no derivative through the cast)."""
    return np.sort_complex(np.asarray(a))


def trim_zeros(filt, trim="fb", axis=None):
    """np.trim_zeros: filt sliced to the extent of its nonzero values, along every axis or along
    `axis` (which NumPy checks only where filt has more than one axis)."""
    if axis is not None and _ndim(filt) > 1:  # (before the values, as argpartition)
        axis = axis_index(axis, _ndim(filt), "trim_zeros")
    values = _values(filt, "trim_zeros")
    trim = trim.lower()
    if trim not in ("fb", "bf", "f", "b"):
        raise ValueError(f"fgrad.numpy.trim_zeros: unexpected character(s) in `trim`: {trim!r}")
    nonzero = np.argwhere(values)
    if nonzero.size == 0:  # (all zeros: empty along every trimmed axis)
        start = stop = [0] * values.ndim
    else:
        start = nonzero.min(axis=0).tolist() if "f" in trim else [None] * values.ndim
        stop = (nonzero.max(axis=0) + 1).tolist() if "b" in trim else [None] * values.ndim
    index = [slice(lo, hi) for lo, hi in zip(start, stop)]
    if axis is not None and values.ndim > 1:
        index = [s if i == axis else slice(None) for i, s in enumerate(index)]
    return _as_operand(filt)[tuple(index)]


UniqueAll = namedtuple("UniqueAll", "values indices inverse_indices counts")
UniqueCounts = namedtuple("UniqueCounts", "values counts")
UniqueInverse = namedtuple("UniqueInverse", "values inverse_indices")


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """np.unique; the values are gathered from ar (at each one's first occurrence)."""
    a = _as_operand(ar)
    if axis is not None:
        if isinstance(a, Tracer):
            raise NotImplementedError("fgrad.numpy.unique: axis= is not implemented for traced values")
        return _back(a, np.unique(_values(a, "unique"), return_index, return_inverse, return_counts, axis=axis,
                                  equal_nan=equal_nan))
    _, index, inverse, counts = np.unique(_values(a, "unique"), return_index=True, return_inverse=True,
                                          return_counts=True, equal_nan=equal_nan)
    values = take(ravel(a), index)
    extras = [_back(a, x) for x, want in ((index, return_index), (inverse.reshape(_shape(a)), return_inverse),
                                          (counts, return_counts)) if want]
    return (values, *extras) if extras else values


def unique_values(x):
    return unique(x)


def unique_counts(x):
    return UniqueCounts(*unique(x, return_counts=True))


def unique_inverse(x):
    return UniqueInverse(*unique(x, return_inverse=True))


def unique_all(x):
    return UniqueAll(*unique(x, return_index=True, return_inverse=True, return_counts=True))


def _members(name, ar1, ar2, numpy_fn, **kwargs):
    """A set operation's values, gathered from ar1 and ar2 (concatenated) where NumPy found them."""
    a, b = ravel(_as_operand(ar1)), ravel(_as_operand(ar2))
    va, vb = _values(a, name), _values(b, name)
    result = numpy_fn(va, vb, **kwargs)
    if not (isinstance(a, Tracer) or isinstance(b, Tracer)):
        return _back(a, result)
    both = np.concatenate([va, vb])
    first = {}
    for i, v in enumerate(both.tolist()):
        first.setdefault(v, i)
    idx = np.array([first[v] for v in result.tolist()], dtype=np.int64)
    return take(concatenate([a, b]), idx)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    if return_indices:
        return _back(ar1, np.intersect1d(_values(ar1, "intersect1d"), _values(ar2, "intersect1d"), assume_unique,
                                         True))
    return _members("intersect1d", ar1, ar2, np.intersect1d, assume_unique=assume_unique)


def union1d(ar1, ar2):
    return _members("union1d", ar1, ar2, np.union1d)


def setdiff1d(ar1, ar2, assume_unique=False):
    return _members("setdiff1d", ar1, ar2, np.setdiff1d, assume_unique=assume_unique)


def setxor1d(ar1, ar2, assume_unique=False):
    return _members("setxor1d", ar1, ar2, np.setxor1d, assume_unique=assume_unique)
