"""fgrad.special: torch.special's functions on Tensors, by torch's names and signatures.

Each is a primitive of fgrad/ops/special.py (the kernels fgrad.scipy.special binds, with their
derivative rules) or an fgrad.numpy function, returned as a Tensor; nothing here adds a
derivative. torch's argument orders and names are kept: polygamma(n, input),
multigammaln(input, p), logit(input, eps=None), softmax(input, dim), round(input, decimals=0).
"""
import math

import numpy as np

from .. import numpy as fnp
from ..numpy import _softmax
from ..ops import special as _ops
from ..typing import Any, ArrayLike, Callable, DTypeLike, Sequence
from .dims import wrap_dims
from .tensor import Tensor
from .torch_functions import round  # (torch.special.round is torch.round)

__all__ = [
    "bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
    "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
    "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py",
    "xlogy", "zeta",
]


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _wrap(fn: Callable[..., Any], name: str, what: str, reference: str | None = None,
          binary: bool = False) -> Callable[..., Tensor]:
    """torch.special's `name`, on `fn`; its example checks it against `reference` (scipy.special's `name`
    where not given) and its gradient (in the second argument when `binary`) against finite differences."""
    def op(*args: Tensor | ArrayLike) -> Tensor:
        return _t(fn(*args))
    reference = reference or f"scipy.special.{name}"
    args, grad_args = ("a, x", "(a, x)") if binary else ("x", "(x,)")
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"torch.special.{name}: {what}, elementwise (broadcasting), as a Tensor. Differentiable by the\n"
                  f"rule of fgrad's {getattr(fn, '__name__', name)} (the kernel fgrad.scipy.special binds).\n\n"
                  f"Examples\n--------\n"
                  f">>> import fgrad.special, scipy.special\n"
                  + (">>> a = fgrad.tensor([1.5, 2.5], dtype=fgrad.float64)\n" if binary else "")
                  + f">>> x = fgrad.tensor([0.25, 0.5], dtype=fgrad.float64, requires_grad=True)\n"
                  f">>> bool(np.allclose(fgrad.special.{name}({args}).detach().numpy(), {reference}("
                  + ("[1.5, 2.5], " if binary else "") + "[0.25, 0.5])))\n"
                  f"True\n"
                  f">>> fgrad.gradcheck(fgrad.special.{name}, {grad_args})  # the gradient against finite differences\n"
                  f"True\n")
    return op


erf = _wrap(_ops.erf, "erf", "the error function")
erfc = _wrap(_ops.erfc, "erfc", "the complementary error function 1 - erf(x)")
erfcx = _wrap(_ops.erfcx, "erfcx", "the scaled complementary error function exp(x**2) erfc(x)")
erfinv = _wrap(_ops.erfinv, "erfinv", "the inverse error function")
expit = _wrap(_ops.expit, "expit", "the logistic sigmoid 1 / (1 + exp(-x))")
gammaln = _wrap(_ops.gammaln, "gammaln", "log |gamma(x)|")
digamma = _wrap(_ops.digamma, "digamma", "the digamma function, gammaln's derivative")
psi = _wrap(_ops.digamma, "psi", "the digamma function (psi is its other name)")
i0 = _wrap(_ops.i0, "i0", "the modified Bessel function of the first kind of order 0")
i0e = _wrap(_ops.i0e, "i0e", "the exponentially scaled i0, exp(-|x|) i0(x)")
i1 = _wrap(_ops.i1, "i1", "the modified Bessel function of the first kind of order 1")
i1e = _wrap(_ops.i1e, "i1e", "the exponentially scaled i1, exp(-|x|) i1(x)")
ndtr = _wrap(_ops.ndtr, "ndtr", "the standard normal CDF")
ndtri = _wrap(_ops.ndtri, "ndtri", "the inverse of the standard normal CDF")
log_ndtr = _wrap(_ops.log_ndtr, "log_ndtr", "the log of the standard normal CDF, stable in the lower tail")
entr = _wrap(_ops.entr, "entr", "the entropy term -x log x (0 at 0, -inf for x < 0)")
xlogy = _wrap(_ops.xlogy, "xlogy", "x * log(y), 0 where x == 0", binary=True)
xlog1py = _wrap(_ops.xlog1py, "xlog1py", "x * log1p(y), 0 where x == 0", binary=True)
bessel_j0 = _wrap(_ops.j0, "bessel_j0", "the Bessel function of the first kind of order 0", "scipy.special.j0")
bessel_j1 = _wrap(_ops.j1, "bessel_j1", "the Bessel function of the first kind of order 1", "scipy.special.j1")
gammainc = _wrap(_ops.gammainc, "gammainc", "the regularized lower incomplete gamma function P(a, x)", binary=True)
gammaincc = _wrap(_ops.gammaincc, "gammaincc", "the regularized upper incomplete gamma function Q(a, x)", binary=True)
zeta = _wrap(_ops.zeta, "zeta", "the Hurwitz zeta function zeta(x, q)", binary=True)
sinc = _wrap(fnp.sinc, "sinc", "the normalized sinc sin(pi x) / (pi x), 1 at 0", "np.sinc")
expm1 = _wrap(fnp.expm1, "expm1", "exp(x) - 1, accurate near 0", "np.expm1")
exp2 = _wrap(fnp.exp2, "exp2", "2 ** x", "np.exp2")
log1p = _wrap(fnp.log1p, "log1p", "log(1 + x), accurate near 0", "np.log1p")


def polygamma(n: int, input: Tensor | ArrayLike) -> Tensor:
    """The n-th derivative of the digamma function at `input` (torch.special.polygamma: the order n first).
    Differentiable in input; returns a Tensor.

    Examples
    --------
    >>> x = fgrad.tensor([1.0], requires_grad=True)
    >>> y = fgrad.special.polygamma(1, x); y.backward()  # trigamma(1) = pi ** 2 / 6
    >>> round(y.item(), 4), round(x.grad.item(), 4)  # its derivative, polygamma(2, 1) = -2 zeta(3)
    (1.6449, -2.4041)
    """
    return _t(_ops.polygamma(n, input))


def multigammaln(input: Tensor | ArrayLike, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension p: p (p - 1) / 4 log(pi) + sum_j
    gammaln(input - j / 2) for j < p (torch.special.multigammaln). Differentiable in input.

    Examples
    --------
    >>> import scipy.special
    >>> x = fgrad.tensor([2.5], requires_grad=True)
    >>> bool(np.allclose(fgrad.special.multigammaln(x, 2).detach().numpy(), scipy.special.multigammaln(2.5, 2)))
    True
    >>> fgrad.gradcheck(lambda x: fgrad.special.multigammaln(x, 2), (x,))
    True
    """
    total = _ops.gammaln(input)
    for j in range(1, p):
        total = total + _ops.gammaln(input - j / 2)
    return _t(total + p * (p - 1) / 4 * math.log(math.pi))


def logit(input: Tensor | ArrayLike, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)), with `input` first clamped to [eps, 1 - eps] when eps is given (torch.special.logit).
    Differentiable (zero gradient where the clamp is active).

    Examples
    --------
    >>> p = fgrad.tensor([0.5, 0.999], requires_grad=True)
    >>> y = fgrad.special.logit(p, eps=0.01); y.sum().backward()
    >>> y, p.grad  # 1 / (p (1 - p)); zero where the clamp to [eps, 1 - eps] is active
    (tensor([0.        , 4.59511985], grad_fn=<...>), tensor([4., 0.]))
    """
    if eps is not None:
        input = fnp.clip(input, eps, 1 - eps)
    return _t(_ops.logit(input))


def logsumexp(input: Tensor | ArrayLike, dim: int | Sequence[int], keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) along `dim`, stably (torch.special.logsumexp). Differentiable (the softmax).

    Examples
    --------
    >>> x = fgrad.tensor([[0.0, np.log(3.0)]], requires_grad=True)
    >>> y = fgrad.special.logsumexp(x, 1); y.sum().backward()
    >>> round(y.item(), 4), x.grad  # log 4; the gradient the softmax
    (1.3863, tensor([[0.25, 0.75]]))
    """
    return _t(_softmax.logsumexp(input, axis=wrap_dims(dim, np.ndim(input), "special.logsumexp"), keepdims=keepdim))


def softmax(input: Tensor | ArrayLike, dim: int, *, dtype: DTypeLike | None = None) -> Tensor:
    """exp(input) / sum(exp(input)) along `dim` (torch.special.softmax; dtype= converts input first).
    Differentiable.

    Examples
    --------
    >>> fgrad.special.softmax(fgrad.tensor([0.0, np.log(3.0)]), 0)
    tensor([0.25, 0.75])
    """
    axis = wrap_dims(dim, np.ndim(input), "special.softmax")
    return _t(_softmax.softmax(input if dtype is None else fnp.astype(input, dtype), axis=axis))


def log_softmax(input: Tensor | ArrayLike, dim: int, *, dtype: DTypeLike | None = None) -> Tensor:
    """input - logsumexp(input) along `dim` (torch.special.log_softmax; dtype= converts input first).
    Differentiable.

    Examples
    --------
    >>> fgrad.special.log_softmax(fgrad.tensor([0.0, np.log(3.0)]), 0).exp()
    tensor([0.25, 0.75])
    """
    axis = wrap_dims(dim, np.ndim(input), "special.log_softmax")
    return _t(_softmax.log_softmax(input if dtype is None else fnp.astype(input, dtype), axis=axis))
