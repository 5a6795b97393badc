"""fgrad.nn.utils: torch.nn.utils's gradient clipping (clip_grad_norm_, clip_grad_value_, and
the two halves of the first, get_total_norm and clip_grads_with_norm_) and the conversions
between parameters and one flat vector.

The gradients are changed in place without recording (under no_grad), as torch's.
"""
import math

import numpy as np

from .. import numpy as fnp
from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from ..autograd.torch_functions import cat
from ..typing import Iterable

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm", "parameters_to_vector",
           "vector_to_parameters"]


def _tensors(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _grads(parameters):
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


def _vector_norm(x, norm_type):
    x = fnp.abs(fnp.ravel(x))
    if norm_type == math.inf:
        return fnp.max(x)
    if norm_type == -math.inf:
        return fnp.min(x)
    if norm_type == 0:
        return fnp.sum(x != 0).astype(x.dtype)
    return fnp.sum(x**norm_type) ** (1.0 / norm_type)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the norms of tensors (as if of all their entries in one vector).

    Examples
    --------
    >>> fgrad.nn.utils.get_total_norm([fgrad.tensor([3.0]), fgrad.tensor([4.0])])
    tensor(5.)
    """
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor(np.asarray(0.0))
    with no_grad():
        norms = fnp.stack([_vector_norm(t.detach(), norm_type) for t in tensors])
        total = _vector_norm(norms, norm_type)
    total = total if isinstance(total, Tensor) else Tensor(total)
    if error_if_nonfinite and not bool(np.isfinite(total.numpy())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           f"it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           f"norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scale the gradients by min(1, max_norm / (total_norm + 1e-6)).

    Examples
    --------
    >>> p = fgrad.nn.Parameter(fgrad.zeros(2)); p.grad = fgrad.tensor([3.0, 4.0])
    >>> fgrad.nn.utils.clip_grads_with_norm_([p], 1.0, fgrad.tensor(5.0)); p.grad  # scaled by 1 / (5 + 1e-6)
    tensor([0.59999988, 0.79999984])
    """
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = fnp.minimum(float(max_norm) / (total_norm + 1e-6), 1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype) if isinstance(coef, Tensor) else coef)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale the gradients so that their total norm is at most max_norm; returns the norm before.

    Examples
    --------
    >>> p = fgrad.nn.Parameter(fgrad.zeros(2)); p.grad = fgrad.tensor([3.0, 4.0])
    >>> fgrad.nn.utils.clip_grad_norm_([p], max_norm=1.0), p.grad  # the norm before it
    (tensor(5.), tensor([0.59999988, 0.79999984]))
    """
    parameters = _tensors(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient to [-clip_value, clip_value].

    Examples
    --------
    >>> p = fgrad.nn.Parameter(fgrad.zeros(2)); p.grad = fgrad.tensor([3.0, -0.5])
    >>> fgrad.nn.utils.clip_grad_value_([p], 1.0); p.grad
    tensor([ 1. , -0.5])
    """
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and joined into one vector (a copy).

    Examples
    --------
    >>> m = fgrad.nn.Linear(2, 1)
    >>> fgrad.nn.utils.parameters_to_vector(m.parameters()).shape  # weight (1, 2) and bias (1,)
    (3,)
    """
    params = _tensors(parameters)
    _one_device(params)
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """The slices of vec, in order, become the parameters' values.

    Examples
    --------
    >>> m = fgrad.nn.Linear(2, 1)
    >>> fgrad.nn.utils.vector_to_parameters(fgrad.tensor([1.0, 2.0, 3.0]), m.parameters())
    >>> m.weight.data, m.bias.data
    (tensor([[1., 2.]]), tensor([3.]))
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = _tensors(parameters)
    _one_device(params)
    total = sum(p.numel() for p in params)
    if vec.numel() != total:
        raise RuntimeError(f"vector_to_parameters: vec has {vec.numel()} entries, the parameters {total}")
    start = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec.detach()[start:start + n].reshape(tuple(p.shape)))
            start += n


def _one_device(params):
    devices = {str(p.device) for p in params}
    if len(devices) > 1:
        raise TypeError(f"Found two parameters on different devices, these are {' and '.join(sorted(devices))}")
