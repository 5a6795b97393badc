"""torch.nn's activations: each functional function (fgrad.nn.functional re-exports them) beside
its Module, with torch 2.13's signatures, defaults and derivatives.

Each is written in fgrad ops, so it differentiates to any order and runs under every transform.
Where torch's derivative at a kink is a convention (relu's 0 at 0, hardtanh's 0 at its ends,
elu's alpha at 0), the `where` below picks the branch torch's backward picks; the branch not
taken is computed on a clipped argument, so its unused exp cannot overflow into a NaN gradient.
"""
import math
import warnings

import numpy as np

from .. import numpy as fnp
from ..autograd.dims import wrap_dims
from ..autograd.dtypes import get_default_dtype
from ..autograd.factories import _rng
from ..autograd.tensor import Tensor, TensorOrArray
from ..backend import Device
from ..backend import device as to_device
from ..numpy import _softmax
from ..ops.special import erf, expit, log_expit
from ..typing import Array, DTypeLike
from .distance import dtype_name
from .module import Module, Parameter
from .parameters import on_device_of, real_only, scalar_of_kind

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "SELU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "PReLU",
    "RReLU",
    "ReLU",
    "ReLU6",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
    "celu",
    "elu",
    "gelu",
    "glu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "leaky_relu",
    "log_softmax",
    "logsigmoid",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "rrelu",
    "selu",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _maybe_inplace(input, result, inplace, name):
    """torch's inplace=True: the result written into input (a Tensor), else returned."""
    if not inplace:
        return result
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(inplace=True) needs a Tensor input, got {type(input).__name__}")
    return input._inplace(result, name + "_")


def _negative_part(x):
    """x where x <= 0, else 0: the argument of an exp that only the x <= 0 branch uses."""
    return fnp.where(x > 0, 0.0, x)


def relu(input: TensorOrArray, inplace: bool = False) -> TensorOrArray:
    """max(x, 0); its derivative at 0 is 0, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    >>> y = fgrad.nn.functional.relu(x); y.sum().backward()
    >>> y, x.grad  # the derivative at 0 is 0
    (tensor([0., 0., 2.], grad_fn=<...>), tensor([0., 0., 1.]))
    """
    return _maybe_inplace(input, fnp.where(input > 0, input, 0.0), inplace, "relu")


def relu6(input: TensorOrArray, inplace: bool = False) -> TensorOrArray:
    """min(max(x, 0), 6), elementwise (hardtanh on [0, 6]; `inplace` writes into input).
    Differentiable: the gradient is 1 inside (0, 6), else 0.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 3.0, 8.0], requires_grad=True)
    >>> y = fgrad.nn.functional.relu6(x); y.sum().backward()
    >>> y, x.grad
    (tensor([0., 3., 6.], grad_fn=<...>), tensor([0., 1., 0.]))
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: TensorOrArray, negative_slope: float = 0.01, inplace: bool = False) -> TensorOrArray:
    """x for x > 0, negative_slope * x otherwise.

    Examples
    --------
    >>> x = fgrad.tensor([-2.0, 3.0], requires_grad=True)
    >>> y = fgrad.nn.functional.leaky_relu(x, 0.1); y.sum().backward()
    >>> y, x.grad
    (tensor([-0.2,  3. ], grad_fn=<...>), tensor([0.1, 1. ]))
    """
    return _maybe_inplace(input, fnp.where(input > 0, input, input * negative_slope), inplace, "leaky_relu")


def prelu(input: TensorOrArray, weight: Tensor | Array) -> TensorOrArray:
    """leaky_relu with a learned slope: one for all, or one per channel (axis 1; a 1-D input has one).

    Examples
    --------
    >>> w = fgrad.tensor([0.25], requires_grad=True)
    >>> y = fgrad.nn.functional.prelu(fgrad.tensor([-2.0, 3.0]), w); y.sum().backward()
    >>> y, w.grad  # the slope's gradient sums the negative inputs
    (tensor([-0.5,  3. ], grad_fn=<...>), tensor([-2.]))
    """
    n = int(np.prod(weight.shape))
    if input.ndim == 0 and n != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                           f"and channel size = {channels}.")
    # one slope for all, or one per channel (axis 1), broadcast over the axes after it
    slope = weight.reshape(()) if n == 1 else weight.reshape((-1,) + (1,) * max(input.ndim - 2, 0))
    return fnp.where(input > 0, input, slope * input)


def elu(input: TensorOrArray, alpha: float = 1.0, inplace: bool = False) -> TensorOrArray:
    """x for x > 0, alpha * (exp(x) - 1) otherwise.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 2.0], requires_grad=True)
    >>> y = fgrad.nn.functional.elu(x); y.sum().backward()
    >>> y, x.grad  # exp(x) - 1 below 0, with the derivative exp(x)
    (tensor([-0.63212056,  2.        ], grad_fn=<...>), tensor([0.36787944, 1.        ]))
    """
    out = fnp.where(input > 0, input, alpha * fnp.expm1(_negative_part(input)))
    return _maybe_inplace(input, out, inplace, "elu")


def selu(input: TensorOrArray, inplace: bool = False) -> TensorOrArray:
    """scale * elu(x, alpha) with SELU's self-normalizing constants.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 2.0], requires_grad=True)
    >>> fgrad.nn.functional.selu(x)
    tensor([-1.11133074,  2.10140197], grad_fn=<...>)
    >>> fgrad.gradcheck(fgrad.nn.functional.selu, (x,))
    True
    """
    out = _SELU_SCALE * fnp.where(input > 0, input, _SELU_ALPHA * fnp.expm1(_negative_part(input)))
    return _maybe_inplace(input, out, inplace, "selu")


def gelu(input: TensorOrArray, approximate: str = "none") -> TensorOrArray:
    """x * Phi(x) (approximate='none'), or torch's tanh approximation of it (approximate='tanh').

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    >>> y = fgrad.nn.functional.gelu(x); y.sum().backward()
    >>> y, x.grad  # x Phi(x), its derivative Phi(x) + x phi(x)
    (tensor([-0.15865525,  0.        ,  0.84134475], grad_fn=<...>), tensor([-0.08331547,  0.5       ,  1.08331547]))
    """
    if approximate == "none":
        return 0.5 * input * (1.0 + erf(input * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (input + 0.044715 * (input * input * input))
        return 0.5 * input * (1.0 + fnp.tanh(inner))
    raise RuntimeError(f"approximate argument must be either none or tanh. (got {approximate!r})")


def silu(input: TensorOrArray, inplace: bool = False) -> TensorOrArray:
    """x * sigmoid(x), elementwise (SiLU, swish; `inplace` writes into input). Differentiable.

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> y = fgrad.nn.functional.silu(x); y.sum().backward()
    >>> y, x.grad
    (tensor([0.        , 0.73105858], grad_fn=<...>), tensor([0.5       , 0.92767051]))
    """
    return _maybe_inplace(input, input * expit(input), inplace, "silu")


def mish(input: TensorOrArray, inplace: bool = False) -> TensorOrArray:
    """x * tanh(softplus(x)), elementwise (Mish; `inplace` writes into input). Differentiable.

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> fgrad.nn.functional.mish(x)
    tensor([0.        , 0.86509839], grad_fn=<...>)
    >>> fgrad.gradcheck(fgrad.nn.functional.mish, (x,))
    True
    """
    return _maybe_inplace(input, input * fnp.tanh(fnp.logaddexp(input, 0.0)), inplace, "mish")


def softplus(input: TensorOrArray, beta: float = 1.0, threshold: float = 20.0) -> TensorOrArray:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (torch's).

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 30.0], requires_grad=True)
    >>> y = fgrad.nn.functional.softplus(x); y.sum().backward()
    >>> y, x.grad  # x itself above the threshold
    (tensor([ 0.69314718, 30.        ], grad_fn=<...>), tensor([0.5, 1. ]))
    """
    scaled = input * beta
    linear = scaled > threshold
    soft = fnp.log1p(fnp.exp(fnp.where(linear, 0.0, scaled))) / beta
    return fnp.where(linear, input, soft)


def hardtanh(input: TensorOrArray, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> TensorOrArray:
    """x clipped to [min_val, max_val]; its derivative is 0 at and beyond both ends, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([-2.0, 0.5, 1.0], requires_grad=True)
    >>> y = fgrad.nn.functional.hardtanh(x); y.sum().backward()
    >>> y, x.grad  # no gradient at and beyond the ends
    (tensor([-1. ,  0.5,  1. ], grad_fn=<...>), tensor([0., 1., 0.]))
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    inside = fnp.where(input <= min_val, min_val, fnp.where(input >= max_val, max_val, input))
    return _maybe_inplace(input, inside, inplace, "hardtanh")


def sigmoid(input: TensorOrArray) -> TensorOrArray:
    """1 / (1 + exp(-x)), elementwise and stable for large |x| (scipy.special.expit). Differentiable.

    Examples
    --------
    >>> x = fgrad.tensor([0.0], requires_grad=True)
    >>> y = fgrad.nn.functional.sigmoid(x); y.sum().backward()
    >>> y, x.grad  # sigmoid(x) (1 - sigmoid(x))
    (tensor([0.5], grad_fn=<...>), tensor([0.25]))
    """
    return expit(input)


def logsigmoid(input: TensorOrArray) -> TensorOrArray:
    """log(sigmoid(x)), computed without overflow.

    Examples
    --------
    >>> x = fgrad.tensor([-1000.0, 0.0], requires_grad=True)
    >>> y = fgrad.nn.functional.logsigmoid(x); y.sum().backward()
    >>> y, x.grad  # no overflow at -1000; the derivative is sigmoid(-x)
    (tensor([-1.00000000e+03, -6.93147181e-01], grad_fn=<...>), tensor([1. , 0.5]))
    """
    return log_expit(input)


def tanh(input: TensorOrArray) -> TensorOrArray:
    """The hyperbolic tangent, elementwise (fgrad.numpy.tanh). Differentiable: 1 - tanh(x)**2.

    Examples
    --------
    >>> x = fgrad.tensor([0.0], requires_grad=True)
    >>> fgrad.nn.functional.tanh(x).sum().backward(); x.grad  # 1 - tanh(x) ** 2
    tensor([1.])
    """
    return fnp.tanh(input)


def _softmax_dim(name, dim, ndim):
    """`dim` checked and made nonnegative (wrap_dims); None: torch's implicit dim (0 for 0-, 1- and
    3-D input, else 1), with its warning."""
    if dim is None:
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                      f"as an argument.", UserWarning, stacklevel=3)
        dim = 0 if ndim in (0, 1, 3) else 1
    return wrap_dims(dim, ndim, name)


def _cast(input, dtype):
    return input if dtype is None else input.astype(dtype) if not isinstance(input, Tensor) else input.to(dtype)


def softmax(input: TensorOrArray, dim: int | None = None, _stacklevel: int = 3,
            dtype: DTypeLike | None = None) -> TensorOrArray:
    """exp(x) / sum(exp(x)) along dim (input cast to dtype first, where given).

    Examples
    --------
    >>> x = fgrad.tensor([[0.0, 0.0], [0.0, np.log(3.0)]], requires_grad=True)
    >>> p = fgrad.nn.functional.softmax(x, dim=1); p[:, 0].sum().backward()
    >>> p, x.grad  # the Jacobian p (delta - p)
    (tensor([[0.5 , 0.5 ], [0.25, 0.75]], grad_fn=<...>), tensor([[ 0.25  , -0.25  ], [ 0.1875, -0.1875]]))
    """
    dim = _softmax_dim("softmax", dim, input.ndim)
    return _softmax.softmax(_cast(input, dtype), axis=dim)


def softmin(input: TensorOrArray, dim: int | None = None, _stacklevel: int = 3,
            dtype: DTypeLike | None = None) -> TensorOrArray:
    """softmax(-input) along `dim`: weights summing to 1 that favor the smallest entries (`dtype` casts
    input first; dim=None picks torch's legacy default). Differentiable.

    Examples
    --------
    >>> fgrad.nn.functional.softmin(fgrad.tensor([0.0, np.log(3.0)]), dim=0)
    tensor([0.75, 0.25])
    """
    dim = _softmax_dim("softmin", dim, input.ndim)
    return _softmax.softmax(-_cast(input, dtype), axis=dim)


def log_softmax(input: TensorOrArray, dim: int | None = None, _stacklevel: int = 3,
                dtype: DTypeLike | None = None) -> TensorOrArray:
    """log(softmax(input)) along `dim`: input minus its logsumexp, computed stably (torch's
    F.log_softmax; `dtype` casts input first; dim=None picks torch's legacy default with a
    warning). Differentiable.

    Examples
    --------
    >>> x = fgrad.tensor([0.0, np.log(3.0)], requires_grad=True)
    >>> y = fgrad.nn.functional.log_softmax(x, dim=0); y[1].backward()
    >>> y.exp(), x.grad  # d log p1 / dx = delta - p
    (tensor([0.25, 0.75], grad_fn=<...>), tensor([-0.25,  0.25]))
    """
    dim = _softmax_dim("log_softmax", dim, input.ndim)
    return _softmax.log_softmax(_cast(input, dtype), axis=dim)


def _float_input(input):
    """An integer or boolean input as the default float dtype (torch's softsign and tanhshrink
    promote it); a floating one as it is."""
    kind = np.dtype(fnp.result_type(input)).kind
    return input if kind in "fc" else _cast(input, get_default_dtype())


def softsign(input: TensorOrArray) -> TensorOrArray:
    """x / (1 + |x|), elementwise. Differentiable: 1 / (1 + |x|) ** 2 (1 at 0).

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.0, 3.0], requires_grad=True)
    >>> y = fgrad.nn.functional.softsign(x); y.sum().backward()
    >>> y, x.grad
    (tensor([-0.5 ,  0.  ,  0.75], grad_fn=<...>), tensor([0.25  , 1.    , 0.0625]))
    """
    input = _float_input(input)
    return input / (1.0 + fnp.abs(input))


def tanhshrink(input: TensorOrArray) -> TensorOrArray:
    """x - tanh(x), elementwise. Differentiable: tanh(x) ** 2.

    Examples
    --------
    >>> x = fgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> y = fgrad.nn.functional.tanhshrink(x); y.sum().backward()
    >>> y, x.grad
    (tensor([0.        , 0.23840584], grad_fn=<...>), tensor([0.        , 0.58002566]))
    """
    input = _float_input(input)
    return input - fnp.tanh(input)


def threshold(input: TensorOrArray, threshold: float, value: float, inplace: bool = False) -> TensorOrArray:
    """x where x > threshold, else value; the gradient is 1 where x > threshold, else 0 (0 at the
    threshold itself, as torch's). An integer input stays integer (value cast to its dtype).

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    >>> y = fgrad.nn.functional.threshold(x, 0.5, -3.0); y.sum().backward()
    >>> y, x.grad  # no gradient at the threshold
    (tensor([-3., -3.,  2.], grad_fn=<...>), tensor([0., 0., 1.]))
    """
    real_only("threshold", input)
    out = fnp.where(input > threshold, input, scalar_of_kind(value, fnp.result_type(input)))
    return _maybe_inplace(input, out, inplace, "threshold")


def glu(input: TensorOrArray, dim: int = -1) -> TensorOrArray:
    """a * sigmoid(b), where a and b are the two halves of input along `dim` (its size must be even).

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 2.0, 0.0, 0.0]], requires_grad=True)
    >>> y = fgrad.nn.functional.glu(x); y.sum().backward()
    >>> y, x.grad  # sigmoid(b), and a sigmoid(b) (1 - sigmoid(b))
    (tensor([[0.5, 1. ]], grad_fn=<...>), tensor([[0.5 , 0.5 , 0.25, 0.5 ]]))
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = wrap_dims(dim, input.ndim, "glu")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    index = (slice(None),) * dim
    a, b = input[index + (slice(0, size // 2),)], input[index + (slice(size // 2, size),)]
    return a * expit(b)


def hardswish(input: TensorOrArray, inplace: bool = False) -> TensorOrArray:
    """x * relu6(x + 3) / 6, elementwise (MobileNetV3's). Its derivative is torch's: 0 for x <= -3,
    x / 3 + 1/2 for -3 < x < 3, and 1 for x >= 3.

    Examples
    --------
    >>> x = fgrad.tensor([-3.0, 0.0, 1.5, 3.0], requires_grad=True)
    >>> y = fgrad.nn.functional.hardswish(x); y.sum().backward()
    >>> y, x.grad
    (tensor([0.   , 0.   , 1.125, 3.   ], grad_fn=<...>), tensor([0. , 0.5, 1. , 1. ]))
    """
    real_only("hardswish", input)
    out = fnp.where(input <= -3.0, 0.0, fnp.where(input < 3.0, input * (input + 3.0) / 6.0, input))
    return _maybe_inplace(input, out, inplace, "hardswish")


def hardsigmoid(input: TensorOrArray, inplace: bool = False) -> TensorOrArray:
    """relu6(x + 3) / 6, elementwise: 0 below -3, 1 above 3, linear between (the gradient 1/6
    strictly inside, 0 at and beyond ±3, as torch's; torch's backward rounds its 1/6 to float32,
    fgrad's is exact).

    Examples
    --------
    >>> x = fgrad.tensor([-3.0, 0.0, 3.0], requires_grad=True)
    >>> y = fgrad.nn.functional.hardsigmoid(x); y.sum().backward()
    >>> y, x.grad
    (tensor([0. , 0.5, 1. ], grad_fn=<...>), tensor([0.        , 0.16666667, 0.        ]))
    """
    real_only("hardsigmoid", input)
    out = fnp.where(input <= -3.0, 0.0, fnp.where(input >= 3.0, 1.0, input / 6.0 + 0.5))
    return _maybe_inplace(input, out, inplace, "hardsigmoid")


def celu(input: TensorOrArray, alpha: float = 1.0, inplace: bool = False) -> TensorOrArray:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise (derivative 1 at 0, as torch's;
    torch's backward takes 1 / alpha from alpha rounded to float32, fgrad's is exact).

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    >>> y = fgrad.nn.functional.celu(x, alpha=2.0); y.sum().backward()
    >>> y, x.grad  # exp(x / alpha) below 0
    (tensor([-0.78693868,  0.        ,  2.        ], grad_fn=<...>), tensor([0.60653066, 1.        , 1.        ]))
    """
    real_only("celu", input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    negative = _negative_part(input)
    below = alpha * fnp.expm1(negative / alpha)
    return _maybe_inplace(input, fnp.where(input > 0, input, below), inplace, "celu")


def hardshrink(input: TensorOrArray, lambd: float = 0.5) -> TensorOrArray:
    """x where |x| > lambd, else 0; the gradient is 0 on [-lambd, lambd], ends included (torch's).

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.5, 0.2, 2.0], requires_grad=True)
    >>> y = fgrad.nn.functional.hardshrink(x); y.sum().backward()
    >>> y, x.grad
    (tensor([-1.,  0.,  0.,  2.], grad_fn=<...>), tensor([1., 0., 0., 1.]))
    """
    real_only("hardshrink", input)
    return fnp.where((input >= -lambd) & (input <= lambd), 0.0, input)


def _lambda_bound(dtype):
    return float(np.finfo(dtype).max) if np.dtype(dtype).kind == "f" else float(np.finfo(np.float32).max)


def softshrink(input: TensorOrArray, lambd: float = 0.5) -> TensorOrArray:
    """x - lambd above lambd, x + lambd below -lambd, 0 between (gradient 0 on [-lambd, lambd]);
    lambd must be nonnegative, as torch's.

    Examples
    --------
    >>> x = fgrad.tensor([-1.0, 0.2, 2.0], requires_grad=True)
    >>> y = fgrad.nn.functional.softshrink(x); y.sum().backward()
    >>> y, x.grad
    (tensor([-0.5,  0. ,  1.5], grad_fn=<...>), tensor([1., 0., 1.]))
    """
    real_only("softshrink", input)
    dtype = np.dtype(fnp.result_type(input))
    if not 0 <= lambd <= _lambda_bound(dtype):
        names = {"float64": "Double", "float32": "Float", "float16": "Half"}
        raise RuntimeError(f"lambda must be in range [0, {_lambda_bound(dtype):g}] for input dtype "
                           f"{names.get(dtype.name, dtype.name)}, but found {lambd:g}")
    return fnp.where(input > lambd, input - lambd, fnp.where(input < -lambd, input + lambd, 0.0))


def rrelu(input: TensorOrArray, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> TensorOrArray:
    """Randomized leaky ReLU: x for x > 0, else x times a slope. In training each entry's slope is
    drawn uniformly from [lower, upper] (from fgrad's default generator: fgrad.manual_seed repeats
    them, torch's draws differ); out of training (torch's default for the function) it is the mean
    slope (lower + upper) / 2. The derivative is 1 for x > 0, the slope at and below 0, as torch's.

    Examples
    --------
    >>> fgrad.nn.functional.rrelu(fgrad.tensor([-2.0, 3.0]), 0.1, 0.3)
    tensor([-0.4,  3. ])
    >>> y = fgrad.nn.functional.rrelu(fgrad.tensor([-2.0, 3.0]), 0.1, 0.3, training=True)
    >>> bool(-0.6 <= y[0] <= -0.2), float(y[1])
    (True, 3.0)
    """
    real_only("rrelu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    dtype = np.dtype(fnp.result_type(input))
    if dtype.kind != "f":  # (the slopes cast to an integer dtype would truncate to 0)
        raise NotImplementedError(f"\"rrelu_with_noise_out_cpu\" not implemented for '{dtype_name(dtype)}'")
    slopes = _rng[0].uniform(lower, upper, tuple(input.shape)).astype(dtype)
    out = fnp.where(input > 0, input, input * on_device_of(input, slopes))
    return _maybe_inplace(input, out, inplace, "rrelu")


# ---- the Modules -------------------------------------------------------------------------------
class _Inplace(Module):
    """An activation with torch's `inplace` flag."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    def forward(self, input: Tensor) -> Tensor:
        return relu(input, self.inplace)


class ReLU6(_Inplace):
    def forward(self, input: Tensor) -> Tensor:
        return relu6(input, self.inplace)


class SiLU(_Inplace):
    def forward(self, input: Tensor) -> Tensor:
        return silu(input, self.inplace)


class Mish(_Inplace):
    def forward(self, input: Tensor) -> Tensor:
        return mish(input, self.inplace)


class SELU(_Inplace):
    def forward(self, input: Tensor) -> Tensor:
        return selu(input, self.inplace)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class PReLU(Module):
    """leaky_relu with learned slopes: `weight` of shape (num_parameters,), each `init` at first.

    Examples
    --------
    >>> m = fgrad.nn.PReLU()
    >>> m(fgrad.tensor([-2.0, 3.0])).sum().backward()
    >>> m.weight, m.weight.grad  # the slope learns from the negative inputs
    (Parameter containing: tensor([0.25], requires_grad=True), tensor([-2.]))
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: str | Device | None = None,
                 dtype: DTypeLike | None = None) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        weight = np.full((num_parameters,), init, dtype=dtype or get_default_dtype())
        self.weight = Parameter(weight if device is None else to_device(device).send(weight))

    def forward(self, input: Tensor) -> Tensor:
        return prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return sigmoid(input)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return tanh(input)


class LogSigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return logsigmoid(input)


class _Softmaxes(Module):
    fn = None

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return type(self).fn(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_Softmaxes):
    fn = staticmethod(softmax)


class Softmin(_Softmaxes):
    fn = staticmethod(softmin)


class LogSoftmax(_Softmaxes):
    fn = staticmethod(log_softmax)


class Softsign(Module):
    def forward(self, input: Tensor) -> Tensor:
        return softsign(input)


class Tanhshrink(Module):
    def forward(self, input: Tensor) -> Tensor:
        return tanhshrink(input)


class Hardswish(_Inplace):
    def forward(self, input: Tensor) -> Tensor:
        return hardswish(input, self.inplace)

    def extra_repr(self) -> str:  # (torch's prints no flag)
        return ""


class Hardsigmoid(_Inplace):
    def forward(self, input: Tensor) -> Tensor:
        return hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """`GLU(dim)(input)` is fgrad.nn.functional.glu(input, dim), as a Module (torch.nn.GLU): the
    first half of input along dim, gated by the sigmoid of the second.

    Examples
    --------
    >>> fgrad.nn.GLU()(fgrad.tensor([[1.0, 2.0, 0.0, 0.0]]))
    tensor([[0.5, 1. ]])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class CELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    def forward(self, input: Tensor) -> Tensor:
        return softshrink(input, self.lambd)


class RReLU(Module):
    """`RReLU(lower, upper)(input)` is fgrad.nn.functional.rrelu(input, lower, upper, self.training):
    random slopes in [lower, upper] for the entries at and below 0 in training mode, the mean slope
    (lower + upper) / 2 in eval mode, as torch.nn.RReLU.

    Examples
    --------
    >>> m = fgrad.nn.RReLU(0.1, 0.3).eval()
    >>> m(fgrad.tensor([-2.0, 3.0]))
    tensor([-0.4,  3. ])
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


def _document(cls, fn, init=""):
    """The docstring of `cls`, the Module of `fn`: what it calls, and an example checking it against fn."""
    call = f", {init}" if init else ""
    cls.__doc__ = (f"`{cls.__name__}({init})(input)` is fgrad.nn.functional.{fn.__name__}(input{call}), as a Module\n"
                   f"(torch.nn.{cls.__name__}): see {fn.__name__} for what it computes and how it differentiates.\n\n"
                   f"Examples\n--------\n"
                   f">>> m = fgrad.nn.{cls.__name__}({init})\n"
                   f">>> x = fgrad.tensor([-1.0, 0.5, 2.0], requires_grad=True)\n"
                   f">>> bool(fgrad.equal(m(x), fgrad.nn.functional.{fn.__name__}(x{call})))\n"
                   f"True\n")


for _cls, _fn, _init in (
        (ReLU, relu, ""), (ReLU6, relu6, ""), (SiLU, silu, ""), (Mish, mish, ""), (SELU, selu, ""),
        (LeakyReLU, leaky_relu, "negative_slope=0.2"), (ELU, elu, "alpha=0.5"), (GELU, gelu, "approximate='tanh'"),
        (Softplus, softplus, "beta=2.0"), (Hardtanh, hardtanh, "min_val=-0.5, max_val=1.0"), (Sigmoid, sigmoid, ""),
        (Tanh, tanh, ""), (LogSigmoid, logsigmoid, ""), (Softmax, softmax, "dim=0"), (Softmin, softmin, "dim=0"),
        (LogSoftmax, log_softmax, "dim=0"), (Softsign, softsign, ""), (Tanhshrink, tanhshrink, ""),
        (Hardswish, hardswish, ""), (Hardsigmoid, hardsigmoid, ""), (Threshold, threshold, "threshold=0.1, value=20.0"),
        (CELU, celu, "alpha=0.5"), (Hardshrink, hardshrink, "lambd=0.3"),
        (Softshrink, softshrink, "lambd=0.3")):
    _document(_cls, _fn, _init)
