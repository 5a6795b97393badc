"""Norms and distances of torch 2.13's nn.functional: normalize, cosine_similarity,
pairwise_distance and pdist, and the Modules CosineSimilarity and PairwiseDistance.

The p-norms here take torch's derivatives where the norm is not differentiable: 0 at a zero
vector (and at a zero entry when p < 1), the sign of x for p=1; for p=inf vector norms split
the gradient between tied largest entries (torch.norm's), pdist gives each tie the whole of it
(torch's pdist backward). They are computed so that those points raise no floating-point
warnings (no 0/0 taken and then masked).
"""
import math

import numpy as np

from .. import numpy as fnp
from ..autograd.dims import wrap_dims
from ..autograd.dtypes import get_default_dtype
from ..autograd.tensor import Tensor, TensorOrArray
from ..ops.stop_gradient import stop_gradient
from .module import Module
from .modules import _TORCH_NAMES
from .parameters import on_device_of

__all__ = ["CosineSimilarity", "PairwiseDistance", "cosine_similarity", "normalize", "pairwise_distance", "pdist"]


def dtype_name(dtype):
    """torch's name of a dtype in its messages (Long, Float, Double, ...)."""
    return _TORCH_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _kind(x):
    return np.dtype(fnp.result_type(x)).kind


def _where_positive(s, fn):
    """fn(s) where s > 0, else 0, without evaluating fn at 0 (no inf times 0 in the gradient)."""
    positive = s > 0
    return fnp.where(positive, fn(fnp.where(positive, s, 1.0)), 0.0)


def _norm(x, p, axis, keepdim):
    """The p-norm of x along axis (None for all of a 0-D x), torch's values and derivatives."""
    if p == 2:  # (|x|^2 of a complex x is x conj(x), real)
        square = fnp.real(x * fnp.conj(x)) if _kind(x) == "c" else x * x
        return _where_positive(fnp.sum(square, axis=axis, keepdims=keepdim), fnp.sqrt)
    a = fnp.abs(x)
    if p == 1:
        return fnp.sum(a, axis=axis, keepdims=keepdim)
    if p == math.inf:
        return fnp.max(a, axis=axis, keepdims=keepdim)
    if p == -math.inf:
        return fnp.min(a, axis=axis, keepdims=keepdim)
    if p == 0:  # the number of nonzeros: piecewise constant, a zero gradient (still attached, as torch's)
        return fnp.sum(fnp.where(x != 0, 1.0, 0.0 * x), axis=axis, keepdims=keepdim)
    if p < 0:
        return fnp.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    s = fnp.sum(_where_positive(a, lambda v: v ** p), axis=axis, keepdims=keepdim)
    return _where_positive(s, lambda v: v ** (1.0 / p))


def _floating(x, who):
    if _kind(x) not in "fc":
        raise RuntimeError(f"{who}: Expected a floating point or complex tensor as input. Got "
                           f"{dtype_name(fnp.result_type(x))}")


def normalize(input: TensorOrArray, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> TensorOrArray:
    """input / max(||input||_p, eps) along `dim`: unit p-norm vectors (torch's F.normalize; its
    derivative through the clamp is 0 where the norm is below eps, as torch's clamp_min).

    Examples
    --------
    >>> x = fgrad.tensor([[3.0, 4.0], [0.0, 0.0]], requires_grad=True)
    >>> y = fgrad.nn.functional.normalize(x); y[:, 0].sum().backward()
    >>> y, x.grad  # a zero row stays zero
    (tensor([[0.6, 0.8], [0. , 0. ]], grad_fn=<...>), tensor([[ 1.28e-01, -9.60e-02], [ 1.00e+12,  0.00e+00]]))
    """
    if out is not None:
        raise NotImplementedError("fgrad.nn.functional.normalize: out= is not supported (fgrad returns a new value)")
    _floating(input, "linalg.vector_norm")
    axis = wrap_dims(dim, input.ndim, "normalize")
    n = _norm(input, p, axis, True)
    return input / fnp.where(n < eps, eps, n)


def _broadcast(x1, x2):
    s1, s2 = tuple(x1.shape), tuple(x2.shape)
    try:
        shape = np.broadcast_shapes(s1, s2)
    except ValueError:
        nd = max(len(s1), len(s2))
        a, b = (1,) * (nd - len(s1)) + s1, (1,) * (nd - len(s2)) + s2
        i = next(i for i in range(nd) if a[i] != b[i] and 1 not in (a[i], b[i]))
        raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at non-singleton "
                           f"dimension {i}") from None
    return fnp.broadcast_to(x1, shape), fnp.broadcast_to(x2, shape)


def _common_float(x1, x2, who):
    """torch's promotion of two inputs; integer ones to the default float dtype (pairwise_distance's
    `+ eps`), or an error (cosine_similarity)."""
    common = np.dtype(fnp.result_type(x1, x2))
    if common.kind not in ("f" if who is not None else "fc"):
        if who is not None:
            raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                               f"{dtype_name(common)}")
        common = np.dtype(get_default_dtype())
    return _to(x1, common), _to(x2, common)


def _to(x, dtype):
    if np.dtype(fnp.result_type(x)) == dtype:
        return x
    return x.to(dtype) if isinstance(x, Tensor) else fnp.asarray(x).astype(dtype)


def cosine_similarity(x1: TensorOrArray, x2: TensorOrArray, dim: int = 1, eps: float = 1e-8) -> TensorOrArray:
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along `dim`, the inputs broadcast
    together first (torch 2.13's: each normalized before the product, so the result stays in
    [-1, 1]). As torch's, the clamp is invisible to the derivative: the norms' derivatives are
    the unclamped ones.

    Examples
    --------
    >>> a = fgrad.tensor([[1.0, 0.0], [1.0, 1.0]], requires_grad=True)
    >>> s = fgrad.nn.functional.cosine_similarity(a, fgrad.tensor([[1.0, 1.0]])); s.sum().backward()
    >>> s, a.grad[0]  # b / (|a| |b|) - s a / |a| ** 2
    (tensor([0.70710678, 1.        ], grad_fn=<...>), tensor([0.        , 0.70710678]))
    """
    x1, x2 = _common_float(x1, x2, "cosine_similarity")
    x1, x2 = _broadcast(x1, x2)
    axis = wrap_dims(dim, x1.ndim, "cosine_similarity")
    n1, n2 = _norm(x1, 2, axis, True), _norm(x2, 2, axis, True)
    n1 = n1 + stop_gradient(fnp.maximum(n1, eps) - n1)  # (torch clamps them in place under no_grad)
    n2 = n2 + stop_gradient(fnp.maximum(n2, eps) - n2)
    return fnp.sum((x1 / n1) * (x2 / n2), axis=axis)


def pairwise_distance(x1: TensorOrArray, x2: TensorOrArray, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> TensorOrArray:
    """||x1 - x2 + eps||_p along the last axis (of the broadcast inputs), as torch's.

    Examples
    --------
    >>> a = fgrad.tensor([[3.0, 4.0], [1.0, 1.0]], requires_grad=True)
    >>> d = fgrad.nn.functional.pairwise_distance(a, fgrad.zeros(2), eps=0.0); d.sum().backward()
    >>> d, a.grad
    (tensor([5.        , 1.41421356], grad_fn=<...>), tensor([[0.6       , 0.8       ], [0.70710678, 0.70710678]]))
    """
    x1, x2 = _broadcast(*_common_float(x1, x2, None))
    nd = x1.ndim
    diff = x1 - x2 + eps
    return _norm(diff, p, None if nd == 0 else nd - 1, keepdim)


def pdist(input: TensorOrArray, p: float = 2) -> TensorOrArray:
    """The p-norm distances between the rows of a 2-D input, pair (i, j) for i < j in row-major
    order: n (n - 1) / 2 of them, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]], requires_grad=True)
    >>> d = fgrad.nn.functional.pdist(x); d.sum().backward()
    >>> d, x.grad
    (tensor([5.        , 1.        , 4.24264069], grad_fn=<...>), tensor([[-0.6       , -1.8       ],
            [ 1.30710678,  1.50710678], [-0.70710678,  0.29289322]]))
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if _kind(input) != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    diff = fnp.take(input, on_device_of(input, i), axis=0) - fnp.take(input, on_device_of(input, j), axis=0)
    if p == math.inf:  # each tied largest entry gets the whole gradient (torch's pdist backward)
        a = fnp.abs(diff)
        if 0 in diff.shape:  # no pairs (one row) or no columns: the zero distances, with no max to take
            return fnp.sum(a, axis=-1)
        top = stop_gradient(fnp.max(a, axis=-1, keepdims=True))
        return fnp.sum(fnp.where(a == top, a - top, 0.0), axis=-1) + fnp.sum(top, axis=-1)
    return _norm(diff, p, 1, False)


class CosineSimilarity(Module):
    """`CosineSimilarity(dim, eps)(x1, x2)` is fgrad.nn.functional.cosine_similarity(x1, x2, dim,
    eps), as a Module (torch.nn.CosineSimilarity).

    Examples
    --------
    >>> fgrad.nn.CosineSimilarity(dim=0)(fgrad.tensor([1.0, 0.0]), fgrad.tensor([2.0, 0.0]))
    tensor(1.)
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """`PairwiseDistance(p, eps, keepdim)(x1, x2)` is fgrad.nn.functional.pairwise_distance(x1, x2,
    p, eps, keepdim), as a Module (torch.nn.PairwiseDistance; p is kept as `norm`, as torch's).

    Examples
    --------
    >>> fgrad.nn.PairwiseDistance(p=1.0, eps=0.0)(fgrad.tensor([[1.0, 2.0]]), fgrad.tensor([[0.0, 0.0]]))
    tensor([3.])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
