"""The two primitives behind fgrad.nn's convolutions and pools: windows (im2col) and its
transpose, unwindows (col2im).

windows(x, kernel, stride, dilation, front) gathers, for each output position of a strided,
dilated sliding window over the last len(kernel) axes of x, the entries under the window:
x of shape (*A, *rest, *spatial), with `front` axes A, becomes (*A, *out, *rest, *kernel).
A convolution (front=1: A is the batch) is then one matmul of the windows, (N * out, C * kernel),
with the weight; a max pool (front: all but the spatial axes) an argmax over the kernel axes,
an average pool a sum; padding is fgrad's pad primitive before it. So a convolution needs no
rule of its own: its derivatives are matmul's and these two primitives'.

Both are linear, and each is the other's transpose: the cotangent of windows scatter-adds the
windows back onto the input (overlapping windows add), and the cotangent of unwindows gathers
windows from it. Each jvp is the primitive applied to the tangent. vmap moves the batch axis
in front, as one more of the `front` axes.
"""
import numpy as np

from ..backend import array_module
from .batching import front as front_axis
from .primitive import Primitive

__all__ = ["unwindows", "windows"]


def _check(spatial, kernel, stride, dilation, where):
    for n, k, s, d in zip(spatial, kernel, stride, dilation):
        if k < 1 or s < 1 or d < 1:
            raise ValueError(f"fgrad {where}: kernel sizes, strides and dilations must be positive, got kernel "
                             f"{tuple(kernel)}, stride {tuple(stride)}, dilation {tuple(dilation)}")
        if d * (k - 1) + 1 > n:
            raise ValueError(f"fgrad {where}: the (dilated) kernel {tuple(kernel)} (dilation {tuple(dilation)}) "
                             f"is larger than the (padded) input {tuple(spatial)}")


def _windows(x, kernel, stride, dilation, front):
    xp = array_module(x)
    k, nd = len(kernel), x.ndim
    _check(x.shape[nd - k:], kernel, stride, dilation, "windows")
    span = tuple(d * (n - 1) + 1 for n, d in zip(kernel, dilation))
    view = xp.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(nd - k, nd)))
    lead = (slice(None),) * (nd - k)
    view = view[lead + tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d) for d in dilation)]
    # (*A, *rest, *out, *kernel) -> (*A, *out, *rest, *kernel): with A the batch axis of a convolution,
    # the windows are the rows of one matmul. A fresh, contiguous array: a tape that keeps it must not
    # see later writes to x through a view.
    order = (*range(front), *range(nd - k, nd), *range(front, nd - k), *range(nd, nd + k))
    return xp.ascontiguousarray(view.transpose(order))


def _unwindows(g, spatial, stride, dilation, front):
    xp = array_module(g)
    k = len(spatial)
    lead, out = g.shape[:front], g.shape[front:front + k]
    rest, kernel = g.shape[front + k:g.ndim - k], g.shape[g.ndim - k:]
    x = xp.zeros(lead + rest + tuple(spatial), dtype=g.dtype)
    # back to (*A, *rest, *out, *kernel), then one strided add per kernel offset: the windows of one
    # offset never overlap each other.
    nr = len(rest)
    g = g.transpose((*range(front), *range(front + k, front + k + nr), *range(front, front + k),
                     *range(g.ndim - k, g.ndim)))
    for offset in np.ndindex(*kernel):
        target = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                       for o, d, s, m in zip(offset, dilation, stride, out))
        x[(Ellipsis,) + target] += g[(Ellipsis,) + tuple(slice(None) for _ in out) + offset]
    return x


def _spatial(x, kernel):
    return tuple(x.shape[x.ndim - len(kernel):])


def _windows_batch(args, dims, kernel, stride, dilation, front):
    return windows(front_axis(args[0], dims[0]), kernel=kernel, stride=stride, dilation=dilation, front=front + 1), 0


def _unwindows_batch(args, dims, spatial, stride, dilation, front):
    return unwindows(front_axis(args[0], dims[0]), spatial=spatial, stride=stride, dilation=dilation,
                     front=front + 1), 0


windows = Primitive("windows", _windows, saves="nothing", torch_name="Im2Col", fresh=True, batch=_windows_batch)
unwindows = Primitive("unwindows", _unwindows, saves="nothing", torch_name="Col2Im", fresh=True, batch=_unwindows_batch)
windows.defvjp(lambda g, ans, x, kernel, stride, dilation, front: unwindows(
    g, spatial=_spatial(x, kernel), stride=stride, dilation=dilation, front=front)).defjvp(
    lambda t, ans, x, kernel, stride, dilation, front: windows(t, kernel=kernel, stride=stride, dilation=dilation,
                                                               front=front))
unwindows.defvjp(lambda g, ans, x, spatial, stride, dilation, front: windows(
    g, kernel=tuple(x.shape[x.ndim - len(spatial):]), stride=stride, dilation=dilation, front=front)).defjvp(
    lambda t, ans, x, spatial, stride, dilation, front: unwindows(t, spatial=spatial, stride=stride,
                                                                  dilation=dilation, front=front))
