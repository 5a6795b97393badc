"""Tensor constructors: fgrad.tensor, zeros, ones, randn, rand, arange, ..., and the random
draws randperm, normal, bernoulli, multinomial (in get_default_dtype(), float64 unless set)."""
import numpy as np

from ..backend import Device
from ..backend import device as to_device
from ..typing import ArrayLike, DTypeLike, Sequence
from .dtypes import get_default_dtype, inferred
from .generator import Generator, default_generator
from .promotion import fitted
from .tensor import Tensor

__all__ = [
    "arange",
    "as_tensor",
    "bernoulli",
    "empty",
    "eye",
    "from_numpy",
    "full",
    "full_like",
    "get_default_device",
    "linspace",
    "manual_seed",
    "multinomial",
    "normal",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "randperm",
    "set_default_device",
    "tensor",
    "zeros",
    "zeros_like",
]

_rng = [default_generator.numpy]  # reseeded in place by manual_seed, so the list never changes


def manual_seed(seed: int) -> Generator:
    """Seed fgrad.default_generator (behind randn, rand, randint, nn's initializers, shuffles).

    Examples
    --------
    >>> _ = fgrad.manual_seed(0); a = fgrad.rand(2)
    >>> _ = fgrad.manual_seed(0); bool(fgrad.equal(a, fgrad.rand(2)))  # the same seed, the same numbers
    True
    """
    return default_generator.manual_seed(seed)


_default_device = [None]  # set_default_device's, or None: the CPU


def set_default_device(device: str | Device | None) -> None:
    """The device the tensor factories (tensor, zeros, randn, ...) use when given no device=, as
    torch.set_default_device; None: the CPU. (nn layers make their parameters on the CPU unless
    given device=: move a model with .to.)

    Examples
    --------
    >>> fgrad.set_default_device("cpu")
    >>> fgrad.zeros(1).device
    device(type='cpu')
    """
    _default_device[0] = None if device is None else to_device(device)


def get_default_device() -> Device:
    """The device the tensor factories use when given no device= (set_default_device).

    Examples
    --------
    >>> fgrad.get_default_device()
    device(type='cpu')
    """
    return _default_device[0] or to_device("cpu")


def _make(array, requires_grad, device):
    device = _default_device[0] if device is None else device
    if device is not None:
        array = to_device(device).send(array)
    t = Tensor._wrap(array, None, 0)
    return t.requires_grad_(True) if requires_grad else t


def _shape(size):
    return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else tuple(size)


def tensor(data: ArrayLike, requires_grad: bool = False, dtype: DTypeLike | None = None,
           device: str | Device | None = None) -> Tensor:
    """A new tensor holding a copy of `data` (lists, scalars, arrays).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """
    return Tensor(data, requires_grad=requires_grad, dtype=dtype, device=device or _default_device[0])


def as_tensor(data: ArrayLike, dtype: DTypeLike | None = None, device: str | Device | None = None) -> Tensor:
    """`data` as a tensor, without a copy where NumPy can avoid one (an ndarray of the dtype asked for
    shares memory); a Tensor of the same dtype and device comes back as it is. Never requires grad.

    Examples
    --------
    >>> fgrad.as_tensor([1, 2], dtype=fgrad.float32)
    tensor([1., 2.], dtype=fgrad.float32)
    """
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    return _make(np.asarray(data, dtype=dtype), False, device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with the NumPy array.

    Examples
    --------
    >>> fgrad.from_numpy(np.arange(3))
    tensor([0, 1, 2])
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected np.ndarray (got {type(array).__name__})")
    return Tensor._wrap(array, None, 0)


def zeros(*size: int | Sequence[int], dtype: DTypeLike | None = None, requires_grad: bool = False,
          device: str | Device | None = None) -> Tensor:
    """A tensor of zeros of shape `size` (ints or one sequence), of `dtype` (default
    fgrad.get_default_dtype()), on `device` (default set_default_device's), a leaf with `requires_grad`.

    Examples
    --------
    >>> fgrad.zeros(2, 3).shape, fgrad.zeros((2,), dtype=fgrad.int64)
    ((2, 3), tensor([0, 0]))
    """
    return _make(np.zeros(_shape(size), dtype or get_default_dtype()), requires_grad, device)


def ones(*size: int | Sequence[int], dtype: DTypeLike | None = None, requires_grad: bool = False,
         device: str | Device | None = None) -> Tensor:
    """A tensor of ones of shape `size` (ints or one sequence), of `dtype` (default
    fgrad.get_default_dtype()), on `device` (default set_default_device's), a leaf with `requires_grad`.

    Examples
    --------
    >>> fgrad.ones(2, requires_grad=True)
    tensor([1., 1.], requires_grad=True)
    """
    return _make(np.ones(_shape(size), dtype or get_default_dtype()), requires_grad, device)


def full(size: Sequence[int], fill_value: ArrayLike, dtype: DTypeLike | None = None, requires_grad: bool = False,
         device: str | Device | None = None) -> Tensor:
    """A tensor of shape `size` filled with `fill_value`; the dtype is `dtype`, else inferred from the
    value as torch does (a float: the default dtype, an int: int64, a bool: bool). A leaf with
    `requires_grad`, on `device`.

    Examples
    --------
    >>> fgrad.full((2,), 7.0)
    tensor([7., 7.])
    """
    array = np.full(tuple(size), fitted(fill_value, dtype), dtype)
    return _make(inferred(array) if dtype is None and not hasattr(fill_value, "dtype") else array, requires_grad,
                 device)


def empty(*size: int | Sequence[int], dtype: DTypeLike | None = None, requires_grad: bool = False,
          device: str | Device | None = None) -> Tensor:
    """An uninitialized tensor of shape `size` (ints or one sequence), of `dtype` (default
    fgrad.get_default_dtype()), on `device`: its entries are whatever memory held (numpy.empty).

    Examples
    --------
    >>> fgrad.empty(2, 3).shape
    (2, 3)
    """
    return _make(np.empty(_shape(size), dtype or get_default_dtype()), requires_grad, device)


def eye(n: int, m: int | None = None, dtype: DTypeLike | None = None, requires_grad: bool = False,
        device: str | Device | None = None) -> Tensor:
    """The n x m identity matrix (m defaults to n), of `dtype` (default fgrad.get_default_dtype()), on
    `device`, a leaf with `requires_grad`.

    Examples
    --------
    >>> fgrad.eye(2, 3)
    tensor([[1., 0., 0.], [0., 1., 0.]])
    """
    return _make(np.eye(n, m, dtype=dtype or get_default_dtype()), requires_grad, device)


def arange(start: float, end: float | None = None, step: float = 1, dtype: DTypeLike | None = None,
           requires_grad: bool = False, device: str | Device | None = None) -> Tensor:
    """The values start, start + step, ... below `end` (arange(end): from 0), as torch.arange; the dtype
    is `dtype`, else int64 for integer arguments and the default dtype for floats.

    Examples
    --------
    >>> fgrad.arange(3), fgrad.arange(1.0, 2.0, 0.5)
    (tensor([0, 1, 2]), tensor([1. , 1.5]))
    """
    array = np.arange(start, end, step, dtype=dtype) if end is not None else np.arange(start, dtype=dtype)
    return _make(inferred(array) if dtype is None else array, requires_grad, device)


def linspace(start: float, end: float, steps: int, dtype: DTypeLike | None = None, requires_grad: bool = False,
             device: str | Device | None = None) -> Tensor:
    """`steps` evenly spaced values from `start` to `end`, both included (torch.linspace), of `dtype`
    (default fgrad.get_default_dtype()), on `device`.

    Examples
    --------
    >>> fgrad.linspace(0.0, 1.0, 5)
    tensor([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    return _make(np.linspace(start, end, steps, dtype=dtype or get_default_dtype()), requires_grad, device)


def randn(*size: int | Sequence[int], generator: Generator | None = None, dtype: DTypeLike | None = None,
          requires_grad: bool = False, device: str | Device | None = None) -> Tensor:
    """Draws of N(0, 1) of shape `size`, from `generator` (default: fgrad.default_generator).

    Examples
    --------
    >>> g = fgrad.Generator().manual_seed(0)
    >>> fgrad.randn(2, 3, generator=g).shape
    (2, 3)
    """
    draws = _stream(generator).standard_normal(_shape(size))
    return _make(draws.astype(dtype or get_default_dtype()), requires_grad, device)


def rand(*size: int | Sequence[int], generator: Generator | None = None, dtype: DTypeLike | None = None,
         requires_grad: bool = False, device: str | Device | None = None) -> Tensor:
    """Draws of U[0, 1) of shape `size`, from `generator` (default: fgrad.default_generator).

    Examples
    --------
    >>> x = fgrad.rand(1000)
    >>> bool((x >= 0).all() and (x < 1).all())
    True
    """
    return _make(_stream(generator).random(_shape(size)).astype(dtype or get_default_dtype()), requires_grad, device)


def randint(low: int = 0, high: int | None = None, size: Sequence[int] | None = None, *,
            generator: Generator | None = None, dtype: DTypeLike = np.int64, device: str | Device | None = None,
            requires_grad: bool = False) -> Tensor:
    """Integers drawn uniformly from [low, high), of shape `size`: randint(low, high, size), or
    torch's two-argument form randint(high, size).

    Examples
    --------
    >>> x = fgrad.randint(0, 3, (100,))
    >>> sorted(set(x.tolist()))
    [0, 1, 2]
    """
    if size is None:
        if high is None or isinstance(high, (int, np.integer)):
            raise TypeError("randint: the size (a tuple of ints) is missing: randint(high, size) or "
                            "randint(low, high, size)")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if high <= low:
        raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
    return _make(_stream(generator).integers(low, high, size=tuple(size)).astype(dtype), requires_grad, device)


def zeros_like(t: Tensor, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros of t's shape and dtype (or `dtype`), on the CPU, a leaf with `requires_grad`.

    Examples
    --------
    >>> fgrad.zeros_like(fgrad.ones(2, 2))
    tensor([[0., 0.], [0., 0.]])
    """
    return _make(np.zeros(tuple(t.shape), dtype or t.dtype), requires_grad, None)


def ones_like(t: Tensor, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones of t's shape and dtype (or `dtype`), on the CPU, a leaf with `requires_grad`.

    Examples
    --------
    >>> fgrad.ones_like(fgrad.zeros(2, dtype=fgrad.int64))
    tensor([1, 1])
    """
    return _make(np.ones(tuple(t.shape), dtype or t.dtype), requires_grad, None)


def full_like(t: Tensor, fill_value: ArrayLike, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    """A tensor of t's shape and dtype (or `dtype`) filled with `fill_value`, on the CPU, a leaf with
    `requires_grad`.

    Examples
    --------
    >>> fgrad.full_like(fgrad.zeros(2), 3.5)
    tensor([3.5, 3.5])
    """
    return _make(np.full(tuple(t.shape), fitted(fill_value, dtype or t.dtype), dtype or t.dtype), requires_grad, None)


# ---- random draws (values only: no derivative flows through a draw, as in torch) --------------
def _stream(generator):
    return _rng[0] if generator is None else generator.numpy


def _values(x):
    return x.detach().numpy() if isinstance(x, Tensor) else np.asarray(x)


def randperm(n: int, *, generator: Generator | None = None, dtype: DTypeLike = np.int64, requires_grad: bool = False,
             device: str | Device | None = None) -> Tensor:
    """A random permutation of 0 .. n - 1 (int64 unless `dtype`), from `generator` (default
    fgrad.default_generator), on `device`.

    Examples
    --------
    >>> sorted(fgrad.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    return _make(_stream(generator).permutation(n).astype(dtype), requires_grad, device)


def rand_like(t: Tensor, *, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    """Draws of U[0, 1) of t's shape and dtype (or `dtype`), from fgrad.default_generator.

    Examples
    --------
    >>> fgrad.rand_like(fgrad.zeros(2, 3)).shape
    (2, 3)
    """
    return _make(_rng[0].random(tuple(t.shape)).astype(dtype or t.dtype), requires_grad, None)


def randn_like(t: Tensor, *, dtype: DTypeLike | None = None, requires_grad: bool = False) -> Tensor:
    """Draws of N(0, 1) of t's shape and dtype (or `dtype`), from fgrad.default_generator.

    Examples
    --------
    >>> fgrad.randn_like(fgrad.zeros(2, 3)).shape
    (2, 3)
    """
    return _make(_rng[0].standard_normal(tuple(t.shape)).astype(dtype or t.dtype), requires_grad, None)


def normal(mean: float | Tensor, std: float | Tensor = 1.0, size: Sequence[int] | None = None, *,
           generator: Generator | None = None) -> Tensor:
    """Draws of N(mean, std^2): elementwise for tensor mean or std (broadcast), or `size` draws
    of one mean and std.

    Examples
    --------
    >>> x = fgrad.normal(5.0, 0.1, size=(1000,))
    >>> bool(abs(x.mean().item() - 5.0) < 0.05)
    True
    """
    mean_v, std_v = _values(mean), _values(std)
    if np.any(std_v < 0):
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std_v.min()}")
    shape = tuple(size) if size is not None else np.broadcast_shapes(mean_v.shape, std_v.shape)
    dtype = next((x.dtype for x in (mean, std) if isinstance(x, Tensor)), get_default_dtype())
    return Tensor(_stream(generator).normal(mean_v, std_v, shape).astype(dtype))


def bernoulli(input: Tensor, p: float | None = None, *, generator: Generator | None = None) -> Tensor:
    """1 with probability input (or p) at each entry, else 0, in input's dtype.

    Examples
    --------
    >>> fgrad.bernoulli(fgrad.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    probs = _values(input) if p is None else np.full(tuple(input.shape), p)
    if np.any((probs < 0) | (probs > 1)):
        raise RuntimeError("bernoulli: all elements of input should be between 0 and 1")
    return Tensor((_stream(generator).random(probs.shape) < probs).astype(input.dtype))


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """Indices drawn from the rows of input (non-negative weights, normalized per row).

    Examples
    --------
    >>> fgrad.multinomial(fgrad.tensor([0.0, 1.0, 0.0]), 1)
    tensor([1])
    """
    weights = _values(input).astype(np.float64)
    rows = weights.reshape(-1, weights.shape[-1])
    if np.any(rows < 0) or np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("multinomial: invalid probability distribution (weights must be non-negative and "
                           "not all zero)")
    if not replacement and num_samples > np.count_nonzero(rows, axis=1).min():
        raise RuntimeError("multinomial: invalid multinomial distribution (with replacement=False, not enough "
                           "non-negative category to sample)")
    rng = _stream(generator)
    draws = [rng.choice(rows.shape[1], num_samples, replace=replacement, p=r / r.sum()) for r in rows]
    return Tensor(np.asarray(draws, dtype=np.int64).reshape(weights.shape[:-1] + (num_samples,)))
