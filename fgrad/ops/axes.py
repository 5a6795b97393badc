"""Axis primitives: reshape and transpose, and the composites written with them (moveaxis,
expand_dims). Every other layer of ops/ moves axes with these, the batching rules too, so
they import nothing of ops/ but the primitive itself.
"""
import numpy as np

from .primitive import Primitive

__all__ = ["expand_dims", "moveaxis", "reshape", "transpose"]


def _reshape_batch(args, dims, shape):
    x = moveaxis(args[0], dims[0], 0)
    return reshape(x, shape=(x.shape[0], *shape)), 0


def _transpose_batch(args, dims, axes):
    d = dims[0]  # the batch axis stays where it is; the others are permuted around it
    return transpose(args[0], axes=(d, *(a + (a >= d) for a in axes))), 0


# The array's own methods: np.reshape and np.transpose are Python wrappers around them.
reshape = Primitive("reshape", lambda x, shape: x.reshape(shape) if hasattr(x, "reshape") else np.reshape(x, shape),
                    saves="nothing", torch_name="View", batch=_reshape_batch,
                    view=lambda base, view_value, shape: reshape(view_value, shape=base.shape))
reshape.defvjp(lambda g, ans, x, shape: reshape(g, shape=x.shape)).defjvp(
    lambda t, ans, x, shape: reshape(t, shape=shape))

transpose = Primitive("transpose",
                      lambda x, axes: x.transpose(axes) if hasattr(x, "transpose") else np.transpose(x, axes),
                      saves="nothing", torch_name="Permute", batch=_transpose_batch,
                      view=lambda base, view_value, axes: transpose(view_value, axes=tuple(np.argsort(axes))))
transpose.defvjp(lambda g, ans, x, axes: transpose(g, axes=tuple(np.argsort(axes)))).defjvp(
    lambda t, ans, x, axes: transpose(t, axes=axes))


def moveaxis(x, source, destination):
    """np.moveaxis via transpose (x itself when nothing moves)."""
    ndim = x.ndim
    if source.__class__ is int and destination.__class__ is int:  # (the common case, without NumPy's helpers)
        src, dst = [source % ndim], [destination % ndim]
    else:
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
