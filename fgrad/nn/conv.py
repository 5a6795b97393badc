"""Convolutions: F.conv1d, F.conv2d, F.conv_transpose2d and their Modules, torch 2.13's.

A convolution is padding (fgrad's pad primitive), windows (im2col: ops/conv.py) and one BLAS
matmul of the weight with the windows (per example and group); a transposed convolution is the
matmul the other way and unwindows (col2im). Their derivatives are those primitives', so they differentiate
again and batch under vmap with no rule of their own.
"""
import numpy as np

from .. import numpy as fnp
from ..autograd.tensor import Tensor, TensorOrArray
from ..backend import Device
from ..ops.conv import unwindows, windows
from ..typing import Array, DTypeLike, Sequence
from .module import Module
from .parameters import kaiming_uniform, real_only

__all__ = ["Conv1d", "Conv2d", "ConvTranspose2d", "conv1d", "conv2d", "conv_transpose2d"]

_TYPE_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half"}
_PADDING_MODES = {"zeros": None, "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _tuple(value, k, what):
    """An int or a k-sequence of ints as a k-tuple (torch's _single/_pair)."""
    t = tuple(int(v) for v in value) if isinstance(value, (tuple, list)) else (int(value),) * k
    if len(t) != k:
        raise RuntimeError(f"expected {what} to be a single integer value or a list of {k} values to match the "
                           f"convolution dimensions, but got {what}={list(t)}")
    return t


def _same_dtype(input, weight, bias):
    for other, what in ((weight, "weight"), (bias, "bias")):
        if other is not None and fnp.result_type(input) != other.dtype:
            a, b = (_TYPE_NAMES.get(str(np.dtype(d)), str(np.dtype(d))) for d in (fnp.result_type(input), other.dtype))
            raise RuntimeError(f"Input type ({a}) and {what} type ({b}) should be the same")


def _batched(input, k, name):
    """(input with a batch axis, whether it had none): torch takes unbatched (C, *spatial) input."""
    if input.ndim not in (k + 1, k + 2):
        raise RuntimeError(f"Expected {k + 1}D (unbatched) or {k + 2}D (batched) input to {name}, but got input "
                           f"of size: {list(input.shape)}")
    return (fnp.expand_dims(input, 0), True) if input.ndim == k + 1 else (input, False)


def _pads(padding, kernel, stride, dilation, k):
    """((lo, hi), ...) per spatial axis from an int, a k-tuple, 'valid' or 'same' (torch's split:
    the odd entry of 'same' padding goes at the end)."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * k
        if padding != "same":
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
        if any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        total = [d * (n - 1) for n, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in total)
    p = _tuple(padding, k, "padding")
    if any(v < 0 for v in p):
        raise RuntimeError("negative padding is not supported")
    return tuple((v, v) for v in p)


def _check_kernel(padded, kernel, dilation):
    span = [d * (n - 1) + 1 for n, d in zip(kernel, dilation)]
    if any(s > n for s, n in zip(span, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, span))}). Kernel size can't be greater than actual input "
                           f"size")


def _convnd(input, weight, bias, stride, padding, dilation, groups, k, name, padding_mode="zeros"):
    real_only(name, input, weight, bias)
    _same_dtype(input, weight, bias)
    x, unbatched = _batched(input, k, name)
    if weight.ndim != k + 2:
        raise RuntimeError(f"Expected {k + 2}-dimensional weight for {k + 2}-dimensional input "
                           f"{list(x.shape)}, but got {weight.ndim}-dimensional weight of size {list(weight.shape)}")
    stride, dilation = _tuple(stride, k, "stride"), _tuple(dilation, k, "dilation")
    kernel = tuple(weight.shape[2:])
    c_out, c_group = weight.shape[0], weight.shape[1]
    if groups < 1 or c_out % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size {list(weight.shape)} instead")
    if x.shape[1] != c_group * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {c_group * groups} channels, but got {x.shape[1]} channels "
                           f"instead")
    pads = _pads(padding, kernel, stride, dilation, k)
    if any(p != (0, 0) for p in pads):
        mode = _PADDING_MODES[padding_mode]
        x = fnp.pad(x, ((0, 0), (0, 0)) + pads, **({} if mode is None else {"mode": mode}))
    _check_kernel(tuple(x.shape[2:]), kernel, dilation)
    n = x.shape[0]
    cols = windows(x, kernel=kernel, stride=stride, dilation=dilation)  # (N, C, *kernel, *out)
    out_shape = tuple(cols.shape[2 + k:])
    # (C_out, C * kernel) @ (N, C * kernel, out): one BLAS matmul per example, out in (N, C_out, out)
    # order; per group, (G, C_out / G, C / G * kernel) @ (N, G, C / G * kernel, out).
    cols = cols.reshape((n, groups, -1, int(np.prod(out_shape))))
    out = fnp.matmul(weight.reshape((groups, c_out // groups, -1)), cols).reshape((n, c_out) + out_shape)
    if bias is not None:
        out = out + bias.reshape((c_out,) + (1,) * k)
    return out[0] if unbatched else out


def conv1d(input: TensorOrArray, weight: Tensor | Array, bias: Tensor | Array | None = None,
           stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] | str = 0,
           dilation: int | tuple[int, ...] = 1, groups: int = 1) -> TensorOrArray:
    """1-D cross-correlation over (N, C_in, L) (or unbatched (C_in, L)) input, as torch's."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input: TensorOrArray, weight: Tensor | Array, bias: Tensor | Array | None = None,
           stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] | str = 0,
           dilation: int | tuple[int, ...] = 1, groups: int = 1) -> TensorOrArray:
    """2-D cross-correlation over (N, C_in, H, W) (or unbatched (C_in, H, W)) input, as torch's:
    weight (C_out, C_in / groups, kH, kW), padding an int, a pair, 'valid' or 'same'."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, k, name):
    real_only(name, input, weight, bias)
    _same_dtype(input, weight, bias)
    x, unbatched = _batched(input, k, name)
    stride, dilation = _tuple(stride, k, "stride"), _tuple(dilation, k, "dilation")
    padding, output_padding = _tuple(padding, k, "padding"), _tuple(output_padding, k, "output_padding")
    c_in, c_group = weight.shape[0], weight.shape[1]
    kernel = tuple(weight.shape[2:])
    if x.shape[1] != c_in or c_in % groups:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {c_in} channels, but got {x.shape[1]} channels instead")
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got output_padding "
                           f"{output_padding}, stride {stride}, dilation {dilation}")
    n, spatial = x.shape[0], tuple(x.shape[2:])
    # per group, (C_out / G * kernel, C_in / G) @ (N, G, C_in / G, in): the windows of the output
    xg = x.reshape((n, groups, c_in // groups, -1))
    w = fnp.swapaxes(weight.reshape((groups, c_in // groups, -1)), -1, -2)
    cols = fnp.matmul(w, xg).reshape((n, groups * c_group) + kernel + spatial)  # (N, C_out, *kernel, *in)
    full = tuple((m - 1) * s + d * (kk - 1) + 1 for m, s, d, kk in zip(spatial, stride, dilation, kernel))
    out = unwindows(cols, spatial=full, stride=stride, dilation=dilation)
    if any(output_padding):
        out = fnp.pad(out, ((0, 0), (0, 0)) + tuple((0, op) for op in output_padding))
    sizes = [f + op - 2 * p for f, op, p in zip(full, output_padding, padding)]
    if any(s <= 0 for s in sizes):
        raise RuntimeError(f"Given input size per channel: {list(spatial)}. Calculated output size per channel: "
                           f"{sizes}. Output size is too small")
    out = out[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, sizes))]
    if bias is not None:
        out = out + bias.reshape((groups * c_group,) + (1,) * k)
    return out[0] if unbatched else out


def conv_transpose2d(input: TensorOrArray, weight: Tensor | Array, bias: Tensor | Array | None = None,
                     stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] = 0,
                     output_padding: int | tuple[int, ...] = 0, groups: int = 1,
                     dilation: int | tuple[int, ...] = 1) -> TensorOrArray:
    """The transpose of conv2d (its input gradient) as a layer, torch's: weight (C_in, C_out / groups, kH, kW)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                             "conv_transpose2d")


class _ConvNd(Module):
    """What the convolution Modules share: checked arguments, torch's parameters and initialization."""

    k = None
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] | str = 0,
                 dilation: int | tuple[int, ...] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", output_padding: int | tuple[int, ...] = 0,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        k = self.k
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got padding_mode="
                             f"'{padding_mode}'")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = _tuple(kernel_size, k, "kernel_size")
        self.stride, self.dilation = _tuple(stride, k, "stride"), _tuple(dilation, k, "dilation")
        if isinstance(padding, str):
            _pads(padding, self.kernel_size, self.stride, self.dilation, k)  # ('same' with a stride is refused here)
            self.padding = padding
        else:
            self.padding = _tuple(padding, k, "padding")
        self.output_padding = _tuple(output_padding, k, "output_padding")
        self.padding_mode = padding_mode
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        fan_in = shape[1] * int(np.prod(self.kernel_size))  # torch's fan-in: dimension 1 times the kernel
        self.weight = kaiming_uniform(shape, fan_in, device, dtype)
        self.register_parameter("bias", kaiming_uniform((out_channels,), fan_in, device, dtype) if bias else None)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self.k:
            s += f", padding={self.padding!r}"
        if self.dilation != (1,) * self.k:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.k:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] | str = 0,
                 dilation: int | tuple[int, ...] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input: Tensor) -> Tensor:
        return _convnd(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups, self.k,
                       f"conv{self.k}d", self.padding_mode)


class Conv1d(_Conv):
    """torch.nn.Conv1d: conv1d with its own weight (C_out, C_in / groups, k) and bias.

    Examples
    --------
    >>> m = fgrad.nn.Conv1d(2, 4, kernel_size=3, padding=1)
    >>> m(fgrad.ones(5, 2, 10)).shape  # (batch, channels, length)
    (5, 4, 10)
    """

    k = 1


class Conv2d(_Conv):
    """torch.nn.Conv2d: conv2d with its own weight (C_out, C_in / groups, kH, kW) and bias.

    Examples
    --------
    >>> m = fgrad.nn.Conv2d(1, 1, kernel_size=2, bias=False)
    >>> _ = fgrad.nn.init.ones_(m.weight)
    >>> y = m(fgrad.ones(1, 1, 3, 3)); y.sum().backward()
    >>> y.shape, m.weight.grad  # each weight sees 4 inputs of 1
    ((1, 1, 2, 2), tensor([[[[4., 4.], [4., 4.]]]]))
    """

    k = 2


class ConvTranspose2d(_ConvNd):
    """torch.nn.ConvTranspose2d: conv_transpose2d with its own weight (C_in, C_out / groups, kH, kW).

    Examples
    --------
    >>> m = fgrad.nn.ConvTranspose2d(1, 2, kernel_size=2, stride=2)
    >>> m(fgrad.ones(1, 1, 3, 3)).shape  # the spatial size doubled
    (1, 2, 6, 6)
    """

    k = 2
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] = 0,
                 output_padding: int | tuple[int, ...] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | tuple[int, ...] = 1, padding_mode: str = "zeros", device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         output_padding, device, dtype)

    def _output_padding(self, input, output_size):
        """torch's: the output_padding that makes the output `output_size` (its last two entries)."""
        if output_size is None:
            return self.output_padding
        want = tuple(output_size)[-self.k:]
        spatial = tuple(input.shape[-self.k:])
        pads = []
        for m, w, s, p, d, kk in zip(spatial, want, self.stride, self.padding, self.dilation, self.kernel_size):
            smallest = (m - 1) * s - 2 * p + d * (kk - 1) + 1
            if not smallest <= w < smallest + s:
                raise ValueError(f"requested an output size of {list(want)}, but valid sizes range from {smallest} "
                                 f"to {smallest + s - 1} (for an input of {list(spatial)})")
            pads.append(w - smallest)
        return tuple(pads)

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                self._output_padding(input, output_size), self.groups, self.dilation)
