"""fgrad.nn.init: torch.nn.init's initializers, which overwrite a tensor in place (without
recording: under no_grad) and return it, and calculate_gain.

Draws come from `generator=` (a fgrad.Generator) or fgrad's default stream, so fgrad.manual_seed
makes them repeatable; they follow torch's formulas (bounds, standard deviations, fans, gains)
but not torch's random numbers, whose generator differs.
"""
import math
import warnings

import numpy as np

from ..autograd.factories import _rng
from ..autograd.generator import Generator
from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from ..ops.special import erfinv

__all__ = [
    "calculate_gain", "constant_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_", "orthogonal_",
    "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "sigmoid")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """torch's recommended gain for a nonlinearity (leaky_relu's negative slope as param).

    Examples
    --------
    >>> fgrad.nn.init.calculate_gain("relu"), fgrad.nn.init.calculate_gain("tanh")
    (1.4142135623730951, 1.6666666666666667)
    """
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _rng_of(generator):
    return generator.numpy if generator is not None else _rng[0]


def _write(tensor, values):
    """values into tensor, in its dtype, without recording."""
    with no_grad():
        return tensor.copy_(np.asarray(values, dtype=tensor.dtype))


def _shape(tensor):
    return tuple(tensor.shape)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill `tensor`, in place and not recorded for autograd, with draws from U(a, b), from
    `generator` or fgrad.default_generator. Returns the tensor.

    Examples
    --------
    >>> w = fgrad.nn.init.uniform_(fgrad.empty(1000), -2.0, 2.0)
    >>> bool((w >= -2.0).all() and (w < 2.0).all())
    True
    """
    return _write(tensor, _rng_of(generator).uniform(a, b, _shape(tensor)))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill `tensor`, in place and not recorded for autograd, with draws from N(mean, std**2), from
    `generator` or fgrad.default_generator. Returns the tensor.

    Examples
    --------
    >>> w = fgrad.nn.init.normal_(fgrad.empty(10000), mean=3.0, std=0.5)
    >>> round(w.mean().item(), 1), round(w.std().item(), 1)
    (3.0, 0.5)
    """
    return _write(tensor, _rng_of(generator).normal(mean, std, _shape(tensor)))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std**2) truncated to [a, b], by torch's inverse-CDF method.

    Examples
    --------
    >>> w = fgrad.nn.init.trunc_normal_(fgrad.empty(1000), a=-1.0, b=1.0)
    >>> bool((w.abs() <= 1.0).all())
    True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)
    lo, hi = (0.5 * (1.0 + math.erf((v - mean) / std / math.sqrt(2.0))) for v in (a, b))
    u = _rng_of(generator).uniform(2 * lo - 1, 2 * hi - 1, _shape(tensor))
    return _write(tensor, np.clip(np.asarray(erfinv(u)) * (std * math.sqrt(2.0)) + mean, a, b))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill `tensor` with `val`, in place and not recorded for autograd (torch.nn.init.constant_).
    Returns the tensor.

    Examples
    --------
    >>> fgrad.nn.init.constant_(fgrad.empty(2), 0.5)
    tensor([0.5, 0.5])
    """
    return _write(tensor, np.full(_shape(tensor), val))


def ones_(tensor: Tensor) -> Tensor:
    """Fill `tensor` with ones, in place and not recorded for autograd. Returns the tensor.

    Examples
    --------
    >>> fgrad.nn.init.ones_(fgrad.empty(2))
    tensor([1., 1.])
    """
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill `tensor` with zeros, in place and not recorded for autograd. Returns the tensor.

    Examples
    --------
    >>> fgrad.nn.init.zeros_(fgrad.empty(2))
    tensor([0., 0.])
    """
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (a 2-D tensor only), ones on the diagonal of a non-square one.

    Examples
    --------
    >>> fgrad.nn.init.eye_(fgrad.empty(2, 3))
    tensor([[1., 0., 0.], [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*_shape(tensor)))


def _calculate_fan_in_and_fan_out(tensor):
    """torch's fans: in = size(1) * receptive field, out = size(0) * receptive field."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(_shape(tensor)[2:], dtype=np.int64))
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio).

    Examples
    --------
    >>> w = fgrad.nn.init.xavier_uniform_(fgrad.empty(300, 500))
    >>> bool(w.abs().max() <= (6 / 800) ** 0.5)
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out)).

    Examples
    --------
    >>> w = fgrad.nn.init.xavier_normal_(fgrad.empty(300, 500))
    >>> round(w.std().item(), 2)  # sqrt(2 / (fan_in + fan_out))
    0.05
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))


def _empty(tensor):
    if 0 in _shape(tensor):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """U(-b, b), b = gain * sqrt(3 / fan) (He et al.); `a` is leaky_relu's negative slope.

    Examples
    --------
    >>> w = fgrad.nn.init.kaiming_uniform_(fgrad.empty(400, 300), nonlinearity="relu")
    >>> bool(w.abs().max() <= (6 / 300) ** 0.5)  # U(-b, b), b = sqrt(6 / fan_in)
    True
    """
    if _empty(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator: Generator | None = None) -> Tensor:
    """Fill `tensor`, in place, with draws from N(0, std**2), std = gain / sqrt(fan) (He et al.):
    fan is the fan_in or fan_out (`mode`), gain calculate_gain(nonlinearity, a), `a` the leaky ReLU
    slope. Draws come from `generator` or the default one; a tensor with no entries is left as it
    is, with a warning. Returns the tensor.

    Examples
    --------
    >>> w = fgrad.nn.init.kaiming_normal_(fgrad.empty(400, 300), nonlinearity="relu")
    >>> round(w.std().item(), 2)  # sqrt(2 / fan_in)
    0.08
    """
    if _empty(tensor):
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """A (semi-)orthogonal matrix (trailing axes flattened): Q of the QR of a normal draw, its
    columns' signs fixed by R's diagonal, times gain (Saxe et al.; torch's construction).

    Examples
    --------
    >>> Q = fgrad.nn.init.orthogonal_(fgrad.empty(3, 3))
    >>> bool(fgrad.allclose(Q @ Q.T, fgrad.eye(3)))
    True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _rng_of(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _write(tensor, gain * q.reshape(_shape(tensor)))
