"""Embeddings: F.embedding and nn.Embedding, torch 2.13's: rows of a weight table picked by
integer indices. The row at padding_idx gets no gradient (it stays what it is, zeros by
default), as torch's.
"""
import numpy as np

from .. import numpy as fnp
from ..autograd.dtypes import name as dtype_name
from ..autograd.tensor import Tensor, TensorOrArray
from ..backend import Device
from ..ops.stop_gradient import stop_gradient
from ..typing import Array, DTypeLike
from .module import Module, Parameter
from .parameters import normal, on_device_of, real_only

__all__ = ["Embedding", "embedding"]


def _padding_index(padding_idx, num_embeddings):
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % num_embeddings


def embedding(input: TensorOrArray, weight: Tensor | Array, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> TensorOrArray:
    """weight[input]: for integer indices of any shape, the rows of weight (num_embeddings, dim)."""
    real_only("embedding", weight)
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("fgrad.nn.functional.embedding: max_norm, scale_grad_by_freq and sparse are not "
                                  "supported (torch's renormalizing writes and sparse gradients)")
    dtype = fnp.result_type(input)
    if not np.issubdtype(dtype, np.integer):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {dtype_name(dtype)} instead (while checking arguments for embedding)")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    padding_idx = _padding_index(padding_idx, weight.shape[0])
    if padding_idx is not None:  # the padding row's gradient is held at zero
        row = on_device_of(weight, (np.arange(weight.shape[0]) == padding_idx)[:, None])
        weight = fnp.where(row, stop_gradient(weight), weight)
    return fnp.take(weight, input, axis=0)


class Embedding(Module):
    """torch.nn.Embedding: a (num_embeddings, embedding_dim) table, N(0, 1) initialized, its
    padding_idx row zero.

    Examples
    --------
    >>> m = fgrad.nn.Embedding(4, 2)
    >>> y = m(fgrad.tensor([1, 1, 3])); y.sum().backward()
    >>> y.shape, m.weight.grad[:, 0]  # each row's gradient counts its uses
    ((3, 2), tensor([0., 2., 0., 1.]))
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Tensor | None = None, _freeze: bool = False,
                 device: str | Device | None = None, dtype: DTypeLike | None = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = normal((num_embeddings, embedding_dim), device, dtype)
            if self.padding_idx is not None:
                self.weight.data[self.padding_idx] = 0.0
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight.detach().numpy() if hasattr(_weight, "detach") else np.asarray(_weight))
        self.weight.requires_grad_(not _freeze)

    def forward(self, input: Tensor) -> Tensor:
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An Embedding holding `embeddings` (2-D), frozen unless freeze=False."""
        rows, dim = embeddings.shape
        return cls(rows, dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight=embeddings,
                   _freeze=freeze)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")
