"""Pools: F.max_pool1d, max_pool2d, avg_pool2d, adaptive_avg_pool2d and their Modules, torch 2.13's.

A max pool is window_max (ops/conv.py) over the padded input: the maximum of each window, its
gradient to the window's first maximum, as torch's kernel (return_indices gives torch's flat
indices, from an argmax over the windows); an average pool is windows (im2col) and a sum over
the kernel axes, divided by torch's counts. The adaptive pool is a product with averaging matrices.
"""
import numpy as np

from .. import numpy as fnp
from ..autograd.tensor import Tensor, TensorOrArray
from ..ops.conv import window_max, windows
from ..typing import Any
from .module import Module
from .parameters import on_device_of, real_only

__all__ = ["AdaptiveAvgPool2d", "AvgPool2d", "MaxPool1d", "MaxPool2d", "adaptive_avg_pool2d", "avg_pool2d",
           "max_pool1d", "max_pool2d"]


def _tuple(value, k, what):
    t = tuple(int(v) for v in value) if isinstance(value, (tuple, list)) else (int(value),) * k
    if len(t) == 1 and k > 1:
        t = t * k
    if len(t) != k:
        raise RuntimeError(f"{what} must either be a single int, or a tuple of {k} ints")
    return t


def _pool_sizes(n, k, s, p, d, ceil_mode):
    """torch's pooling_output_shape: the output length, and the padding the last window needs at
    the end (beyond p) under ceil_mode."""
    span = d * (k - 1) + 1
    out = (n + 2 * p - span + ((s - 1) if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:  # the last window must start inside the input or its left padding
        out -= 1
    return out, max(0, (out - 1) * s + span - (n + 2 * p))


def _prepare(input, k, kernel_size, stride, padding, dilation, ceil_mode, name):
    real_only(name, input)
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"{name}: Expected {k + 1}D or {k + 2}D (batch mode) tensor for input, but got input of "
                           f"size: {list(input.shape)}")
    kernel = _tuple(kernel_size, k, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, k, "stride")
    padding, dilation = _tuple(padding, k, "padding"), _tuple(dilation, k, "dilation")
    if any(v <= 0 for v in kernel + stride + dilation):
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be greater than zero, but got "
                           f"kernel_size={kernel}, stride={stride}, dilation={dilation}")
    if any(p > (d * (kk - 1) + 1) // 2 for p, kk, d in zip(padding, kernel, dilation)):
        raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but got pad={padding}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    spatial = tuple(input.shape[-k:])
    sizes = [_pool_sizes(n, kk, s, p, d, ceil_mode) for n, kk, s, p, d in zip(spatial, kernel, stride, padding,
                                                                               dilation)]
    if any(o <= 0 for o, _ in sizes):
        raise RuntimeError(f"{name}: Given input size: {list(input.shape)}. Calculated output size: "
                           f"{[o for o, _ in sizes]}. Output size is too small")
    pads = tuple((p, p + extra) for p, (_, extra) in zip(padding, sizes))
    return kernel, stride, padding, dilation, spatial, pads


def _max_poolnd(input, k, kernel_size, stride, padding, dilation, ceil_mode, return_indices, name):
    kernel, stride, padding, dilation, spatial, pads = _prepare(input, k, kernel_size, stride, padding, dilation,
                                                                ceil_mode, name)
    lead = ((0, 0),) * (input.ndim - k)
    x = fnp.pad(input, lead + pads, constant_values=-np.inf) if any(p != (0, 0) for p in pads) else input
    # (the gradient goes to each window's first maximum, as torch's kernel: ops/conv.py's window_max)
    out = window_max(x, kernel=kernel, stride=stride, dilation=dilation)
    if not return_indices:
        return out
    cols = windows(x, kernel=kernel, stride=stride, dilation=dilation)  # (..., *kernel, *out)
    lead, out_shape = tuple(cols.shape[:cols.ndim - 2 * k]), tuple(cols.shape[cols.ndim - k:])
    best = fnp.argmax(fnp.reshape(cols, lead + (-1,) + out_shape), axis=len(lead))  # (NaN the largest, as torch's)
    return out, _flat_indices(best, kernel, stride, padding, dilation, spatial, out_shape)


def _flat_indices(best, kernel, stride, padding, dilation, spatial, out):
    """torch's return_indices: the index of each maximum in its (unpadded) input plane, row-major."""
    index = 0
    offsets, rest = [], best
    for kk in reversed(kernel):  # the kernel offsets of the flat argmax, last axis fastest
        offsets.insert(0, rest % kk)
        rest = rest // kk
    for axis, (o, s, p, d, n, m) in enumerate(zip(offsets, stride, padding, dilation, spatial, out)):
        start = on_device_of(best, (np.arange(m) * s - p).reshape((m,) + (1,) * (len(kernel) - axis - 1)))
        index = index * n + (start + o * d)
    return fnp.astype(index, np.int64)


def max_pool1d(input: TensorOrArray, kernel_size: int | tuple[int, ...], stride: int | tuple[int, ...] | None = None,
               padding: int | tuple[int, ...] = 0, dilation: int | tuple[int, ...] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:  # (the values, or (values, indices))
    """The maximum over each window of (N, C, L) (or (C, L)) input; with return_indices, also where it is."""
    return _max_poolnd(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool1d")


def max_pool2d(input: TensorOrArray, kernel_size: int | tuple[int, ...], stride: int | tuple[int, ...] | None = None,
               padding: int | tuple[int, ...] = 0, dilation: int | tuple[int, ...] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:  # (the values, or (values, indices))
    """The maximum over each window of (N, C, H, W) (or (C, H, W)) input (padding counts as -inf), as
    torch's; with return_indices, also the flat index h * W + w of each maximum in its plane."""
    return _max_poolnd(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices, "max_pool2d")


def _divisors(n, k, s, p, out, count_include_pad):
    """torch's avg_pool counts along one axis: the window clipped to the padded input (and to the
    input itself unless count_include_pad)."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, n + p)
    if not count_include_pad:
        return np.minimum(end, n) - np.maximum(start, 0)
    return end - start


def avg_pool2d(input: TensorOrArray, kernel_size: int | tuple[int, ...], stride: int | tuple[int, ...] | None = None,
               padding: int | tuple[int, ...] = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> TensorOrArray:
    """The mean over each window of (N, C, H, W) (or (C, H, W)) input, torch's: padding counts as
    zeros in the divisor when count_include_pad, windows past the end (ceil_mode) never do."""
    kernel, stride, padding, _, spatial, pads = _prepare(input, 2, kernel_size, stride, padding, 1, ceil_mode,
                                                         "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool2d: divisor must be not zero")
    lead = ((0, 0),) * (input.ndim - 2)
    x = fnp.pad(input, lead + pads) if any(p != (0, 0) for p in pads) else input
    cols = windows(x, kernel=kernel, stride=stride, dilation=(1, 1))  # (..., kH, kW, oH, oW)
    total = fnp.sum(cols, axis=(-4, -3))
    if divisor_override is not None:
        return total / float(divisor_override)
    oh, ow = total.shape[-2:]
    dh, dw = (_divisors(n, kk, s, p, o, count_include_pad) for n, kk, s, p, o in
              zip(spatial, kernel, stride, padding, (oh, ow)))
    divisor = np.multiply.outer(dh, dw).astype(fnp.result_type(input))
    return total / on_device_of(total, divisor)


def _averaging(n, m, dtype):
    """The (m, n) matrix of adaptive pooling's means: row i averages entries floor(i n / m) to
    ceil((i + 1) n / m) - 1, torch's start and end indices."""
    a = np.zeros((m, n), dtype=dtype)
    for i in range(m):
        lo, hi = (i * n) // m, -((-(i + 1) * n) // m)
        a[i, lo:hi] = 1.0 / (hi - lo)
    return a


def adaptive_avg_pool2d(input: TensorOrArray, output_size: int | tuple[int, ...]) -> TensorOrArray:
    """Means over torch's adaptive windows, output (N, C, *output_size); None keeps an input size."""
    real_only("adaptive_avg_pool2d", input)
    if input.ndim not in (3, 4) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    size = (output_size, output_size) if isinstance(output_size, int) or output_size is None else tuple(output_size)
    h, w = input.shape[-2:]
    oh, ow = (n if o is None else int(o) for n, o in zip((h, w), size))
    dtype = fnp.result_type(input)
    return fnp.einsum("...hw,ph,qw->...pq", input, on_device_of(input, _averaging(h, oh, dtype)),
                      on_device_of(input, _averaging(w, ow, dtype)))


class _Pool(Module):
    def extra_repr(self) -> str:
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._shown)


class _MaxPoolNd(_Pool):
    _shown = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
    pool = None

    def __init__(self, kernel_size: int | tuple[int, ...], stride: int | tuple[int, ...] | None = None,
                 padding: int | tuple[int, ...] = 0, dilation: int | tuple[int, ...] = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:  # (the values, or (values, indices) with return_indices)
        return type(self).pool(input, self.kernel_size, self.stride, self.padding, self.dilation,
                               ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """torch.nn.MaxPool1d: max_pool1d with its settings.

    Examples
    --------
    >>> x = fgrad.tensor([[[1.0, 3.0, 2.0, 0.0]]], requires_grad=True)
    >>> y = fgrad.nn.MaxPool1d(2)(x); y.sum().backward()
    >>> y, x.grad  # the gradient goes to each window's maximum
    (tensor([[[3., 2.]]], grad_fn=<...>), tensor([[[0., 1., 1., 0.]]]))
    """

    pool = staticmethod(max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """torch.nn.MaxPool2d: max_pool2d with its settings.

    Examples
    --------
    >>> x = fgrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> fgrad.nn.MaxPool2d(2)(x)
    tensor([[[[ 5.,  7.], [13., 15.]]]])
    """

    pool = staticmethod(max_pool2d)


class AvgPool2d(_Pool):
    """torch.nn.AvgPool2d: avg_pool2d with its settings.

    Examples
    --------
    >>> x = fgrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> fgrad.nn.AvgPool2d(2)(x)
    tensor([[[[ 2.5,  4.5], [10.5, 12.5]]]])
    """

    _shown = ("kernel_size", "stride", "padding")

    def __init__(self, kernel_size: int | tuple[int, ...], stride: int | tuple[int, ...] | None = None,
                 padding: int | tuple[int, ...] = 0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                          self.divisor_override)


class AdaptiveAvgPool2d(_Pool):
    """torch.nn.AdaptiveAvgPool2d: adaptive_avg_pool2d to a fixed output size.

    Examples
    --------
    >>> fgrad.nn.AdaptiveAvgPool2d(1)(fgrad.arange(16.0).reshape(1, 1, 4, 4))  # the mean of each channel
    tensor([[[[7.5]]]])
    """

    _shown = ("output_size",)

    def __init__(self, output_size: int | tuple[int, ...]) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool2d(input, self.output_size)

