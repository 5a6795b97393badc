"""torch's order statistics, scans, counts and searches on Tensors (fgrad.median, quantile, kthvalue,
mode, cummax, aminmax, logcumsumexp, std_mean, histc, searchsorted, unique, take_along_dim, ...) and
the Tensor methods of the same names, where torch.Tensor has them (t.median(), t.kthvalue(2), ...).

Each is written on fgrad.numpy's functions, differentiable by the rules those have: a value chosen
along `dim` (median, nanmedian, kthvalue, mode, cummax, cummin) is read at its index with
take_along_axis, so its gradient goes to that index alone, as torch's; median and nanmedian over all
entries share the gradient evenly among the entries equal to the result, as torch's. Indices are
int64 tensors (no gradient); where torch differs from NumPy, torch is followed: the median of an
even count is the lower middle value, quantile's `interpolation=`, std/var's `correction=`,
cummax's index of the last running extreme, mode's smallest most frequent value (its last index).
"""
import builtins
import collections

import numpy as np

from .. import numpy as fnp
from ..typing import Any, ArrayLike, Sequence
from .dims import shape_index, wrap_dim, wrap_dims
from .dtypes import name as _dtype_name
from .tensor import Tensor
from .torch_functions import _no_kernel, _values
from .torch_functions import _tensor as _t
from .torch_functions import sort as _sort

__all__ = ["aminmax", "argwhere", "bucketize", "count_nonzero", "cummax", "cummin", "histc", "isin", "kthvalue",
           "logcumsumexp", "median", "mode", "msort", "nanmedian", "nanquantile", "nonzero", "quantile",
           "searchsorted", "std_mean", "take_along_dim", "unique", "unique_consecutive", "var_mean"]

_median_result = collections.namedtuple("median", ["values", "indices"])
_nanmedian_result = collections.namedtuple("nanmedian", ["values", "indices"])
_kthvalue_result = collections.namedtuple("kthvalue", ["values", "indices"])
_mode_result = collections.namedtuple("mode", ["values", "indices"])
_cummax_result = collections.namedtuple("cummax", ["values", "indices"])
_cummin_result = collections.namedtuple("cummin", ["values", "indices"])
_aminmax_result = collections.namedtuple("aminmax", ["min", "max"])


def _index(a):
    return Tensor(np.asarray(a, dtype=np.int64))


def _positions(shape, axis):
    """0, 1, ... along `axis`, shaped to broadcast against an array of `shape`."""
    return np.arange(shape[axis]).reshape((-1,) + (1,) * (len(shape) - axis - 1))


def _no_bool(x, who):
    if x.dtype == np.bool_:
        raise NotImplementedError(f"{who}: not implemented for {_dtype_name(x.dtype)} (as torch's)")


def _no_complex(x, kernel):
    """torch's NotImplementedError for a complex tensor, which has no order (NumPy's would be lexicographic)."""
    if x.dtype.kind == "c":
        raise _no_kernel(kernel, x.dtype)


# ---- values chosen along a dim -----------------------------------------------------------------
def _chosen(input, dim, keepdim, who, choose, result):
    """result(values, indices): the entries at the indices choose(values, axis) picks along `dim`
    (an int64 array with the axis kept at size 1), read with take_along_axis (the gradient goes
    there alone). A 0-D tensor's one dim has size 1."""
    x = _t(input)
    _no_complex(x, f"{who}_cpu")
    axis = wrap_dim(dim, x.ndim, who)
    src = x if x.ndim else fnp.reshape(x, (1,))
    if src.shape[axis] == 0:
        raise IndexError(f"{who}(): Expected reduction dim {axis} to have non-zero size.")
    indices = choose(_values(src), axis)
    values = fnp.take_along_axis(src, indices, axis=axis)
    if not x.ndim:
        values, indices = fnp.reshape(values, ()), indices.reshape(())
    elif not keepdim:
        values, indices = fnp.squeeze(values, axis), np.squeeze(indices, axis)
    return result(_t(values), _index(indices))


def _middle(ignore_nan):
    """The index of the lower middle value of each slice (NaN sorted last): with a NaN, that of the
    first NaN (median propagates it), or, ignoring NaNs, the lower middle of the others."""
    def choose(values, axis):
        order = np.argsort(values, axis=axis, kind="stable")
        n = values.shape[axis]
        nans = np.sum(np.isnan(values), axis=axis, keepdims=True) if values.dtype.kind in "fc" else 0
        if ignore_nan:
            k = np.maximum((n - nans - 1) // 2, 0)
        else:
            k = np.where(nans > 0, n - nans, (n - 1) // 2)
        k = np.broadcast_to(k, order.shape[:axis] + (1,) + order.shape[axis + 1:])
        return np.take_along_axis(order, k, axis=axis)
    return choose


def _median(input, dim, keepdim, who, ignore_nan, result):
    x = _t(input)
    _no_bool(x, who)
    _no_complex(x, "median_cpu")
    if dim is not None:
        return _chosen(x, dim, keepdim, who, _middle(ignore_nan), result)
    if keepdim:
        raise TypeError(f'{who}() missing 1 required positional arguments: "dim"')
    flat = fnp.reshape(x, (-1,))
    if flat.shape[0] == 0:
        return Tensor(np.array(np.nan, dtype=np.result_type(x.dtype, np.float16)))
    values = _values(flat)
    v = values[_middle(ignore_nan)(values, 0)[0]]
    if x.dtype.kind != "f":
        return Tensor(np.asarray(v, dtype=x.dtype))
    # the largest of the entries equal to v (the others -inf): v, its gradient shared evenly among them
    tied = np.isnan(values) if np.isnan(v) else values == v
    return _t(fnp.max(fnp.where(tied, flat, -np.inf)))


def median(input: Tensor | ArrayLike, dim: int | None = None, keepdim: bool = False) -> Any:
    """The median of all entries (a 0-D tensor), or along `dim` the named tuple (values, indices), as
    torch.median: of an even count the LOWER of the two middle values (NumPy's is their mean); a NaN
    in a slice makes its median NaN (the index that of its first NaN). Integer tensors keep their
    dtype. Differentiable: over all entries the gradient is shared evenly among the entries equal to
    the median; along `dim` it goes to the returned index.

    Examples
    --------
    >>> x = fgrad.tensor([[4.0, 1.0, 3.0, 2.0], [0.0, 5.0, 6.0, 7.0]], requires_grad=True)
    >>> x.median()
    tensor(3., grad_fn=<...>)
    >>> values, indices = fgrad.median(x, dim=1); values.sum().backward()
    >>> values, indices, x.grad
    (tensor([2., 5.], grad_fn=<...>), tensor([3, 1]), tensor([[0., 0., 0., 1.], [0., 1., 0., 0.]]))
    """
    return _median(input, dim, keepdim, "median", False, _median_result)


def nanmedian(input: Tensor | ArrayLike, dim: int | None = None, keepdim: bool = False) -> Any:
    """median ignoring NaNs (torch.nanmedian): the lower middle of the entries that are not NaN, NaN
    where all are (index 0). Differentiable as median.

    Examples
    --------
    >>> x = fgrad.tensor([[3.0, np.nan, 1.0], [np.nan, np.nan, np.nan]])
    >>> fgrad.nanmedian(x), fgrad.nanmedian(x, 1)
    (tensor(1.), nanmedian(values=tensor([ 1., nan]), indices=tensor([2, 0])))
    """
    return _median(input, dim, keepdim, "nanmedian", True, _nanmedian_result)


def kthvalue(input: Tensor | ArrayLike, k: int, dim: int = -1, keepdim: bool = False) -> _kthvalue_result:
    """The named tuple (values, indices) of the k-th smallest entry (k from 1) along `dim`
    (torch.kthvalue); NaN sorts as the largest value. Differentiable: the gradient goes to the index.

    Examples
    --------
    >>> x = fgrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    >>> values, indices = fgrad.kthvalue(x, 2); values.backward()
    >>> values, indices, x.grad
    (tensor(2., grad_fn=<...>), tensor(2), tensor([0., 0., 1.]))
    """
    x = _t(input)
    _no_complex(x, "kthvalue_cpu")
    axis = wrap_dim(dim, x.ndim, "kthvalue")
    if not 1 <= k <= (x.shape[axis] if x.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")

    def choose(values, axis):
        order = np.argsort(values, axis=axis, kind="stable")
        return np.take(order, [k - 1], axis=axis)
    return _chosen(x, axis, keepdim, "kthvalue", choose, _kthvalue_result)


def _mode(values, axis):
    """The index of the last entry of each slice's most frequent value (the smallest on ties)."""
    s = np.sort(values, axis=axis)
    positions = _positions(s.shape, axis)
    new = np.ones(s.shape, dtype=bool)
    later = (slice(None),) * axis + (slice(1, None),)
    earlier = (slice(None),) * axis + (slice(None, -1),)
    new[later] = s[later] != s[earlier]
    if s.dtype.kind in "fc":  # (NaNs count as equal)
        new[later] &= ~(np.isnan(s[later]) & np.isnan(s[earlier]))
    start = np.maximum.accumulate(np.where(new, positions, 0), axis=axis)
    run = positions - start + 1  # (the length of the run so far; its end holds the run's count)
    v = np.take_along_axis(s, np.argmax(run, axis=axis, keepdims=True), axis=axis)
    equal = (values == v) | (np.isnan(values) & np.isnan(v)) if s.dtype.kind in "fc" else values == v
    return np.max(np.where(equal, positions, -1), axis=axis, keepdims=True)


def mode(input: Tensor | ArrayLike, dim: int = -1, keepdim: bool = False) -> _mode_result:
    """The named tuple (values, indices) of the most frequent value along `dim` (torch.mode): the
    smallest of those equally frequent, the index that of its last occurrence. Differentiable: the
    gradient goes to the index.

    Examples
    --------
    >>> fgrad.mode(fgrad.tensor([[2, 1, 1, 2, 3], [5, 5, 0, 0, 5]]))
    mode(values=tensor([1, 5]), indices=tensor([2, 4]))
    """
    return _chosen(input, dim, keepdim, "mode", _mode, _mode_result)


def msort(input: Tensor | ArrayLike) -> Tensor:
    """input sorted along its first dim, ascending (torch.msort: sort(input, dim=0).values). Differentiable.

    Examples
    --------
    >>> fgrad.msort(fgrad.tensor([[3.0, 0.0], [1.0, 2.0]]))
    tensor([[1., 0.], [3., 2.]])
    """
    return _sort(input, 0).values


def _cumulative(input, dim, who, largest, result):
    """(values, indices) of the running maximum (or minimum): the index is that of the last entry
    equal to the running extreme so far; a NaN is the extreme from where it appears (the last NaN's
    index), as torch's."""
    x = _t(input)
    _no_complex(x, f"{who}_cpu")
    axis = wrap_dim(dim, x.ndim, who)
    src = x if x.ndim else fnp.reshape(x, (1,))
    values = _values(src)
    rank = np.unique(values, return_inverse=True)[1].reshape(values.shape)  # (NaN: the largest rank)
    if not largest:
        nan = np.isnan(values) if values.dtype.kind in "fc" else np.zeros(values.shape, bool)
        rank = np.where(nan, values.size + 1, -rank)
    extreme = np.maximum.accumulate(rank, axis=axis) if values.size else rank
    positions = _positions(values.shape, axis)
    indices = np.where(rank == extreme, positions, 0)
    indices = np.maximum.accumulate(indices, axis=axis) if values.size else indices
    out = fnp.take_along_axis(src, indices, axis=axis)
    if not x.ndim:
        out, indices = fnp.reshape(out, ()), indices.reshape(())
    return result(_t(out), _index(indices))


def cummax(input: Tensor | ArrayLike, dim: int) -> _cummax_result:
    """The named tuple (values, indices) of the running maximum along `dim` (torch.cummax): each index
    is that of the last entry equal to the maximum so far; a NaN stays the maximum from where it
    appears. Differentiable: each value's gradient goes to its index.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 3.0, 2.0, 3.0], requires_grad=True)
    >>> values, indices = fgrad.cummax(x, 0); values.sum().backward()
    >>> values, indices, x.grad
    (tensor([1., 3., 3., 3.], grad_fn=<...>), tensor([0, 1, 1, 3]), tensor([1., 2., 0., 1.]))
    """
    return _cumulative(input, dim, "cummax", True, _cummax_result)


def cummin(input: Tensor | ArrayLike, dim: int) -> _cummin_result:
    """The named tuple (values, indices) of the running minimum along `dim` (torch.cummin), as cummax's.
    Differentiable: each value's gradient goes to its index.

    Examples
    --------
    >>> fgrad.cummin(fgrad.tensor([2.0, 0.0, 1.0, 0.0]), 0)
    cummin(values=tensor([2., 0., 0., 0.]), indices=tensor([0, 1, 1, 3]))
    """
    return _cumulative(input, dim, "cummin", False, _cummin_result)


def aminmax(input: Tensor | ArrayLike, *, dim: int | None = None, keepdim: bool = False) -> _aminmax_result:
    """The named tuple (min, max) over all entries or along `dim` (torch.aminmax). Differentiable, as
    amin and amax: the gradient is shared evenly among tied extremes.

    Examples
    --------
    >>> x = fgrad.tensor([3.0, 1.0, 1.0, 3.0], requires_grad=True)
    >>> lo, hi = fgrad.aminmax(x); (lo + 2 * hi).backward()
    >>> lo, hi, x.grad
    (tensor(1., grad_fn=<...>), tensor(3., grad_fn=<...>), tensor([1. , 0.5, 0.5, 1. ]))
    """
    x = _t(input)
    _no_complex(x, "aminmax_cpu")
    axes = wrap_dims(dim, x.ndim, "aminmax")
    if (x.shape[axes] if axes is not None else int(np.prod(x.shape))) == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    return _aminmax_result(_t(fnp.min(x, axis=axes, keepdims=keepdim)), _t(fnp.max(x, axis=axes, keepdims=keepdim)))


def count_nonzero(input: Tensor | ArrayLike, dim: int | Sequence[int] | None = None) -> Tensor:
    """The number of nonzero entries over `dim` (an int or a tuple; None: all), an int64 tensor
    (torch.count_nonzero). Not differentiable.

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 0.0], [2.0, 3.0]])
    >>> fgrad.count_nonzero(x), x.count_nonzero(dim=0)
    (tensor(3), tensor([2, 1]))
    """
    axes = wrap_dims(dim, np.ndim(input), "count_nonzero")
    return _index(fnp.count_nonzero(_values(input), axis=axes))


def logcumsumexp(input: Tensor | ArrayLike, dim: int) -> Tensor:
    """log(cumsum(exp(input))) along `dim`, computed stably (torch.logcumsumexp), of a real floating
    tensor: log2(n) rounds of logaddexp with the entries 1, 2, 4, ... before. Differentiable.

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 0.0, -1000.0, 5.0], requires_grad=True)
    >>> y = fgrad.logcumsumexp(x, 0); y[1].backward()
    >>> y, x.grad  # log 2 = 0.693...; exp(-1000) adds nothing
    (tensor([0.        , 0.69314718, 0.69314718, 5.0133859 ], grad_fn=<...>), tensor([0.5, 0.5, 0. , 0. ]))
    """
    x = _t(input)
    if x.dtype.kind != "f":
        raise NotImplementedError(f"logcumsumexp: not implemented for {_dtype_name(x.dtype)} (torch's takes "
                                  f"floating tensors{'; fgrad, real ones only' if x.dtype.kind == 'c' else ''})")
    axis = wrap_dim(dim, x.ndim, "logcumsumexp")
    if not x.ndim:
        return _t(fnp.reshape(x, ()))
    n, step, y = x.shape[axis], 1, x
    lead = (slice(None),) * axis
    while step < n:
        y = fnp.concatenate([y[lead + (slice(None, step),)],
                             fnp.logaddexp(y[lead + (slice(step, None),)], y[lead + (slice(None, n - step),)])],
                            axis=axis)
        step *= 2
    return _t(y)


# ---- quantiles, moments ------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, who, ignore_nan):
    x = _t(input)
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{who}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q.dtype != x.dtype:
            raise RuntimeError(f"{who}() q tensor must be same dtype as the input tensor")
        q_arr = _values(q)
        if q_arr.ndim > 1:
            raise RuntimeError(f"{who}() q must be a scalar or 1D tensor")
        if np.any((q_arr < 0) | (q_arr > 1)):
            raise RuntimeError(f"{who}() q values must be in the range [0, 1]")
    else:
        q_arr = np.asarray(q, dtype=x.dtype)
        if q_arr.ndim:
            raise TypeError(f"{who}(): argument 'q' must be a float or a Tensor, not {type(q).__name__}")
        if not 0 <= q_arr <= 1:
            raise RuntimeError(f"{who}() q must be in the range [0, 1] but got {q}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{who}() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    if not np.prod(x.shape):
        raise RuntimeError(f"{who}() input tensor must be non-empty")
    if dim is None:
        src, axis = fnp.reshape(x, (-1,)), 0
    else:
        axis = wrap_dim(dim, x.ndim, who)
        src = x if x.ndim else fnp.reshape(x, (1,))
    lead = q_arr.ndim + axis  # (q's axis leads the result)
    values = _values(src)
    nans = np.sum(np.isnan(values), axis=axis, keepdims=True)
    if interpolation == "linear":
        out = (fnp.nanquantile if ignore_nan else fnp.quantile)(src, q_arr, axis=axis, keepdims=True)
    else:
        s = fnp.sort(src, axis=axis)  # (NaN last)
        counts = s.shape[axis] - nans if ignore_nan else np.full(nans.shape, s.shape[axis])
        pos = q_arr.reshape(q_arr.shape + (1,) * s.ndim) * (np.maximum(counts, 1) - 1).astype(x.dtype)
        s_q = fnp.broadcast_to(fnp.reshape(s, (1,) * q_arr.ndim + tuple(s.shape)), q_arr.shape + tuple(s.shape))
        shape = q_arr.shape + tuple(s.shape[:axis]) + (1,) + tuple(s.shape[axis + 1:])

        def at(index):
            return fnp.take_along_axis(s_q, np.broadcast_to(index.astype(np.int64), shape), axis=lead)
        if interpolation == "lower":
            out = at(np.floor(pos))
        elif interpolation == "higher":
            out = at(np.ceil(pos))
        elif interpolation == "nearest":
            out = at(np.round(pos))  # (half to even, as torch's round)
        else:
            below = at(np.floor(pos))
            out = below + (at(np.ceil(pos)) - below) * 0.5
    if isinstance(q, Tensor) and q.requires_grad and interpolation == "linear":  # (torch's others: none in q)
        out = out + _slope_in_q(q, values, axis, nans if ignore_nan else 0)
    if ignore_nan:
        out = fnp.where(nans == values.shape[axis], np.nan, out)
    else:  # (a NaN makes the slice's quantiles NaN, as torch's)
        out = fnp.where(nans > 0, np.nan, out)
    if not keepdim:
        out = fnp.squeeze(out, lead)
    elif dim is None:
        out = fnp.reshape(out, q_arr.shape + (1,) * x.ndim)
    elif not x.ndim:
        out = fnp.reshape(out, q_arr.shape)
    return _t(out)


def _slope_in_q(q, values, axis, nans):
    """(q - q.detach()) times d quantile / dq (from the sorted values, constants): zero, with q's
    gradient, that of torch's lerp between the entries at floor and ceil of q (n - 1) (0 where
    those are one entry)."""
    q_values = _values(q)
    lead = (1,) * values.ndim
    s = np.sort(values, axis=axis)
    counts = np.maximum(values.shape[axis] - nans, 1)
    pos = q_values.reshape(q_values.shape + lead) * (counts - 1)
    shape = q_values.shape + s.shape[:axis] + (1,) + s.shape[axis + 1:]
    s_q = np.broadcast_to(s, q_values.shape + s.shape)
    gather = lambda i: np.take_along_axis(  # noqa: E731
        s_q, np.broadcast_to(i.astype(np.int64), shape), axis=q_values.ndim + axis)
    with np.errstate(invalid="ignore"):
        slope = np.nan_to_num((gather(np.ceil(pos)) - gather(np.floor(pos))) * (counts - 1), nan=0.0, posinf=0.0,
                              neginf=0.0)
    dq = fnp.reshape(q - q.detach(), q_values.shape + lead)
    return dq * slope.astype(values.dtype)


def quantile(input: Tensor | ArrayLike, q: float | Tensor, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles of all entries, or along `dim` (torch.quantile): q a float or a 1-D tensor of
    input's dtype in [0, 1] (a tensor q's axis leads the result), `interpolation` between the sorted
    neighbours of q (n - 1): 'linear', 'lower', 'higher', 'midpoint' or 'nearest' (half to even). A
    float32 or float64 input only (RuntimeError, as torch's); a NaN makes its slice's quantiles NaN.
    Differentiable: the gradient goes to the neighbours read.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0, 4.0, 8.0], requires_grad=True)
    >>> y = fgrad.quantile(x, 0.5); y.backward()
    >>> y, x.grad, x.quantile(fgrad.tensor([0.25, 1.0]), interpolation="lower")
    (tensor(3., grad_fn=<...>), tensor([0. , 0.5, 0.5, 0. ]), tensor([1., 8.], grad_fn=<...>))
    """
    return _quantile(input, q, dim, keepdim, interpolation, "quantile", False)


def nanquantile(input: Tensor | ArrayLike, q: float | Tensor, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """quantile ignoring NaNs (torch.nanquantile): the quantiles of the entries that are not NaN, NaN
    where all are. Differentiable as quantile.

    Examples
    --------
    >>> fgrad.nanquantile(fgrad.tensor([1.0, np.nan, 3.0]), 0.5)
    tensor(2.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, "nanquantile", True)


def _moments(input, dim, unbiased, keepdim, correction, who, root):
    x = _t(input)
    if isinstance(dim, bool):  # (torch's std_mean(input, unbiased))
        dim, unbiased = None, dim
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{who} only support floating point and complex dtypes")
    dim = tuple(dim) if isinstance(dim, list) else dim
    wrap_dims(dim, x.ndim, who)  # (its own name in the message)
    spread = x.var(dim, True if unbiased is None else unbiased, keepdim, correction)
    return (fnp.sqrt(spread) if root else spread), x.mean(dim, keepdim)


def std_mean(input: Tensor | ArrayLike, dim: int | Sequence[int] | None = None, unbiased: bool | None = None,
             keepdim: bool = False, *, correction: float | None = None) -> tuple[Tensor, Tensor]:
    """(std, mean) over `dim` (torch.std_mean): std with `correction` (default 1, or unbiased=False: 0).
    Floating and complex tensors only (RuntimeError, as torch's). Differentiable in both.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0, 4.0], requires_grad=True)
    >>> fgrad.std_mean(x), fgrad.std_mean(x, correction=0)[0]
    ((tensor(1.52752523, grad_fn=<...>), tensor(2.33333333, grad_fn=<...>)), tensor(1.24721913, grad_fn=<...>))
    """
    return _moments(input, dim, unbiased, keepdim, correction, "std_mean", True)


def var_mean(input: Tensor | ArrayLike, dim: int | Sequence[int] | None = None, unbiased: bool | None = None,
             keepdim: bool = False, *, correction: float | None = None) -> tuple[Tensor, Tensor]:
    """(var, mean) over `dim` (torch.var_mean): var with `correction` (default 1, or unbiased=False: 0).
    Floating and complex tensors only (RuntimeError, as torch's). Differentiable in both.

    Examples
    --------
    >>> var, mean = fgrad.var_mean(fgrad.tensor([[1.0, 3.0], [2.0, 6.0]]), dim=1, keepdim=True)
    >>> var, mean
    (tensor([[2.], [8.]]), tensor([[2.], [4.]]))
    """
    return _moments(input, dim, unbiased, keepdim, correction, "var_mean", False)


# ---- counting and searching --------------------------------------------------------------------
def histc(input: Tensor | ArrayLike, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """The histogram of the entries in `bins` equal bins over [min, max] (torch.histc): counts in
    input's floating dtype; min = max (the default 0, 0) takes the data's range (widened by 1 each
    way where that is one value); entries outside (and NaNs) are not counted. An entry's bin is
    torch's, floor((x - min) bins / (max - min)) computed in input's dtype, max in the last one
    (numpy.histogram's edges can differ by one bin at an edge). Not differentiable.

    Examples
    --------
    >>> fgrad.histc(fgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    x = _t(input)
    if x.dtype.kind != "f":
        raise NotImplementedError(f"histc: not implemented for {_dtype_name(x.dtype)} (torch's takes floating "
                                  f"tensors)")
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins} for dimension 0")
    values = _values(x).ravel()
    lo, hi = builtins.float(min), builtins.float(max)
    if lo == hi and values.size:
        lo, hi = builtins.float(np.min(values)), builtins.float(np.max(values))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("histc(): max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"histc(): range of [{lo:g}, {hi:g}] is not finite")
    # torch's bin of each entry: floor((x - min) bins / (max - min)) in input's dtype (max in the last bin)
    lo, hi = np.asarray(lo, x.dtype), np.asarray(hi, x.dtype)
    inside = values[(values >= lo) & (values <= hi)]
    with np.errstate(over="ignore", invalid="ignore"):
        where = ((inside - lo) * np.asarray(bins, x.dtype) / (hi - lo)).astype(np.int64)
    counts = fnp.bincount(np.minimum(where, bins - 1), minlength=bins)
    return Tensor(np.asarray(counts).astype(x.dtype))


def _sides(who, right, side):
    if side is None:
        return "right" if right else "left"
    if side not in ("left", "right"):
        raise RuntimeError(f"{who}(): side can only be 'left' or 'right' but got {side}")
    if side == "left" and right:
        raise RuntimeError(f"{who}(): side and right can't be set to opposites, got side of left while right was "
                           f"True")
    return side


def bucketize(input: Tensor | ArrayLike, boundaries: Tensor | ArrayLike, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each entry of input among the 1-D increasing `boundaries` (torch.bucketize): i
    with boundaries[i-1] < x <= boundaries[i] (right=True: boundaries[i-1] <= x < boundaries[i]);
    int64 indices (int32 with out_int32), of input's shape. Not differentiable.

    Examples
    --------
    >>> edges = fgrad.tensor([1, 3, 5])
    >>> fgrad.bucketize(fgrad.tensor([1, 5, 3]), edges), fgrad.bucketize(3, edges, right=True)
    (tensor([0, 2, 1]), tensor(2))
    """
    edges = _values(boundaries)
    if edges.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({edges.ndim})")
    found = fnp.searchsorted(edges, _values(input), side="right" if right else "left")
    return Tensor(np.asarray(found, dtype=np.int32 if out_int32 else np.int64))


def searchsorted(sorted_sequence: Tensor | ArrayLike, values: Tensor | ArrayLike, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Tensor | ArrayLike | None = None) -> Tensor:
    """The indices where `values` would be inserted into the innermost dim of `sorted_sequence` to
    keep it sorted (torch.searchsorted): side 'left' (the first such place; right=False) or 'right';
    an N-D sequence searches each of its rows for the values' row of the same leading index; `sorter`
    the indices that sort each row. int64 indices (int32 with out_int32) of values' shape. Not
    differentiable.

    Examples
    --------
    >>> fgrad.searchsorted(fgrad.tensor([[1, 3, 5], [2, 4, 6]]), fgrad.tensor([[3], [3]]), side="right")
    tensor([[2], [1]])
    """
    who = "searchsorted"
    seq, v = _values(sorted_sequence), _values(values)
    side = _sides(who, right, side)
    if seq.ndim == 0:
        raise RuntimeError(f"{who}(): boundaries tensor should have positive dimension, but got 0 dimension")
    if v.ndim == 0 and seq.ndim != 1:
        raise RuntimeError(f"{who}(): input value can be a scalar only when boundaries tensor dimension is 1, but "
                           f"we got boundaries tensor dim({seq.ndim}) and input value's dim(0) numel(1)")
    if seq.ndim > 1 and seq.shape[:-1] != v.shape[:-1]:
        raise RuntimeError(f"{who}(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                           f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(seq.shape)} and input value tensor {list(v.shape)}")
    if sorter is not None:
        seq = np.take_along_axis(seq, _values(sorter).astype(np.int64), axis=-1)
    if seq.ndim == 1:
        found = np.asarray(fnp.searchsorted(seq, v, side=side))
    else:
        found = np.empty(v.shape, dtype=np.int64)
        for row in np.ndindex(seq.shape[:-1]):
            found[row] = fnp.searchsorted(seq[row], v[row], side=side)
    return Tensor(found.astype(np.int32 if out_int32 else np.int64))


def _outputs(values, inverse, counts, return_inverse, return_counts):
    out = [Tensor(np.asarray(values))]
    out += [_index(inverse)] if return_inverse else []
    out += [_index(counts)] if return_counts else []
    return out[0] if len(out) == 1 else tuple(out)


def unique(input: Tensor | ArrayLike, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """The distinct entries, sorted (or the distinct slices along `dim`, sorted lexicographically), as
    torch.unique: with return_inverse the index of each entry's (slice's) value among them, and with
    return_counts their counts (int64 tensors, a tuple in that order). NaNs are each distinct, as
    torch's. `sorted=False` sorts as well (torch's CPU unique does too). Not differentiable.

    Examples
    --------
    >>> fgrad.unique(fgrad.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    (tensor([1, 2, 3]), tensor([2, 0, 2, 1]), tensor([1, 1, 2]))
    """
    values = _values(input)
    if dim is None:
        out, inverse, counts = fnp.unique(values.ravel(), return_inverse=True, return_counts=True, equal_nan=False)
        inverse = np.asarray(inverse).reshape(values.shape)
    else:
        axis = wrap_dim(dim, values.ndim, "unique")
        out, inverse, counts = fnp.unique(values if values.ndim else values.reshape(1), return_inverse=True,
                                          return_counts=True, axis=axis, equal_nan=False)
        inverse = np.asarray(inverse).reshape(-1)
    return _outputs(out, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input: Tensor | ArrayLike, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """input with each run of equal consecutive entries (or slices along `dim`) kept once
    (torch.unique_consecutive): with return_inverse the index of each entry's run, with return_counts
    the runs' lengths (int64 tensors, a tuple in that order). Not differentiable.

    Examples
    --------
    >>> fgrad.unique_consecutive(fgrad.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 2]))
    """
    values = _values(input)
    axis = 0 if dim is None else wrap_dim(dim, values.ndim, "unique_consecutive")
    src = values.reshape(-1) if dim is None or not values.ndim else values
    rows = np.moveaxis(src, axis, 0).reshape(src.shape[axis], -1)
    new = np.ones(rows.shape[0], dtype=bool)
    new[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    if rows.shape[1] == 0:
        new[1:] = False
    starts = np.flatnonzero(new)
    inverse = np.cumsum(new) - 1
    counts = np.diff(np.append(starts, rows.shape[0]))
    out = np.take(src, starts, axis=axis)
    return _outputs(out, inverse.reshape(values.shape) if dim is None else inverse, counts, return_inverse,
                    return_counts)


def take_along_dim(input: Tensor | ArrayLike, indices: Tensor | ArrayLike, dim: int | None = None) -> Tensor:
    """The entries of input at `indices` along `dim` (torch.take_along_dim; numpy.take_along_axis): the
    other dims broadcast; without dim, of the flattened input at the flattened indices. `indices` an
    int64 tensor (RuntimeError, as torch's). Differentiable in input: the gradients add up at
    repeated indices.

    Examples
    --------
    >>> x = fgrad.tensor([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]], requires_grad=True)
    >>> y = fgrad.take_along_dim(x, fgrad.argsort(x, dim=1), dim=1); y[:, -1].sum().backward()
    >>> y, x.grad
    (tensor([[10., 20., 30.], [40., 50., 60.]], grad_fn=<...>), tensor([[0., 1., 0.], [1., 0., 0.]]))
    """
    x, index = _t(input), _values(indices)
    if index.dtype != np.int64:
        raise RuntimeError(f"take_along_dim(): dtype of indices should be {_dtype_name(np.int64)} but got "
                           f"{_dtype_name(index.dtype)}")
    if dim is None:
        return _t(fnp.take_along_axis(fnp.reshape(x, (-1,)), index.reshape(-1), axis=0))
    if x.ndim != index.ndim:
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {x.ndim} dimensions for input, and {index.ndim} dimensions for indices")
    axis = wrap_dim(dim, x.ndim, "take_along_dim")
    if not x.ndim:  # (torch's: a 0-D tensor has no dim to take along)
        shape_index(dim, 0, "take_along_dim")
    others = np.broadcast_shapes(tuple(x.shape[:axis]) + (1,) + tuple(x.shape[axis + 1:]),
                                 index.shape[:axis] + (1,) + index.shape[axis + 1:])
    src_shape = others[:axis] + (x.shape[axis],) + others[axis + 1:]
    src = x if tuple(x.shape) == src_shape else fnp.broadcast_to(x, src_shape)
    index = np.broadcast_to(index, others[:axis] + (index.shape[axis],) + others[axis + 1:])
    return _t(fnp.take_along_axis(src, index, axis=axis))


def argwhere(input: Tensor | ArrayLike) -> Tensor:
    """The indices of the nonzero entries, one row each (N, input.ndim), in row-major order, an int64
    tensor (torch.argwhere). Not differentiable.

    Examples
    --------
    >>> fgrad.argwhere(fgrad.tensor([[1.0, 0.0], [0.0, 2.0]]))
    tensor([[0, 0], [1, 1]])
    """
    return _index(fnp.argwhere(_values(input)))


def nonzero(input: Tensor | ArrayLike, *, as_tuple: bool = False) -> Any:
    """The indices of the nonzero entries (torch.nonzero): an (N, input.ndim) int64 tensor as argwhere,
    or with as_tuple a tuple of one 1-D index tensor per dim (a 0-D input: as a 1-D one). Not
    differentiable; Tensor.nonzero is this function (fgrad.numpy.nonzero is NumPy's tuple of arrays).

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 0.0], [0.0, 2.0]])
    >>> fgrad.nonzero(x), fgrad.nonzero(x, as_tuple=True)
    (tensor([[0, 0], [1, 1]]), (tensor([0, 1]), tensor([0, 1])))
    """
    if not as_tuple:
        return argwhere(input)
    values = _values(input)
    return tuple(_index(i) for i in fnp.nonzero(values if values.ndim else values.reshape(1)))


def isin(elements: Tensor | ArrayLike, test_elements: Tensor | ArrayLike, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each entry of `elements` is among `test_elements` (either may be a number), a bool tensor
    of elements' shape (torch.isin; invert: is not). Not differentiable.

    Examples
    --------
    >>> fgrad.isin(fgrad.tensor([1, 2, 3]), fgrad.tensor([2, 5])), fgrad.isin(2, fgrad.tensor([1, 2]))
    (tensor([False,  True, False]), tensor(True))
    """
    found = fnp.isin(_values(elements), _values(test_elements), assume_unique=assume_unique, invert=invert)
    return Tensor(np.asarray(found, dtype=bool))


# torch.Tensor's methods among them (std_mean, var_mean, bucketize, searchsorted and isin are torch's
# functions only). nonzero replaces the NumPy method Tensor inherits from Tracer (a tuple of arrays).
METHODS = ("aminmax", "argwhere", "count_nonzero", "cummax", "cummin", "histc", "kthvalue", "logcumsumexp", "median",
           "mode", "msort", "nanmedian", "nanquantile", "nonzero", "quantile", "take_along_dim", "unique",
           "unique_consecutive")


def _bind():
    for name in METHODS:
        if name not in Tensor.__dict__:
            setattr(Tensor, name, globals()[name])


_bind()
