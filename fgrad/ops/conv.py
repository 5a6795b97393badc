"""The primitives behind fgrad.nn's convolutions and pools: windows (im2col) and its
transpose, unwindows (col2im); window_max, a max pool's maximum over each window, and
first_max, where it is.

windows(x, kernel, stride, dilation) gathers, for each output position of a strided, dilated
sliding window over the last len(kernel) axes of x, the entries under the window: x of shape
(..., *spatial) becomes (..., *kernel, *out). A convolution is then one matmul of the weight,
(C_out, C * kernel), with the windows, (N, C * kernel, out); a max pool an argmax over the
kernel axes, an average pool a sum; padding is fgrad's pad primitive before it. So a convolution needs no
rule of its own: its derivatives are matmul's and these two primitives'.

A max pool is window_max, a reduction over a strided view (no copy), whose cotangent goes to
each window's first maximum (first_max's mask, as torch's kernel picks: NaN counts as the
largest) through unwindows. As windows, an argmax, a mask and a where, it was five forward ops and
three backward ones, the largest share of a small CNN's step (benchmarks/README.md).

Both are linear, and each is the other's transpose: the cotangent of windows scatter-adds the
windows back onto the input (overlapping windows add), and the cotangent of unwindows gathers
windows from it. Each jvp is the primitive applied to the tangent. Both act on trailing axes
and stack over leading ones, so vmap moves the batch axis in front.
"""
import numpy as np

from ..backend import array_module
from .axes import reshape
from .batching import front
from .broadcasting import reduce_sum
from .elementwise import where
from .primitive import Primitive

__all__ = ["first_max", "unwindows", "window_max", "windows"]


def _check(spatial, kernel, stride, dilation, where):
    for n, k, s, d in zip(spatial, kernel, stride, dilation):
        if k < 1 or s < 1 or d < 1:
            raise ValueError(f"fgrad {where}: kernel sizes, strides and dilations must be positive, got kernel "
                             f"{tuple(kernel)}, stride {tuple(stride)}, dilation {tuple(dilation)}")
        if d * (k - 1) + 1 > n:
            raise ValueError(f"fgrad {where}: the (dilated) kernel {tuple(kernel)} (dilation {tuple(dilation)}) "
                             f"is larger than the (padded) input {tuple(spatial)}")


def _view(x, kernel, stride, dilation, where):
    """The windows as a strided view of x, (..., *out, *kernel): no copy."""
    xp = array_module(x)
    k, nd = len(kernel), x.ndim
    _check(x.shape[nd - k:], kernel, stride, dilation, where)
    span = tuple(d * (n - 1) + 1 for n, d in zip(kernel, dilation))
    view = xp.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(nd - k, nd)))
    lead = (slice(None),) * (nd - k)
    return view[lead + tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d) for d in dilation)]


def _windows(x, kernel, stride, dilation):
    xp = array_module(x)
    k, nd = len(kernel), x.ndim
    view = _view(x, kernel, stride, dilation, "windows")
    # (..., *out, *kernel) -> (..., *kernel, *out): each kernel offset's entries are a strided slice
    # of x, copied in runs along the output positions (the fast order, twice the speed of the other),
    # and a convolution's windows are (N, C * kernel, out), the right operand of one matmul. A fresh,
    # contiguous array: a tape that keeps it must not see later writes to x through a view.
    order = (*range(nd - k), *range(nd, nd + k), *range(nd - k, nd))
    return xp.ascontiguousarray(view.transpose(order))


def _unwindows(g, spatial, stride, dilation):
    xp = array_module(g)
    k = len(spatial)
    lead, kernel, out = g.shape[:g.ndim - 2 * k], g.shape[g.ndim - 2 * k:g.ndim - k], g.shape[g.ndim - k:]
    x = xp.zeros(lead + tuple(spatial), dtype=g.dtype)
    if tuple(stride) == tuple(kernel) and all(d == 1 for d in dilation):
        # Windows that tile the input (a pool's stride == kernel): no sums, one interleaving copy
        # of (..., *kernel, *out) into (..., out_1, kernel_1, out_2, kernel_2, ...).
        n = len(lead)
        order = (*range(n), *(a for i in range(k) for a in (n + k + i, n + i)))
        covered = tuple(m * kk for m, kk in zip(out, kernel))
        x[(Ellipsis,) + tuple(slice(0, c) for c in covered)] = g.transpose(order).reshape(lead + covered)
        return x
    # One strided add per kernel offset: the windows of one offset never overlap each other.
    for offset in np.ndindex(*kernel):
        target = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                       for o, d, s, m in zip(offset, dilation, stride, out))
        x[(Ellipsis,) + target] += g[(Ellipsis,) + offset + tuple(slice(None) for _ in out)]
    return x


def _window_max(x, kernel, stride, dilation):
    # One maximum per kernel offset, of strided slices: a reduction over the view's small trailing
    # axes is about ten times slower. (np.maximum keeps NaN, as max does.)
    view = _view(x, kernel, stride, dilation, "window_max")
    out = None
    for offset in np.ndindex(*kernel):
        piece = view[(Ellipsis,) + offset]
        out = piece.copy() if out is None else array_module(x).maximum(out, piece, out=out)
    return out


def _first_max(x, kernel, stride, dilation):
    """A mask shaped as the windows, (..., *kernel, *out): True at each window's first maximum."""
    xp = array_module(x)
    cols = _windows(x, kernel, stride, dilation)
    lead, k = cols.ndim - 2 * len(kernel), len(kernel)
    flat = cols.reshape(cols.shape[:lead] + (-1,) + cols.shape[lead + k:])
    best = xp.expand_dims(flat.argmax(axis=lead), lead)
    return (xp.arange(flat.shape[lead]).reshape((-1,) + (1,) * k) == best).reshape(cols.shape)


def _spread(g, k):
    """g, (..., *out), with k unit axes before its last k: it broadcasts against the windows."""
    return reshape(g, shape=g.shape[:g.ndim - k] + (1,) * k + g.shape[g.ndim - k:])


def _window_max_vjp(g, ans, x, kernel, stride, dilation):
    picked = where(first_max(x, kernel=kernel, stride=stride, dilation=dilation), _spread(g, len(kernel)), 0.0)
    return unwindows(picked, spatial=_spatial(x, kernel), stride=stride, dilation=dilation)


def _window_max_jvp(t, ans, x, kernel, stride, dilation):
    mask = first_max(x, kernel=kernel, stride=stride, dilation=dilation)
    cols = where(mask, windows(t, kernel=kernel, stride=stride, dilation=dilation), 0.0)
    k = len(kernel)
    return reduce_sum(cols, axis=tuple(range(cols.ndim - 2 * k, cols.ndim - k)), keepdims=False)


def _spatial(x, kernel):
    return tuple(x.shape[x.ndim - len(kernel):])


def _kernel(cols, spatial):
    """The kernel's shape, from windows of shape (..., *kernel, *out)."""
    k = len(spatial)
    return tuple(cols.shape[cols.ndim - 2 * k:cols.ndim - k])


windows = Primitive("windows", _windows, saves="nothing", torch_name="Im2Col", fresh=True, batch=lambda args, dims,
                    kernel, stride, dilation: (windows(front(args[0], dims[0]), kernel=kernel, stride=stride,
                                                       dilation=dilation), 0))
unwindows = Primitive("unwindows", _unwindows, saves="nothing", torch_name="Col2Im", fresh=True, batch=lambda args,
                      dims, spatial, stride, dilation: (unwindows(front(args[0], dims[0]), spatial=spatial,
                                                                  stride=stride, dilation=dilation), 0))
windows.defvjp(lambda g, ans, x, kernel, stride, dilation: unwindows(
    g, spatial=_spatial(x, kernel), stride=stride, dilation=dilation)).defjvp(
    lambda t, ans, x, kernel, stride, dilation: windows(t, kernel=kernel, stride=stride, dilation=dilation))
first_max = Primitive("first_max", _first_max, batch=lambda args, dims, kernel, stride, dilation: (
    first_max(front(args[0], dims[0]), kernel=kernel, stride=stride, dilation=dilation), 0))
window_max = Primitive("window_max", _window_max, saves="inputs", torch_name="MaxPool2DWithIndices",
                       batch=lambda args, dims, kernel, stride, dilation: (window_max(
                           front(args[0], dims[0]), kernel=kernel, stride=stride, dilation=dilation), 0))
window_max.defvjp(_window_max_vjp).defjvp(_window_max_jvp)
unwindows.defvjp(lambda g, ans, x, spatial, stride, dilation: windows(
    g, kernel=_kernel(x, spatial), stride=stride, dilation=dilation)).defjvp(
    lambda t, ans, x, spatial, stride, dilation: unwindows(t, spatial=spatial, stride=stride, dilation=dilation))
