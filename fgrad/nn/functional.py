"""fgrad.nn.functional: activations and losses, written in fgrad ops (differentiable to any order)."""
import numpy as np

from .. import numpy as fnp
from ..ir.value import concrete, is_batched, is_staged
from ..numpy import _softmax
from ..ops.special import expit
from .conv import conv1d, conv2d, conv_transpose2d  # noqa: F401  (the layers' functions live with their Modules)
from .dropout import dropout, dropout2d  # noqa: F401
from .normalization import batch_norm, group_norm, layer_norm, rms_norm  # noqa: F401
from .pooling import adaptive_avg_pool2d, avg_pool2d, max_pool1d, max_pool2d  # noqa: F401
from .sparse import embedding  # noqa: F401

__all__ = ["cross_entropy", "linear", "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid", "softmax", "tanh"]


def relu(x):
    return fnp.where(x > 0, x, 0.0)


def tanh(x):
    return fnp.tanh(x)


def sigmoid(x):
    return expit(x)


_TORCH_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble", "int64": "Long", "int32": "Int", "bool": "Bool"}


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as torch.nn.functional.linear. As torch's, input and weight must
    have one dtype: a float64 batch into a float32 layer raises instead of promoting silently."""
    if fnp.result_type(input) != weight.dtype:
        a, b = (str(np.dtype(d)) for d in (fnp.result_type(input), weight.dtype))
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_TORCH_NAMES.get(a, a)} and "
                           f"{_TORCH_NAMES.get(b, b)}")
    out = fnp.matmul(input, fnp.swapaxes(weight, -1, -2))
    return out if bias is None else out + bias


def log_softmax(x, dim=-1):
    return _softmax.log_softmax(x, axis=dim)


def softmax(x, dim=-1):
    return _softmax.softmax(x, axis=dim)


def _reduce(loss, reduction, where):
    if reduction == "mean":
        return fnp.mean(loss)
    if reduction == "sum":
        return fnp.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{where}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def mse_loss(input, target, reduction="mean"):
    target_shape = tuple(np.shape(target) if not hasattr(target, "shape") else target.shape)
    if tuple(input.shape) != target_shape:
        raise ValueError(f"mse_loss: input shape {tuple(input.shape)} and target shape {target_shape} differ")
    d = input - target
    return _reduce(d * d, reduction, "mse_loss")


def nll_loss(log_probs, target, reduction="mean"):
    """Negative log-likelihood of integer class targets (shape (N,)) under log_probs (N, C)."""
    labels = target
    n, c = log_probs.shape
    _check_class_indices(labels, "nll_loss")
    if is_batched(labels) or is_staged(labels):  # under vmap each example picks its own, under compile the
        # program does (the labels are its operands, not guarded values); NumPy's indexing checks the range
        if tuple(labels.shape) != (n,):
            raise ValueError(f"nll_loss: targets must be {n} class indices in [0, {c}), got shape {labels.shape}")
    else:
        labels = np.asarray(concrete(labels)).astype(np.int64)
        if labels.shape != (n,) or labels.min(initial=0) < 0 or labels.max(initial=0) >= c:
            raise ValueError(f"nll_loss: targets must be {n} class indices in [0, {c}), got shape {labels.shape}")
    picked = log_probs[np.arange(n), labels]
    return _reduce(-picked, reduction, "nll_loss")


def _dtype(x):
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def _check_class_indices(target, where, probabilities=False):
    """Class indices are integers: float labels are refused, never truncated (torch: "expected
    target dtype to be Long"), and so are booleans."""
    dtype = _dtype(target)
    if not np.issubdtype(dtype, np.integer):
        raise TypeError(f"{where}: class-index targets must have an integer dtype, got {dtype} (shape "
                        f"{tuple(np.shape(target)) if not hasattr(target, 'shape') else tuple(target.shape)}); "
                        f"convert exact labels with target.astype(np.int64) (a Tensor: target.long())"
                        + (", or pass class probabilities of the input's shape" if probabilities else ""))


def cross_entropy(input, target, reduction="mean"):
    """Cross-entropy of logits `input` (N, C) with class indices (an integer target of shape
    (N,)) or class probabilities (a floating-point target of the input's shape), as torch's."""
    logp = log_softmax(input, dim=-1)
    if not np.issubdtype(_dtype(target), np.floating):
        _check_class_indices(target, "cross_entropy", probabilities=True)
        return nll_loss(logp, target, reduction)
    shape = tuple(target.shape) if hasattr(target, "shape") else np.shape(target)
    if shape != tuple(input.shape):
        raise ValueError(f"cross_entropy: a floating-point target holds class probabilities and must have the "
                         f"input's shape {tuple(input.shape)}, got shape {shape} (dtype {_dtype(target)}); class "
                         f"indices must be integers: convert exact labels with target.astype(np.int64) (a "
                         f"Tensor: target.long())")
    return _reduce(-fnp.sum(target * logp, axis=-1), reduction, "cross_entropy")
