"""Dropout: F.dropout, F.dropout2d and their Modules (Dropout, Dropout2d), torch 2.13's rules.

In training each entry (Dropout) or each channel (Dropout2d) is zeroed with probability p and
the rest scaled by 1 / (1 - p), so the expectation is unchanged; in eval mode the input passes
unchanged. The masks come from fgrad's default generator (fgrad.manual_seed repeats them;
torch's generator differs, so the masks are not torch's).
"""
import warnings

from .. import numpy as fnp
from ..autograd.factories import _rng
from ..autograd.tensor import Tensor, TensorOrArray
from .module import Module
from .parameters import on_device_of

__all__ = ["Dropout", "Dropout2d", "dropout", "dropout2d"]


def _check(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _masked(input, mask_shape, p):
    """input times a keep-mask of mask_shape (broadcast over the rest), scaled by 1 / (1 - p)."""
    if p == 1.0:
        return input * 0.0  # (torch's: every entry dropped, no division by zero)
    keep = (_rng[0].random(mask_shape) >= p).astype(fnp.result_type(input))
    return input * on_device_of(input, keep / (1.0 - p))


def dropout(input: TensorOrArray, p: float = 0.5, training: bool = True, inplace: bool = False) -> TensorOrArray:
    """Zero each entry with probability p in training (the rest scaled by 1 / (1 - p)); identity else."""
    _check(p)
    if not training or p == 0.0:
        return input
    out = _masked(input, tuple(input.shape), p)
    return input.copy_(out) if inplace else out


def dropout2d(input: TensorOrArray, p: float = 0.5, training: bool = True, inplace: bool = False) -> TensorOrArray:
    """Zero whole channels (axis 1 of (N, C, H, W); axis 0 of an unbatched (C, H, W)) with probability p."""
    _check(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result "
                      f"in an error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      f"spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      f"inputs).", stacklevel=2)
    if not training or p == 0.0:
        return input
    if input.ndim == 3:
        shape = (input.shape[0], 1, 1)
    else:
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    out = _masked(input, shape, p)
    return input.copy_(out) if inplace else out


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        _check(p)
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """torch.nn.Dropout: dropout in training mode, the identity in eval mode.

    Examples
    --------
    >>> m = fgrad.nn.Dropout(0.5)
    >>> y = m(fgrad.ones(1000))
    >>> sorted(set(y.tolist())), m.eval()(fgrad.ones(2))  # kept entries scaled by 1 / (1 - p); off in eval
    ([0.0, 2.0], tensor([1., 1.]))
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """torch.nn.Dropout2d: dropout2d (whole channels) in training mode, the identity in eval mode.

    Examples
    --------
    >>> y = fgrad.nn.Dropout2d(0.5)(fgrad.ones(1, 100, 2, 2))
    >>> v = y.numpy().reshape(100, 4)
    >>> bool(((v == 0).all(1) | (v == 2).all(1)).all())  # whole channels zeroed (the rest scaled by 2)
    True
    """

    def forward(self, input: Tensor) -> Tensor:
        return dropout2d(input, self.p, self.training, self.inplace)
