"""Structural primitives: reshape, transpose, concatenate, flip, pad, diagonal.

All are linear, so each jvp applies the op to the tangent and each vjp applies the
transposed op to the cotangent. Composites (squeeze, moveaxis, stack, tile, ...) live
in fgrad.numpy and are written with these. broadcast_to lives with its transpose, sum,
in ops/broadcasting.py.
"""
import numpy as np

from ..backend import array_module
from . import indexing
from .primitive import VIEW, Primitive
from .zeros import zeros_like_value

# The array's own methods: np.reshape and np.transpose are Python wrappers around them.
reshape = Primitive("reshape", lambda x, shape: x.reshape(shape) if hasattr(x, "reshape") else np.reshape(x, shape),
                    saves="nothing", torch_name="View",
                    view=lambda base, view_value, shape: reshape(view_value, shape=base.shape))
reshape.defvjp(lambda g, ans, x, shape: reshape(g, shape=x.shape)).defjvp(
    lambda t, ans, x, shape: reshape(t, shape=shape))

transpose = Primitive("transpose",
                      lambda x, axes: x.transpose(axes) if hasattr(x, "transpose") else np.transpose(x, axes),
                      saves="nothing", torch_name="Permute",
                      view=lambda base, view_value, axes: transpose(view_value, axes=tuple(np.argsort(axes))))
transpose.defvjp(lambda g, ans, x, axes: transpose(g, axes=tuple(np.argsort(axes)))).defjvp(
    lambda t, ans, x, axes: transpose(t, axes=axes))


flip = Primitive("flip", lambda x, axis: array_module(x).flip(x, axis), saves="nothing")
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


concatenate = Primitive("concatenate", _concatenate, saves="nothing", torch_name="Cat")
concatenate.defvjp_all(_concat_vjp)
concatenate.defjvp_full(_concat_jvp)


def _pad(x, pad_width, constant):
    return array_module(x).pad(x, pad_width, mode="constant", constant_values=constant)


def _unpad(g, x, pad_width):
    return indexing.getitem(g, index=tuple(slice(lo, lo + n) for (lo, _), n in zip(pad_width, x.shape)))


pad_constant = Primitive("pad", _pad, saves="nothing")
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


diagonal = Primitive("diagonal", _diagonal, saves="nothing", view=VIEW)  # (NumPy's is read-only)
diagonal_scatter = Primitive("diagonal_scatter", _diagonal_scatter, saves="nothing")
diagonal.defvjp(lambda g, ans, x, offset, axis1, axis2: diagonal_scatter(
    g, shape=x.shape, offset=offset, axis1=axis1, axis2=axis2)).defjvp(
    lambda t, ans, x, offset, axis1, axis2: diagonal(t, offset=offset, axis1=axis1, axis2=axis2))
diagonal_scatter.defvjp(lambda g, ans, x, shape, offset, axis1, axis2: diagonal(
    g, offset=offset, axis1=axis1, axis2=axis2)).defjvp(
    lambda t, ans, x, shape, offset, axis1, axis2: diagonal_scatter(t, shape=shape, offset=offset, axis1=axis1,
                                                                    axis2=axis2))




# ---- composites used by the rules themselves ----------------------------------------
def moveaxis(x, source, destination):
    """np.moveaxis via transpose."""
    ndim = x.ndim
    src = [a % ndim for a in np.atleast_1d(source)]
    dst = [a % ndim for a in np.atleast_1d(destination)]
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, axes=tuple(order)) if order != list(range(ndim)) else x


def expand_dims(x, axis):
    """np.expand_dims via reshape."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    axes = sorted(a % ndim for a in axes)
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    return reshape(x, shape=tuple(shape))
