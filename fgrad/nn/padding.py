"""Padding, torch 2.13's: F.pad (modes constant, reflect, replicate, circular; the pad tuple
names the last axis first, (left, right, top, bottom, ...)) and the Modules ZeroPad1d/2d/3d,
ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d, CircularPad1d/2d/3d.

Constant padding is fgrad.numpy.pad's primitive (its gradient crops); the other modes gather
each padded axis by an index array (reflected, clipped or wrapped), so their gradients add up
the copies, as torch's. Negative padding crops, as torch's.
"""
import numpy as np

from .. import numpy as fnp
from ..autograd.tensor import Tensor, TensorOrArray
from ..typing import Sequence
from .module import Module
from .parameters import on_device_of, scalar_of_kind

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "pad",
]

_MODES = ("constant", "reflect", "replicate", "circular")
_AXIS_LETTERS = "WHD"


def _pads(pad, ndim):
    pad = tuple(pad)
    for i, p in enumerate(pad):
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                            f"{type(p).__name__} at pos {i}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {ndim}")
    # ((axis, left, right), ...), the last axis first
    return [(ndim - 1 - k, int(pad[2 * k]), int(pad[2 * k + 1])) for k in range(len(pad) // 2)]


def _check_non_constant(mode, shape, pads):
    ndim, k = len(shape), len(pads)
    if k not in (1, 2, 3) or ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {2 * k} is not supported for {ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        for axis, left, right in pads:
            if left > shape[axis] or right > shape[axis]:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if shape[axis] + left + right < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return
    if 0 in (shape[1:] if ndim == k + 2 else shape):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(shape)}")
    for j, (axis, left, right) in enumerate(pads):
        n = shape[axis]
        if mode == "reflect" and not (left < n and right < n):
            raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({left}, {right}) at dimension {axis} of input "
                               f"{list(shape)}")
        if n + left + right < 1:
            raise RuntimeError(f"input ({_AXIS_LETTERS[j]}: {n}) is too small. Calculated output "
                               f"{_AXIS_LETTERS[j]}: {n + left + right}")


def _source_index(mode, n, left, right):
    """For each output position along an axis of n, the input position it copies."""
    i = np.arange(-left, n + right)  # (circular's widths are nonnegative here)
    if mode == "reflect":
        i = np.abs(i)
        return np.where(i > n - 1, 2 * (n - 1) - i, i)
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    return i % n  # circular


def pad(input: TensorOrArray, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> TensorOrArray:
    """input padded by `pad` = (left, right) of the last axis, then of the one before, ...:
    `value` (default 0) in mode 'constant' (any input; negative widths crop), or the input's own
    entries in 'reflect' (mirrored, the edge not repeated), 'replicate' (the edge repeated) or
    'circular' (wrapped around), which pad the last 1, 2 or 3 axes of a batched or unbatched
    input as torch's. Differentiable: the gradient sums each entry's copies.

    Examples
    --------
    >>> x = fgrad.tensor([[[1.0, 2.0, 3.0]]], requires_grad=True)
    >>> F = fgrad.nn.functional
    >>> F.pad(x, (1, 2)), F.pad(x, (2, 1), mode="reflect"), F.pad(x, (1, 1), mode="circular")
    (tensor([[[0., 1., 2., 3., 0., 0.]]], grad_fn=<...>), tensor([[[3., 2., 1., 2., 3., 2.]]], grad_fn=<...>),
     tensor([[[3., 1., 2., 3., 1.]]], grad_fn=<...>))
    >>> F.pad(x, (2, 0), mode="replicate").sum().backward(); x.grad  # the edge copied twice more
    tensor([[[3., 1., 1.]]])
    """
    shape = tuple(input.shape)
    pads = _pads(pad, len(shape))
    if mode == "constant":
        return _constant(input, shape, pads, 0 if value is None else value)
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    _check_non_constant(mode, shape, pads)
    if mode == "circular":  # torch's crops the negative widths first, then wraps what is left
        input = _crop(input, shape, pads)
        shape = tuple(input.shape)
        pads = [(axis, max(left, 0), max(right, 0)) for axis, left, right in pads]
    for axis, left, right in pads:
        if left or right:
            index = on_device_of(input, _source_index(mode, shape[axis], left, right))
            input = fnp.take(input, index, axis=axis)
    return input


def _crop(input, shape, pads):
    """input without the entries that negative widths take off."""
    crop = [slice(None)] * len(shape)
    for axis, left, right in pads:
        crop[axis] = slice(max(-left, 0), shape[axis] - max(-right, 0))
    return input[tuple(crop)] if any(c != slice(None) for c in crop) else input


def _constant(input, shape, pads, value):
    widths = [(0, 0)] * len(shape)
    for axis, left, right in pads:
        n = shape[axis]
        if n + left + right < 0 or -left > n or -right > n:
            raise RuntimeError("narrow(): length must be non-negative.")
        widths[axis] = (max(left, 0), max(right, 0))
    input = _crop(input, shape, pads)
    # (torch's value is a float: -1 overflows uint8 here, where threshold's integer -1 wraps around)
    value = scalar_of_kind(value if isinstance(value, complex) else float(value), fnp.result_type(input))
    return fnp.pad(input, widths, mode="constant", constant_values=value)


# ---- the Modules -------------------------------------------------------------------------------
def _widths(padding, n):
    """An int as the same width on all 2n sides; a sequence as it is (torch's _pair/_quadruple)."""
    return (int(padding),) * (2 * n) if isinstance(padding, (int, np.integer)) else tuple(padding)


class _ConstantPadNd(Module):
    _n = 1

    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__()
        self.padding, self.value = _widths(padding, self._n), value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last axis with `value`: F.pad(input, padding, 'constant', value), as torch.nn.ConstantPad1d
    (padding: an int for both sides, or (left, right)).

    Examples
    --------
    >>> fgrad.nn.ConstantPad1d((1, 2), 3.5)(fgrad.tensor([[1.0, 2.0]]))
    tensor([[3.5, 1. , 2. , 3.5, 3.5]])
    """


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two axes with `value` (padding: an int for all four sides, or (left, right, top,
    bottom)), as torch.nn.ConstantPad2d.

    Examples
    --------
    >>> fgrad.nn.ConstantPad2d(1, -1.0)(fgrad.ones(1, 1, 2)).shape
    (1, 3, 4)
    """
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three axes with `value` (padding: an int for all six sides, or (left, right,
    top, bottom, front, back)), as torch.nn.ConstantPad3d.

    Examples
    --------
    >>> fgrad.nn.ConstantPad3d(1, 2.0)(fgrad.ones(1, 1, 2, 2)).shape
    (1, 3, 4, 4)
    """
    _n = 3


class ZeroPad1d(ConstantPad1d):
    """ConstantPad1d with value 0, as torch.nn.ZeroPad1d.

    Examples
    --------
    >>> fgrad.nn.ZeroPad1d(1)(fgrad.tensor([1.0, 2.0]))
    tensor([0., 1., 2., 0.])
    """

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """ConstantPad2d with value 0, as torch.nn.ZeroPad2d.

    Examples
    --------
    >>> fgrad.nn.ZeroPad2d((1, 0, 0, 1))(fgrad.ones(1, 2, 2))
    tensor([[[0., 1., 1.], [0., 1., 1.], [0., 0., 0.]]])
    """

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """ConstantPad3d with value 0, as torch.nn.ZeroPad3d.

    Examples
    --------
    >>> fgrad.nn.ZeroPad3d((1, 0, 0, 0, 0, 1))(fgrad.ones(1, 1, 1, 1))
    tensor([[[[0., 1.]], [[0., 0.]]]])
    """

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _CopyPadNd(Module):
    _n, _mode = 1, "reflect"

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        self.padding = _widths(padding, self._n)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_CopyPadNd):
    """Pads the last axis of a (C, W) or (N, C, W) input with its reflection (the edge not repeated):
    F.pad(input, padding, 'reflect'), as torch.nn.ReflectionPad1d.

    Examples
    --------
    >>> fgrad.nn.ReflectionPad1d(2)(fgrad.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """


class ReflectionPad2d(_CopyPadNd):
    """Pads the last two axes of a (C, H, W) or (N, C, H, W) input with their reflection, as
    torch.nn.ReflectionPad2d (padding: an int, or (left, right, top, bottom)).

    Examples
    --------
    >>> fgrad.nn.ReflectionPad2d((1, 1, 0, 0))(fgrad.tensor([[[1.0, 2.0]]]))
    tensor([[[2., 1., 2., 1.]]])
    """
    _n = 2


class ReflectionPad3d(_CopyPadNd):
    """Pads the last three axes of a (C, D, H, W) or (N, C, D, H, W) input with their reflection,
    as torch.nn.ReflectionPad3d.

    Examples
    --------
    >>> fgrad.nn.ReflectionPad3d((1, 0, 0, 0, 0, 0))(fgrad.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[2., 1., 2.]]]])
    """
    _n = 3


class ReplicationPad1d(_CopyPadNd):
    """Pads the last axis of a (C, W) or (N, C, W) input with copies of its edge, as
    torch.nn.ReplicationPad1d.

    Examples
    --------
    >>> fgrad.nn.ReplicationPad1d((2, 1))(fgrad.tensor([[1.0, 2.0]]))
    tensor([[1., 1., 1., 2., 2.]])
    """
    _mode = "replicate"


class ReplicationPad2d(_CopyPadNd):
    """Pads the last two axes of a (C, H, W) or (N, C, H, W) input with copies of their edges, as
    torch.nn.ReplicationPad2d.

    Examples
    --------
    >>> fgrad.nn.ReplicationPad2d(1)(fgrad.tensor([[[1.0, 2.0]]]))
    tensor([[[1., 1., 2., 2.], [1., 1., 2., 2.], [1., 1., 2., 2.]]])
    """
    _n, _mode = 2, "replicate"


class ReplicationPad3d(_CopyPadNd):
    """Pads the last three axes of a (C, D, H, W) or (N, C, D, H, W) input with copies of their
    edges, as torch.nn.ReplicationPad3d.

    Examples
    --------
    >>> fgrad.nn.ReplicationPad3d((0, 1, 0, 0, 0, 0))(fgrad.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[1., 2., 2.]]]])
    """
    _n, _mode = 3, "replicate"


class _CircularPadNd(_CopyPadNd):
    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.ndim}D input)")
        return pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last axis of a (C, W) or (N, C, W) input by wrapping it around, as
    torch.nn.CircularPad1d.

    Examples
    --------
    >>> fgrad.nn.CircularPad1d((1, 2))(fgrad.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 1., 2., 3., 1., 2.]])
    """


class CircularPad2d(_CircularPadNd):
    """Pads the last two axes of a (C, H, W) or (N, C, H, W) input by wrapping them around, as
    torch.nn.CircularPad2d.

    Examples
    --------
    >>> fgrad.nn.CircularPad2d((0, 0, 1, 0))(fgrad.tensor([[[1.0], [2.0]]]))
    tensor([[[2.], [1.], [2.]]])
    """
    _n = 2



class CircularPad3d(_CircularPadNd):
    """Pads the last three axes of a (C, D, H, W) or (N, C, D, H, W) input by wrapping them around,
    as torch.nn.CircularPad3d.

    Examples
    --------
    >>> fgrad.nn.CircularPad3d((1, 0, 0, 0, 0, 0))(fgrad.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[2., 1., 2.]]]])
    """
    _n = 3
