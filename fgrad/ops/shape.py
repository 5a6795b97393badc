"""Structural primitives: concatenate, flip, pad, diagonal (reshape and transpose, with
moveaxis and expand_dims, live in ops/axes.py; they are re-exported here).

All are linear, so each jvp applies the op to the tangent and each vjp applies the
transposed op to the cotangent. Composites (squeeze, moveaxis, stack, tile, ...) live
in fgrad.numpy and are written with these. broadcast_to lives with its transpose, sum,
in ops/broadcasting.py.
"""
import numpy as np

from ..backend import array_module
from . import indexing
from .axes import expand_dims, moveaxis, reshape, transpose
from .batching import batch_size, first, front, logical_axis
from .primitive import VIEW, Primitive
from .zeros import zeros_like_value

__all__ = ["concatenate", "diagonal", "diagonal_scatter", "expand_dims", "flip", "moveaxis", "pad_constant", "reshape",
           "transpose"]

def _flip_batch(args, dims, axis):
    x = front(args[0], dims[0])
    n = x.ndim - 1
    return flip(x, axis=tuple(range(1, n + 1)) if axis is None else tuple(logical_axis(a, n) for a in axis)), 0


flip = Primitive("flip", lambda x, axis: array_module(x).flip(x, axis), saves="nothing", batch=_flip_batch)
flip.defvjp(lambda g, ans, x, axis: flip(g, axis=axis)).defjvp(lambda t, ans, x, axis: flip(t, axis=axis))


def _concatenate(*xs, axis):
    return array_module(*xs).concatenate(xs, axis=axis)


def _concat_vjp(g, ans, xs, needs, axis):
    """Each needed piece's slice of g (one pass over the pieces: linear in their number)."""
    lead = (slice(None),) * axis
    pieces, start = [], 0
    for x, need in zip(xs, needs):
        stop = start + x.shape[axis]
        pieces.append(indexing.getitem(g, index=lead + (slice(start, stop),)) if need else None)
        start = stop
    return tuple(pieces)


def _concat_jvp(primals, tangents, ans, axis):
    return concatenate(*[zeros_like_value(p) if t is None else t for p, t in zip(primals, tangents)], axis=axis)


def _concat_batch(xs, dims, axis):
    size = batch_size(xs, dims)
    xs = [first(x, d, size) for x, d in zip(xs, dims)]
    return concatenate(*xs, axis=logical_axis(axis, xs[0].ndim - 1)), 0


concatenate = Primitive("concatenate", _concatenate, saves="nothing", torch_name="Cat", batch=_concat_batch)
concatenate.defvjp_all(_concat_vjp)
concatenate.defjvp_full(_concat_jvp)


def _pad(x, pad_width, constant):
    return array_module(x).pad(x, pad_width, mode="constant", constant_values=constant)


def _unpad(g, x, pad_width):
    return indexing.getitem(g, index=tuple(slice(lo, lo + n) for (lo, _), n in zip(pad_width, x.shape)))


pad_constant = Primitive("pad", _pad, saves="nothing", batch=lambda args, dims, pad_width, constant: (
    pad_constant(front(args[0], dims[0]), pad_width=((0, 0), *pad_width), constant=constant), 0))
pad_constant.defvjp(lambda g, ans, x, pad_width, constant: _unpad(g, x, pad_width)).defjvp(
    lambda t, ans, x, pad_width, constant: pad_constant(t, pad_width=pad_width, constant=0))


def _diagonal(x, offset, axis1, axis2):
    return array_module(x).diagonal(x, offset, axis1, axis2)


def _diag_index(shape, offset, axis1, axis2):
    """Index of the (offset) diagonal of the last two axes, after moving axis1, axis2 there."""
    n1, n2 = shape[axis1], shape[axis2]
    i = np.arange(max(0, -offset), min(n1, n2 - offset))
    return i, i + offset


def _diagonal_scatter(g, shape, offset, axis1, axis2):
    """Zeros of `shape` whose (offset, axis1, axis2) diagonal is `g`."""
    xp = array_module(g)
    out = xp.zeros(shape, dtype=g.dtype)
    view = xp.moveaxis(out, (axis1, axis2), (-2, -1))
    rows, cols = _diag_index(shape, offset, axis1, axis2)
    view[..., rows, cols] = g
    return out


def _diagonal_batch(args, dims, offset, axis1, axis2):
    x = front(args[0], dims[0])
    n = x.ndim - 1
    return diagonal(x, offset=offset, axis1=logical_axis(axis1, n), axis2=logical_axis(axis2, n)), 0


def _diagonal_scatter_batch(args, dims, shape, offset, axis1, axis2):
    g = front(args[0], dims[0])  # (the diagonal's axis is last, before and after)
    n = len(shape)
    return diagonal_scatter(g, shape=(g.shape[0], *shape), offset=offset, axis1=logical_axis(axis1, n),
                            axis2=logical_axis(axis2, n)), 0


diagonal = Primitive("diagonal", _diagonal, saves="nothing", view=VIEW,  # (NumPy's is read-only)
                     batch=_diagonal_batch)
diagonal_scatter = Primitive("diagonal_scatter", _diagonal_scatter, saves="nothing", batch=_diagonal_scatter_batch)
diagonal.defvjp(lambda g, ans, x, offset, axis1, axis2: diagonal_scatter(
    g, shape=x.shape, offset=offset, axis1=axis1, axis2=axis2)).defjvp(
    lambda t, ans, x, offset, axis1, axis2: diagonal(t, offset=offset, axis1=axis1, axis2=axis2))
diagonal_scatter.defvjp(lambda g, ans, x, shape, offset, axis1, axis2: diagonal(
    g, offset=offset, axis1=axis1, axis2=axis2)).defjvp(
    lambda t, ans, x, shape, offset, axis1, axis2: diagonal_scatter(t, shape=shape, offset=offset, axis1=axis1,
                                                                    axis2=axis2))
