"""Normalizations: F.batch_norm, layer_norm, group_norm, rms_norm and their Modules
(BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm, RMSNorm), torch 2.13's.

Each is a composite of fgrad ops (means, a reciprocal square root, products), so it
differentiates to any order. BatchNorm's running statistics are buffers updated in place
without recording, with the unbiased variance (n / (n - 1) times the batch's), as torch's.
"""
import numpy as np

from .. import numpy as fnp
from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor, TensorOrArray
from ..backend import Device
from ..typing import Array, DTypeLike, Sequence
from .module import Module
from .parameters import filled, real_only

__all__ = ["BatchNorm1d", "BatchNorm2d", "GroupNorm", "LayerNorm", "RMSNorm", "batch_norm", "group_norm",
           "layer_norm", "rms_norm"]


def _moments(x, axes):
    """The mean and the biased variance of x over `axes` (kept, for broadcasting)."""
    mean = fnp.mean(x, axis=axes, keepdims=True)
    centered = x - mean
    return mean, fnp.mean(centered * centered, axis=axes, keepdims=True), centered


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _update(running, stat, momentum):
    """running <- (1 - momentum) running + momentum stat, in place, not recorded."""
    with no_grad():
        running.mul_(1.0 - momentum).add_(stat.detach().reshape(tuple(running.shape)) * momentum)


def batch_norm(input: TensorOrArray, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | Array | None = None, bias: Tensor | Array | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> TensorOrArray:
    """Normalize each channel (axis 1) of input by the batch's statistics (training) or the running
    ones (else); in training, running_mean and running_var (when given) move toward the batch's
    mean and unbiased variance by `momentum`."""
    real_only("batch_norm", input, weight, bias)
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected an input of at least 2 dimensions (N, C, ...), got shape "
                         f"{tuple(input.shape)}")
    axes = (0,) + tuple(range(2, input.ndim))
    shape = _channel_shape(input)
    if training:
        n = int(np.prod([input.shape[a] for a in axes]))
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        mean, var, centered = _moments(input, axes)
        out = centered / fnp.sqrt(var + eps)
        if running_mean is not None:
            _update(running_mean, mean, momentum)
        if running_var is not None:
            _update(running_var, var * (n / (n - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: running_mean and running_var must be given when training is False")
        out = (input - running_mean.reshape(shape)) / fnp.sqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _normalized(normalized_shape):
    return (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)


def _check_trailing(input, shape, name):
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, "
                           f"{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")


def layer_norm(input: TensorOrArray, normalized_shape: int | Sequence[int], weight: Tensor | Array | None = None,
               bias: Tensor | Array | None = None, eps: float = 1e-5) -> TensorOrArray:
    """Normalize over the trailing `normalized_shape` axes (the biased variance), then scale and shift."""
    real_only("layer_norm", input, weight, bias)
    shape = _normalized(normalized_shape)
    _check_trailing(input, shape, "layer_norm")
    _, var, centered = _moments(input, tuple(range(input.ndim - len(shape), input.ndim)))
    out = centered / fnp.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def group_norm(input: TensorOrArray, num_groups: int, weight: Tensor | Array | None = None,
               bias: Tensor | Array | None = None, eps: float = 1e-5) -> TensorOrArray:
    """Normalize each group of num_groups channel groups (over its channels and positions)."""
    real_only("group_norm", input, weight, bias)
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    grouped = input.reshape((n, num_groups, -1))
    _, var, centered = _moments(grouped, (2,))
    out = (centered / fnp.sqrt(var + eps)).reshape(tuple(input.shape))
    shape = _channel_shape(input)
    if weight is not None:
        out = out * weight.reshape(shape)
    return out if bias is None else out + bias.reshape(shape)


def rms_norm(input: TensorOrArray, normalized_shape: int | Sequence[int], weight: Tensor | Array | None = None,
             eps: float | None = None) -> TensorOrArray:
    """x / sqrt(mean(x^2) + eps) over the trailing normalized_shape axes, times weight; eps None is
    the machine epsilon of input's dtype, as torch's."""
    real_only("rms_norm", input, weight)
    shape = _normalized(normalized_shape)
    _check_trailing(input, shape, "rms_norm")
    if eps is None:
        eps = float(np.finfo(fnp.result_type(input)).eps)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    out = input / fnp.sqrt(fnp.mean(input * input, axis=axes, keepdims=True) + eps)
    return out if weight is None else out * weight


class _BatchNorm(Module):
    """torch's _BatchNorm: affine weight and bias, running statistics as buffers."""

    dims = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = filled((num_features,), 1.0, device, dtype)
            self.bias = filled((num_features,), 0.0, device, dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _buffer(filled((num_features,), 0.0, device, dtype)))
            self.register_buffer("running_var", _buffer(filled((num_features,), 1.0, device, dtype)))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1.0)
                self.num_batches_tracked.zero_()

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self.dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self.dims)} input (got {input.ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                          self.weight, self.bias, use_batch, momentum, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


def _buffer(parameter):
    """A buffer's values: a plain Tensor, not a Parameter."""
    return Tensor(parameter.detach().numpy().copy())


class BatchNorm1d(_BatchNorm):
    """torch.nn.BatchNorm1d over (N, C) or (N, C, L) input.

    Examples
    --------
    >>> m = fgrad.nn.BatchNorm1d(2)
    >>> y = m(fgrad.tensor([[1.0, 10.0], [3.0, 30.0]]))  # each feature normalized over the batch
    >>> bool(fgrad.allclose(y, fgrad.tensor([[-1.0, -1.0], [1.0, 1.0]]), atol=1e-4)), m.running_mean
    (True, tensor([0.2, 2. ]))
    """

    dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """torch.nn.BatchNorm2d over (N, C, H, W) input.

    Examples
    --------
    >>> m = fgrad.nn.BatchNorm2d(3)
    >>> y = m(fgrad.randn(4, 3, 5, 5))
    >>> y.shape, bool(abs(y.mean().item()) < 1e-6)
    ((4, 3, 5, 5), True)
    """

    dims = (4,)


class LayerNorm(Module):
    """torch.nn.LayerNorm: layer_norm over the trailing normalized_shape axes, with weight and bias.

    Examples
    --------
    >>> y = fgrad.nn.LayerNorm(2)(fgrad.tensor([[1.0, 3.0]]))  # over the last axis
    >>> bool(fgrad.allclose(y, fgrad.tensor([[-1.0, 1.0]]), atol=1e-4))
    True
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__()
        self.normalized_shape, self.eps = _normalized(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        weight = filled(self.normalized_shape, 1.0, device, dtype) if elementwise_affine else None
        self.register_parameter("weight", weight)
        self.register_parameter("bias", filled(self.normalized_shape, 0.0, device, dtype)
                                if elementwise_affine and bias else None)

    def forward(self, input: Tensor) -> Tensor:
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """torch.nn.GroupNorm: group_norm with a per-channel weight and bias.

    Examples
    --------
    >>> m = fgrad.nn.GroupNorm(2, 4)
    >>> y = m(fgrad.arange(8.0).reshape(1, 4, 2))  # two groups of two channels
    >>> bool(fgrad.allclose(y.reshape(2, 4).mean(1), fgrad.zeros(2), atol=1e-6))
    True
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.register_parameter("weight", filled((num_channels,), 1.0, device, dtype) if affine else None)
        self.register_parameter("bias", filled((num_channels,), 0.0, device, dtype) if affine else None)

    def forward(self, input: Tensor) -> Tensor:
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class RMSNorm(Module):
    """torch.nn.RMSNorm: rms_norm over the trailing normalized_shape axes, with a weight.

    Examples
    --------
    >>> y = fgrad.nn.RMSNorm(2)(fgrad.tensor([[3.0, 4.0]]))  # x / sqrt(mean(x ** 2))
    >>> bool(fgrad.allclose(y, fgrad.tensor([[3.0, 4.0]]) / 12.5 ** 0.5, atol=1e-4))
    True
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None, elementwise_affine: bool = True,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        self.normalized_shape, self.eps = _normalized(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        self.register_parameter("weight", filled(self.normalized_shape, 1.0, device, dtype)
                                if elementwise_affine else None)

    def forward(self, input: Tensor) -> Tensor:
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
