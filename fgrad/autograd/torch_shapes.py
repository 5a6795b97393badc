"""torch's shape, joining, splitting and indexing functions on Tensors (fgrad.meshgrid, broadcast_to,
atleast_2d, hstack, tensor_split, hsplit, swapaxes, rot90, tril_indices, block_diag, cartesian_prod,
combinations, diag_embed, take, index_add, index_copy, index_fill, ...), the statistics cov and
corrcoef, the sampled integrals trapezoid and cumulative_trapezoid, the tests is_floating_point,
is_complex and is_nonzero, and the Tensor methods of the same names, where torch.Tensor has them
(t.tensor_split(3), t.index_add_(0, i, s), ...).

Each is written on fgrad.numpy's functions (meshgrid, broadcast_to, atleast_1d/2d/3d, rot90, take,
`at`, cov, trapezoid, cumsum, ...) or on fgrad's torch functions (cat, stack, movedim, flip), so
its derivatives are those functions' rules: no new primitive. Everything that returns values of
its inputs is differentiable, as torch's; index results (tril_indices, triu_indices) are int64
tensors. Where torch differs from NumPy, torch is followed: meshgrid's indexing='ij' default and
tuple result, broadcast_to's -1, tensor_split's tensor of indices, hsplit of a 1-D tensor along dim
0, cov's rows as variables and its correction=, cartesian_prod of one tensor returning it, and
integer inputs of cov, corrcoef and the trapezoids computed in the default floating dtype.
Tensor.swapaxes, ravel and take are torch's here (Tensor inherited NumPy's from Tracer).
"""
import builtins
import itertools
import operator

import numpy as np

from .. import numpy as fnp
from ..typing import Any, ArrayLike, Sequence
from .dims import shape_index, wrap_dim
from .dtypes import Size, get_default_dtype
from .promotion import astype, fitted, result_type
from .tensor import Tensor
from .torch_functions import _floating, _scalar_in, _values, cat, flip, movedim, stack
from .torch_functions import _scalar_name as _scalar  # (torch's C++ names of the dtypes: Long, Float, ...)
from .torch_functions import _tensor as _t

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
           "broadcast_to", "cartesian_prod", "column_stack", "combinations", "corrcoef", "cov",
           "cumulative_trapezoid", "diag_embed", "diagflat", "dsplit", "dstack", "fliplr", "flipud", "hsplit",
           "hstack", "index_add", "index_copy", "index_fill", "is_complex", "is_floating_point", "is_nonzero",
           "meshgrid", "moveaxis", "ravel", "rot90", "row_stack", "swapaxes", "swapdims", "take", "tensor_split",
           "trapezoid", "trapz", "tril_indices", "triu_indices", "vsplit", "vstack"]

def _listed(tensors):
    """f(a, b) or f([a, b]): the tensors as a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tuple(tensors)


def _along(dim, index):
    """The index tuple that applies `index` to axis `dim`."""
    return (slice(None),) * dim + (index,)


# ---- grids and broadcasting --------------------------------------------------------------------
def meshgrid(*tensors: Tensor | Sequence[Tensor], indexing: str | None = None) -> tuple[Tensor, ...]:
    """The coordinate grids of 0-D or 1-D tensors of one dtype, as a tuple (torch.meshgrid):
    indexing='ij' (the default, as torch's) gives grids of shape (len(t0), len(t1), ...), 'xy' swaps
    the first two axes (NumPy's default). The tensors may be given as one list. Differentiable in each.

    Examples
    --------
    >>> a, b = fgrad.meshgrid(fgrad.tensor([1, 2]), fgrad.tensor([3, 4, 5]))
    >>> a
    tensor([[1, 1, 1], [2, 2, 2]])
    >>> fgrad.meshgrid(fgrad.tensor([1, 2]), fgrad.tensor([3, 4, 5]), indexing="xy")[0].shape
    (3, 2)
    """
    tensors = tuple(_t(t) for t in _listed(tensors))
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"{list(t.shape)}")
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    rows = [t if t.ndim else fnp.reshape(t, (1,)) for t in tensors]
    return tuple(_t(g) for g in fnp.meshgrid(*rows, indexing=indexing))


def broadcast_to(input: Tensor | ArrayLike, size: int | Sequence[int]) -> Tensor:
    """input broadcast to `size` (torch.broadcast_to, Tensor.expand's rule): -1 keeps an existing axis's
    size, new axes go in front. Differentiable: the gradient is summed over the broadcast axes.

    Examples
    --------
    >>> x = fgrad.tensor([[1.0], [2.0]], requires_grad=True)
    >>> y = fgrad.broadcast_to(x, (3, -1, 2)); y.sum().backward()
    >>> y.shape, x.grad
    ((3, 2, 2), tensor([[6.], [6.]]))
    """
    x = _t(input)
    size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    shape = tuple(x.shape)
    if len(size) < x.ndim:
        raise RuntimeError(f"expand({list(shape)}, size={list(size)}): the number of sizes provided ({len(size)}) "
                           f"must be greater or equal to the number of dimensions in the tensor ({x.ndim})")
    lead = len(size) - x.ndim
    target = []
    for i, s in enumerate(size):
        s = operator.index(s)
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
        else:
            have = shape[i - lead]
            if s == -1:
                s = have
            elif have != 1 and s != have:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                                   f"non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: "
                                   f"{list(shape)}")
            elif s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        target.append(s)
    return _t(fnp.broadcast_to(x, tuple(target)))


def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    """The shape that tensors of these shapes (each an int or a sequence of ints) broadcast to, as a
    Size (torch.broadcast_shapes); RuntimeError where they do not broadcast, as torch's.

    Examples
    --------
    >>> fgrad.broadcast_shapes((3, 1), (2,), 1)
    fgrad.Size([3, 2])
    """
    listed = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    result = [1] * builtins.max((len(s) for s in listed), default=0)
    for i, shape in enumerate(listed):
        for j in range(-1, -1 - len(shape), -1):
            if shape[j] < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if shape[j] == 1 or shape[j] == result[j]:
                continue
            if result[j] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[j]} at {j}! Mismatching "
                                   f"argument at index {i} had {shape}; but expected shape should be broadcastable "
                                   f"to {result}")
            result[j] = shape[j]
    return Size(result)


def broadcast_tensors(*tensors: Tensor | ArrayLike) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape, as a tuple (torch.broadcast_tensors). Differentiable
    in each: the gradient is summed over the broadcast axes.

    Examples
    --------
    >>> a, b = fgrad.broadcast_tensors(fgrad.tensor([[1.0], [2.0]]), fgrad.tensor([3.0, 4.0, 5.0]))
    >>> a.shape, b
    ((2, 3), tensor([[3., 4., 5.], [3., 4., 5.]]))
    """
    tensors = tuple(_t(t) for t in tensors)
    shape = tuple(tensors[0].shape) if tensors else ()
    for t in tensors[1:]:
        a, b = shape, tuple(t.shape)
        n = builtins.max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        for d in range(n):
            if a[d] != b[d] and 1 not in (a[d], b[d]):
                raise RuntimeError(f"The size of tensor a ({a[d]}) must match the size of tensor b ({b[d]}) at "
                                   f"non-singleton dimension {d}")
        shape = tuple(builtins.max(p, q) if 0 not in (p, q) else 0 for p, q in zip(a, b))
    return tuple(t if tuple(t.shape) == shape else _t(fnp.broadcast_to(t, shape)) for t in tensors)


# ---- at least N dims, and joining --------------------------------------------------------------
def _atleast(fn, tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(_t(fn(_t(t))) for t in tensors[0])
    out = tuple(_t(fn(_t(t))) for t in tensors)
    return out[0] if len(out) == 1 else out


def atleast_1d(*tensors: Tensor | Sequence[Tensor]) -> Any:
    """Each tensor with at least one axis (a 0-D one as shape (1,)), as torch.atleast_1d: one tensor
    gives a tensor, several (or one list) a tuple. Differentiable.

    Examples
    --------
    >>> fgrad.atleast_1d(fgrad.tensor(1.0)), fgrad.atleast_1d(fgrad.tensor(1.0), fgrad.tensor([2.0, 3.0]))
    (tensor([1.]), (tensor([1.]), tensor([2., 3.])))
    """
    return _atleast(fnp.atleast_1d, tensors)


def atleast_2d(*tensors: Tensor | Sequence[Tensor]) -> Any:
    """Each tensor with at least two axes (0-D as (1, 1), (n,) as (1, n)), as torch.atleast_2d: one
    tensor gives a tensor, several (or one list) a tuple. Differentiable.

    Examples
    --------
    >>> fgrad.atleast_2d(fgrad.tensor([1.0, 2.0]))
    tensor([[1., 2.]])
    """
    return _atleast(fnp.atleast_2d, tensors)


def atleast_3d(*tensors: Tensor | Sequence[Tensor]) -> Any:
    """Each tensor with at least three axes (0-D as (1, 1, 1), (n,) as (1, n, 1), (m, n) as (m, n, 1)),
    as torch.atleast_3d: one tensor gives a tensor, several (or one list) a tuple. Differentiable.

    Examples
    --------
    >>> fgrad.atleast_3d(fgrad.tensor([1.0, 2.0])).shape, fgrad.atleast_3d(fgrad.ones(2, 3)).shape
    ((1, 2, 1), (2, 3, 1))
    """
    return _atleast(fnp.atleast_3d, tensors)


def _sequence(tensors, who):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{who}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{who} expects a non-empty TensorList")
    return tensors


def hstack(tensors: Sequence[Tensor | ArrayLike]) -> Tensor:
    """Tensors joined column-wise (torch.hstack): along dim 0 for 1-D ones (0-D as 1-D), along dim 1
    otherwise; dtypes promoted as cat's. Differentiable in each.

    Examples
    --------
    >>> fgrad.hstack([fgrad.tensor([[1.0], [2.0]]), fgrad.tensor([[3.0], [4.0]])])
    tensor([[1., 3.], [2., 4.]])
    """
    tensors = atleast_1d(_sequence(tensors, "hstack"))
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor | ArrayLike]) -> Tensor:
    """Tensors joined row-wise (torch.vstack, also row_stack): each made at least 2-D ((n,) as (1, n)),
    joined along dim 0. Differentiable in each.

    Examples
    --------
    >>> fgrad.vstack([fgrad.tensor([1.0, 2.0]), fgrad.tensor([3.0, 4.0])])
    tensor([[1., 2.], [3., 4.]])
    """
    return cat(atleast_2d(_sequence(tensors, "vstack")), 0)


def row_stack(tensors: Sequence[Tensor | ArrayLike]) -> Tensor:
    """torch.row_stack, vstack's other name: each tensor at least 2-D, joined along dim 0.

    Examples
    --------
    >>> fgrad.row_stack([fgrad.tensor([1, 2]), fgrad.tensor([[3, 4]])])
    tensor([[1, 2], [3, 4]])
    """
    return cat(atleast_2d(_sequence(tensors, "row_stack")), 0)


def dstack(tensors: Sequence[Tensor | ArrayLike]) -> Tensor:
    """Tensors joined depth-wise (torch.dstack): each made at least 3-D (atleast_3d), joined along dim
    2. Differentiable in each.

    Examples
    --------
    >>> fgrad.dstack([fgrad.tensor([1.0, 2.0]), fgrad.tensor([3.0, 4.0])])
    tensor([[[1., 3.], [2., 4.]]])
    """
    return cat(atleast_3d(_sequence(tensors, "dstack")), 2)


def column_stack(tensors: Sequence[Tensor | ArrayLike]) -> Tensor:
    """Tensors joined as columns (torch.column_stack): 0-D and 1-D ones as columns (n, 1), the others
    as they are, joined along dim 1. Differentiable in each.

    Examples
    --------
    >>> fgrad.column_stack([fgrad.tensor([1.0, 2.0]), fgrad.tensor([[3.0, 4.0], [5.0, 6.0]])])
    tensor([[1., 3., 4.], [2., 5., 6.]])
    """
    tensors = [_t(t) for t in _sequence(tensors, "column_stack")]
    return cat([fnp.reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in tensors], 1)


# ---- splitting -------------------------------------------------------------------------------
def tensor_split(input: Tensor | ArrayLike, indices_or_sections: int | Sequence[int] | Tensor,
                 dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of input along `dim` (torch.tensor_split): an int n gives n pieces, the first size % n of
    them one longer; a sequence of indices gives the pieces between them (as Python slices: negative
    indices count from the end, and an index past the end gives empty pieces); a 0-D int64 tensor is
    the int, a 1-D one the indices. Differentiable: each piece's gradient lands at its entries.

    Examples
    --------
    >>> x = fgrad.arange(7.0)
    >>> fgrad.tensor_split(x, 3)
    (tensor([0., 1., 2.]), tensor([3., 4.]), tensor([5., 6.]))
    >>> fgrad.tensor_split(x, fgrad.tensor([1, 5]))
    (tensor([0.]), tensor([1., 2., 3., 4.]), tensor([5., 6.]))
    """
    x = _t(input)
    if x.ndim == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {x.ndim} "
                           f"dims")
    sections = indices_or_sections
    if isinstance(sections, Tensor):
        if sections.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_scalar(sections.dtype)}")
        if sections.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {sections.ndim} dims")
        values = _values(sections)
        sections = int(values) if values.ndim == 0 else [int(i) for i in values]
    dim = wrap_dim(dim, x.ndim, "tensor_split")
    n = x.shape[dim]
    if isinstance(sections, (int, np.integer)):
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size, extra = divmod(n, int(sections))
        bounds = np.cumsum([0] + [size + 1] * extra + [size] * (int(sections) - extra)).tolist()
        edges = list(itertools.pairwise(bounds))
    else:
        cuts = [operator.index(i) for i in sections]
        edges = list(zip([0] + cuts, cuts + [None]))
    return tuple(x[_along(dim, slice(a, b))] for a, b in edges)


def _split_along(input, indices_or_sections, who, need, dim):
    x = _t(input)
    if x.ndim < need:
        raise RuntimeError(f"torch.{who} requires a tensor with at least {need} dimension, but got a tensor with "
                           f"{x.ndim} dimensions!")
    dim = 0 if who == "hsplit" and x.ndim == 1 else dim
    if isinstance(indices_or_sections, Tensor):
        raise TypeError(f"{who}() received an invalid combination of arguments - got (Tensor, Tensor), but expected "
                        f"one of: (Tensor input, int sections), (Tensor input, tuple of ints indices)")
    if isinstance(indices_or_sections, (int, np.integer)):
        size = x.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{who} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(x, indices_or_sections, dim)


def hsplit(input: Tensor | ArrayLike, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 1, or dim 0 of a 1-D tensor (torch.hsplit): an int must divide that dim's
    size (RuntimeError, as torch's); a sequence gives the indices. Differentiable.

    Examples
    --------
    >>> fgrad.hsplit(fgrad.arange(6.0).reshape(2, 3), [1])
    (tensor([[0.], [3.]]), tensor([[1., 2.], [4., 5.]]))
    >>> fgrad.hsplit(fgrad.arange(4.0), 2)
    (tensor([0., 1.]), tensor([2., 3.]))
    """
    return _split_along(input, indices_or_sections, "hsplit", 1, 1)


def vsplit(input: Tensor | ArrayLike, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 0 of a tensor of at least 2 dims (torch.vsplit): an int must divide its size.
    Differentiable.

    Examples
    --------
    >>> fgrad.vsplit(fgrad.arange(4.0).reshape(2, 2), 2)
    (tensor([[0., 1.]]), tensor([[2., 3.]]))
    """
    return _split_along(input, indices_or_sections, "vsplit", 2, 0)


def dsplit(input: Tensor | ArrayLike, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 2 of a tensor of at least 3 dims (torch.dsplit): an int must divide its size.
    Differentiable.

    Examples
    --------
    >>> [p.shape for p in fgrad.dsplit(fgrad.zeros(1, 2, 4), [1, 3])]
    [(1, 2, 1), (1, 2, 2), (1, 2, 1)]
    """
    return _split_along(input, indices_or_sections, "dsplit", 3, 2)


# ---- moving and reversing axes ------------------------------------------------------------------
def _swap(input, a, b, who):
    x = _t(input)
    a, b = wrap_dim(a, x.ndim, who), wrap_dim(b, x.ndim, who)
    return _t(fnp.swapaxes(x, a, b)) if x.ndim else x


def swapaxes(input: Tensor | ArrayLike, axis0: int, axis1: int) -> Tensor:
    """input with axes axis0 and axis1 exchanged (torch.swapaxes, transpose's other name; Tensor.swapaxes
    is this, not NumPy's). Differentiable.

    Examples
    --------
    >>> fgrad.swapaxes(fgrad.zeros(2, 3, 4), 0, -1).shape
    (4, 3, 2)
    """
    return _swap(input, axis0, axis1, "swapaxes")


def swapdims(input: Tensor | ArrayLike, dim0: int, dim1: int) -> Tensor:
    """input with dims dim0 and dim1 exchanged (torch.swapdims, transpose's other name). Differentiable.

    Examples
    --------
    >>> fgrad.swapdims(fgrad.tensor([[1.0, 2.0]]), 0, 1)
    tensor([[1.], [2.]])
    """
    return _swap(input, dim0, dim1, "swapdims")


def moveaxis(input: Tensor | ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    """input with its axes `source` moved to `destination` (torch.moveaxis, movedim's other name).
    Differentiable.

    Examples
    --------
    >>> fgrad.moveaxis(fgrad.zeros(2, 3, 4), [0, 1], [-1, -2]).shape
    (4, 3, 2)
    """
    return movedim(input, source, destination)


def ravel(input: Tensor | ArrayLike) -> Tensor:
    """input's entries as a 1-D tensor, in row-major order (torch.ravel; a 0-D one gives shape (1,)).
    Tensor.ravel is this (NumPy's took an `order`). Differentiable.

    Examples
    --------
    >>> fgrad.ravel(fgrad.tensor([[1, 2], [3, 4]])), fgrad.ravel(fgrad.tensor(5))
    (tensor([1, 2, 3, 4]), tensor([5]))
    """
    return _t(fnp.reshape(_t(input), (-1,)))


def flipud(input: Tensor | ArrayLike) -> Tensor:
    """input reversed along dim 0 (torch.flipud; at least 1-D, RuntimeError otherwise). Differentiable.

    Examples
    --------
    >>> fgrad.flipud(fgrad.tensor([[1, 2], [3, 4]]))
    tensor([[3, 4], [1, 2]])
    """
    x = _t(input)
    if x.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(x, [0])


def fliplr(input: Tensor | ArrayLike) -> Tensor:
    """input reversed along dim 1 (torch.fliplr; at least 2-D, RuntimeError otherwise). Differentiable.

    Examples
    --------
    >>> fgrad.fliplr(fgrad.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1], [4, 3]])
    """
    x = _t(input)
    if x.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(x, [1])


def rot90(input: Tensor | ArrayLike, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """input rotated by k quarter turns in the plane of `dims`, from the first axis toward the second
    (torch.rot90; k may be negative). Differentiable.

    Examples
    --------
    >>> fgrad.rot90(fgrad.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4], [1, 3]])
    >>> fgrad.rot90(fgrad.tensor([[1, 2], [3, 4]]), -1, [0, 1])
    tensor([[3, 1], [4, 2]])
    """
    x, dims = _t(input), list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {x.ndim}")
    axes = (wrap_dim(dims[0], x.ndim, "rot90"), wrap_dim(dims[1], x.ndim, "rot90"))
    if axes[0] == axes[1]:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    out = _t(fnp.rot90(x, operator.index(k), axes=axes))
    return out.clone() if out is x else out


# ---- triangles, blocks and combinations -----------------------------------------------------------
def _triangle(fn, who, row, col, offset, dtype, device):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype = np.dtype(np.int64 if dtype is None else dtype)
    if dtype.kind not in "iu":
        raise NotImplementedError(f"\"{who}\" not implemented for '{_scalar(dtype)}'")
    rows, cols = fn(row, offset, col)
    out = Tensor(np.stack([np.asarray(rows), np.asarray(cols)]).reshape(2, -1).astype(dtype))
    return out if device is None else out.to(device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The (row, column) indices of the lower triangle (entries with column - row <= offset) of a
    row x col matrix, as a 2 x N tensor in row-major order (torch.tril_indices): int64 (or an integer
    dtype=).

    Examples
    --------
    >>> fgrad.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]])
    """
    return _triangle(fnp.tril_indices, "tril_indices", row, col, offset, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The (row, column) indices of the upper triangle (entries with column - row >= offset) of a
    row x col matrix, as a 2 x N tensor in row-major order (torch.triu_indices): int64 (or an integer
    dtype=).

    Examples
    --------
    >>> fgrad.triu_indices(2, 3, 1)
    tensor([[0, 0, 1], [1, 2, 2]])
    """
    return _triangle(fnp.triu_indices, "triu_indices", row, col, offset, dtype, device)


def block_diag(*tensors: Tensor | ArrayLike) -> Tensor:
    """The block-diagonal matrix of the tensors (torch.block_diag): each 2-D one a block, a 1-D one of
    size n a 1 x n block, a 0-D one 1 x 1; zeros elsewhere; dtypes promoted as torch's. No tensors
    give a 1 x 0 tensor. Differentiable in each.

    Examples
    --------
    >>> fgrad.block_diag(fgrad.tensor([[1, 2]]), fgrad.tensor(3), fgrad.tensor([4, 5]))
    tensor([[1, 2, 0, 0, 0], [0, 0, 3, 0, 0], [0, 0, 0, 4, 5]])
    """
    tensors = [_t(t) for t in tensors]
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    if not tensors:
        return Tensor(np.zeros((1, 0), dtype=get_default_dtype()))
    dtype = result_type(*tensors)
    blocks = [fnp.reshape(t, (1, 1) if t.ndim == 0 else (1, -1)) if t.ndim < 2 else t for t in tensors]
    blocks = [b if b.dtype == dtype else astype(b, dtype) for b in blocks]
    width = builtins.sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, w = b.shape
        pad_left, pad_right = Tensor(np.zeros((r, left), dtype)), Tensor(np.zeros((r, width - left - w), dtype))
        rows.append(cat([pad_left, b, pad_right], 1))
        left += w
    return cat(rows, 0)


def cartesian_prod(*tensors: Tensor | ArrayLike) -> Tensor:
    """The Cartesian product of 1-D tensors of one dtype (torch.cartesian_prod): an N x k tensor whose
    rows are the k-tuples, the last tensor varying fastest (itertools.product's order); of one tensor,
    that tensor. Differentiable in each.

    Examples
    --------
    >>> fgrad.cartesian_prod(fgrad.tensor([1, 2]), fgrad.tensor([3, 4]))
    tensor([[1, 3], [1, 4], [2, 3], [2, 4]])
    """
    tensors = [_t(t) for t in tensors]
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([fnp.reshape(g, (-1,)) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input: Tensor | ArrayLike, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of a 1-D tensor's entries, one per row (torch.combinations,
    itertools.combinations' order; with_replacement: combinations_with_replacement's): an N x r tensor,
    shape (0, r) where there are none, and (0,) for r = 0. Differentiable: the gradient sums over the
    rows an entry appears in.

    Examples
    --------
    >>> fgrad.combinations(fgrad.tensor([1, 2, 3]))
    tensor([[1, 2], [1, 3], [2, 3]])
    >>> fgrad.combinations(fgrad.tensor([1, 2]), with_replacement=True)
    tensor([[1, 1], [1, 2], [2, 2]])
    """
    x = _t(input)
    if x.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(x.shape)}")
    r = operator.index(r)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor(np.empty((0,), dtype=x.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(pick(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return _t(fnp.take(x, index, axis=0))


# ---- diagonals ---------------------------------------------------------------------------------
def diag_embed(input: Tensor | ArrayLike, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor whose diagonals (offset `offset`) in the planes of dims dim1, dim2 of the result are
    input's last dim (torch.diag_embed): the result has one dim more, of size n + |offset| at dim1 and
    dim2, zeros off the diagonal. Differentiable.

    Examples
    --------
    >>> fgrad.diag_embed(fgrad.tensor([1.0, 2.0]), offset=1)
    tensor([[0., 1., 0.], [0., 0., 2.], [0., 0., 0.]])
    >>> fgrad.diag_embed(fgrad.ones(2, 3), dim1=0, dim2=2).shape
    (3, 2, 3)
    """
    x = _t(input)
    d1, d2 = wrap_dim(dim1, x.ndim + 1, "diag_embed"), wrap_dim(dim2, x.ndim + 1, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] if x.ndim else 1
    m = n + builtins.abs(offset)
    i = np.arange(n)
    zeros = Tensor(np.zeros(tuple(x.shape[:-1]) + (m, m), dtype=x.dtype))
    out = fnp.at(zeros)[..., i + builtins.max(-offset, 0), i + builtins.max(offset, 0)].set(x)
    return movedim(out, (-2, -1), (d1, d2))


def diagflat(input: Tensor | ArrayLike, offset: int = 0) -> Tensor:
    """The square matrix with input's entries (flattened) on its diagonal `offset`, zeros elsewhere
    (torch.diagflat). Differentiable.

    Examples
    --------
    >>> fgrad.diagflat(fgrad.tensor([[1, 2]]), 1)
    tensor([[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    """
    return _t(fnp.diagflat(_t(input), operator.index(offset)))


# ---- indexing ------------------------------------------------------------------------------------
def take(input: Tensor | ArrayLike, index: Tensor) -> Tensor:
    """The entries of input, read as a 1-D tensor, at `index` (an int64 tensor of any shape; negative
    indices count from the end), in index's shape (torch.take; Tensor.take is this, not NumPy's).
    Differentiable in input: the gradients add up at repeated indices.

    Examples
    --------
    >>> fgrad.take(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), fgrad.tensor([[0, -1], [2, 2]]))
    tensor([[1., 4.], [3., 3.]])
    """
    x = _t(input)
    if not isinstance(index, Tensor):
        raise TypeError(f"take(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    idx = _values(index)
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_scalar(idx.dtype)}")
    count = int(np.prod(x.shape, dtype=np.int64))
    bad = (idx < -count) | (idx >= count)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {idx[bad].flat[0]} on a tensor of {count} elements.")
    return _t(fnp.take(fnp.reshape(x, (-1,)), idx, axis=0))


def _index_vector(index, who):
    if not isinstance(index, Tensor):
        raise TypeError(f"{who}(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}")
    return _values(index)


def _check_bounds(idx, size, dim, who, error, negative=False):
    bad = (idx < (-size if negative else 0)) | (idx >= size)
    if bad.any():
        raise error(f"{who}index {idx[bad].flat[0]} is out of bounds for dimension {dim} with size {size}")
    return idx % size if negative and size else idx


def _shape_without(shape, dim):
    return [s for d, s in enumerate(shape) if d != dim]


def index_add(input: Tensor | ArrayLike, dim: int, index: Tensor, source: Tensor | ArrayLike, *,
              alpha: Any = 1) -> Tensor:
    """A copy of input with alpha * source[..., i, ...] added at input[..., index[i], ...] along `dim`
    (torch.index_add; repeated indices add up). `index` an int64 or int32 vector in [0, size); source of
    input's dtype and shape except along dim. Differentiable in input and source.

    Examples
    --------
    >>> x, s = fgrad.zeros(3, 2), fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> y = fgrad.index_add(x, 0, fgrad.tensor([2, 2]), s, alpha=2); y.sum().backward()
    >>> y, s.grad
    (tensor([[ 0.,  0.], [ 0.,  0.], [ 8., 12.]], grad_fn=<...>), tensor([[2., 2.], [2., 2.]]))
    """
    x, src = _t(input), _t(source)
    idx = _index_vector(index, "index_add")
    dim = wrap_dim(dim, x.ndim, "index_add")
    if idx.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{_scalar(idx.dtype)} and size: {list(idx.shape)}")
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {_scalar(idx.dtype)}")
    if x.dtype != src.dtype:
        raise RuntimeError(f"index_add_(): self ({_scalar(x.dtype)}) and source ({_scalar(src.dtype)}) must have "
                           f"the same scalar type")
    if dim != 0 and dim >= src.ndim:
        raise IndexError(f"index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                         f"{src.ndim}")
    along = src.shape[dim] if src.ndim else 1
    if idx.size != along:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({along}), for dim: {dim}")
    if (list(x.shape) if not (x.ndim and src.ndim) else _shape_without(x.shape, dim)) != \
            (list(src.shape) if not (x.ndim and src.ndim) else _shape_without(src.shape, dim)):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(x.shape)} source.shape = {list(src.shape)}")
    flat = _check_bounds(idx.reshape(-1).astype(np.int64), x.shape[dim] if x.ndim else 1, dim, "", RuntimeError)
    alpha = _scalar_in(alpha, x.dtype)  # (torch's: truncated for integers; out of range or complex: RuntimeError)
    values = src if builtins.isinstance(alpha, (int, float)) and alpha == 1 else src * alpha
    if not x.ndim:
        return _t(fnp.reshape(fnp.at(fnp.reshape(x, (1,)))[flat].add(fnp.reshape(values, (-1,))), ()))
    return _t(fnp.at(x)[_along(dim, flat)].add(values))


def index_copy(input: Tensor | ArrayLike, dim: int, index: Tensor, source: Tensor | ArrayLike) -> Tensor:
    """A copy of input with input[..., index[i], ...] = source[..., i, ...] along `dim` (torch.index_copy).
    `index` an int64 vector (or 0-D) in [0, size); source of input's dtype. Differentiable in input
    (zero gradient where overwritten) and source.

    Examples
    --------
    >>> fgrad.index_copy(fgrad.zeros(3, 2), 0, fgrad.tensor([2, 0]), fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[3., 4.], [0., 0.], [1., 2.]])
    """
    x, src = _t(input), _t(source)
    idx = _index_vector(index, "index_copy")
    dim = wrap_dim(dim, x.ndim, "index_copy")
    if idx.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if src.ndim == 0 and idx.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {idx.size})")
    if src.ndim != x.ndim and src.ndim and x.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({src.ndim}), destination dimensionality ({x.ndim})")
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_scalar(idx.dtype)}")
    if x.dtype != src.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_scalar(x.dtype)} and (source) {_scalar(src.dtype)}")
    mine = _shape_without(x.shape, dim) if x.ndim else []
    theirs = _shape_without(src.shape, dim) if src.ndim else []
    if mine != theirs:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, mine))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, theirs))} at dimension 0.")
    if src.ndim and idx.size != src.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                         f"({src.shape[dim]})")
    flat = _check_bounds(idx.reshape(-1), x.shape[dim] if x.ndim else 1, dim, "index_copy_(): ", IndexError)
    if not x.ndim:
        return _t(fnp.reshape(fnp.at(fnp.reshape(x, (1,)))[flat].set(fnp.reshape(src, (-1,))), ()))
    values = src if src.ndim else fnp.reshape(src, (1,) * x.ndim)
    return _t(fnp.at(x)[_along(dim, flat)].set(values))


def index_fill(input: Tensor | ArrayLike, dim: int, index: Tensor, value: Tensor | float) -> Tensor:
    """A copy of input with `value` (a number or a 0-D tensor, cast to input's dtype) at the positions
    `index` (an int64 vector or 0-D, negative counting from the end) along `dim` (torch.index_fill).
    Differentiable in input (zero gradient at the filled entries) and in a tensor value.

    Examples
    --------
    >>> fgrad.index_fill(fgrad.zeros(2, 3), 1, fgrad.tensor([0, -1]), 5.0)
    tensor([[5., 0., 5.], [5., 0., 5.]])
    """
    x = _t(input)
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    idx = _index_vector(index, "index_fill")
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    dim = wrap_dim(dim, x.ndim, "index_fill")
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    flat = _check_bounds(idx.reshape(-1), x.shape[dim] if x.ndim else 1, dim, "", IndexError, negative=True)
    if (isinstance(value, complex) or getattr(value, "dtype", np.dtype(np.float64)).kind == "c") and \
            x.dtype.kind != "c":  # (its imaginary part would be dropped)
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    if isinstance(value, Tensor):
        value = value if value.dtype == x.dtype else astype(value, x.dtype)
    else:
        value = np.asarray(fitted(value, x.dtype), dtype=x.dtype)
    if not x.ndim:
        return _t(fnp.reshape(fnp.at(fnp.reshape(x, (1,)))[flat].set(value), ()))
    return _t(fnp.at(x)[_along(dim, flat)].set(value))


# ---- tests of a tensor ---------------------------------------------------------------------------
def _is_tensor(input, who):
    if not isinstance(input, Tensor):
        raise TypeError(f"{who}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def is_floating_point(input: Tensor) -> bool:
    """Whether input's dtype is a real floating-point type (torch.is_floating_point; Tensor's method).

    Examples
    --------
    >>> fgrad.is_floating_point(fgrad.tensor([1.0])), fgrad.is_floating_point(fgrad.tensor([1]))
    (True, False)
    """
    _is_tensor(input, "is_floating_point")
    return input.dtype.kind == "f"


def is_complex(input: Tensor) -> bool:
    """Whether input's dtype is a complex type (torch.is_complex; Tensor's method).

    Examples
    --------
    >>> fgrad.is_complex(fgrad.tensor([1j])), fgrad.is_complex(fgrad.tensor([1.0]))
    (True, False)
    """
    _is_tensor(input, "is_complex")
    return input.dtype.kind == "c"


def is_nonzero(input: Tensor) -> bool:
    """Whether a tensor of one entry (of any shape) is not zero, as a Python bool (torch.is_nonzero; NaN
    counts as nonzero); RuntimeError for no entries or several.

    Examples
    --------
    >>> fgrad.is_nonzero(fgrad.tensor([[3]])), fgrad.is_nonzero(fgrad.tensor(0.0))
    (True, False)
    """
    _is_tensor(input, "is_nonzero")
    values = _values(input).reshape(-1)
    if values.size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if values.size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(values[0])


# ---- statistics and sampled integrals ---------------------------------------------------------------
def _weights(w, name, observations, floating):
    w = _t(w)
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} "
                           f"dimensions")
    if (w.dtype.kind in "fc") != floating or w.dtype.kind == "b":
        raise RuntimeError(f"cov(): expected {name} to have {'floating point' if floating else 'integral'} dtype but "
                           f"got {name} with {_scalar(w.dtype)} dtype")
    count = int(np.prod(w.shape, dtype=np.int64))
    if count != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {count} != {observations}")
    if observations and np.min(_values(w)) < 0:
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return w


def cov(input: Tensor | ArrayLike, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in input's rows, its columns the observations (torch.cov;
    a 0-D or 1-D input is one variable: a 0-D result). `correction` is subtracted from the count (1:
    Bessel's, 0: the sample's own), `fweights` integer counts and `aweights` floating weights per
    observation; a count past the observations gives inf (or NaN). Integer inputs are computed in the
    default floating dtype. Differentiable in input and aweights.

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 2.0, 4.0], [2.0, 0.0, 1.0]], requires_grad=True)
    >>> fgrad.cov(x)
    tensor([[ 2.33333333, -0.5       ], [-0.5       ,  1.        ]], grad_fn=<...>)
    >>> fgrad.cov(x[0], correction=0)
    tensor(1.55555556, grad_fn=<...>)
    """
    x = _t(input)
    if x.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {x.ndim} "
                           f"dimensions")
    if x.dtype == np.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if isinstance(correction, builtins.float):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    observations = x.shape[1] if x.ndim == 2 else int(np.prod(x.shape, dtype=np.int64))
    correction = operator.index(correction)
    x = _floating(x)
    dtype = x.dtype
    if fweights is not None:
        fweights = _values(_weights(fweights, "fweights", observations, False)).reshape(-1)
    rows = x if x.ndim == 2 else fnp.reshape(x, (1, -1))
    if aweights is not None:
        aweights = _weights(aweights, "aweights", observations, True)
        dtype = result_type(rows, aweights)
        aweights = fnp.reshape(aweights, (-1,))
    real = np.finfo(dtype).dtype
    if fweights is not None:  # (counts in the data's real dtype: int64 would promote float32 data to float64)
        fweights = fweights.astype(real)
    # torch's divisor: the (weighted) count less the correction, or 0 where that is not positive
    w = np.ones(observations, real) if fweights is None else fweights
    w = w if aweights is None else w * _values(aweights)
    total = np.sum(w)
    if (fweights is not None or aweights is not None) and total == 0:
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    factor = total - correction * (np.sum(w * _values(aweights)) / total if aweights is not None else 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _t(fnp.cov(rows, ddof=correction if factor > 0 else 0, fweights=fweights, aweights=aweights,
                         dtype=dtype))
        if not factor > 0:  # (the sums over 0: inf, -inf, or NaN where they are 0, as torch's)
            out = out * np.asarray(np.inf, real)
    return fnp.reshape(out, ()) if x.ndim < 2 and out.ndim else out


def corrcoef(input: Tensor | ArrayLike) -> Tensor:
    """The Pearson correlation coefficients of the variables in input's rows (torch.corrcoef): cov(input)
    divided by the outer product of the standard deviations, clipped to [-1, 1] (a complex one's real
    and imaginary parts each); a 0-D or 1-D input gives cov / cov. Differentiable.

    Examples
    --------
    >>> fgrad.corrcoef(fgrad.tensor([[1.0, 2.0, 4.0], [2.0, 0.0, 1.0]]))
    tensor([[ 1.        , -0.32732684], [-0.32732684,  1.        ]])
    """
    x = _t(input)
    if x.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{x.ndim} dimensions")
    c = cov(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        if c.ndim == 0:
            return _t(c / c)
        d = fnp.diagonal(c)
        std = fnp.sqrt(fnp.real(d) if c.dtype.kind == "c" else d)
        if c.dtype.kind == "c":
            std = astype(std, c.dtype)
        c = c / std[:, None]
        c = c / std[None, :]
    if c.dtype.kind == "c":
        re, im = fnp.clip(fnp.real(c), -1, 1), fnp.clip(fnp.imag(c), -1, 1)
        return _t(astype(re, c.dtype) + astype(im, c.dtype) * np.asarray(1j, c.dtype))
    return _t(fnp.clip(c, -1, 1))


def _samples(y, x, dx, dim, who):
    """y (and x) ready for a sampled integral: y floating, dim nonnegative, x (if given) checked and of
    the result's dtype, shaped to broadcast along dim when 1-D."""
    y = _t(y)
    if y.dtype == np.bool_:
        raise RuntimeError(f"{who}: received a bool input for `y`, but bool is not supported")
    if x is not None and dx is not None:
        raise TypeError(f"{who}(): give the sample points x or the spacing dx, not both")
    if x is not None and not isinstance(x, (Tensor, np.ndarray, list, tuple)):
        raise TypeError(f"{who}(): x must be a Tensor (the spacing is dx=, a keyword: {who}(y, dx=...))")
    if not y.ndim:
        if who == "cumulative_trapezoid":
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        shape_index(dim, 0, who)
    dim = wrap_dim(dim, y.ndim, who)
    y = _floating(y)
    if x is not None:
        x = _t(x)
        if x.dtype == np.bool_:
            raise RuntimeError(f"{who}: received a bool input for `x`, but bool is not supported")
        if x.ndim == 1:
            if x.shape[0] != y.shape[dim]:
                raise RuntimeError(f"{who}: There must be one `x` value for each sample point")
            x = fnp.reshape(x, (1,) * dim + (-1,) + (1,) * (y.ndim - dim - 1))
        if x.dtype.kind not in "fc":  # (else x and y kept: torch takes x's steps and y's pairs in their dtypes)
            x = astype(x, result_type(y, x))
    return y, x, dim


def trapezoid(y: Tensor | ArrayLike, x: Tensor | ArrayLike | None = None, *, dx: float | None = None,
              dim: int = -1) -> Tensor:
    """The integral of the samples y along `dim` by the trapezoidal rule (torch.trapezoid): at the sample
    points x (a 1-D tensor of one per sample, or one that broadcasts with y), or spaced `dx` apart (a
    keyword; default 1). Integer samples are computed in the default floating dtype (no samples give
    zeros of y's dtype). Differentiable in y and x.

    Examples
    --------
    >>> y = fgrad.tensor([1.0, 2.0, 4.0], requires_grad=True)
    >>> fgrad.trapezoid(y), fgrad.trapezoid(y, fgrad.tensor([0.0, 1.0, 3.0])), fgrad.trapezoid(y, dx=0.5)
    (tensor(4.5, grad_fn=<...>), tensor(7.5, grad_fn=<...>), tensor(2.25, grad_fn=<...>))
    """
    given = _t(y)
    y, x, dim = _samples(given, x, dx, dim, "trapezoid")
    if not y.shape[dim]:  # (no samples: zeros of y's own dtype, as torch's)
        return Tensor(np.zeros(tuple(y.shape[:dim]) + tuple(y.shape[dim + 1:]), given.dtype))
    if x is None:
        return _t(fnp.trapezoid(y, dx=1 if dx is None else dx, axis=dim))
    return _t(fnp.trapezoid(y, x, axis=dim))


def trapz(y: Tensor | ArrayLike, x: Tensor | ArrayLike | None = None, *, dx: float | None = None,
          dim: int = -1) -> Tensor:
    """torch.trapz, trapezoid's other name: the trapezoidal rule's integral of y along `dim`, at x or
    spaced dx apart. Differentiable in y and x.

    Examples
    --------
    >>> fgrad.trapz(fgrad.tensor([1.0, 2.0, 4.0]), dx=2.0)
    tensor(9.)
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor | ArrayLike, x: Tensor | ArrayLike | None = None, *, dx: float | None = None,
                         dim: int = -1) -> Tensor:
    """The running integrals of the samples y along `dim` by the trapezoidal rule
    (torch.cumulative_trapezoid): one fewer than the samples along dim, at the points x or spaced dx
    apart (default 1), as trapezoid's. Differentiable in y and x.

    Examples
    --------
    >>> fgrad.cumulative_trapezoid(fgrad.tensor([1.0, 2.0, 4.0]))
    tensor([1.5, 4.5])
    >>> fgrad.cumulative_trapezoid(fgrad.tensor([1.0, 2.0, 4.0]), fgrad.tensor([0.0, 1.0, 3.0]))
    tensor([1.5, 7.5])
    """
    y, x, dim = _samples(y, x, dx, dim, "cumulative_trapezoid")
    pairs = y[_along(dim, slice(1, None))] + y[_along(dim, slice(None, -1))]
    if x is None:
        return _t(fnp.cumsum((1 if dx is None else dx) / 2.0 * pairs, axis=dim))
    return _t(fnp.cumsum(fnp.diff(x, axis=dim) * pairs, axis=dim) / 2.0)


# ---- Tensor methods ----------------------------------------------------------------------------
# torch.Tensor's methods among them (is_floating_point and is_complex are Tensor's own already);
# swapaxes, ravel and take replace the NumPy methods Tensor inherits from Tracer. (swapaxes_ and
# swapdims_ change self's shape in place, which fgrad's in-place writes do not: not bound.)
METHODS = ("broadcast_to", "corrcoef", "cov", "diag_embed", "diagflat", "dsplit", "fliplr", "flipud", "hsplit",
           "index_add", "index_copy", "index_fill", "is_nonzero", "moveaxis", "ravel", "rot90", "swapaxes",
           "swapdims", "take", "tensor_split", "vsplit")


def _in_place(name):
    """Tensor.name_: fgrad.name of a copy of self (`at` keeps views of its operand for the gradient, which
    writing into self would change), written into self."""
    fn = globals()[name]

    def method(self, *args, **keywords):
        return self._inplace(fn(self.clone(), *args, **keywords), f"{name}_")
    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = (f"self = fgrad.{name}(self, ...) written into self, in place (torch.Tensor.{name}_); "
                      f"recorded for autograd as {name}. Returns self.")
    return method


_IN_PLACE = {f"{name}_": _in_place(name) for name in ("index_add", "index_copy", "index_fill")}


def _bind():
    for name in METHODS:
        if name not in Tensor.__dict__:
            setattr(Tensor, name, globals()[name])
    for name, fn in _IN_PLACE.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, fn)


_bind()
