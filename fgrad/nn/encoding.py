"""F.one_hot, torch 2.13's: int64 class indices as int64 one-hot rows (a new last axis of
num_classes), with torch's checks of the indices (non-negative, below num_classes) and of an
empty input whose number of classes cannot be inferred. It has no Module, as in torch.
"""
import numpy as np

from .. import numpy as fnp
from ..autograd.tensor import Tensor, TensorOrArray
from ..backend.arrays import to_host
from ..ir.value import decided, is_batched, is_staged
from .parameters import on_device_of

__all__ = ["one_hot"]


def one_hot(tensor: TensorOrArray, num_classes: int = -1) -> TensorOrArray:
    """The one-hot encoding of int64 class indices: shape tensor.shape + (num_classes,), int64,
    1 where the last index equals the class. num_classes=-1 infers it as the largest index + 1.
    Not differentiable (an integer result).

    Examples
    --------
    >>> fgrad.nn.functional.one_hot(fgrad.tensor([0, 2, 1]))
    tensor([[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    >>> fgrad.nn.functional.one_hot(fgrad.tensor([1]), num_classes=4)
    tensor([[0, 1, 0, 0]])
    """
    if np.dtype(fnp.result_type(tensor)) != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    num_classes = int(num_classes)
    shape = tuple(tensor.shape)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    elif num_classes == -1 or not (is_batched(tensor) or is_staged(tensor)):  # (traced indices go unchecked)
        values = to_host(decided(tensor.detach() if hasattr(tensor, "detach") else tensor,
                                 "one_hot's class indices (num_classes=-1 reads them)"))
        if values.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = int(values.max()) + 1
        elif num_classes <= values.max():
            raise RuntimeError("Class values must be smaller than num_classes.")
    classes = on_device_of(tensor, np.arange(num_classes, dtype=np.int64))
    hot = fnp.equal(fnp.expand_dims(tensor, -1), classes)
    return hot.to(np.int64) if isinstance(hot, Tensor) else hot.astype(np.int64)
