"""Reductions: sums, means, variances, extrema, products, scans, the arg-reductions, sorting,
and the logical reductions (any, all, count_nonzero).

Each normalizes its axes once and binds a primitive of ops/broadcasting.py or
ops/reductions.py; the statistics built on these (quantiles, nan-reductions, histograms)
are _statistics.py's.
"""
import builtins  # (max: this module defines its own)
import functools

import numpy as np

from ..ir.value import concrete, is_batched, is_staged
from ..ops import broadcasting as bc
from ..ops import elementwise as ew
from ..ops import reductions as rd
from ._arguments import _as_operand, _check_out, _count, _ndim, axis_index, normalize_axis
from ._elementwise import abs2, astype, where
from ._indexing import diagonal, take_along_axis
from ._shaping import ravel

__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "argsort", "count_nonzero", "cumprod", "cumsum", "max",
           "mean", "min", "nanmean", "nansum", "prod", "ptp", "sort", "std", "sum", "trace", "var"]


def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    if out is not None:
        _check_out("sum", out)
    a = _as_operand(a)
    if dtype is not None:
        a = astype(a, dtype)
    elif a.dtype.kind == "b":
        a = astype(a, np.int64)
    if axis is not None:
        axis = normalize_axis(axis, a.ndim, "sum", reduction=True)
        if axis == ():
            return _over_no_axes(a, np.sum if dtype is None else None)
    return bc.reduce_sum(a, axis=axis, keepdims=bool(keepdims))


def _over_no_axes(a, kernel):
    """a reduced over no axes (axis=(), or axis 0 or -1 of a 0-d array): its values, in the dtype
    NumPy's `kernel` gives them (np.sum and np.prod widen small integers to int64 or uint64, as
    over any axes; None: a's own, as for a dtype= given)."""
    d = a.dtype if kernel is None else _reduced_dtype(kernel, a.dtype)
    return a if d == a.dtype else astype(a, d)


@functools.cache
def _reduced_dtype(kernel, dtype):
    return kernel(np.zeros((), dtype)).dtype


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
    real = None if dtype is None or np.dtype(dtype).kind != "f" else dtype  # (float64 data, dtype=float32: float32)
    # (NumPy's divisor, max(N - ddof, 0): a ddof past N gives inf, not a negative variance)
    return sum(abs2(d), axis=axis, dtype=real, keepdims=keepdims) / builtins.max(_count(a, axis) - ddof, 0)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return ew.sqrt(var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims))


def _extremum(prim, name):
    def reduce(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        _check_out(name, out)
        if initial is not None or where is not None:
            raise TypeError(f"fgrad.numpy.{name}: initial= and where= are not supported")
        a = _as_operand(a)
        axis = normalize_axis(axis, a.ndim, name, reduction=True)
        if _count(a, None) == 0:
            raise ValueError(f"fgrad.numpy.{name}: zero-size array to reduction operation which has no identity")
        return a if axis == () else prim(a, axis=axis, keepdims=bool(keepdims))
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
    axis = normalize_axis(axis, a.ndim, "prod", reduction=True)
    if axis == ():
        return _over_no_axes(a, np.prod if dtype is None else None)
    return rd.reduce_prod(a, axis=axis, keepdims=bool(keepdims))


def ptp(a, axis=None, keepdims=False):
    return max(a, axis=axis, keepdims=keepdims) - min(a, axis=axis, keepdims=keepdims)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    a = _as_operand(a)
    if a.dtype.kind in "fc":  # (integers and bools have no NaN: sum's, in int64 as NumPy's, where 0.0 made float64)
        a = where(ew.isnan(a), 0.0, a)
    return sum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    a = _as_operand(a)
    if a.dtype.kind not in "fc":  # (no NaN: mean's, as NumPy's)
        return mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    n = sum(ew.logical_not(ew.isnan(a)), axis=axis, keepdims=keepdims)
    total = nansum(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    return total / as_count(n, total.dtype)


def as_count(n, dtype):
    """A count n (int64) as a divisor for values of `dtype`: in its real floating dtype, as NumPy's
    nan-reductions divide (float32 values keep float32; an int64 divisor made them float64)."""
    return astype(n, np.finfo(dtype).dtype) if dtype.kind in "fc" else n


def _scan(prim, name):
    def scan(a, axis=None, dtype=None, out=None):
        _check_out(name, out)
        a = _as_operand(a)
        if dtype is not None:
            a = astype(a, dtype)
        if axis is None or a.ndim == 0:  # (NumPy scans a 0-d array as one of shape (1,), along axis 0 or -1)
            a, axis = ravel(a), 0 if axis is None else axis
        return prim(a, axis=axis_index(axis, a.ndim, name))
    scan.__name__ = name
    return scan


cumsum = _scan(rd.cumsum, "cumsum")
cumprod = _scan(rd.cumprod, "cumprod")


def _arg_reduction(prim, name):
    def reduce(a, axis=None, out=None, keepdims=False):
        _check_out(name, out)
        a = _as_operand(a)  # (the axis checked against a's own axes: under vmap the primitive's value has more)
        if axis is not None and a.ndim == 0:  # (NumPy's: a 0-d array's one index, 0, along axis 0 or -1)
            axis_index(axis, 1, name)
            axis = None
        return prim(a, axis=None if axis is None else axis_index(axis, a.ndim, name), keepdims=keepdims)
    reduce.__name__ = name
    return reduce


argmax = _arg_reduction(rd.argmax, "argmax")
argmin = _arg_reduction(rd.argmin, "argmin")


def argsort(a, axis=-1, kind=None, order=None):
    a = _as_operand(a)
    if axis is None or a.ndim == 0:  # (NumPy sorts a 0-d array as one of shape (1,), along axis 0 or -1)
        a, axis = ravel(a), -1 if axis is None else axis
    return rd.argsort(a, axis=axis_index(axis, a.ndim, "argsort"))


def sort(a, axis=-1, kind=None, order=None):
    """np.sort, differentiable: a gather by the sorting permutation."""
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), -1
    axis_index(axis, a.ndim, "sort")  # (a 0-d array's axis 0 too: np.sort raises where np.argsort does not)
    return take_along_axis(a, argsort(a, axis=axis), axis=axis)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


# ---- logical reductions: counts of the nonzero elements under vmap and compile ----------
def any(a, axis=None, keepdims=False):
    # Under vmap, each example's: a count of its nonzero elements. Under compile the same, as
    # steps of the program, so a decision on it is guarded, not all of a's values. (Axes are
    # checked here too, so that NumPy's calls on values raise naming fgrad.)
    normalize_axis(axis, _ndim(a), "any", reduction=True)
    if is_batched(a) or is_staged(a):
        return ew.greater(count_nonzero(a, axis, keepdims), 0)
    return np.any(concrete(a), axis=axis, keepdims=keepdims)


def all(a, axis=None, keepdims=False):
    axes = normalize_axis(axis, _ndim(a), "all", reduction=True)
    if is_batched(a) or is_staged(a):
        return ew.equal(count_nonzero(a, axis, keepdims), _count(a, axes))
    return np.all(concrete(a), axis=axis, keepdims=keepdims)


def count_nonzero(a, axis=None, keepdims=False):
    normalize_axis(axis, _ndim(a), "count_nonzero", reduction=True)
    if is_batched(a) or is_staged(a):
        return sum(astype(ew.not_equal(a, 0), np.int64), axis=axis, keepdims=keepdims)
    return np.count_nonzero(concrete(a), axis=axis, keepdims=keepdims)

