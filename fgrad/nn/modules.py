"""fgrad.nn's layers: Linear (and its function linear), Identity, Flatten, Unflatten (Module and
Parameter: module.py; Sequential and the other containers: containers.py; the activations:
activation.py; the losses: loss.py)."""
import math
from typing import TypeVar

import numpy as np

from .. import numpy as fnp
from ..autograd.dtypes import get_default_dtype
from ..autograd.factories import _rng
from ..autograd.tensor import Tensor, flattened_shape, unflattened_shape
from ..backend import Device
from ..backend import device as to_device
from ..typing import Any, DTypeLike, Sequence
from .module import Module, Parameter

__all__ = ["Flatten", "Identity", "Linear", "Unflatten", "linear"]

_T = TypeVar("_T")  # (Identity gives what it gets)



_TORCH_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble", "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool"}


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias, as torch.nn.functional.linear. As torch's, input and weight must
    have one dtype: a float64 batch into a float32 layer raises instead of promoting silently.

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 2.0]])
    >>> W = fgrad.tensor([[1.0, 1.0], [0.0, 2.0]], requires_grad=True)
    >>> y = fgrad.nn.functional.linear(x, W, fgrad.tensor([0.5, 0.0])); y.sum().backward()
    >>> y, W.grad  # x @ W.T + b; dW = g.T @ x
    (tensor([[3.5, 4. ]], grad_fn=<...>), tensor([[1., 2.], [1., 2.]]))
    """
    if fnp.result_type(input) != weight.dtype:
        a, b = (str(np.dtype(d)) for d in (fnp.result_type(input), weight.dtype))
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_TORCH_NAMES.get(a, a)} and "
                           f"{_TORCH_NAMES.get(b, b)}")
    out = fnp.matmul(input, fnp.swapaxes(weight, -1, -2))
    return out if bias is None else out + bias


def _factory(array, device, dtype):
    """A new parameter's values in the constructor's dtype= and on its device= (torch's factory kwargs)."""
    array = array.astype(dtype or get_default_dtype())
    return array if device is None else to_device(device).send(array)


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features), PyTorch's initialization.

    Examples
    --------
    >>> m = fgrad.nn.Linear(3, 2)
    >>> m.weight.shape, m(fgrad.ones(4, 3)).shape
    ((2, 3), (4, 2))
    >>> m(fgrad.ones(4, 3)).sum().backward(); m.bias.grad  # one per row of the batch
    tensor([4., 4.])
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        self.weight = Parameter(_factory(_rng[0].uniform(-bound, bound, (out_features, in_features)), device, dtype))
        self.register_parameter("bias", Parameter(_factory(_rng[0].uniform(-bound, bound, (out_features,)), device,
                                                           dtype)) if bias else None)

    def forward(self, x: Tensor) -> Tensor:
        return linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    """Its input unchanged (constructor arguments are accepted and ignored, as torch's).

    Examples
    --------
    >>> x = fgrad.ones(2)
    >>> fgrad.nn.Identity()(x) is x
    True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: _T) -> _T:
        return input


class Flatten(Module):
    """Axes start_dim..end_dim flattened into one (by default all but the batch axis).

    Examples
    --------
    >>> fgrad.nn.Flatten()(fgrad.zeros(2, 3, 4)).shape  # all but the batch axis
    (2, 12)
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # (fnp.reshape: under fgrad.func.functional_call an array)
        return fnp.reshape(input, flattened_shape(input.shape, self.start_dim, self.end_dim))

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Axis `dim` split into the axes `unflattened_size`.

    Examples
    --------
    >>> fgrad.nn.Unflatten(1, (3, 4))(fgrad.zeros(2, 12)).shape
    (2, 3, 4)
    """

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        return input.reshape(unflattened_shape(tuple(input.shape), self.dim, self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
