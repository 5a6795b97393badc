"""The convolution primitive of fgrad.scipy.signal: N-D, direct, mode 'full' or 'valid'.

convolve(x, y, mode) is scipy.signal.convolve(x, y, mode, method="direct") (cupyx's on CuPy
arrays); in 'valid' mode x is at least as large as y along every axis (fgrad.scipy.signal
swaps its arguments to make it so, as SciPy does). 'same', correlate, convolve2d and
correlate2d are composites there (a crop of 'full'; a flip of the second input).

A convolution is bilinear: each jvp convolves the tangent with the other input. The
cotangent of an input is a convolution of g with the other input flipped, in the other
mode, which crops or pads it to the input's shape:
  full:  ct_x = valid(g, flip(y)),  ct_y = valid(g, flip(x));
  valid: ct_x = full(g, flip(y)),   ct_y = flip(valid(x, flip(g))).
"""

from ..backend import array_module, scipy_function
from . import indexing
from .batching import front
from .primitive import Primitive
from .shape import concatenate, expand_dims, flip

__all__ = ["convolve"]


def _convolve(x, y, mode):
    return scipy_function(array_module(x, y), "signal", "convolve")(x, y, mode=mode, method="direct")


def _flip(x):
    return flip(x, axis=None)


def _convolve_vjp(g, out, primals, needs, mode):
    x, y = primals
    if mode == "full":
        return (convolve(g, _flip(y), mode="valid") if needs[0] else None,
                convolve(g, _flip(x), mode="valid") if needs[1] else None)
    return (convolve(g, _flip(y), mode="full") if needs[0] else None,
            _flip(convolve(x, _flip(g), mode="valid")) if needs[1] else None)


def _convolve_batch(args, dims, mode):
    """One input batched: the other gets an axis of length 1 in front, along which a convolution
    is a product (full: B + 1 - 1 = B entries; valid: the batched x is the larger one). Otherwise
    (both batched, or a batched y in 'valid' mode) one convolution per example."""
    (x, y), (dx, dy) = args, dims
    if dy is None:
        return convolve(front(x, dx), expand_dims(y, 0), mode=mode), 0
    if dx is None and mode == "full":
        return convolve(expand_dims(x, 0), front(y, dy), mode=mode), 0
    x = None if dx is None else front(x, dx)
    y = front(y, dy)
    outs = [convolve(args[0] if x is None else indexing.getitem(x, index=(b,)), indexing.getitem(y, index=(b,)),
                     mode=mode) for b in range(y.shape[0])]
    return concatenate(*[expand_dims(o, 0) for o in outs], axis=0), 0


convolve = Primitive("convolve", _convolve, saves="inputs", batch=_convolve_batch).defvjp_all(_convolve_vjp).defjvp(
    lambda t, out, x, y, mode: convolve(t, y, mode=mode), lambda t, out, x, y, mode: convolve(x, t, mode=mode))
