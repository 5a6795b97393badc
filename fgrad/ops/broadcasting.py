"""Undoing broadcasting, once, for every rule.

Note [cotangents fit their primal]: a vjp rule may return a cotangent in the broadcast
shape of its op, or in a wider dtype; `fit_cotangent` sums it back to the input's shape
and casts it to the input's dtype, so no rule has to. float32 in, float32 gradient out.
Tangents go the other way: `fit_tangent` broadcasts a contribution to the output's shape.

Note [no complex derivatives]: inputs of the transforms are real (trees.float_input), so
a complex value inside a differentiated function came from a complex constant or a cast,
and its derivative reaches a real value again through a cast of a complex derivative to a
real dtype, here or in convert's rules (both ask elementwise.real_dtype). fgrad's rules
do not conjugate (holomorphic chains come out as JAX's, others would not), so that cast
raises instead of dropping the imaginary part: a wrong number never comes back.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import concrete
from .elementwise import add, convert, real_dtype  # noqa: F401  (add is the engine's accumulator)
from . import reductions  # (a module: reductions imports shape, which imports this module)
from .shape import broadcast_to, reshape

__all__ = ["unbroadcast", "fit_cotangent", "fit_tangent", "zeros_like_value", "materialize", "add"]


def unbroadcast(g, shape):
    """Sum `g` over the axes that broadcasting added or stretched to reach `shape`."""
    gshape = g.shape
    lead = len(gshape) - len(shape)
    stretched = tuple(lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1)
    if not lead:  # same rank: keepdims leaves exactly `shape`
        return reductions.reduce_sum(g, axis=stretched, keepdims=True) if stretched else g
    g = reductions.reduce_sum(g, axis=tuple(range(lead)) + stretched, keepdims=False)
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
        g = convert(g, dtype=real_dtype(g.dtype, primal.dtype, prim, "cotangent"))
    return g


def fit_tangent(t, ans):
    """Broadcast a tangent contribution to the output's shape and cast it to its dtype."""
    if t.shape != ans.shape:
        t = broadcast_to(t, shape=ans.shape)
    if t.dtype != ans.dtype:
        t = convert(t, dtype=real_dtype(t.dtype, ans.dtype, None, "tangent"))
    return t


def zeros_like_value(value):
    """A concrete zero of `value`'s shape and dtype: a scalar for a scalar (a Python float's
    gradient is a float), an array for an array."""
    c = concrete(value)
    if isinstance(c, (float, np.generic)):
        return np.asarray(c).dtype.type(0)
    return array_module(c).zeros(np.shape(c), dtype=getattr(c, "dtype", np.float64))


def materialize(cts, outs):
    """The cotangents of a multiple-result primitive's outputs `outs`, symbolic zeros (None)
    made concrete zeros, for rules that need arrays (users' bwd, Function.backward). The
    engine hands those rules None for an output nothing used (Note [symbolic zero outputs])."""
    return tuple(zeros_like_value(o) if c is None else c for o, c in zip(outs, cts))
