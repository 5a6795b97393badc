"""Reductions and scans: max, min, prod, cumsum, cumprod, arg-reductions. (sum lives with
broadcast_to, its transpose, in ops/broadcasting.py.)

`axis` is always a normalized tuple (or None) by the time a primitive sees it; the
NumPy-facing wrappers in fgrad.numpy normalize it.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import BatchTracer, StageTracer, Tracer, peek
from .batching import front, logical_axis
from .broadcasting import keep_axes as _keep
from .broadcasting import reduce_sum, reducer, reduction_batch
from .conversion import convert
from .elementwise import equal, less, less_equal, where
from .primitive import NO_PARAMS, Primitive
from .shape import concatenate, expand_dims, flip, moveaxis, reshape, transpose

_sum = reducer(np.add, "sum")


def _extremum_share(ans, x, axis, keepdims):
    """Where x attains the extremum, 1/(number of ties); elsewhere 0 (JAX's convention)."""
    hits = equal(x, _keep(ans, x, axis, keepdims)).astype(x.dtype)
    return hits / _keep(_sum(hits, axis=axis, keepdims=keepdims), x, axis, keepdims)


def _reduction_by_share(name, ufunc, torch_name):
    prim = Primitive(name, reducer(ufunc, name), torch_name=torch_name)
    return prim.defbatch(reduction_batch(prim)).defvjp(
        lambda g, ans, x, axis, keepdims: _keep(g, x, axis, keepdims) * _extremum_share(ans, x, axis, keepdims)).defjvp(
        lambda t, ans, x, axis, keepdims: reduce_sum(t * _extremum_share(ans, x, axis, keepdims), axis=axis,
                                                     keepdims=keepdims))


reduce_max = _reduction_by_share("max", np.maximum, "Amax")
reduce_min = _reduction_by_share("min", np.minimum, "Amin")


_any_zero = Primitive("any_zero", lambda x: array_module(x).any(x == 0), register=False)


def decision(test, x):
    """bool(test(x)) for `test`, an unregistered primitive that answers a question about all of
    x's values (in every example, under vmap), for a rule or a function that picks a formula by
    it: under fgrad.compile the answer is guarded, not all of x's values (Note [reading values
    while compiling] in ir/value.py), so a replay with other values and the same answer goes on."""
    v = x
    while isinstance(v, Tracer):
        if v.__class__ is StageTracer:  # (the bottom value: the test is a step, its answer a guard)
            return bool(v._trace.process(test, (v,), NO_PARAMS))
        if v.__class__ is BatchTracer:  # (the batch axis in front: the test reads each example's
            v = front(v.primal, v.bdim)  # trailing axes, a matrix for eig's, where it expects them)
        else:
            v = v.primal
    return bool(test.impl(v))


def any_zero(x):
    """Does x hold a zero anywhere (in any example, under vmap)? (A guarded decision.)"""
    return decision(_any_zero, x)


def _prod_of_others(x, axis):
    """For each element, the product of the other elements of its reduction group.

    Exclusive cumulative products from both ends keep this exact when x has zeros.
    """
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else axis
    if not any_zero(x):
        return _keep(reduce_prod(x, axis=axes, keepdims=True), x, axes, True) / x
    kept = tuple(a for a in range(ndim) if a not in axes)
    perm = kept + tuple(axes)
    xt = transpose(x, axes=perm)
    shape_t = xt.shape
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    flat = reshape(xt, shape=shape_t[:len(kept)] + (n,))
    ones = array_module(peek(x)).ones(shape_t[:len(kept)] + (1,), dtype=x.dtype)  # (on x's device)
    last = len(kept)
    left = concatenate(ones, cumprod(flat[..., :-1], axis=last), axis=last)
    right = concatenate(cumprod(flat[..., :0:-1], axis=last)[..., ::-1], ones, axis=last)
    others = reshape(left * right, shape=shape_t)
    return transpose(others, axes=tuple(np.argsort(perm)))


reduce_prod = Primitive("prod", reducer(np.multiply, "prod"), saves="inputs")
reduce_prod.defbatch(reduction_batch(reduce_prod)).defvjp(
    lambda g, ans, x, axis, keepdims: _keep(g, x, axis, keepdims) * _prod_of_others(x, axis)).defjvp(
    lambda t, ans, x, axis, keepdims: reduce_sum(t * _prod_of_others(x, axis), axis=axis, keepdims=keepdims))


def _reverse_cumsum(g, axis):
    return flip(cumsum(flip(g, axis=(axis,)), axis=axis), axis=(axis,))


def _scan_batch(prim):
    """A scan along `axis` (cumsum, cumprod, argsort): the same scan of the stacked value."""
    def rule(args, dims, axis):
        x, d = args[0], dims[0]
        return prim(x, axis=logical_axis(axis, x.ndim - 1, d)), d
    return rule


def _arg_batch(prim):
    """argmax/argmin of each example: over its axis, or over all of it (flattened) for None."""
    def rule(args, dims, axis=None, keepdims=False):
        x = front(args[0], dims[0])
        n = x.ndim - 1
        if axis is not None:
            return prim(x, axis=logical_axis(axis, n), keepdims=keepdims), 0
        flat = prim(reshape(x, shape=(x.shape[0], -1)), axis=1, keepdims=False)
        return (reshape(flat, shape=(x.shape[0],) + (1,) * n) if keepdims else flat), 0
    return rule


cumsum = Primitive("cumsum", lambda x, axis: array_module(x).cumsum(x, axis=axis), saves="nothing")
cumsum.defbatch(_scan_batch(cumsum)).defvjp(
    lambda g, ans, x, axis: _reverse_cumsum(g, axis)).defjvp(
    lambda t, ans, x, axis: cumsum(t, axis=axis))


def _masks(x, n):
    """The n-by-n identity and upper-triangle masks of cumprod's table, on x's device."""
    xp = array_module(peek(x))
    return xp.eye(n, dtype=bool), xp.triu(xp.ones((n, n), dtype=bool))


def _cumprod_vjp(g, ans, x, axis):
    if not any_zero(x):
        return _reverse_cumsum(g * ans, axis) / x
    # With zeros: d out_j / d x_k = prod_{i <= j, i != k} x_i, built as an n-by-n table.
    n = x.shape[axis]
    xl = moveaxis(x, axis, -1)
    eye, upper = _masks(x, n)
    table = cumprod(where(eye, 1.0, expand_dims(xl, -2)), axis=-1)  # [..., k, j]
    gl = expand_dims(moveaxis(g, axis, -1), -2)
    return moveaxis(reduce_sum(where(upper, table, 0.0) * gl, axis=(xl.ndim,), keepdims=False), -1, axis)


cumprod = Primitive("cumprod", lambda x, axis: array_module(x).cumprod(x, axis=axis))
cumprod.defbatch(_scan_batch(cumprod)).defvjp(_cumprod_vjp).defjvp(
    lambda t, ans, x, axis: _cumprod_jvp(t, ans, x, axis))


def _cumprod_jvp(t, ans, x, axis):
    # d out_j = sum_{k <= j} t_k * prod_{i <= j, i != k} x_i; the vjp's table transposed.
    if not any_zero(x):
        return cumsum(t / x, axis=axis) * ans
    n = x.shape[axis]
    xl = moveaxis(x, axis, -1)
    eye, upper = _masks(x, n)
    table = cumprod(where(eye, 1.0, expand_dims(xl, -2)), axis=-1)
    tl = expand_dims(moveaxis(t, axis, -1), -1)
    return moveaxis(reduce_sum(where(upper, table, 0.0) * tl, axis=(xl.ndim - 1,), keepdims=False), -1, axis)


argmax = Primitive("argmax",
                   lambda x, axis=None, keepdims=False: array_module(x).argmax(x, axis=axis, keepdims=keepdims))
argmin = Primitive("argmin",
                   lambda x, axis=None, keepdims=False: array_module(x).argmin(x, axis=axis, keepdims=keepdims))
argsort = Primitive("argsort", lambda x, axis=-1: array_module(x).argsort(x, axis=axis, kind="stable"))


def _searchsorted_batch(args, dims, side):
    """Values batched against one sorted array: the same search (it is elementwise in v). A
    sorted array per example: the count of its elements below each value (sorted, that is
    the index), by comparisons that broadcast over the examples."""
    (a, v), (da, dv) = args, dims
    if da is None:
        return searchsorted(a, v, side=side), dv
    a, v = front(a, da), (front(v, dv) if dv is not None else expand_dims(v, 0))
    a = reshape(a, shape=(a.shape[0],) + (1,) * (v.ndim - 1) + (a.shape[1],))
    below = (less if side == "left" else less_equal)(a, expand_dims(v, -1))
    return reduce_sum(convert(below, dtype=np.dtype(np.int64)), axis=(below.ndim - 1,), keepdims=False), 0


# Where v's elements go in the sorted 1-D array a: integers, no derivative. A primitive (not a
# NumPy call on values), so fgrad.compile stages the search instead of guarding v's values.
searchsorted = Primitive("searchsorted", lambda a, v, side="left": array_module(a, v).searchsorted(a, v, side=side),
                         batch=_searchsorted_batch)
argmax.defbatch(_arg_batch(argmax))
argmin.defbatch(_arg_batch(argmin))
argsort.defbatch(_scan_batch(argsort))
