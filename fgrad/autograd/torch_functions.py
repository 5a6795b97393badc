"""torch's functions on Tensors, by torch's names and signatures (fgrad.cat, fgrad.gather, ...).

Each is written once, on fgrad.numpy's functions (the same primitives: no second
implementation), and the Tensor methods of the same names are these functions
(`t.gather(1, i)` is `gather(t, 1, i)`), bound in `METHODS` below. What Tensor already
defines as a method (sum, mean, max, reshape, ...) is taken from there as the function.
"""
import builtins  # (sum, max, min, abs, all, any and pow are torch's here)
import collections
import math
import operator
from typing import overload

import numpy as np

from .. import numpy as fnp
from ..numpy import _softmax
from ..numpy import linalg as fla
from ..ops import elementwise as ew
from ..ops import special as ops_special
from ..typing import Any, Array, ArrayLike, Callable, Sequence
from .dims import shape_index, wrap_dim, wrap_dims
from .dtypes import get_default_dtype
from .dtypes import name as _dtype_name
from .factories import _rng  # (the stream behind fgrad.default_generator)
from .grad_mode import no_grad
from .promotion import (
    accumulator,
    astype,
    binary,
    bitwise,
    can_cast,
    clamped,
    fitted,
    invert,
    joined,
    no_bool_subtraction,
    power,
    promote_types,
    promoted,
    result_type,
)
from .tensor import Tensor, unflattened_shape

__all__ = [
    "abs", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr", "allclose", "amax",
    "amin", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argsort", "asin", "asinh",
    "atan", "atan2", "atanh", "baddbmm", "bincount", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
    "bmm", "can_cast", "cat", "ceil", "chunk", "clamp", "clamp_max", "clamp_min", "clip", "concat", "concatenate",
    "conj", "copysign", "cos", "cosh", "cross", "cumprod", "cumsum", "deg2rad", "det", "diag", "diff", "digamma",
    "dist", "div", "divide", "dot", "e", "einsum", "empty_like", "eq", "equal", "erf", "erfc", "erfinv", "exp",
    "exp2", "expm1", "finfo", "fix", "flip", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod",
    "frac", "gather", "gcd", "ge", "gradient", "greater", "greater_equal", "gt", "heaviside", "hypot", "iinfo",
    "imag", "index_select", "inf", "inner", "inverse", "is_tensor", "isclose", "isfinite", "isinf", "isnan",
    "isneginf", "isposinf", "isreal", "kron", "lcm", "ldexp", "le", "lerp", "less", "less_equal", "lgamma", "log",
    "log1p", "log2", "log10", "logaddexp", "logaddexp2", "logdet", "logical_and", "logical_not", "logical_or",
    "logical_xor", "logspace", "logsumexp", "lt", "masked_fill", "masked_select", "matmul", "matrix_power",
    "maximum", "minimum", "mm", "movedim", "mul", "multiply", "mv", "nan", "narrow", "ne", "neg", "negative",
    "nextafter", "not_equal", "numel", "outer", "pi", "pinverse", "positive", "pow", "promote_types", "rad2deg",
    "real", "reciprocal", "relu", "remainder", "renorm", "repeat_interleave", "result_type", "roll", "round",
    "rsqrt", "rsub", "scatter", "scatter_add", "select", "sgn", "sigmoid", "sign", "signbit", "sin", "sinc",
    "sinh", "slogdet", "sort", "split", "sqrt", "square", "stack", "sub", "subtract", "tan", "tanh", "tensordot",
    "tile", "topk", "trace", "tril", "triu", "true_divide", "trunc", "unbind", "unflatten", "vdot", "where",
    "xlogy",
]

pi, e, inf, nan = math.pi, math.e, math.inf, math.nan

_sort_result = collections.namedtuple("sort", ["values", "indices"])
_topk_result = collections.namedtuple("topk", ["values", "indices"])


def _tensor(x):
    """x as a Tensor (fgrad.numpy gives a plain array where no argument was a Tensor)."""
    return x if isinstance(x, Tensor) else Tensor(x)


# ---- joining, splitting and moving axes -------------------------------------------------------
def cat(tensors: Sequence[Tensor | ArrayLike], dim: int = 0) -> Tensor:
    """Tensors joined along their existing axis `dim` (torch.cat, also concat and concatenate); the
    other axes must match. Differentiable in each.

    Examples
    --------
    >>> a = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = fgrad.cat([a, fgrad.tensor([3.0])]); (y * y).sum().backward()
    >>> y, a.grad
    (tensor([1., 2., 3.], grad_fn=<...>), tensor([2., 4.]))
    """
    tensors = list(tensors)
    if tensors:  # (an empty list is fgrad.numpy's error)
        dim = wrap_dim(dim, np.ndim(tensors[0]), "cat")
    return _tensor(fnp.concatenate(joined(tensors), axis=dim))


concat = concatenate = cat


def stack(tensors: Sequence[Tensor | ArrayLike], dim: int = 0) -> Tensor:
    """Tensors of one shape joined along a new axis `dim` (torch.stack). Differentiable in each; raises
    ValueError when the shapes differ.

    Examples
    --------
    >>> fgrad.stack([fgrad.tensor([1.0, 2.0]), fgrad.tensor([3.0, 4.0])], dim=1)
    tensor([[1., 3.], [2., 4.]])
    """
    tensors = list(tensors)
    if tensors:
        dim = wrap_dim(dim, np.ndim(tensors[0]) + 1, "stack")
    return _tensor(fnp.stack(joined(tensors), axis=dim))


def movedim(input: Tensor | ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    """The tensor with its axes `source` moved to positions `destination` (ints or sequences), the
    others in their order (torch.movedim). Differentiable; returns a Tensor.

    Examples
    --------
    >>> fgrad.movedim(fgrad.zeros(2, 3, 4), 0, -1).shape
    (3, 4, 2)
    """
    n = np.ndim(input)
    source, destination = wrap_dims(source, n, "movedim"), wrap_dims(destination, n, "movedim")
    return _tensor(fnp.moveaxis(input, source, destination) if n else input)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """input[..., start:start + length, ...] along `dim` (a view in torch, a slice here).

    Examples
    --------
    >>> fgrad.narrow(fgrad.arange(5.0), 0, 1, 3)
    tensor([1., 2., 3.])
    """
    if input.ndim == 0:  # (torch's error, before the dim's; a 0-D tensor's dim 0 is no axis to slice)
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, input.ndim, "narrow")
    start = start + input.shape[dim] if start < 0 else start
    if not 0 <= start <= start + length <= input.shape[dim]:
        raise IndexError(f"start ({start}) + length ({length}) exceeds dimension size ({input.shape[dim]}).")
    return input[(slice(None),) * dim + (slice(start, start + length),)]


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """input[..., index, ...] along `dim`, that axis removed (torch.select). Differentiable.

    Examples
    --------
    >>> fgrad.select(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, -1)
    tensor([2., 4.])
    """
    dim = shape_index(dim, input.ndim, "select")  # (a 0-D tensor has nothing to select from)
    if not -input.shape[dim] <= index < input.shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {dim}")
    return input[(slice(None),) * dim + (index,)]


def unflatten(input: Tensor | ArrayLike, dim: int, sizes: Sequence[int]) -> Tensor:
    """The tensor with axis `dim` split into axes of `sizes` (one may be -1), as torch.unflatten.
    Differentiable.

    Examples
    --------
    >>> fgrad.unflatten(fgrad.zeros(2, 6), -1, (3, -1)).shape
    (2, 3, 2)
    """
    return _tensor(fnp.reshape(input, unflattened_shape(np.shape(input), dim, sizes)))


def split(tensor: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces along `dim`: of size split_size_or_sections (the last smaller), or of the given sizes.

    Examples
    --------
    >>> fgrad.split(fgrad.arange(5.0), 2)
    (tensor([0., 1.]), tensor([2., 3.]), tensor([4.]))
    """
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, tensor.ndim, "split")
    n = tensor.shape[dim]
    if isinstance(split_size_or_sections, int):
        sizes = [split_size_or_sections] * (n // split_size_or_sections) + \
            ([n % split_size_or_sections] if n % split_size_or_sections else [])
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {dim}), but got split_sizes={sizes}")
    starts = np.cumsum([0] + sizes[:-1])
    return tuple(narrow(tensor, dim, int(s), k) for s, k in zip(starts, sizes))


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most `chunks` pieces along `dim`, each of ceil(size / chunks) (the last smaller).

    Examples
    --------
    >>> fgrad.chunk(fgrad.arange(5.0), 2)
    (tensor([0., 1., 2.]), tensor([3., 4.]))
    """
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = wrap_dim(dim, input.ndim, "chunk")
    n = input.shape[dim]
    return split(input, builtins.max(1, -(-n // chunks)), dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along `dim`, that axis removed.

    Examples
    --------
    >>> fgrad.unbind(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), dim=1)
    (tensor([1., 3.]), tensor([2., 4.]))
    """
    dim = shape_index(dim, input.ndim, "unbind")  # (a 0-D tensor has no slices: IndexError, as torch's)
    return tuple(input[(slice(None),) * dim + (i,)] for i in range(input.shape[dim]))


def flip(input: Tensor | ArrayLike, dims: int | Sequence[int]) -> Tensor:
    """The tensor with the order of its entries reversed along each axis of `dims` (an int or a
    sequence), as torch.flip. Differentiable; returns a Tensor.

    Examples
    --------
    >>> fgrad.flip(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), [1])
    tensor([[2., 1.], [4., 3.]])
    """
    return _tensor(fnp.flip(input, axis=wrap_dims(dims, np.ndim(input), "flip")))


def roll(input: Tensor | ArrayLike, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
    """The tensor with its entries shifted by `shifts` along `dims`, wrapping around (torch.roll);
    `dims=None` rolls the flattened tensor and restores its shape. Differentiable.

    Examples
    --------
    >>> fgrad.roll(fgrad.tensor([1.0, 2.0, 3.0]), 1)
    tensor([3., 1., 2.])
    """
    if dims is not None and not np.ndim(input):
        shape_index(dims, 0, "roll")  # (raises: a 0-D tensor has no dim to roll along, as torch says)
    return _tensor(fnp.roll(input, shifts, axis=wrap_dims(dims, np.ndim(input), "roll")))


def tile(input: Tensor | ArrayLike, dims: Sequence[int]) -> Tensor:
    """The tensor repeated `dims[i]` times along axis i (torch.tile; a shorter `dims` is padded with
    ones on the left). Differentiable; returns a Tensor.

    Examples
    --------
    >>> fgrad.tile(fgrad.tensor([1.0, 2.0]), (2,))
    tensor([1., 2., 1., 2.])
    """
    return _tensor(fnp.tile(input, tuple(dims)))


def repeat_interleave(input: Tensor | ArrayLike, repeats: int | Tensor | ArrayLike, dim: int | None = None) -> Tensor:
    """Each entry repeated `repeats` times (an int, or one count per entry along `dim`) along `dim`;
    `dim=None` flattens first (torch.repeat_interleave). Differentiable in `input`.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = fgrad.repeat_interleave(x, 2); y.sum().backward()
    >>> y, x.grad  # each entry's gradient sums over its copies
    (tensor([1., 1., 2., 2.], grad_fn=<...>), tensor([2., 2.]))
    """
    repeats = repeats.numpy() if isinstance(repeats, Tensor) else repeats
    return _tensor(fnp.repeat(input, repeats, axis=wrap_dims(dim, np.ndim(input), "repeat_interleave")))


# ---- indexing --------------------------------------------------------------------------------
def _index(index):
    return index.numpy() if isinstance(index, Tensor) else np.asarray(index)


def _in_range(index, size, dim, name):
    """index, checked as torch checks it: integers in [0, size) (NumPy would wrap a negative one);
    out of it, torch's RuntimeError, or for index_select along dim 0 torch's IndexError."""
    if index.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index, got {_dtype_name(index.dtype)}")
    bad = (index < 0) | (index >= size)
    if bad.any():
        if name == "index_select" and dim == 0:
            raise IndexError(f"index out of range in self (index_select(): index {index[bad].flat[0]} is out of "
                             f"bounds for dimension {dim} with size {size})")
        raise RuntimeError(f"{name}(): index {index[bad].flat[0]} is out of bounds for dimension {dim} with size "
                           f"{size}")
    return index


def _coordinates(index, dim):
    """Every position of `index` as an index tuple whose `dim` entry is index's value there."""
    grid = np.indices(index.shape, sparse=True)
    return tuple(index if d == dim else g for d, g in enumerate(grid))


def gather(input: Tensor | Array, dim: int, index: Tensor | ArrayLike) -> Tensor:
    """`out[i][j] = input[index[i][j]][j]` (dim 0), ...: index may be smaller than input off `dim`.

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> y = fgrad.gather(x, 1, fgrad.tensor([[0, 0], [1, 0]])); y.sum().backward()
    >>> y, x.grad
    (tensor([[1., 1.], [4., 3.]], grad_fn=<...>), tensor([[2., 0.], [1., 1.]]))
    """
    dim = wrap_dim(dim, input.ndim, "gather")
    if input.ndim == 0:  # (torch's: a 0-D input as one of shape (1,), the result of index's shape)
        index = _index(index)
        if index.ndim > 1:
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        flat = _in_range(index.reshape(-1), 1, 0, "gather")
        return _tensor(fnp.reshape(fnp.take(fnp.reshape(input, (1,)), flat, axis=0), index.shape))
    index = _in_range(_index(index), input.shape[dim], dim, "gather")
    if index.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return _tensor(input[_coordinates(index, dim)])


def _scattered(input, dim, index, src, how):
    name = "scatter" if how == "set" else "scatter_add"
    dim = wrap_dim(dim, input.ndim, name)
    if hasattr(src, "dtype") and np.dtype(src.dtype) != np.dtype(input.dtype):  # (torch's; a Python number is cast)
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype ({name}: self is "
                           f"{_dtype_name(input.dtype)}, src {_dtype_name(src.dtype)})")
    if input.ndim == 0:  # (torch's: a 0-D input as one of shape (1,))
        flat = _in_range(_index(index).reshape(-1), 1, 0, name)
        values = src if not hasattr(src, "shape") or src.ndim == 0 else fnp.reshape(src, (-1,))[:flat.size]
        return _tensor(fnp.reshape(getattr(fnp.at(fnp.reshape(input, (1,)))[flat], how)(values), ()))
    index = _in_range(_index(index), input.shape[dim], dim, name)
    coords = _coordinates(index, dim)
    values = src if not hasattr(src, "shape") or src.ndim == 0 else \
        src[tuple(slice(0, k) for k in index.shape)]
    return _tensor(getattr(fnp.at(input)[coords], how)(values))


def scatter(input: Tensor | Array, dim: int, index: Tensor | ArrayLike, src: Tensor | ArrayLike | None = None,
            value: float | None = None, reduce: str | None = None) -> Tensor:
    """A copy of input with `input[..., index[i][j], ...] = src[i][j]` (positions of index).

    Examples
    --------
    >>> fgrad.scatter(fgrad.zeros(3), 0, fgrad.tensor([0, 2]), fgrad.tensor([5.0, 6.0]))
    tensor([5., 0., 6.])
    """
    if reduce is not None:
        if reduce != "add":
            raise NotImplementedError(f"scatter: reduce={reduce!r} is not supported (use scatter_add)")
        return scatter_add(input, dim, index, src)
    return _scattered(input, dim, index, value if src is None else src, "set")


def scatter_add(input: Tensor | Array, dim: int, index: Tensor | ArrayLike, src: Tensor | ArrayLike) -> Tensor:
    """A copy of input with `src[i][j]` added at `input[..., index[i][j], ...]` (repeats add up).

    Examples
    --------
    >>> fgrad.scatter_add(fgrad.zeros(3), 0, fgrad.tensor([0, 0, 2]), fgrad.tensor([1.0, 2.0, 3.0]))
    tensor([3., 0., 3.])
    """
    return _scattered(input, dim, index, src, "add")


def index_select(input: Tensor | Array, dim: int, index: Tensor | ArrayLike) -> Tensor:
    """The entries of `input` at the integer positions `index` (1-D) along `dim` (torch.index_select).

    Differentiable in `input` (the gradient is scattered back, repeats adding up). Raises
    RuntimeError for a non-integer index or one out of [0, size).

    Examples
    --------
    >>> fgrad.index_select(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, fgrad.tensor([1, 1]))
    tensor([[3., 4.], [3., 4.]])
    """
    dim = wrap_dim(dim, input.ndim, "index_select")
    if input.ndim == 0:  # (torch's: one index, 0, and a 0-D result)
        index = _index(index)
        if index.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.size} value(s)")
        flat = _in_range(index.reshape(-1), 1, 0, "index_select")
        return _tensor(fnp.reshape(fnp.take(fnp.reshape(input, (1,)), flat, axis=0), ()))
    return _tensor(fnp.take(input, _in_range(_index(index), input.shape[dim], dim, "index_select"), axis=dim))


def masked_fill(input: Tensor | ArrayLike, mask: Tensor | ArrayLike, value: Tensor | ArrayLike) -> Tensor:
    """input with value where mask is True (value cast to input's dtype).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, -2.0, 3.0])
    >>> fgrad.masked_fill(x, x < 0, 0.0)
    tensor([1., 0., 3.])
    """
    value = value if isinstance(value, Tensor) else np.asarray(fitted(value, input.dtype), dtype=input.dtype)
    return _tensor(fnp.where(mask, value, input))


def masked_select(input: Tensor | ArrayLike, mask: Tensor | Array) -> Tensor:
    """The entries of input where the (broadcast) mask is True, as a 1-D tensor.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, -2.0, 3.0])
    >>> fgrad.masked_select(x, x > 0)
    tensor([1., 3.])
    """
    mask = np.broadcast_to(_index(mask), np.broadcast_shapes(tuple(input.shape), np.shape(_index(mask))))
    return _tensor(fnp.broadcast_to(input, mask.shape)[mask])


@overload
def where(condition: Tensor | ArrayLike, input: None = None, other: None = None) -> tuple[Tensor, ...]: ...
@overload
def where(condition: Tensor | ArrayLike, input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor: ...
def where(condition: Tensor | ArrayLike, input: Tensor | ArrayLike | None = None,
          other: Tensor | ArrayLike | None = None) -> Tensor | tuple[Tensor, ...]:
    """input where condition, else other; where(condition) is condition.nonzero(as_tuple=True).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    >>> y = fgrad.where(x > 0, x, 2 * x); y.sum().backward()
    >>> y, x.grad
    (tensor([ 1., -4.,  3.], grad_fn=<...>), tensor([1., 2., 1.]))
    """
    if input is None and other is None:
        return tuple(Tensor(i) for i in np.nonzero(_index(condition)))
    return _tensor(fnp.where(condition, *promoted(input, other)))


# ---- ordering --------------------------------------------------------------------------------
def sort(input: Tensor | ArrayLike, dim: int = -1, descending: bool = False, stable: bool = False) -> _sort_result:
    """(values, indices) sorted along dim; ties keep their order (torch's stable=True), and NaN
    counts as the largest value, as torch's (last ascending, first descending).

    Examples
    --------
    >>> values, indices = fgrad.sort(fgrad.tensor([3.0, 1.0, 2.0]))
    >>> values, indices
    (tensor([1., 2., 3.]), tensor([1, 2, 0]))
    """
    values, dim = _values(input), wrap_dim(dim, np.ndim(input), "sort")
    if values.dtype.kind == "c":  # (no order: NumPy's is lexicographic; torch's sort, argsort, topk raise)
        raise RuntimeError("Sort does not support complex dtypes on CPU (as torch's)")
    if not values.ndim:  # (a 0-D tensor is sorted; its one index is 0)
        return _sort_result(_tensor(input), Tensor(np.zeros((), np.int64)))
    if descending:  # (the stable ascending order of the reversed values, reversed: ties keep their order,
        # NaN comes first, and no value is negated, which wrapped unsigned and the least signed ints)
        order = np.flip(np.argsort(np.flip(values, axis=dim), axis=dim, kind="stable"), axis=dim)
        indices = values.shape[dim] - 1 - order
    else:
        indices = np.argsort(values, axis=dim, kind="stable")
    return _sort_result(_tensor(fnp.take_along_axis(input, indices, axis=dim)), Tensor(indices))


def argsort(input: Tensor | ArrayLike, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort `input` along `dim` (ascending, or `descending`): `sort(...).indices`.
    Ties keep their order and NaN sorts as the largest value. Returns an integer Tensor (no gradient).

    Examples
    --------
    >>> fgrad.argsort(fgrad.tensor([3.0, 1.0, 2.0]), descending=True)
    tensor([0, 2, 1])
    """
    return sort(input, wrap_dim(dim, np.ndim(input), "argsort"), descending, stable).indices


def topk(input: Tensor | ArrayLike, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> _topk_result:
    """(values, indices) of the k largest (smallest) entries along dim, largest first.

    Examples
    --------
    >>> x = fgrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    >>> values, indices = fgrad.topk(x, 2); values.sum().backward()
    >>> values, indices, x.grad
    (tensor([3., 2.], grad_fn=<...>), tensor([0, 2]), tensor([1., 0., 1.]))
    """
    dim = wrap_dim(dim, np.ndim(input), "topk")
    values, indices = sort(input, dim, descending=largest)
    if np.ndim(input) == 0:  # (torch's: k of 0 or 1 gives the one entry)
        if k not in (0, 1):
            raise RuntimeError("selected index k out of range")
        return _topk_result(values, indices)
    return _topk_result(narrow(values, dim, 0, k), narrow(indices, dim, 0, k))


# ---- math ------------------------------------------------------------------------------------
def _floating(input):
    """input, an integer or bool one cast to get_default_dtype() (torch's rule for the functions that
    compute in floating point: exp(int64) is float32 there when that is the default, and
    reciprocal(int64) is 1/x, not NumPy's integer reciprocal)."""
    dtype = getattr(input, "dtype", None)
    return astype(input, get_default_dtype()) if dtype is not None and dtype.kind in "biu" else input


def _unary(fn: Callable[..., Any], name: str | None = None, floating: bool = True, bool_as_int: bool = False,
           at: str = "0.25, 0.5") -> Callable[[Tensor | ArrayLike], Tensor]:
    """torch.<name> on fn; `floating`: it computes in floating point (integer input: _floating);
    `bool_as_int`: a bool tensor counts in int64 (torch's square; NumPy's is int8, which wraps);
    `at`: the example's points, in fn's domain."""
    name = name or fn.__name__

    def op(input: Tensor | ArrayLike) -> Tensor:
        if floating:
            input = _floating(input)
        elif bool_as_int and getattr(input, "dtype", None) == np.bool_:
            input = astype(input, np.int64)
        return _tensor(fn(input))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise {name} of `input`, as torch.{name}: fgrad.numpy's {fn.__name__}, returned as a "
                  f"Tensor; Tensor.backward differentiates it wherever fgrad.numpy's {fn.__name__} is differentiable "
                  f"(sign, floor, ceil and trunc have gradient zero, as torch's; isnan, isinf and isfinite none)."
                  + _unary_example(fn, name, at))
    return op


def _unary_example(fn, name, at):
    """The example of a generated elementwise function: it against NumPy's (SciPy's) of the same
    name, and its gradient against finite differences where it has one."""
    reference = f"{'np' if hasattr(np, fn.__name__) else 'scipy.special'}.{fn.__name__}"
    example = ("\n\nExamples\n--------\n"
               + (">>> import scipy.special\n" if reference.startswith("scipy") else "")
               + f">>> x = fgrad.tensor([{at}], requires_grad=True)\n"
               f">>> bool(np.allclose(fgrad.{name}(x).detach().numpy(), {reference}([{at}])))\n"
               f"True\n")
    if name not in ("isnan", "isinf", "isfinite", "sign", "floor", "ceil", "trunc"):
        example += f">>> fgrad.gradcheck(fgrad.{name}, (x,))  # the gradient against finite differences\nTrue\n"
    return example


(exp, log, sqrt, sin, cos, tan, tanh, sinh, cosh, expm1, log1p, log2, log10, exp2, sinc, deg2rad,
 rad2deg, reciprocal) = (_unary(f) for f in (
    fnp.exp, fnp.log, fnp.sqrt, fnp.sin, fnp.cos, fnp.tan, fnp.tanh, fnp.sinh, fnp.cosh, fnp.expm1, fnp.log1p,
    fnp.log2, fnp.log10, fnp.exp2, fnp.sinc, fnp.deg2rad, fnp.rad2deg, fnp.reciprocal))
asin, acos, atan, asinh, atanh = (_unary(f, n) for f, n in (
    (fnp.arcsin, "asin"), (fnp.arccos, "acos"), (fnp.arctan, "atan"), (fnp.arcsinh, "asinh"),
    (fnp.arctanh, "atanh")))
acosh = _unary(fnp.arccosh, "acosh", at="1.25, 1.5")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh  # (torch's aliases)
floor, ceil, trunc, sign, isnan, isinf, isfinite = (_unary(f, floating=False) for f in (
    fnp.floor, fnp.ceil, fnp.trunc, fnp.sign, fnp.isnan, fnp.isinf, fnp.isfinite))
square = _unary(fnp.square, floating=False, bool_as_int=True)
abs = _unary(fnp.abs, "abs", floating=False)
neg = negative = _unary(fnp.negative, "neg", floating=False)
fix = trunc  # (torch.fix is torch.trunc)
erf, erfc, erfinv, digamma = (_unary(f) for f in (ops_special.erf, ops_special.erfc, ops_special.erfinv,
                                                   ops_special.digamma))
lgamma = _unary(ops_special.gammaln, "lgamma")
sigmoid = _unary(ops_special.expit, "sigmoid")


def rsqrt(input: Tensor | ArrayLike) -> Tensor:
    """1 / sqrt(input), elementwise (torch.rsqrt; an integer tensor computes in get_default_dtype()).
    Differentiable.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 4.0], requires_grad=True)
    >>> fgrad.rsqrt(x).sum().backward(); x.grad  # -x ** -1.5 / 2
    tensor([-0.5   , -0.0625])
    """
    return _tensor(fnp.reciprocal(fnp.sqrt(_floating(input))))


def round(input: Tensor | ArrayLike, decimals: int = 0) -> Tensor:
    """input rounded to `decimals` places, halves to even (torch.round; fgrad.special.round is this
    function). Its gradient is zero, as torch's: a step, recorded (RoundBackward0).

    Examples
    --------
    >>> fgrad.round(fgrad.tensor([1.25, 2.5, 3.5]))  # halves to even
    tensor([1., 2., 4.])
    >>> x = fgrad.tensor([1.25, 2.5], requires_grad=True)
    >>> y = fgrad.round(x, decimals=1); y.sum().backward()
    >>> y, x.grad
    (tensor([1.2, 2.5], grad_fn=<RoundBackward0>), tensor([0., 0.]))
    """
    return _tensor(fnp.round(input, decimals))


def frac(input: Tensor | ArrayLike) -> Tensor:
    """The fractional part input - trunc(input), elementwise, of input's sign (torch.frac).
    Differentiable: the gradient is 1.

    Examples
    --------
    >>> x = fgrad.tensor([1.5, -2.25], requires_grad=True)
    >>> y = fgrad.frac(x); y.sum().backward()
    >>> y, x.grad
    (tensor([ 0.5 , -0.25], grad_fn=<...>), tensor([1., 1.]))
    """
    dtype = getattr(input, "dtype", None)
    if dtype is not None and dtype.kind in "biu":  # (torch's NotImplementedError: no integer kernel)
        raise NotImplementedError(f"frac is not implemented for {_dtype_name(dtype)} tensors (as torch's)")
    return _tensor(input - fnp.trunc(input))


def relu(input: Tensor | ArrayLike) -> Tensor:
    """max(input, 0), elementwise (torch.relu). Differentiable: the gradient is 1 where input > 0, else 0.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 2.0], requires_grad=True)
    >>> fgrad.relu(x).sum().backward(); x.grad
    tensor([0., 1.])
    """
    return _tensor(fnp.where(input > 0, input, fnp.zeros_like(input)))


def clamp(input: Tensor | ArrayLike, min: Tensor | ArrayLike | None = None,
          max: Tensor | ArrayLike | None = None) -> Tensor:
    """`input` limited to [min, max] elementwise (either bound may be None; torch.clamp, also `clip`).

    Differentiable in `input` (the gradient is 0 where a bound is active) and in Tensor bounds.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    >>> y = fgrad.clamp(x, 0.0, 1.0); y.sum().backward()
    >>> y, x.grad  # no gradient where a bound is active
    (tensor([0. , 0.5, 1. ], grad_fn=<...>), tensor([0., 1., 0.]))
    """
    return _tensor(clamped(input, min, max))


clip = clamp


def pow(input: Tensor | ArrayLike, exponent: Tensor | ArrayLike) -> Tensor:
    """`input` ** `exponent`, elementwise with broadcasting (torch.pow); either may be a Tensor or a number.
    Differentiable in both.

    Examples
    --------
    >>> x = fgrad.tensor([2.0, 3.0], requires_grad=True)
    >>> fgrad.pow(x, 3).sum().backward(); x.grad  # 3 x ** 2
    tensor([12., 27.])
    """
    return _tensor(power(input, exponent))


def maximum(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The elementwise maximum of `input` and `other`, broadcasting (torch.maximum; NaN propagates).
    Differentiable in both; returns a Tensor.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 4.0], requires_grad=True)
    >>> y = fgrad.maximum(x, fgrad.tensor([2.0, 3.0])); y.sum().backward()
    >>> y, x.grad
    (tensor([2., 4.], grad_fn=<...>), tensor([0., 1.]))
    """
    return _tensor(binary(fnp.maximum, input, other))


def minimum(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The elementwise minimum of `input` and `other`, broadcasting (torch.minimum; NaN propagates).
    Differentiable in both; returns a Tensor.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 4.0], requires_grad=True)
    >>> y = fgrad.minimum(x, fgrad.tensor([2.0, 3.0])); y.sum().backward()
    >>> y, x.grad
    (tensor([1., 3.], grad_fn=<...>), tensor([1., 0.]))
    """
    return _tensor(binary(fnp.minimum, input, other))


def lerp(input: Tensor | ArrayLike, end: Tensor | ArrayLike, weight: Tensor | ArrayLike) -> Tensor:
    """The linear interpolation input + weight * (end - input), broadcasting (torch.lerp), by torch's
    formula: end - (end - input) * (1 - weight) where |weight| >= 0.5, so weight 1 gives end exactly.

    As torch's: input and end must be floating or complex tensors of one dtype, and so must a weight
    tensor of one or more dimensions; a zero-dim weight tensor promotes (a complex one makes the
    result complex); a Python number weight is taken in input's dtype (a complex one for a real
    input, or one beyond the dtype's range, raises). Differentiable in all three.

    Examples
    --------
    >>> end = fgrad.tensor([10.0], requires_grad=True)
    >>> y = fgrad.lerp(fgrad.tensor([0.0]), end, 0.25); y.backward()
    >>> y, end.grad
    (tensor([2.5], grad_fn=<...>), tensor([0.25]))
    """
    input, end = _tensor(input), _tensor(end)
    dtype = input.dtype
    if end.dtype != dtype:
        raise RuntimeError(f"fgrad.lerp: expected dtype {_dtype_name(dtype)} for `end` but got dtype "
                           f"{_dtype_name(end.dtype)}")
    tensor_weight = isinstance(weight, (Tensor, np.ndarray)) or not np.isscalar(weight)
    if tensor_weight:
        weight = _tensor(weight)
        if weight.ndim and weight.dtype != dtype:
            raise RuntimeError(f"fgrad.lerp: expected dtype {_dtype_name(dtype)} for `weight` but got "
                               f"dtype {_dtype_name(weight.dtype)}")
        dtype = result_type(input, end, weight)
    if dtype.kind not in "fc":
        raise NotImplementedError(f"fgrad.lerp: not implemented for {_dtype_name(dtype)} (torch's lerp computes in "
                                  f"floating and complex dtypes only)")
    if tensor_weight:
        input, end, weight = promoted(input, end, weight)
        diff = end - input
        return _tensor(fnp.where(fnp.abs(weight) < 0.5, input + weight * diff, end - diff * (1 - weight)))
    if (isinstance(weight, complex) and dtype.kind != "c") or (
            np.isfinite(weight) and builtins.abs(weight) > float(np.finfo(dtype).max)):
        raise RuntimeError(f"fgrad.lerp: the weight {weight!r} cannot be converted to type {_dtype_name(dtype)} "
                           f"without overflow")
    diff = end - input
    return _tensor(input + weight * diff if builtins.abs(weight) < 0.5 else end - diff * (1 - weight))


def _lerp_(self, end, weight):
    return self._inplace(lerp(self, end, weight), "lerp_")


# ---- arithmetic by name: the operators (Tensor's, in torch's promotion), with torch's keywords -----
def _no_out(name, out):
    if out is not None:
        raise TypeError(f"fgrad.{name}: out= is not supported (fgrad's functions return a new tensor; assign the "
                        f"result, or write it into a tensor with out.copy_(result))")


def _left(input, other):
    """`input` as the left operand: a Tensor where neither operand is one (torch.add(2, 3) is a tensor)."""
    return input if isinstance(input, Tensor) or isinstance(other, Tensor) else _tensor(input)


def _plus(name, input, other, alpha, sign=1):
    """input + sign * alpha * other (add, sub, rsub), computed in the operands' result dtype, as torch's
    (alpha * other in other's own dtype could overflow an int8 that the result would not)."""
    a = _left(input, other)
    if sign == -1:  # (torch refuses subtraction with a bool tensor, whatever alpha)
        no_bool_subtraction(a, other)
    if not (alpha.__class__ is int and alpha == 1):
        a, other = promoted(a, other, wrap_ints=True)
        other = _times_alpha(name, result_type(a, other), other, alpha)
    return _tensor(a + other if sign == 1 else a - other)


def _times_alpha(name, dtype, other, alpha):
    """alpha * other, refused as torch's where alpha does not fit the result's kind: a float alpha
    for integer tensors, a complex one for real tensors, an int out of an integer dtype's range."""
    if dtype.kind in "biu" and not isinstance(alpha, (int, np.integer)):
        raise RuntimeError(f"fgrad.{name}: for integral input tensors, argument alpha must not be a floating point "
                           f"number (got {alpha!r})")
    if dtype.kind != "c" and isinstance(alpha, complex):
        raise RuntimeError(f"fgrad.{name}: for non-complex input tensors, argument alpha must not be a complex "
                           f"number (got {alpha!r})")
    if dtype.kind in "iu" and not np.iinfo(dtype).min <= alpha <= np.iinfo(dtype).max:
        raise RuntimeError(f"fgrad.{name}: alpha={alpha} cannot be converted to type {_dtype_name(dtype)} without "
                           f"overflow")
    return other * (builtins.bool(alpha) if dtype.kind == "b" else alpha)


def add(input: Tensor | ArrayLike, other: Tensor | ArrayLike, *, alpha: Any = 1, out: None = None) -> Tensor:
    """input + alpha * other, elementwise with broadcasting (torch.add; `+` is this op): torch's result
    dtype, a Python int wrapped into an integer dtype. alpha must fit the result's kind (no float alpha
    for integer tensors, no complex one for real tensors), as torch's. Differentiable: the gradient
    of other is alpha times the output's.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = fgrad.add(fgrad.tensor([10.0, 20.0]), x, alpha=3); y.sum().backward()
    >>> y, x.grad
    (tensor([13., 26.], grad_fn=<...>), tensor([3., 3.]))
    """
    _no_out("add", out)
    return _plus("add", input, other, alpha)


def sub(input: Tensor | ArrayLike, other: Tensor | ArrayLike, *, alpha: Any = 1, out: None = None) -> Tensor:
    """input - alpha * other, elementwise with broadcasting (torch.sub, also `subtract`; `-` is this op);
    alpha as in add. Differentiable: the gradient of other is -alpha times the output's.

    Examples
    --------
    >>> fgrad.sub(fgrad.tensor([10, 20]), fgrad.tensor([1, 2]), alpha=2).tolist()
    [8, 16]
    """
    _no_out("sub", out)
    return _plus("sub", input, other, alpha, sign=-1)


subtract = sub


def rsub(input: Tensor, other: Tensor | ArrayLike, *, alpha: Any = 1) -> Tensor:
    """other - alpha * input (torch.rsub: sub with its operands swapped; input must be a Tensor).

    Examples
    --------
    >>> fgrad.rsub(fgrad.tensor([1.0, 2.0]), 10.0, alpha=2)
    tensor([8., 6.])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"fgrad.rsub(): argument 'input' must be Tensor, not {type(input).__name__} (as torch's)")
    return _plus("rsub", other, input, alpha, sign=-1)


def mul(input: Tensor | ArrayLike, other: Tensor | ArrayLike, *, out: None = None) -> Tensor:
    """input * other, elementwise with broadcasting (torch.mul, also `multiply`; `*` is this op), in
    torch's result dtype. Differentiable in both.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> fgrad.mul(x, 3).sum().backward(); x.grad
    tensor([3., 3.])
    """
    _no_out("mul", out)
    return _tensor(_left(input, other) * other)


multiply = mul


def div(input: Tensor | ArrayLike, other: Tensor | ArrayLike, *, rounding_mode: str | None = None,
        out: None = None) -> Tensor:
    """input / other, elementwise with broadcasting (torch.div, also `divide`; `/` is this op).

    rounding_mode None divides truly (integers in the default float dtype); 'trunc' rounds the
    quotient toward zero and 'floor' down (`//`), both in the operands' result dtype (integers
    stay integers). Differentiable: with a rounding mode the gradient is zero, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([7, -7])
    >>> fgrad.div(x, 2), fgrad.div(x, 2, rounding_mode="trunc"), fgrad.div(x, 2, rounding_mode="floor")
    (tensor([ 3.5, -3.5]), tensor([ 3, -3]), tensor([ 3, -4]))
    """
    _no_out("div", out)
    a = _left(input, other)
    if rounding_mode is None:
        return _tensor(a / other)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"fgrad.div: expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"{rounding_mode!r}")
    if result_type(a, other).kind in "fc":  # (the step's gradient is zero: torch's, where // records none)
        q = a / other
        return _tensor(fnp.trunc(q) if rounding_mode == "trunc" else ew.overwrite(q, (a // other).primal))
    q = a // other
    if rounding_mode == "floor":
        return _tensor(q)
    return _tensor(q + ((a % other != 0) & ((a < 0) != (other < 0))))  # (toward zero: one up where signs differ)


divide = div


def true_divide(dividend: Tensor | ArrayLike, divisor: Tensor | ArrayLike, *, out: None = None) -> Tensor:
    """dividend / divisor, true division (torch.true_divide: div with rounding_mode None).

    Examples
    --------
    >>> fgrad.true_divide(fgrad.tensor([7, -7]), 2)
    tensor([ 3.5, -3.5])
    """
    _no_out("true_divide", out)
    return div(dividend, divisor)


def fmod(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The remainder of input / other with the dividend's sign (C's fmod; torch.fmod), in torch's
    result dtype; an integer zero divisor raises RuntimeError (ZeroDivisionError), as torch's.

    Examples
    --------
    >>> fgrad.fmod(fgrad.tensor([-3.0, 3.0]), 2.0), fgrad.remainder(fgrad.tensor([-3.0, 3.0]), 2.0)
    (tensor([-1.,  1.]), tensor([1., 1.]))
    """
    return _tensor(binary(fnp.fmod, input, other, wrap_ints=True, divides=True))


def remainder(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The remainder of input / other with the divisor's sign (Python's %; torch.remainder; `%` is
    this op), in torch's result dtype; an integer zero divisor raises RuntimeError, as torch's.

    Examples
    --------
    >>> fgrad.remainder(fgrad.tensor([-3, 3]), 2).tolist(), (fgrad.tensor([-3, 3]) % 2).tolist()
    ([1, 1], [1, 1])
    """
    return _tensor(binary(fnp.remainder, input, other, wrap_ints=True, divides=True))


def floor_divide(input: Tensor | ArrayLike, other: Tensor | ArrayLike, *, out: None = None) -> Tensor:
    """input // other, rounded down, in torch's result dtype (torch.floor_divide; `//` is this op; as
    torch's, not differentiable: no grad_fn).

    Examples
    --------
    >>> fgrad.floor_divide(fgrad.tensor([7, -7]), 2).tolist()
    [3, -4]
    """
    _no_out("floor_divide", out)
    return _tensor(_left(input, other) // other)


# ---- bitwise and logical ops -------------------------------------------------------------------
def _bitwise(entry: Callable[..., Any], name: str, symbol: str) -> Callable[..., Tensor]:
    def op(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
        return _tensor(bitwise(entry, input, other, f"fgrad.{name}"))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"input {symbol} other, bitwise and elementwise with broadcasting (torch.{name}; `{symbol}` is this "
                  f"op), in torch's result_type: a Python int out of the dtype's range wraps into it; of bool "
                  f"tensors the logical op. Floating and complex dtypes raise NotImplementedError. No gradient.\n\n"
                  f"Examples\n--------\n"
                  f">>> x = fgrad.tensor([12, -3], dtype=fgrad.int8)\n"
                  f">>> fgrad.{name}(x, 10).tolist() == (np.array([12, -3], np.int8) {symbol} 10).tolist()\n"
                  f"True\n")
    return op


bitwise_and = _bitwise(ew.bitwise_and, "bitwise_and", "&")
bitwise_or = _bitwise(ew.bitwise_or, "bitwise_or", "|")
bitwise_xor = _bitwise(ew.bitwise_xor, "bitwise_xor", "^")


def bitwise_not(input: Tensor | ArrayLike) -> Tensor:
    """~input, bitwise (torch.bitwise_not; of bools the logical not). Floating and complex dtypes raise
    NotImplementedError, as torch's (the `~` operator raises TypeError, as torch's). No gradient.

    Examples
    --------
    >>> fgrad.bitwise_not(fgrad.tensor([0, 5], dtype=fgrad.uint8)).tolist(), (~fgrad.tensor([True, False])).tolist()
    ([255, 250], [False, True])
    """
    input = _tensor(input)
    if input.dtype.kind not in "biu":
        raise NotImplementedError(f"fgrad.bitwise_not: not implemented for {_dtype_name(input.dtype)} (torch's bitwise "
                                  f"operations take integer and bool tensors only)")
    return invert(input)


def _logical(fn: Callable[..., Any], name: str) -> Callable[..., Tensor]:
    def op(input: Tensor, other: Tensor) -> Tensor:
        for arg, position in ((input, "input"), (other, "other")):
            if not isinstance(arg, Tensor):
                raise TypeError(f"fgrad.{name}(): argument '{position}' must be Tensor, not {type(arg).__name__} "
                                f"(as torch's)")
        return _tensor(fn(input, other))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"torch.{name}: a bool tensor, True where `input` {name.removeprefix('logical_')} `other` is "
                  f"(nonzero counts as True), elementwise with broadcasting; both Tensors, of any dtypes. No gradient."
                  f"\n\nExamples\n--------\n"
                  f">>> fgrad.{name}(fgrad.tensor([0.0, 2.0, 3.0]), fgrad.tensor([1, 0, 4])).tolist() == "
                  f"np.{name}([0.0, 2.0, 3.0], [1, 0, 4]).tolist()\n"
                  f"True\n")
    return op


logical_and = _logical(fnp.logical_and, "logical_and")
logical_or = _logical(fnp.logical_or, "logical_or")
logical_xor = _logical(fnp.logical_xor, "logical_xor")


def logical_not(input: Tensor) -> Tensor:
    """A bool tensor, True where `input` is zero (torch.logical_not), of any dtype. No gradient.

    Examples
    --------
    >>> fgrad.logical_not(fgrad.tensor([0.0, 2.0])).tolist()
    [True, False]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"fgrad.logical_not(): argument 'input' must be Tensor, not {type(input).__name__}")
    return _tensor(fnp.logical_not(input))


def cumsum(input: Tensor | ArrayLike, dim: int) -> Tensor:
    """The cumulative sums of `input` along `dim` (torch.cumsum). Differentiable; returns a Tensor
    of input's shape.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> y = fgrad.cumsum(x, 0); y.sum().backward()
    >>> y, x.grad
    (tensor([1., 3., 6.], grad_fn=<...>), tensor([3., 2., 1.]))
    """
    return _along(fnp.cumsum, input, dim, "cumsum")


def cumprod(input: Tensor | ArrayLike, dim: int) -> Tensor:
    """The cumulative products of `input` along `dim` (torch.cumprod). Differentiable; returns a
    Tensor of input's shape.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> y = fgrad.cumprod(x, 0); y[-1].backward()
    >>> y, x.grad  # d(x0 x1 x2)/dx
    (tensor([1., 2., 6.], grad_fn=<...>), tensor([6., 3., 2.]))
    """
    return _along(fnp.cumprod, input, dim, "cumprod")


def _along(fn, input, dim, who):
    """fn (cumsum, cumprod) along torch's `dim`; a 0-D tensor's one "dim" keeps its shape."""
    axis = wrap_dims(dim, np.ndim(input), who)
    dtype = accumulator(input)  # (uint8: int64, as torch's)
    return _tensor(fn(input, axis=axis, dtype=dtype) if axis is not None else fnp.reshape(fn(input, dtype=dtype), ()))


def amax(input: Tensor | ArrayLike, dim: int | Sequence[int] = (), keepdim: bool = False) -> Tensor:
    """The largest entries over `dim` (an int or a tuple; () or None: all), as torch.amax. Differentiable:
    the gradient is shared evenly among tied maxima (max(dim)'s goes to its index alone).

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 3.0], [3.0, 2.0]], requires_grad=True)
    >>> y = fgrad.amax(x); y.backward()
    >>> y, x.grad
    (tensor(3., grad_fn=<...>), tensor([[0. , 0.5], [0.5, 0. ]]))
    """
    return _extreme(fnp.max, input, dim, keepdim, "amax")


def amin(input: Tensor | ArrayLike, dim: int | Sequence[int] = (), keepdim: bool = False) -> Tensor:
    """The smallest entries over `dim` (an int or a tuple; () or None: all), as torch.amin. Differentiable:
    the gradient is shared evenly among tied minima.

    Examples
    --------
    >>> fgrad.amin(fgrad.tensor([[1.0, 3.0], [0.0, 2.0]]), dim=1, keepdim=True)
    tensor([[1.], [0.]])
    """
    return _extreme(fnp.min, input, dim, keepdim, "amin")


def _extreme(fn, input, dim, keepdim, who):
    axes = wrap_dims(None if dim == () else dim, np.ndim(input), who)
    return _tensor(fn(input, axis=axes, keepdims=keepdim))


def diff(input: Tensor | ArrayLike, n: int = 1, dim: int = -1, prepend: Tensor | ArrayLike | None = None,
         append: Tensor | ArrayLike | None = None) -> Tensor:
    """The n-th forward differences along `dim`, after joining `prepend` and `append` there (torch.diff).
    Differentiable.

    Examples
    --------
    >>> fgrad.diff(fgrad.tensor([1.0, 4.0, 9.0]), prepend=fgrad.tensor([0.0]))
    tensor([1., 3., 5.])
    """
    if np.ndim(input) == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    dim = wrap_dim(dim, np.ndim(input), "diff")
    extra = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return _tensor(fnp.diff(input, n, axis=dim, **extra))


def logsumexp(input: Tensor | ArrayLike, dim: int | Sequence[int], keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) along `dim` (an int or a tuple), computed stably by shifting by the
    maximum; `keepdim` keeps the reduced axes with size 1 (torch.logsumexp). Differentiable:
    the gradient is the softmax of input.

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 0.0], requires_grad=True)
    >>> y = fgrad.logsumexp(x, 0); y.backward()
    >>> round(y.item(), 4), x.grad  # log 2; the gradient is the softmax
    (0.6931, tensor([0.5, 0.5]))
    """
    return _tensor(_softmax.logsumexp(input, axis=wrap_dims(dim, np.ndim(input), "logsumexp"), keepdims=keepdim))


# ---- products and linear algebra -------------------------------------------------------------
def matmul(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The matrix product of `input` and `other` with NumPy's/torch's rules: 1-D operands are vectors,
    leading axes broadcast as stacks of matrices (torch.matmul, the @ operator). Differentiable in both.

    Examples
    --------
    >>> A = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> y = fgrad.matmul(A, fgrad.tensor([1.0, -1.0])); y.sum().backward()
    >>> y, A.grad
    (tensor([-1., -1.], grad_fn=<...>), tensor([[ 1., -1.], [ 1., -1.]]))
    """
    return _tensor(fnp.matmul(input, other))


def _check_ndim(name, want, *tensors):
    for t in tensors:
        if t.ndim != want:
            raise RuntimeError(f"{name}: expected a {want}-D tensor, got {t.ndim}-D (shape {tuple(t.shape)})")


def mm(input: Tensor | ArrayLike, mat2: Tensor | ArrayLike) -> Tensor:
    """The product of two matrices (2-D only, as torch's).

    Examples
    --------
    >>> fgrad.mm(fgrad.tensor([[1.0, 2.0]]), fgrad.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """
    _check_ndim("mm", 2, input, mat2)
    return matmul(input, mat2)


def bmm(input: Tensor | ArrayLike, mat2: Tensor | ArrayLike) -> Tensor:
    """The products of two stacks of matrices (3-D only, as torch's).

    Examples
    --------
    >>> fgrad.bmm(fgrad.ones(5, 2, 3), fgrad.ones(5, 3, 4)).shape
    (5, 2, 4)
    """
    _check_ndim("bmm", 3, input, mat2)
    return matmul(input, mat2)


def addmm(input: Tensor | ArrayLike, mat1: Tensor | ArrayLike, mat2: Tensor | ArrayLike, *, beta: float = 1,
          alpha: float = 1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2), `input` broadcast to the product's shape (torch.addmm).
    Differentiable in all three; mat1 and mat2 must be 2-D (else RuntimeError).

    Examples
    --------
    >>> fgrad.addmm(fgrad.tensor([1.0]), fgrad.eye(2), fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), alpha=2)
    tensor([[3., 5.], [7., 9.]])
    """
    return _tensor(beta * input + alpha * mm(mat1, mat2))


def dot(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The inner product of two 1-D tensors (torch.dot). Differentiable in both; raises RuntimeError
    when either is not 1-D.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = fgrad.dot(x, fgrad.tensor([3.0, 4.0])); y.backward()
    >>> y, x.grad
    (tensor(11., grad_fn=<...>), tensor([3., 4.]))
    """
    _check_ndim("dot", 1, input, other)
    return _tensor(fnp.dot(input, other))


def outer(input: Tensor | ArrayLike, vec2: Tensor | ArrayLike) -> Tensor:
    """The outer product of the 1-D tensors `input` and `vec2`: a matrix of input[i] * vec2[j]
    (torch.outer). Differentiable in both.

    Examples
    --------
    >>> fgrad.outer(fgrad.tensor([1.0, 2.0]), fgrad.tensor([3.0, 4.0]))
    tensor([[3., 4.], [6., 8.]])
    """
    return _tensor(fnp.outer(input, vec2))


def einsum(equation: str, *operands: Tensor | ArrayLike) -> Tensor:
    """torch.einsum(equation, *operands), operands also given as one list.

    Examples
    --------
    >>> A = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> t = fgrad.einsum("ii->", A); t.backward()
    >>> t, A.grad  # the trace
    (tensor(5., grad_fn=<...>), tensor([[1., 0.], [0., 1.]]))
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _tensor(fnp.einsum(equation, *operands))


def tensordot(a: Tensor | ArrayLike, b: Tensor | ArrayLike, dims: int | Sequence[Sequence[int]] = 2) -> Tensor:
    """The sum of products of `a` and `b` over `dims` axes: an int (the last `dims` of a with the first of
    b) or a pair of axis lists (torch.tensordot). Differentiable in both.

    Examples
    --------
    >>> fgrad.tensordot(fgrad.ones(2, 3), fgrad.ones(3, 4), dims=1).shape
    (2, 4)
    """
    return _tensor(fnp.tensordot(a, b, axes=dims))


def kron(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The Kronecker product of `input` and `other` (torch.kron): blocks input[i, j] * other.
    Differentiable in both.

    Examples
    --------
    >>> fgrad.kron(fgrad.eye(2), fgrad.tensor([[1.0, 2.0]]))
    tensor([[1., 2., 0., 0.], [0., 0., 1., 2.]])
    """
    return _tensor(fnp.kron(input, other))


def cross(input: Tensor | ArrayLike, other: Tensor | ArrayLike, dim: int | None = None) -> Tensor:
    """The cross product along dim (None: the first axis of size 3, torch's old default).

    Examples
    --------
    >>> fgrad.cross(fgrad.tensor([1.0, 0.0, 0.0]), fgrad.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    if dim is None:
        dim = next(i for i, n in enumerate(np.broadcast_shapes(tuple(input.shape), tuple(other.shape))) if n == 3)
    return _tensor(fnp.cross(input, other, axis=wrap_dim(dim, np.ndim(input), "cross")))


def trace(input: Tensor | ArrayLike) -> Tensor:
    """The sum of the main diagonal of a 2-D tensor (torch.trace), a 0-D Tensor. Differentiable;
    raises RuntimeError for an input that is not 2-D.

    Examples
    --------
    >>> A = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> t = fgrad.trace(A); t.backward()
    >>> t, A.grad
    (tensor(5., grad_fn=<...>), tensor([[1., 0.], [0., 1.]]))
    """
    _check_ndim("trace", 2, input)
    return _tensor(fnp.trace(input, dtype=accumulator(input)))  # (int64 for bool and unsigned, as sum's)


def diag(input: Tensor | ArrayLike, diagonal: int = 0) -> Tensor:
    """A 1-D input's diagonal matrix, or a 2-D input's diagonal.

    Examples
    --------
    >>> fgrad.diag(fgrad.tensor([1.0, 2.0])), fgrad.diag(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    (tensor([[1., 0.], [0., 2.]]), tensor([1., 4.]))
    """
    return _tensor(fnp.diag(input, diagonal))


def tril(input: Tensor | ArrayLike, diagonal: int = 0) -> Tensor:
    """The lower triangle of a matrix (or of each in a stack): entries above diagonal `diagonal` set to
    zero (torch.tril). Differentiable.

    Examples
    --------
    >>> fgrad.tril(fgrad.ones(2, 2))
    tensor([[1., 0.], [1., 1.]])
    """
    return _tensor(fnp.tril(input, diagonal))


def triu(input: Tensor | ArrayLike, diagonal: int = 0) -> Tensor:
    """The upper triangle of a matrix (or of each in a stack): entries below diagonal `diagonal` set to
    zero (torch.triu). Differentiable.

    Examples
    --------
    >>> fgrad.triu(fgrad.ones(2, 2))
    tensor([[1., 1.], [0., 1.]])
    """
    return _tensor(fnp.triu(input, diagonal))


def det(input: Tensor | ArrayLike) -> Tensor:
    """The determinant of a square matrix, or of each in a stack (torch.det). Differentiable; returns
    a Tensor.

    Examples
    --------
    >>> A = fgrad.tensor([[2.0, 0.0], [0.0, 3.0]], requires_grad=True)
    >>> d = fgrad.det(A); d.backward()
    >>> d, A.grad  # det(A) inv(A).T
    (tensor(6., grad_fn=<...>), tensor([[3., 0.], [0., 2.]]))
    """
    return _tensor(fla.det(input))


def inverse(input: Tensor | ArrayLike) -> Tensor:
    """The inverse of a square matrix, or of each in a stack (torch.inverse). Differentiable
    (d inv = -inv dA inv); a singular matrix raises numpy.linalg.LinAlgError.

    Examples
    --------
    >>> fgrad.inverse(fgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5 , 0.  ], [0.  , 0.25]])
    """
    return _tensor(fla.inv(input))


def logdet(input: Tensor | ArrayLike) -> Tensor:
    """log det(input): nan for a negative determinant, -inf for a zero one (as torch's).

    Examples
    --------
    >>> A = fgrad.tensor([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
    >>> fgrad.logdet(A).backward(); A.grad  # inv(A).T
    tensor([[0.5 , 0.  ], [0.  , 0.25]])
    """
    sign, value = fla.slogdet(input)
    return _tensor(fnp.where(sign < 0, nan, value))


_slogdet_result = collections.namedtuple("slogdet", ["sign", "logabsdet"])


def slogdet(input: Tensor | ArrayLike) -> _slogdet_result:
    """(sign, logabsdet) of a square matrix or a stack: det = sign * exp(logabsdet), stable where det
    under- or overflows (torch.slogdet, a named tuple). logabsdet is differentiable.

    Examples
    --------
    >>> sign, logabsdet = fgrad.slogdet(fgrad.tensor([[-1.0, 0.0], [0.0, 1.0]]))
    >>> sign, logabsdet
    (tensor(-1.), tensor(0.))
    """
    sign, value = fla.slogdet(input)
    return _slogdet_result(_tensor(sign), _tensor(value))


# ---- tests of tensors ------------------------------------------------------------------------
def is_tensor(obj: object) -> bool:
    """True when `obj` is an fgrad.Tensor (a Parameter too), as torch.is_tensor; False for arrays and
    numbers.

    Examples
    --------
    >>> fgrad.is_tensor(fgrad.tensor(1.0)), fgrad.is_tensor(np.ones(1))
    (True, False)
    """
    return isinstance(obj, Tensor)


def numel(input: Tensor | Array) -> int:
    """The number of entries of `input`: the product of its shape, 1 for a 0-D tensor (torch.numel).

    Examples
    --------
    >>> fgrad.numel(fgrad.zeros(2, 3))
    6
    """
    return int(np.prod(input.shape, dtype=np.int64))


def equal(input: Tensor | Array, other: Tensor | Array) -> bool:
    """True when both have one shape and equal entries.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0])
    >>> fgrad.equal(x, fgrad.tensor([1.0, 2.0])), fgrad.equal(x, fgrad.tensor([1.0, 2.5]))
    (True, False)
    """
    return tuple(input.shape) == tuple(other.shape) and bool(np.array_equal(_values(input), _values(other)))


def allclose(input: Tensor | ArrayLike, other: Tensor | ArrayLike, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """True when |input - other| <= atol + rtol * |other| everywhere, broadcasting (torch.allclose);
    `equal_nan` counts NaNs in the same places as equal. Not differentiable: returns a bool.

    Examples
    --------
    >>> fgrad.allclose(fgrad.tensor([1.0, 2.0]), fgrad.tensor([1.0, 2.0 + 1e-9]))
    True
    """
    return bool(np.allclose(_values(input), _values(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


def _values(t):
    with no_grad():
        return t.detach().numpy() if isinstance(t, Tensor) else np.asarray(t)


# ---- torch's functions of two or three tensors (issue 31) -------------------------------------------
_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                 "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "float16": "Half", "float32": "Float",
                 "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
_ADDCDIV_OF_INTEGERS = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _scalar_name(dtype):
    """torch's C++ name of a dtype, as its kernels' messages write it (int64: Long, float32: Float)."""
    return _SCALAR_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _no_kernel(kernel, dtype):
    """torch's NotImplementedError of a kernel with no loop for `dtype`."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_scalar_name(dtype)}'")


def _tensors(name, **arguments):
    """Raise torch's TypeError where an argument torch takes only as a Tensor is not one (Python numbers
    and NumPy arrays included); the keywords in their positions."""
    for position, (argument, value) in enumerate(arguments.items(), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"fgrad.{name}(): argument '{argument}' (position {position}) must be Tensor, not "
                            f"{type(value).__name__}")


def _one_tensor(name, a, b):
    """torch's TypeError where neither operand of `name` (xlogy, float_power) is a Tensor."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"fgrad.{name}() received an invalid combination of arguments - got "
                        f"({type(a).__name__}, {type(b).__name__}): one of them must be a Tensor (as torch's)")


def _cast_to(dtype, *operands):
    """Tensors converted to `dtype` (recorded), Python numbers left as they are (NumPy's kernels take them
    in the tensor's dtype)."""
    return tuple(astype(x, dtype) if isinstance(x, Tensor) and x.dtype != dtype else x for x in operands)


def _computed_in(kernel, a, b, kinds="f", integers=True):
    """a and b cast to the dtype torch computes `kernel` in: their result_type, an integer or bool one
    get_default_dtype() where `integers` (atan2 of two int tensors is a float tensor), else refused (torch's
    logaddexp has no integer kernel); a dtype whose kind is not in `kinds` raises torch's
    NotImplementedError."""
    dtype = result_type(a, b)
    if integers and dtype.kind in "biu":
        dtype = get_default_dtype()
    if dtype.kind not in kinds:
        raise _no_kernel(kernel, dtype)
    return _cast_to(dtype, a, b)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point (other, input), elementwise: arctan(input / other) in the right quadrant, in
    [-pi, pi] (torch.atan2, also arctan2), broadcasting. Both must be Tensors (TypeError otherwise, as
    torch's); integer and bool tensors compute in get_default_dtype(), complex ones raise
    NotImplementedError. Differentiable in both.

    Examples
    --------
    >>> y = fgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> a = fgrad.atan2(y, fgrad.tensor([1.0, -1.0])); a.sum().backward()
    >>> a / fgrad.pi, y.grad  # x / (x**2 + y**2)
    (tensor([ 0.25, -0.75], grad_fn=<...>), tensor([ 0.5, -0.5]))
    """
    _tensors("atan2", input=input, other=other)
    return _tensor(fnp.arctan2(*_computed_in("atan2_cpu", input, other)))


def arctan2(input: Tensor, other: Tensor) -> Tensor:
    """torch.arctan2: atan2(input, other), the angle of the point (other, input) (see fgrad.atan2).

    Examples
    --------
    >>> fgrad.arctan2(fgrad.tensor([1.0]), fgrad.tensor([0.0])) / fgrad.pi
    tensor([0.5])
    """
    _tensors("arctan2", input=input, other=other)
    return atan2(input, other)


def copysign(input: Tensor, other: Tensor | float) -> Tensor:
    """|input| with the sign of `other` (its sign bit: -0.0 counts as negative), elementwise with
    broadcasting (torch.copysign); `other` may be a Python number. Integer and bool tensors compute in
    get_default_dtype(); complex ones raise NotImplementedError. Differentiable in `input` (the gradient
    is 0 in `other`).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, -2.0], requires_grad=True)
    >>> y = fgrad.copysign(x, -1.0); y.sum().backward()
    >>> y, x.grad
    (tensor([-1., -2.], grad_fn=<...>), tensor([-1.,  1.]))
    """
    _tensors("copysign", input=input)
    return _tensor(fnp.copysign(*_computed_in("copysign_cpu", input, other)))


def _complex_logaddexp(a, b):
    """log(exp(a) + exp(b)) of complex tensors, shifted by the operand of the larger real part."""
    larger = fnp.where(fnp.real(a) >= fnp.real(b), a, b)
    return larger + fnp.log1p(fnp.exp(a + b - larger - larger))


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """log(exp(input) + exp(other)), elementwise with broadcasting, computed without overflow
    (torch.logaddexp). Floating and complex tensors only: an integer or bool result dtype raises
    NotImplementedError, as torch's ('"logaddexp_cpu" not implemented for 'Long''). Differentiable
    in both: the gradients are the softmax weights of the two.

    Examples
    --------
    >>> x = fgrad.tensor([1000.0, 0.0], requires_grad=True)
    >>> y = fgrad.logaddexp(x, fgrad.tensor([1000.0, 0.0])); y.sum().backward()
    >>> y - fgrad.tensor([1000.0, 0.0]), x.grad  # log 2 more than each; weights 1/2
    (tensor([0.69314718, 0.69314718], grad_fn=<...>), tensor([0.5, 0.5]))
    """
    _tensors("logaddexp", input=input, other=other)
    a, b = _computed_in("logaddexp_cpu", input, other, kinds="fc", integers=False)
    return _tensor(_complex_logaddexp(a, b) if a.dtype.kind == "c" else fnp.logaddexp(a, b))


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """log2(2**input + 2**other), elementwise with broadcasting, computed without overflow
    (torch.logaddexp2). Floating tensors only: integer, bool and complex ones raise NotImplementedError,
    as torch's. Differentiable in both.

    Examples
    --------
    >>> fgrad.logaddexp2(fgrad.tensor([1.0, 3.0]), fgrad.tensor([1.0, 3.0]))
    tensor([2., 4.])
    """
    _tensors("logaddexp2", input=input, other=other)
    return _tensor(fnp.logaddexp2(*_computed_in("logaddexp2_cpu", input, other, integers=False)))


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """sqrt(input**2 + other**2), elementwise with broadcasting, without overflow (torch.hypot). Floating
    tensors only: integer, bool and complex ones raise NotImplementedError, as torch's. Differentiable
    in both.

    Examples
    --------
    >>> x = fgrad.tensor([3.0], requires_grad=True)
    >>> h = fgrad.hypot(x, fgrad.tensor([4.0])); h.backward()
    >>> h, x.grad  # x / h
    (tensor([5.], grad_fn=<...>), tensor([0.6]))
    """
    _tensors("hypot", input=input, other=other)
    return _tensor(fnp.hypot(*_computed_in("hypot_cpu", input, other, integers=False)))


def xlogy(input: Tensor | float, other: Tensor | float) -> Tensor:
    """input * log(other), 0 where input is 0 (unless other is NaN), elementwise with broadcasting
    (torch.xlogy; fgrad.special.xlogy's values); either may be a Python number, not both. Integer and bool
    tensors compute in get_default_dtype(); complex ones raise NotImplementedError. Differentiable in
    both; where input and other are both 0 the gradient of input is 0, as torch's, and of other 0 too
    (torch's is NaN there).

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 2.0], requires_grad=True)
    >>> y = fgrad.xlogy(x, fgrad.tensor([0.0, 1.0])); y.sum().backward()
    >>> y, x.grad  # log(other), 0 where both are 0
    (tensor([0., 0.], grad_fn=<...>), tensor([0., 0.]))
    """
    _one_tensor("xlogy", input, other)
    a, b = _computed_in("xlogy_cpu", input, other)
    a = a if isinstance(a, Tensor) else fnp.full_like(b, a)  # (a Python number in the tensor's dtype)
    b = b if isinstance(b, Tensor) else fnp.full_like(a, b)
    b = fnp.where((a == 0) & (b == 0), 1.0, b)  # (log(1) where both are 0: torch's gradient of input there, 0)
    return _tensor(ops_special.xlogy(a, b))


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The Heaviside step of `input`, elementwise with broadcasting: 0 where input < 0 (or NaN, as
    torch's), `values` where input == 0, 1 where input > 0 (torch.heaviside). Both must be Tensors of one
    dtype (RuntimeError otherwise, as torch's), not complex. Not differentiable: the result records no
    history (torch records one and raises on backward; here backward raises that it does not require grad).

    Examples
    --------
    >>> fgrad.heaviside(fgrad.tensor([-1.0, 0.0, 2.0, fgrad.nan]), fgrad.tensor([0.5]))
    tensor([0. , 0.5, 1. , 0. ])
    """
    _tensors("heaviside", input=input, values=values)
    if input.dtype.kind == "c" or values.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    with no_grad():
        if input.dtype.kind == "f":
            return _tensor(fnp.where(fnp.isnan(input), 0, fnp.heaviside(input, values)))
        return _tensor(astype(fnp.where(input == 0, values, input > 0), input.dtype))  # (NumPy's is of floats only)


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next floating-point value after `input` toward `other`, elementwise with broadcasting
    (torch.nextafter). Floating tensors only (NotImplementedError otherwise, as torch's). Not
    differentiable: no history is recorded.

    Examples
    --------
    >>> x = fgrad.tensor([1.0])
    >>> (fgrad.nextafter(x, fgrad.tensor([2.0])) - x).item() == float(np.finfo(np.float64).eps)
    True
    """
    _tensors("nextafter", input=input, other=other)
    return _tensor(fnp.nextafter(*_computed_in("nextafter_cpu", input, other, integers=False)))


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """input * 2**other, elementwise with broadcasting (torch.ldexp, by torch's formula), in the result
    dtype of the two (integer and bool ones in get_default_dtype(); complex input allowed). Both must be
    Tensors. Differentiable in both.

    Examples
    --------
    >>> x = fgrad.tensor([1.5, 3.0], requires_grad=True)
    >>> y = fgrad.ldexp(x, fgrad.tensor([2, -1])); y.sum().backward()
    >>> y, x.grad
    (tensor([6. , 1.5], grad_fn=<...>), tensor([4. , 0.5]))
    """
    _tensors("ldexp", input=input, other=other)
    if input.dtype.kind == "f" and other.dtype == np.bool_:  # (torch's kernel of a float mantissa and bool exponent)
        raise _no_kernel("ldexp_cpu_exp", other.dtype)
    a, b = _computed_in("ldexp_cpu", input, other, kinds="fc")
    return _tensor(a * fnp.exp2(b))


def _float_power_dtype(input, exponent):
    complex_ = builtins.any(isinstance(x, complex) or getattr(x, "dtype", np.dtype(np.float64)).kind == "c"
                   for x in (input, exponent))
    return np.dtype(np.complex128 if complex_ else np.float64)


def float_power(input: Tensor | float, exponent: Tensor | float) -> Tensor:
    """input ** exponent computed in float64 (complex128 where either is complex), elementwise with
    broadcasting (torch.float_power), whatever the operands' dtypes; either may be a Python number, not
    both. Differentiable in both (the gradient comes back in its input's dtype).

    Examples
    --------
    >>> x = fgrad.tensor([2, 3], dtype=fgrad.int32)
    >>> fgrad.float_power(x, -1), fgrad.float_power(x.to(fgrad.float32), 1j).dtype
    (tensor([0.5       , 0.33333333]), dtype('complex128'))
    """
    _one_tensor("float_power", input, exponent)
    return _tensor(fnp.power(*_cast_to(_float_power_dtype(input, exponent), input, exponent)))


def _float_power_(self, exponent):
    dtype = _float_power_dtype(self, exponent)
    if self.dtype != dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {_scalar_name(self.dtype)} but the operation's "
                           f"result requires dtype {_scalar_name(dtype)}")
    return self._inplace(float_power(self, exponent), "float_power_")


def _fmax_fmin(fn, name, input, other):
    _tensors(name, input=input, other=other)
    if result_type(input, other).kind == "c":
        raise RuntimeError(f"{name} not implemented for complex tensors.")
    return _tensor(binary(fn, input, other))


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise maximum of `input` and `other`, broadcasting, NaN ignored where the other is a
    number (torch.fmax; maximum propagates NaN), in their result_type; complex tensors raise RuntimeError,
    as torch's. Differentiable in both.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, fgrad.nan], requires_grad=True)
    >>> y = fgrad.fmax(x, fgrad.tensor([2.0, 3.0])); y.sum().backward()
    >>> y, x.grad
    (tensor([2., 3.], grad_fn=<...>), tensor([0., 0.]))
    """
    return _fmax_fmin(fnp.fmax, "fmax", input, other)


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise minimum of `input` and `other`, broadcasting, NaN ignored where the other is a
    number (torch.fmin; minimum propagates NaN), in their result_type; complex tensors raise RuntimeError,
    as torch's. Differentiable in both.

    Examples
    --------
    >>> fgrad.fmin(fgrad.tensor([1.0, fgrad.nan, fgrad.nan]), fgrad.tensor([2.0, 3.0, fgrad.nan]))
    tensor([ 1.,  3., nan])
    """
    return _fmax_fmin(fnp.fmin, "fmin", input, other)


def _gcd_lcm(fn, name, input, other):
    _tensors(name, input=input, other=other)
    dtype = result_type(input, other)
    if dtype.kind not in "iu":
        raise _no_kernel(f"{name}_cpu", dtype)
    return _tensor(binary(fn, input, other))


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """The greatest common divisor of |input| and |other|, elementwise with broadcasting (torch.gcd; gcd(0, 0)
    is 0), of integer tensors only (bool, floating and complex ones raise NotImplementedError, as torch's).
    No gradient.

    Examples
    --------
    >>> fgrad.gcd(fgrad.tensor([12, -18, 0]), fgrad.tensor([8, 12, 5]))
    tensor([4, 6, 5])
    """
    return _gcd_lcm(fnp.gcd, "gcd", input, other)


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """The least common multiple of |input| and |other|, elementwise with broadcasting (torch.lcm; 0 where
    either is 0), of integer tensors only (NotImplementedError otherwise, as torch's). No gradient.

    Examples
    --------
    >>> fgrad.lcm(fgrad.tensor([4, -6, 0]), fgrad.tensor([6, 4, 5]))
    tensor([12, 12,  0])
    """
    return _gcd_lcm(fnp.lcm, "lcm", input, other)


def _clamp_one(name, input, bound, side):
    _tensors(name, input=input)
    if input.dtype.kind == "c" or getattr(bound, "dtype", np.dtype(np.float64)).kind == "c" or \
            isinstance(bound, complex):
        raise NotImplementedError("clamp is not supported for complex types")
    if input.dtype == np.bool_ and bound.__class__ is bool:
        raise _no_kernel(f"{name}_scalar_cpu", input.dtype)
    return _tensor(clamped(input, bound, None) if side == "min" else clamped(input, None, bound))


def clamp_min(input: Tensor, min: Tensor | float) -> Tensor:
    """`input` limited below by `min` (torch.clamp_min: clamp(input, min=min)), in their result_type.
    Differentiable in `input` (0 where the bound is active) and in a Tensor bound.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 2.0], requires_grad=True)
    >>> y = fgrad.clamp_min(x, 0.0); y.sum().backward()
    >>> y, x.grad
    (tensor([0., 2.], grad_fn=<...>), tensor([0., 1.]))
    """
    return _clamp_one("clamp_min", input, min, "min")


def clamp_max(input: Tensor, max: Tensor | float) -> Tensor:
    """`input` limited above by `max` (torch.clamp_max: clamp(input, max=max)), in their result_type.
    Differentiable in `input` (0 where the bound is active) and in a Tensor bound.

    Examples
    --------
    >>> fgrad.clamp_max(fgrad.tensor([-1, 2, 5]), 3)
    tensor([-1,  2,  3])
    """
    return _clamp_one("clamp_max", input, max, "max")


def _scalar_in(value, dtype):
    """A Python number argument (addcmul's value, baddbmm's alpha and beta) converted to `dtype` as torch's:
    truncated toward zero for an integer dtype (for an unsigned one, -max to -1 wrap as two's complement);
    RuntimeError where it does not fit (a complex number for a real dtype, an int out of range, a finite
    float beyond the floating dtype's range)."""
    overflow = RuntimeError(f"value cannot be converted to type {_dtype_name(dtype)} without overflow (the "
                            f"Python number {value!r}; torch's error)")
    if isinstance(value, complex):
        if dtype.kind != "c":
            raise overflow
        return value
    if dtype.kind in "iu":
        value, info = int(value), np.iinfo(dtype)
        if not (-info.max if dtype.kind == "u" else info.min) <= value <= info.max:
            raise overflow
        return value % (info.max + 1) if value < 0 and dtype.kind == "u" else value  # (torch's: -1 wraps to max)
    if dtype.kind == "b":
        return builtins.bool(value)
    if math.isfinite(value) and builtins.abs(value) > float(np.finfo(dtype).max):
        raise overflow
    return value


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 * tensor2, elementwise with broadcasting (torch.addcmul), in the three's
    result_type, `value` converted to it as torch's (truncated for integer tensors; a complex value for real
    ones raises RuntimeError). Bool tensors raise NotImplementedError. Differentiable in all three.

    Examples
    --------
    >>> t1 = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = fgrad.addcmul(fgrad.tensor([1.0]), t1, fgrad.tensor([3.0, 4.0]), value=0.5); y.sum().backward()
    >>> y, t1.grad
    (tensor([2.5, 5. ], grad_fn=<...>), tensor([1.5, 2. ]))
    """
    _tensors("addcmul", input=input, tensor1=tensor1, tensor2=tensor2)
    dtype = result_type(input, tensor1, tensor2)
    if dtype.kind == "b":
        raise _no_kernel("addcmul_cpu_out", dtype)
    value = _scalar_in(value, dtype)
    input, tensor1, tensor2 = _cast_to(dtype, input, tensor1, tensor2)
    return _tensor(input + value * tensor1 * tensor2)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
    """input + value * tensor1 / tensor2, elementwise with broadcasting (torch.addcdiv), in the three's
    result_type, `value` converted to it as addcmul's. tensor1 and tensor2 both of integer (or bool)
    dtypes raise torch's RuntimeError (integer division with addcdiv is no longer supported).
    Differentiable in all three.

    Examples
    --------
    >>> t2 = fgrad.tensor([2.0, 4.0], requires_grad=True)
    >>> y = fgrad.addcdiv(fgrad.tensor([1.0]), fgrad.tensor([1.0, 2.0]), t2, value=2); y.sum().backward()
    >>> y, t2.grad  # -value * tensor1 / tensor2**2
    (tensor([2., 2.], grad_fn=<...>), tensor([-0.5 , -0.25]))
    """
    _tensors("addcdiv", input=input, tensor1=tensor1, tensor2=tensor2)
    if tensor1.dtype.kind in "biu" and tensor2.dtype.kind in "biu":
        raise RuntimeError(_ADDCDIV_OF_INTEGERS)
    dtype = result_type(input, tensor1, tensor2)
    value = _scalar_in(value, dtype)
    input, tensor1, tensor2 = _cast_to(dtype, input, tensor1, tensor2)
    return _tensor(input + value * tensor1 / tensor2)


def _broadcast_to_product(name, input, shape):
    """torch's RuntimeError where `input` does not broadcast to the product's shape (it is expanded to it)."""
    try:
        fits = np.broadcast_shapes(tuple(input.shape), shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"{name}: the expanded size of the tensor must match the existing size: input of shape "
                           f"{list(input.shape)} does not broadcast to the product's shape {list(shape)}")


def _scaled_sum(input, product, beta, alpha, dtype):
    """beta * input + alpha * product (baddbmm, addbmm, addmv, addr), alpha and beta converted to `dtype`
    as torch's; beta 0 ignores input (NaN there does not propagate, as torch's)."""
    beta, alpha = _scalar_in(beta, dtype), _scalar_in(alpha, dtype)
    product = product if alpha.__class__ is int and alpha == 1 else alpha * product
    if beta == 0:
        return _tensor(product)
    return _tensor((input if beta.__class__ is int and beta == 1 else beta * input) + product)


def _same_dtypes(message, *tensors):
    if builtins.any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError(message)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * (batch1 @ batch2) for stacks of matrices: batch1 (b, n, m), batch2 (b, m, p)
    (3-D, RuntimeError otherwise), `input` broadcast to (b, n, p) (torch.baddbmm). The three of one dtype,
    not bool (as torch's); beta 0 ignores input. Differentiable in all three.

    Examples
    --------
    >>> b1 = fgrad.ones(2, 1, 3, requires_grad=True)
    >>> y = fgrad.baddbmm(fgrad.tensor([1.0]), b1, fgrad.ones(2, 3, 1), beta=2, alpha=0.5); y.sum().backward()
    >>> y.shape, y[0], b1.grad[0]
    ((2, 1, 1), tensor([[3.5]], grad_fn=<...>), tensor([[0.5, 0.5, 0.5]]))
    """
    _tensors("baddbmm", input=input, batch1=batch1, batch2=batch2)
    _check_ndim("baddbmm", 3, batch1, batch2)
    _same_dtypes(f"Input dtypes must be the same, got: input {_dtype_name(input.dtype)}, batch1: "
                 f"{_dtype_name(batch1.dtype)}, batch2: {_dtype_name(batch2.dtype)}", input, batch1, batch2)
    if input.dtype == np.bool_:
        raise _no_kernel("baddbmm", input.dtype)
    (b, n, m), (b2, m2, p) = batch1.shape, batch2.shape
    if (b2, m2) != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{b2}, {m2}].")
    _broadcast_to_product("baddbmm", input, (b, n, p))
    return _scaled_sum(input, fnp.matmul(batch1, batch2), beta, alpha, input.dtype)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * sum_i(batch1[i] @ batch2[i]): the products of two stacks of matrices (3-D,
    RuntimeError otherwise) summed over the batch, `input` broadcast to (n, p) (torch.addbmm). The three
    of one dtype, not bool; beta 0 ignores input. Differentiable in all three.

    Examples
    --------
    >>> fgrad.addbmm(fgrad.zeros(1, 1), fgrad.ones(3, 1, 2), fgrad.ones(3, 2, 1), alpha=2)
    tensor([[12.]])
    """
    _tensors("addbmm", input=input, batch1=batch1, batch2=batch2)
    _check_ndim("addbmm", 3, batch1, batch2)
    _same_dtypes(f"addbmm: expected input, batch1 and batch2 to have the same dtype, but got "
                 f"{_scalar_name(input.dtype)}, {_scalar_name(batch1.dtype)} and {_scalar_name(batch2.dtype)}",
                 input, batch1, batch2)
    if input.dtype == np.bool_:
        raise _no_kernel("addbmm", input.dtype)
    (b, n, m), (b2, m2, p) = batch1.shape, batch2.shape
    if b2 != b:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if m2 != m:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    _broadcast_to_product("addbmm", input, (n, p))
    return _scaled_sum(input, fnp.sum(fnp.matmul(batch1, batch2), axis=0, dtype=input.dtype), beta, alpha,
                       input.dtype)


def _check_mv(input, mat, vec):
    """torch's addmv checks: a vector (or 0-D) input (mv: None, its result), a matrix and a vector, of one
    dtype and fitting sizes."""
    ndim = 1 if input is None else input.ndim
    if not (mat.ndim == 2 and vec.ndim == 1 and ndim <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {ndim}, {mat.ndim}, {vec.ndim}")
    n, m = mat.shape
    size = n if input is None or input.ndim == 0 else input.shape[0]
    if vec.shape[0] != m or size not in (1, n):
        raise RuntimeError(f"size mismatch, got input ({size}), mat ({n}x{m}), vec ({vec.shape[0]})")
    first = vec if input is None else input
    _same_dtypes(f"addmv input tensors must have the same dtype, but got {_scalar_name(first.dtype)}, "
                 f"{_scalar_name(mat.dtype)}, and {_scalar_name(vec.dtype)}", first, mat, vec)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * (mat @ vec): a matrix (n, m) times a vector (m,), `input` a vector of n (or
    of 1, or 0-D) (torch.addmv). The three of one dtype (RuntimeError otherwise, as torch's); beta 0
    ignores input. Differentiable in all three.

    Examples
    --------
    >>> v = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = fgrad.addmv(fgrad.tensor([1.0, 1.0]), fgrad.tensor([[1.0, 0.0], [1.0, 1.0]]), v, alpha=2)
    >>> y.sum().backward(); y, v.grad
    (tensor([3., 7.], grad_fn=<...>), tensor([4., 2.]))
    """
    _tensors("addmv", input=input, mat=mat, vec=vec)
    _check_mv(input, mat, vec)
    if input.dtype == np.bool_:
        raise _no_kernel("addmv_impl_cpu", input.dtype)
    return _scaled_sum(input, fnp.matmul(mat, vec), beta, alpha, input.dtype)


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """The product of the matrix `input` (n, m) and the vector `vec` (m,) (torch.mv; 2-D and 1-D, of one
    dtype: RuntimeError otherwise, as torch's). Differentiable in both.

    Examples
    --------
    >>> fgrad.mv(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), fgrad.tensor([1.0, -1.0]))
    tensor([-1., -1.])
    """
    _tensors("mv", input=input, vec=vec)
    _check_mv(None, input, vec)
    if input.dtype == np.bool_:
        raise _no_kernel("addmv_impl_cpu", input.dtype)
    return _tensor(fnp.matmul(input, vec))


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2), `input` broadcast to (len(vec1), len(vec2)) (torch.addr),
    in the three's result_type. For integer and bool tensors alpha and beta must not be floating (for
    real ones not complex): RuntimeError, as torch's; of bool tensors, (beta and input) or (alpha and
    vec1[i] and vec2[j]). beta 0 ignores input. Differentiable in all three.

    Examples
    --------
    >>> v = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = fgrad.addr(fgrad.ones(2, 2), v, fgrad.tensor([1.0, 3.0]), beta=2); y.sum().backward()
    >>> y, v.grad
    (tensor([[3., 5.], [4., 8.]], grad_fn=<...>), tensor([4., 4.]))
    """
    _tensors("addr", input=input, vec1=vec1, vec2=vec2)
    for vec, position in ((vec1, "vec1"), (vec2, "vec2")):
        if vec.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {position}, but got {vec.ndim}-D")
    shape = (vec1.shape[0], vec2.shape[0])
    if input.ndim > 2:
        raise RuntimeError(f"addr: the number of sizes provided (2) must be greater or equal to the number of "
                           f"dimensions in the tensor ({input.ndim})")
    _broadcast_to_product("addr", input, shape)
    dtype = result_type(input, vec1, vec2)
    for number, position in ((beta, "beta"), (alpha, "alpha")):
        if dtype.kind in "biu" and not isinstance(number, (int, np.integer)):
            raise RuntimeError(f"For integral input tensors, argument {position} must not be a floating point number.")
        if dtype.kind != "c" and isinstance(number, complex):
            raise RuntimeError(f"For non-complex input tensors, argument {position} must not be a complex number.")
    input, vec1, vec2 = _cast_to(dtype, input, vec1, vec2)
    if dtype.kind == "b":
        product = fnp.logical_and(fnp.outer(vec1, vec2), builtins.bool(alpha))
        return _tensor(fnp.logical_or(product, fnp.logical_and(input, builtins.bool(beta))) if beta else product)
    return _scaled_sum(input, fnp.outer(vec1, vec2), beta, alpha, dtype)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The inner product of two 1-D tensors with the first conjugated: sum(conj(input) * other)
    (torch.vdot; of real tensors dot). One dtype and one length (RuntimeError otherwise, as torch's).
    Differentiable in both.

    Examples
    --------
    >>> fgrad.vdot(fgrad.tensor([1 + 2j]), fgrad.tensor([3 + 1j]))
    tensor(5.-5.j)
    """
    _tensors("vdot", input=input, other=other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           f"elements respectively")
    _same_dtypes(f"dot : expected both vectors to have same dtype, but found {_scalar_name(input.dtype)} and "
                 f"{_scalar_name(other.dtype)}", input, other)
    return _tensor(fnp.vdot(input, other))


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sums of products over the last axes of `input` and `other` (torch.inner; no conjugation): of
    shape input.shape[:-1] + other.shape[:-1]; a 0-D operand multiplies. One dtype, and the last axes of
    one length (RuntimeError otherwise, as torch's). Differentiable in both.

    Examples
    --------
    >>> a = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> y = fgrad.inner(a, fgrad.tensor([1.0, 1.0])); y.sum().backward()
    >>> y, a.grad
    (tensor([3., 7.], grad_fn=<...>), tensor([[1., 1.], [1., 1.]]))
    """
    _tensors("inner", input=input, other=other)
    _same_dtypes("both inputs should have same dtype", input, other)
    if input.ndim == 0 or other.ndim == 0:
        return _tensor(input * other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return _tensor(fnp.inner(input, other))


def sgn(input: Tensor | ArrayLike) -> Tensor:
    """The sign of `input`: of a complex tensor input / |input| (0 at 0), of a real one torch.sign's
    -1, 0, 1 (a bool tensor as it is) (torch.sgn). Differentiable: of a complex tensor the gradient is
    torch's (0 at 0); of a real one it is 0.

    Examples
    --------
    >>> z = fgrad.tensor([3 + 4j, 0j])
    >>> fgrad.sgn(z), fgrad.sgn(fgrad.tensor([-2.0, 0.0, 5.0]))
    (tensor([0.6+0.8j, 0. +0.j ]), tensor([-1.,  0.,  1.]))
    """
    input = _tensor(input)
    if input.dtype.kind == "b":
        return input.clone()
    if input.dtype.kind != "c":
        return _tensor(fnp.sign(input))
    size = fnp.abs(input)
    zero = size == 0
    return _tensor(fnp.where(zero, 0, input / fnp.where(zero, 1, size)))


def positive(input: Tensor) -> Tensor:
    """`input` itself (torch.positive, the unary +); a bool tensor raises RuntimeError, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 2.0]); fgrad.positive(x) is x
    True
    """
    _tensors("positive", input=input)
    if input.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """A bool tensor, True where |input - other| <= atol + rtol * |other| (or they are equal, infinities
    included), broadcasting (torch.isclose); `equal_nan` counts two NaNs as close. Both Tensors of one
    dtype, rtol and atol >= 0 (RuntimeError otherwise, as torch's). No gradient.

    Examples
    --------
    >>> fgrad.isclose(fgrad.tensor([1.0, 2.0, fgrad.nan]), fgrad.tensor([1.0 + 1e-9, 2.1, fgrad.nan]))
    tensor([ True, False, False])
    """
    _tensors("isclose", input=input, other=other)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_scalar_name(input.dtype)} did not match {_scalar_name(other.dtype)}")
    for name, tolerance in (("rtol", rtol), ("atol", atol)):
        if tolerance < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tolerance}")
    return _tensor(fnp.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isreal(input: Tensor | ArrayLike) -> Tensor:
    """A bool tensor, True where `input` has no imaginary part (everywhere for a real tensor) (torch.isreal).

    Examples
    --------
    >>> fgrad.isreal(fgrad.tensor([1 + 0j, 1j]))
    tensor([ True, False])
    """
    return _tensor(fnp.isreal(input))


def _infinity(fn, name, input):
    input = _tensor(input)
    if input.dtype.kind == "c":
        raise RuntimeError(f"{name} does not support complex inputs.")
    return _tensor(fn(input))


def isposinf(input: Tensor | ArrayLike) -> Tensor:
    """A bool tensor, True where `input` is +inf (torch.isposinf); complex tensors raise RuntimeError, as torch's.

    Examples
    --------
    >>> fgrad.isposinf(fgrad.tensor([fgrad.inf, -fgrad.inf, 1.0]))
    tensor([ True, False, False])
    """
    return _infinity(fnp.isposinf, "isposinf", input)


def isneginf(input: Tensor | ArrayLike) -> Tensor:
    """A bool tensor, True where `input` is -inf (torch.isneginf); complex tensors raise RuntimeError, as torch's.

    Examples
    --------
    >>> fgrad.isneginf(fgrad.tensor([fgrad.inf, -fgrad.inf, 1.0]))
    tensor([False,  True, False])
    """
    return _infinity(fnp.isneginf, "isneginf", input)


def signbit(input: Tensor | ArrayLike) -> Tensor:
    """A bool tensor, True where `input`'s sign bit is set (negative numbers, -0.0 and -NaN) (torch.signbit);
    complex tensors raise NotImplementedError, as torch's.

    Examples
    --------
    >>> fgrad.signbit(fgrad.tensor([-1.0, -0.0, 0.0, 2.0]))
    tensor([ True,  True, False, False])
    """
    input = _tensor(input)
    if input.dtype.kind == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    return _tensor(fnp.signbit(input))


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other, broadcasting (torch.dist, also Tensor.dist; p=2: Euclidean; 0, inf,
    -inf and other orders as Tensor.norm's). Floating or complex tensors (an integer difference raises
    RuntimeError, as torch's norm). Differentiable in both.

    Examples
    --------
    >>> x = fgrad.tensor([4.0, 0.0], requires_grad=True)
    >>> d = fgrad.dist(x, fgrad.tensor([1.0, 4.0])); d.backward()
    >>> d, x.grad
    (tensor(5., grad_fn=<...>), tensor([ 0.6, -0.8]))
    """
    _tensors("dist", input=input, other=other)
    difference = input - other
    if difference.dtype.kind not in "fc":
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_scalar_name(difference.dtype)} instead.")
    return difference.norm(p)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """`input` with each slice along `dim` (input.select(dim, i)) whose p-norm exceeds `maxnorm` scaled to
    it, by torch's factor maxnorm / (norm + 1e-7); the others as they are (torch.renorm). input of 2 or
    more dimensions, floating or complex; p > 0, maxnorm >= 0 (RuntimeError otherwise, as torch's).
    Differentiable, through the norms too.

    Examples
    --------
    >>> x = fgrad.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> y = fgrad.renorm(x, 2, 0, 1.0)  # the first row's norm 5 scaled to 1, the second's 0.5 kept
    >>> bool(fgrad.allclose(y, fgrad.tensor([[0.6, 0.8], [0.3, 0.4]])))
    True
    """
    _tensors("renorm", input=input)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    dim = wrap_dim(dim, input.ndim, "renorm")
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_scalar_name(input.dtype)}")
    norms = input.norm(p, dim=tuple(d for d in range(input.ndim) if d != dim), keepdim=True)
    return _tensor(input * fnp.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0))


# ---- comparisons by name, dtype limits, and a few more of torch's functions -------------------
def _compare(symbol: str, name: str) -> Callable[..., Tensor]:
    compare = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
               ">=": operator.ge}[symbol]

    def fn(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
        return _tensor(compare(input, other))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"input {symbol} other elementwise, broadcasting, in torch's promotion: a bool Tensor with no "
                  f"gradient (torch.{name}; the operator `{symbol}`).\n\nExamples\n--------\n"
                  f">>> fgrad.{name}(fgrad.tensor([1.0, 2.0, 3.0]), 2)\n"
                  f"{Tensor(np.array([compare(v, 2) for v in (1.0, 2.0, 3.0)]))!r}\n")
    return fn


eq, ne, lt, le, gt, ge = (_compare(s, n) for s, n in (("==", "eq"), ("!=", "ne"), ("<", "lt"), ("<=", "le"),
                                                      (">", "gt"), (">=", "ge")))
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge  # (torch's aliases)

_finfo_result = collections.namedtuple("finfo", ["bits", "eps", "max", "min", "tiny", "smallest_normal",
                                                 "resolution", "dtype"])
_iinfo_result = collections.namedtuple("iinfo", ["bits", "max", "min", "dtype"])


def finfo(type: Any = None) -> Any:
    """The limits of a floating dtype (get_default_dtype() where not given), as torch.finfo: bits,
    eps, max, min, tiny (smallest_normal), resolution as Python numbers, and the dtype's name.

    Examples
    --------
    >>> fgrad.finfo(fgrad.float32).eps, fgrad.finfo().bits
    (1.1920928955078125e-07, 64)
    """
    info = np.finfo(get_default_dtype() if type is None else type)
    return _finfo_result(info.bits, float(info.eps), float(info.max), float(info.min), float(info.tiny),
                         float(info.smallest_normal), 10.0 ** -info.precision, str(info.dtype))


def iinfo(type: Any) -> Any:
    """The limits of an integer dtype, as torch.iinfo: bits, max, min (Python ints) and its name.

    Examples
    --------
    >>> fgrad.iinfo(fgrad.int8)
    iinfo(bits=8, max=127, min=-128, dtype='int8')
    """
    info = np.iinfo(type)
    return _iinfo_result(info.bits, int(info.max), int(info.min), str(info.dtype))


def real(input: Tensor) -> Tensor:
    """The real part of a complex tensor; a real tensor itself (torch.real). Differentiable.

    Examples
    --------
    >>> fgrad.real(fgrad.tensor([1.0 + 2.0j])), fgrad.real(fgrad.tensor([3.0]))
    (tensor([1.]), tensor([3.]))
    """
    return _tensor(fnp.real(input)) if input.dtype.kind == "c" else input


def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor (torch.imag; a real one raises RuntimeError, as torch's).
    Differentiable.

    Examples
    --------
    >>> fgrad.imag(fgrad.tensor([1.0 + 2.0j]))
    tensor([2.])
    """
    if input.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _tensor(fnp.imag(input))


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (torch.conj; a real tensor is returned as it is). Differentiable.

    Examples
    --------
    >>> fgrad.conj(fgrad.tensor([1.0 + 2.0j]))
    tensor([1.-2.j])
    """
    return _tensor(fnp.conj(input)) if input.dtype.kind == "c" else input


def empty_like(input: Tensor, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of input's shape, dtype (or dtype=) and device, as torch.empty_like; its entries are
    zeros here (torch leaves them unset: code must not read them either way).

    Examples
    --------
    >>> fgrad.empty_like(fgrad.ones(2, dtype=fgrad.int64)).shape
    (2,)
    """
    return _new_full(input, input.shape, 0, dtype=dtype, requires_grad=requires_grad)


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             requires_grad: bool = False) -> Tensor:
    """`steps` values from base ** start to base ** end, evenly spaced in the exponent, in dtype (or
    get_default_dtype()), as torch.logspace.

    Examples
    --------
    >>> fgrad.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    values = np.logspace(start, end, steps, base=base).astype(dtype or get_default_dtype())
    return Tensor(values, requires_grad=requires_grad)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """The count of each value of a 1-D tensor of nonnegative integers (torch.bincount): int64, or with
    `weights` their sums in the weights' floating dtype (differentiable in the weights).

    Examples
    --------
    >>> fgrad.bincount(fgrad.tensor([0, 2, 2])), fgrad.bincount(fgrad.tensor([0, 2]), fgrad.tensor([0.5, 2.0]))
    (tensor([1, 0, 2]), tensor([0.5, 0. , 2. ]))
    """
    if input.ndim != 1 or input.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.numel() and int(fnp.min(input)) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is not None and weights.dtype.kind not in "fc":
        weights = astype(weights, np.float64)  # (torch: integer weights count in double)
    return _tensor(fnp.bincount(input, weights=weights, minlength=minlength))


def gradient(input: Tensor, *, spacing: Any = 1, dim: int | Sequence[int] | None = None,
             edge_order: int = 1) -> tuple[Tensor, ...]:
    """The central differences of `input` along each of `dim` (all dims where None), one-sided at the
    edges, as torch.gradient: a tuple of Tensors; spacing a number, or one per dim (numbers or
    coordinate tensors). Differentiable.

    Examples
    --------
    >>> fgrad.gradient(fgrad.tensor([1.0, 4.0, 9.0]))
    (tensor([3., 4., 5.]),)
    """
    dims = tuple(range(input.ndim)) if dim is None else (wrap_dims(dim, input.ndim, "gradient"),) \
        if isinstance(dim, int) else wrap_dims(dim, input.ndim, "gradient")
    spacings = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if input.dtype.kind in "iu" and input.numel():  # (differences are shift-invariant: NumPy's float64 cast of
        input = input - fnp.min(input)  # the values would round those past 2**53, as [2**60, 2**60 + 3] to 0)
    out = fnp.gradient(input, *spacings, axis=dims, edge_order=edge_order)
    return tuple(_tensor(o) for o in (out if isinstance(out, tuple) else (out,)))


def matrix_power(input: Tensor, n: int) -> Tensor:
    """input multiplied by itself n times (n < 0: of its inverse), as torch.matrix_power. Differentiable.

    Examples
    --------
    >>> fgrad.matrix_power(fgrad.tensor([[2.0, 0.0], [0.0, 3.0]]), 2)
    tensor([[4., 0.], [0., 9.]])
    """
    return _tensor(fla.matrix_power(input, n))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The Moore-Penrose pseudo-inverse (torch.pinverse: singular values below rcond times the
    largest count as zero). Differentiable.

    Examples
    --------
    >>> fgrad.pinverse(fgrad.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5, 0. ], [0. , 0. ]])
    """
    return _tensor(fla.pinv(input, rcond=rcond))


# The Tensor methods that are these functions, by torch's names (an in-place twin, name_, where
# torch has one); Tensor's own methods are not replaced.
METHODS = ("abs", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr", "allclose", "amax",
           "amin", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argsort",
           "asin", "asinh", "atan", "atan2", "atanh", "baddbmm", "bincount", "bitwise_and", "bitwise_not",
           "bitwise_or", "bitwise_xor", "bmm", "ceil", "chunk", "clamp_max", "clamp_min", "clip",
           "copysign", "cos", "cosh", "cross", "cumprod", "cumsum", "deg2rad", "det", "diag", "diff",
           "digamma", "dist", "div", "divide", "equal", "erf", "erfc", "erfinv", "exp", "exp2", "expm1",
           "fix", "flip", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod", "frac", "gather",
           "gcd", "greater", "greater_equal", "heaviside", "hypot", "index_select", "inner", "inverse",
           "isclose", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "kron", "lcm",
           "ldexp", "lerp", "less", "less_equal", "lgamma", "log", "log10", "log1p", "log2", "logaddexp",
           "logaddexp2", "logdet", "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp",
           "masked_fill", "masked_select", "matrix_power", "maximum", "minimum", "movedim", "mul",
           "multiply", "mv", "narrow", "neg", "negative", "nextafter", "not_equal", "outer", "pinverse",
           "positive", "rad2deg", "reciprocal", "remainder", "renorm", "repeat_interleave", "roll", "rsqrt",
           "scatter", "scatter_add", "select", "sgn", "sigmoid", "sign", "signbit", "sin", "sinc", "sinh",
           "slogdet", "sort", "split", "sqrt", "square", "sub", "subtract", "tan", "tanh", "tile", "topk",
           "trace", "tril", "triu", "true_divide", "trunc", "unbind", "unflatten", "vdot", "xlogy")

# torch's functions that are Tensor's own methods (one home: the method).
# (named, not read with getattr: so type checkers see the methods' signatures)
sum, mean, prod, std, var = Tensor.sum, Tensor.mean, Tensor.prod, Tensor.std, Tensor.var
nansum, nanmean = Tensor.nansum, Tensor.nanmean
max, min, argmax, argmin, all, any = Tensor.max, Tensor.min, Tensor.argmax, Tensor.argmin, Tensor.all, Tensor.any
norm, softmax, log_softmax = Tensor.norm, Tensor.softmax, Tensor.log_softmax
reshape, flatten, squeeze, unsqueeze = Tensor.reshape, Tensor.flatten, Tensor.squeeze, Tensor.unsqueeze
transpose, permute, t, clone, detach = Tensor.transpose, Tensor.permute, Tensor.t, Tensor.clone, Tensor.detach
__all__ += ["all", "any", "argmax", "argmin", "clone", "detach", "flatten", "log_softmax", "max", "mean", "min",
            "nanmean", "nansum", "norm", "permute", "prod", "reshape", "softmax", "squeeze", "std", "sum", "t",
            "transpose", "unsqueeze", "var"]


# ---- Tensor methods with no function of the same name -----------------------------------------
def _elementwise(fn, name):
    def method(self, other):
        return _tensor(fn(self, other))
    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"torch.Tensor.{name}(other): {name} of self and `other`, elementwise with broadcasting, as a "
                      f"Tensor (comparisons give bool Tensors with no gradient; arithmetic is differentiable).")
    return method


def _size(size):
    """new_zeros(2, 3) or new_zeros((2, 3))."""
    return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], (int, np.integer)) else tuple(size)


def _new_full(self, size, fill_value, *, dtype=None, requires_grad=False):
    """A new tensor of this one's dtype (or dtype=) and device."""
    out = Tensor(np.full(tuple(size), fill_value, dtype=dtype or self.dtype), requires_grad=requires_grad)
    return out.to(self.device)


def _new(fill):
    def method(self, *size, dtype=None, requires_grad=False):
        return _new_full(self, _size(size), fill, dtype=dtype, requires_grad=requires_grad)
    return method


def _new_tensor(self, data, *, dtype=None, requires_grad=False):
    data = data.detach().numpy() if isinstance(data, Tensor) else data
    return Tensor(np.array(data, dtype=dtype or self.dtype), requires_grad=requires_grad).to(self.device)


def _fill_random(self, generator, draw):
    """Overwrite self with draw(rng, shape), from `generator` or the default one (as nn.init's)."""
    rng = generator.numpy if generator is not None else _rng[0]
    with no_grad():
        return self.copy_(np.asarray(draw(rng, tuple(self.shape)), dtype=self.dtype))


def _masked_fill_(self, mask, value):
    return self._inplace(masked_fill(self, mask, value), "masked_fill_")


def _scatter_(self, dim, index, src=None, value=None, reduce=None):
    return self._inplace(scatter(self, dim, index, src, value=value, reduce=reduce), "scatter_")


def _scatter_add_(self, dim, index, src):
    return self._inplace(scatter_add(self, dim, index, src), "scatter_add_")


def _stride(self, dim=None):
    """Strides in elements of the C-ordered layout fgrad's tensors have."""
    shape = tuple(self.shape)
    strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape)))
    return strides if dim is None else strides[shape_index(dim, len(shape), "stride")]


_EXTRA_METHODS = {
    "lt": _elementwise(lambda a, b: a < b, "lt"), "le": _elementwise(lambda a, b: a <= b, "le"),
    "gt": _elementwise(lambda a, b: a > b, "gt"), "ge": _elementwise(lambda a, b: a >= b, "ge"),
    "eq": _elementwise(lambda a, b: a == b, "eq"), "ne": _elementwise(lambda a, b: a != b, "ne"),
    "expand_as": lambda self, other: self.expand(*other.shape),
    "reshape_as": lambda self, other: self.reshape(tuple(other.shape)),
    "type_as": lambda self, other: self.to(other.dtype),
    "half": lambda self: self.to(np.float16),
    "contiguous": lambda self, memory_format=None: self,  # (fgrad's tensors are always contiguous)
    "is_contiguous": lambda self, memory_format=None: True,
    "element_size": lambda self: self.dtype.itemsize,
    "nelement": numel,
    "stride": _stride,
    "is_floating_point": lambda self: self.dtype.kind == "f",
    "is_complex": lambda self: self.dtype.kind == "c",
    "new_zeros": _new(0), "new_ones": _new(1), "new_empty": _new(0),
    "new_full": _new_full, "new_tensor": _new_tensor,
    "uniform_": lambda self, a=0.0, b=1.0, *, generator=None: _fill_random(
        self, generator, lambda rng, shape: rng.uniform(a, b, shape)),
    "normal_": lambda self, mean=0.0, std=1.0, *, generator=None: _fill_random(
        self, generator, lambda rng, shape: rng.normal(mean, std, shape)),
    "masked_fill_": _masked_fill_,
    "scatter_": _scatter_,
    "scatter_add_": _scatter_add_,
    "lerp_": _lerp_,
    "float_power_": _float_power_,
}


_EXTRA_DOCS = {  # the docstrings of _EXTRA_METHODS's lambdas, and of the methods _new makes
    "expand_as": "self broadcast to other's shape (torch.Tensor.expand_as). Differentiable: the gradient sums back.",
    "reshape_as": "self reshaped to other's shape (torch.Tensor.reshape_as). Differentiable.",
    "type_as": "self converted to other's dtype (torch.Tensor.type_as); differentiable between floating dtypes.",
    "half": "self converted to float16 (torch.Tensor.half); differentiable, the gradient cast back.",
    "contiguous": "self: fgrad's tensors are always contiguous (torch.Tensor.contiguous; memory_format is ignored).",
    "is_contiguous": "True: fgrad's tensors are always laid out contiguously (torch.Tensor.is_contiguous).",
    "element_size": "The size of one entry in bytes, from the dtype (torch.Tensor.element_size).",
    "is_floating_point": "True when self's dtype is a real floating-point type (torch.Tensor.is_floating_point).",
    "is_complex": "True when self's dtype is a complex type (torch.Tensor.is_complex).",
    "new_zeros": "A new tensor of zeros of `size` (ints or one sequence), of self's dtype (or dtype=) and device,\n"
                 "with `requires_grad` (torch.Tensor.new_zeros).",
    "new_ones": "A new tensor of ones of `size` (ints or one sequence), of self's dtype (or dtype=) and device,\n"
                "with `requires_grad` (torch.Tensor.new_ones).",
    "new_empty": "A new tensor of `size` (ints or one sequence), of self's dtype (or dtype=) and device; fgrad fills\n"
                 "it with zeros (torch.Tensor.new_empty leaves it uninitialized).",
    "new_full": "A new tensor of `size` filled with `fill_value`, of self's dtype (or dtype=) and device, with\n"
                "`requires_grad` (torch.Tensor.new_full).",
    "new_tensor": "A new leaf tensor holding a copy of `data` (an array, a list or a Tensor, detached), of self's\n"
                  "dtype (or dtype=) and device, with `requires_grad` (torch.Tensor.new_tensor).",
    "uniform_": "Fill self, in place, with draws from U[a, b) from `generator` or fgrad's default one\n"
                "(torch.Tensor.uniform_); not recorded for autograd. Returns self.",
    "normal_": "Fill self, in place, with draws from N(mean, std**2) from `generator` or fgrad's default one\n"
               "(torch.Tensor.normal_); not recorded for autograd. Returns self.",
    "float_power_": "self = fgrad.float_power(self, exponent) in place (torch.Tensor.float_power_): self must be\n"
                    "float64 (complex128 where the result is complex), else RuntimeError, as torch's. Returns self.",
    "lerp_": "self = fgrad.lerp(self, end, weight) in place (torch.Tensor.lerp_; the broadcast shape must be\n"
             "self's). Returns self.",
    "scatter_": "fgrad.scatter(self, dim, index, src or value) written into self, in place (torch.Tensor.scatter_;\n"
                "src of self's dtype, as torch's); recorded for autograd as scatter. Returns self.",
    "scatter_add_": "fgrad.scatter_add(self, dim, index, src) written into self, in place\n"
                    "(torch.Tensor.scatter_add_; src of self's dtype); recorded for autograd. Returns self.",
    "masked_fill_": "Write `value` where `mask` (broadcast) is True, in place (torch.Tensor.masked_fill_); recorded\n"
                    "for autograd as masked_fill: the gradient is zero at the filled entries. Returns self.",
}


def _in_place(name):
    """Tensor.name_: torch's function `name` of self (and other), written into self, in self's dtype."""
    fn = globals()[name]
    unary = name.endswith("_not") or name in _UNARY
    if unary:
        def method(self):
            return self._inplace(fn(self), f"{name}_")
    else:
        def method(self, other, **keywords):  # (alpha=, rounding_mode=: fn's)
            return self._inplace(fn(self, other, **keywords), f"{name}_")
    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = (f"self = fgrad.{name}(self{'' if unary else ', other'}) in place, in self's dtype "
                      f"(torch.Tensor.{name}_; a result dtype that cannot be cast to self's raises RuntimeError, as "
                      f"does a leaf that requires grad, in grad mode, or a tensor of a traced value). Returns self.")
    return method


# the elementwise functions of one tensor, each with its in-place twin (exp_ and neg_ are Tensor's own)
_UNARY = ("abs", "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asin", "asinh",
          "atan", "atanh", "ceil", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp",
          "exp2", "expm1", "fix", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg",
          "negative", "rad2deg", "reciprocal", "rsqrt", "sigmoid", "sign", "sin", "sinc", "sinh", "sqrt",
          "square", "tan", "tanh", "trunc")
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logical_and", "logical_or", "logical_xor",
              "logical_not", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
              "floor_divide", "fmod", "remainder", *_UNARY):
    _EXTRA_METHODS[f"{_name}_"] = _in_place(_name)


def _in_place_of(name):
    """Tensor.name_ for the functions of several arguments (addcmul_(tensor1, tensor2, value=...),
    renorm_(p, dim, maxnorm), sgn_()): fgrad.name(self, ...) written into self, in self's dtype."""
    fn = globals()[name]
    operands = name not in ("renorm", "sgn")  # (renorm's p, dim and maxnorm are no operands)

    def method(self, *args, **keywords):
        if operands:  # (torch's first check: the result dtype must cast to self's, before the kernel's dtypes)
            dtype = result_type(self, *args)
            if not can_cast(dtype, self.dtype):
                raise RuntimeError(f"{name}_: result type {_dtype_name(dtype)} can't be cast to the desired output "
                                   f"type {_dtype_name(self.dtype)}")
        return self._inplace(fn(self, *args, **keywords), f"{name}_")
    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = (f"self = fgrad.{name}(self, ...) in place, in self's dtype (torch.Tensor.{name}_; a result "
                      f"dtype that cannot be cast to self's raises RuntimeError, as does a result of another shape, a "
                      f"leaf that requires grad, in grad mode, or a tensor of a traced value). Returns self.")
    return method


for _name in ("addbmm", "addcdiv", "addcmul", "addmv", "addr", "arctan2", "atan2", "baddbmm", "clamp_max",
              "clamp_min", "copysign", "gcd", "heaviside", "hypot", "lcm", "ldexp", "nextafter", "renorm", "sgn",
              "xlogy"):
    _EXTRA_METHODS[f"{_name}_"] = _in_place_of(_name)


def _bind():
    """Attach the functions above (and _EXTRA_METHODS) to Tensor, leaving Tensor's own methods."""
    for name in METHODS:
        if name not in Tensor.__dict__:
            setattr(Tensor, name, globals()[name])
    for name, fn in _EXTRA_METHODS.items():
        if name in _EXTRA_DOCS:
            fn.__doc__ = _EXTRA_DOCS[name]
        if name not in Tensor.__dict__:
            setattr(Tensor, name, fn)


_bind()
