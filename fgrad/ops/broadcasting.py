"""Broadcasting and its transpose, and fitting derivatives to their primal.

broadcast_to and sum are each other's transposes (each one's vjp is the other), so they
are declared together here; `keep_axes` and `reducer` serve the other reductions too
(ops/reductions.py).

Note [cotangents fit their primal]: a vjp rule may return a cotangent in the broadcast
shape of its op, or in a wider dtype; `fit_cotangent` sums it back to the input's shape
and casts it to the input's dtype, so no rule has to. float32 in, float32 gradient out;
a complex cotangent of a real input is its real part (Note [complex derivatives] in
ops/conversion.py). Tangents go the other way: `fit_tangent` broadcasts a contribution to
the output's shape and casts it to the output's dtype, the same way.
"""
import math

import numpy as np

from ..backend import array_module
from .axes import logical_axis, moveaxis, reshape
from .conversion import as_dtype
from .primitive import VIEW, Primitive

__all__ = [
    "broadcast_to",
    "fit_cotangent",
    "fit_tangent",
    "keep_axes",
    "reduce_sum",
    "reducer",
    "reduction_batch",
    "unbroadcast",
]


def _broadcast_to(x, shape):
    xp = array_module(x)
    if xp is np and math.prod(shape) <= _FILL_BELOW:
        # NumPy's broadcast_to is Python code; filling a small fresh array is cheaper (docs/design.md)
        out = np.empty(shape, x.dtype if hasattr(x, "dtype") else np.result_type(x))
        out[...] = x
        return out
    return xp.broadcast_to(x, shape)


_FILL_BELOW = 4096  # elements: below this a copy costs less than broadcast_to's view (benchmarks/README.md)
def _broadcast_batch(args, dims, shape):
    x = moveaxis(args[0], dims[0], 0)
    lead = len(shape) - (x.ndim - 1)  # per-example axes broadcasting adds in front
    if lead:
        x = reshape(x, shape=(x.shape[0],) + (1,) * lead + tuple(x.shape[1:]))
    return broadcast_to(x, shape=(x.shape[0], *shape)), 0


broadcast_to = Primitive("broadcast_to", _broadcast_to, saves="nothing", torch_name="Expand", view=VIEW,
                         batch=_broadcast_batch)
broadcast_to.defvjp(lambda g, ans, x, shape: unbroadcast(g, x.shape)).defjvp(
    lambda t, ans, x, shape: broadcast_to(t, shape=shape))


def keep_axes(g, x, axis, keepdims):
    """`g`, a reduction's result (or cotangent), with the axes of `x` it reduced re-inserted as
    1s, so it broadcasts against `x`."""
    if keepdims or (axis is None and g.ndim == 0):
        return g
    shape = list(x.shape)
    for a in (range(len(shape)) if axis is None else axis):
        shape[a] = 1
    return reshape(g, shape=tuple(shape))


def _expand(g, x, axis, keepdims):
    return broadcast_to(keep_axes(g, x, axis, keepdims), shape=x.shape)


def reducer(ufunc, name):
    """The kernel of reduction `name`: on NumPy arrays `ufunc.reduce` itself (np.sum and
    np.max are Python wrappers around it), elsewhere the array module's `name`."""
    def kernel(x, axis=None, keepdims=False):
        xp = array_module(x)
        if xp is np:
            return ufunc.reduce(x, axis=axis, keepdims=keepdims)
        return getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    kernel.__name__ = name
    return kernel


def reduction_batch(prim):
    """The batching rule of a reduction over `axis` (a tuple of per-example axes, or None for
    all): the same reduction over those axes of the stacked value; the batch axis stays."""
    def rule(args, dims, axis, keepdims):
        x, d = args[0], dims[0]
        n = x.ndim - 1
        axes = tuple(a + (a >= d) for a in range(n)) if axis is None else tuple(logical_axis(a, n, d) for a in axis)
        return prim(x, axis=axes, keepdims=keepdims), d if keepdims else d - sum(a < d for a in axes)
    return rule


reduce_sum = Primitive("sum", reducer(np.add, "sum"), saves="nothing")
reduce_sum.defbatch(reduction_batch(reduce_sum)).defvjp(
    lambda g, ans, x, axis, keepdims: _expand(g, x, axis, keepdims)).defjvp(
    lambda t, ans, x, axis, keepdims: reduce_sum(t, axis=axis, keepdims=keepdims))


# ---- fitting derivatives to their primal (Note [cotangents fit their primal]) --------------
def unbroadcast(g, shape):
    """Sum `g` over the axes that broadcasting added or stretched to reach `shape`."""
    gshape = g.shape
    lead = len(gshape) - len(shape)
    stretched = tuple(lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1)
    if not lead:  # same rank: keepdims leaves exactly `shape`
        return reduce_sum(g, axis=stretched, keepdims=True) if stretched else g
    g = reduce_sum(g, axis=tuple(range(lead)) + stretched, keepdims=False)
    return reshape(g, shape=shape) if g.shape != tuple(shape) else g


def fit_cotangent(g, primal, prim=None, argnum=None):
    """`g` summed to `primal`'s shape and cast to its dtype (primals that carry gradient are arrays)."""
    if not hasattr(g, "dtype"):
        g = np.asarray(g)
    shape = primal.shape
    if g.shape != shape:
        try:
            fitted = unbroadcast(g, shape)
        except (ValueError, IndexError):
            fitted = None
        if fitted is None or fitted.shape != tuple(shape):
            where = f" for argument {argnum} of {prim.name}" if prim is not None else ""
            raise ValueError(f"fgrad: a vjp rule{where} returned a cotangent of shape {g.shape}, "
                             f"which does not broadcast to the primal's shape {shape}")
        g = fitted
    if g.dtype != primal.dtype:
        g = as_dtype(g, primal.dtype)
    return g


def fit_tangent(t, ans):
    """Broadcast a tangent contribution to the output's shape and cast it to its dtype."""
    if t.shape != ans.shape:
        t = broadcast_to(t, shape=ans.shape)
    if t.dtype != ans.dtype:
        t = as_dtype(t, ans.dtype)
    return t

