"""Tensor constructors: fgrad.tensor, zeros, ones, randn, rand, arange, ... (float64 by default)."""
import numpy as np

from ..backend import Device
from ..backend import device as to_device
from ..typing import ArrayLike, DTypeLike, Sequence
from .generator import Generator, default_generator
from .tensor import Tensor

__all__ = [
    "arange",
    "as_tensor",
    "empty",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "linspace",
    "manual_seed",
    "ones",
    "ones_like",
    "rand",
    "randint",
    "randn",
    "tensor",
    "zeros",
    "zeros_like",
]

_rng = [default_generator.numpy]  # reseeded in place by manual_seed, so the list never changes


def manual_seed(seed: int) -> Generator:
    """Seed fgrad.default_generator (behind randn, rand, randint, nn's initializers, shuffles)."""
    return default_generator.manual_seed(seed)


def _make(array, requires_grad, device):
    if device is not None:
        array = to_device(device).send(array)
    t = Tensor._wrap(array, None, 0)
    return t.requires_grad_(True) if requires_grad else t


def _shape(size):
    return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)


def tensor(data: ArrayLike, requires_grad: bool = False, dtype: DTypeLike | None = None,
           device: str | Device | None = None) -> Tensor:
    """A new tensor holding a copy of `data` (lists, scalars, arrays)."""
    return Tensor(data, requires_grad=requires_grad, dtype=dtype, device=device)


def as_tensor(data: ArrayLike, dtype: DTypeLike | None = None, device: str | Device | None = None) -> Tensor:
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    return _make(np.asarray(data, dtype=dtype), False, device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with the NumPy array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected np.ndarray (got {type(array).__name__})")
    return Tensor._wrap(array, None, 0)


def zeros(*size: int | Sequence[int], dtype: DTypeLike = np.float64, requires_grad: bool = False,
          device: str | Device | None = None) -> Tensor:
    return _make(np.zeros(_shape(size), dtype), requires_grad, device)


def ones(*size: int | Sequence[int], dtype: DTypeLike = np.float64, requires_grad: bool = False,
         device: str | Device | None = None) -> Tensor:
    return _make(np.ones(_shape(size), dtype), requires_grad, device)


def full(size: Sequence[int], fill_value: ArrayLike, dtype: DTypeLike = np.float64, requires_grad: bool = False,
         device: str | Device | None = None) -> Tensor:
    return _make(np.full(tuple(size), fill_value, dtype), requires_grad, device)


def empty(*size: int | Sequence[int], dtype: DTypeLike = np.float64, requires_grad: bool = False,
          device: str | Device | None = None) -> Tensor:
    return _make(np.empty(_shape(size), dtype), requires_grad, device)


def eye(n: int, m: int | None = None, dtype: DTypeLike = np.float64, requires_grad: bool = False,
        device: str | Device | None = None) -> Tensor:
    return _make(np.eye(n, m, dtype=dtype), requires_grad, device)


def arange(start: float, end: float | None = None, step: float = 1, dtype: DTypeLike | None = None,
           requires_grad: bool = False, device: str | Device | None = None) -> Tensor:
    array = np.arange(start, end, step, dtype=dtype) if end is not None else np.arange(start, dtype=dtype)
    return _make(array, requires_grad, device)


def linspace(start: float, end: float, steps: int, dtype: DTypeLike = np.float64, requires_grad: bool = False,
             device: str | Device | None = None) -> Tensor:
    return _make(np.linspace(start, end, steps, dtype=dtype), requires_grad, device)


def randn(*size: int | Sequence[int], dtype: DTypeLike = np.float64, requires_grad: bool = False,
          device: str | Device | None = None) -> Tensor:
    return _make(_rng[0].standard_normal(_shape(size)).astype(dtype), requires_grad, device)


def rand(*size: int | Sequence[int], dtype: DTypeLike = np.float64, requires_grad: bool = False,
         device: str | Device | None = None) -> Tensor:
    return _make(_rng[0].random(_shape(size)).astype(dtype), requires_grad, device)


def randint(low: int, high: int | None = None, size: Sequence[int] = (), dtype: DTypeLike = np.int64,
            device: str | Device | None = None) -> Tensor:
    if high is None:
        low, high = 0, low
    return _make(_rng[0].integers(low, high, size=tuple(size)).astype(dtype), False, device)


def zeros_like(t: Tensor, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    return _make(np.zeros(tuple(t.shape), dtype or t.dtype), requires_grad, None)


def ones_like(t: Tensor, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    return _make(np.ones(tuple(t.shape), dtype or t.dtype), requires_grad, None)


def full_like(t: Tensor, fill_value: ArrayLike, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    return _make(np.full(tuple(t.shape), fill_value, dtype or t.dtype), requires_grad, None)
