"""logsumexp, softmax and log_softmax: the composites that fgrad.scipy.special exports under
scipy.special's names and the Tensor face (Tensor.softmax, fgrad.nn.functional) calls, here at
the fgrad.numpy layer, so that the imperative face needs nothing of fgrad.scipy.

Each is stabilized by subtracting the maximum over its axis, under stop_gradient: the result
does not depend on the shift, so neither does its derivative. Not exported by fgrad.numpy
(NumPy has no such names).
"""
import numpy as np

from .. import numpy as fnp
from ..config import config
from ..ops import axes as ax
from ..ops.stop_gradient import stop_gradient
from ._arguments import _as_operand

__all__ = ["log_softmax", "logsumexp", "softmax"]


def _axes(axis, ndim, fn):
    """None, or `axis` as sorted non-negative axes; a bad one raises naming fgrad.scipy.special.fn, the
    function the user called (not the fgrad.numpy function that would meet it first)."""
    return None if axis is None else tuple(sorted(ax.axis_tuple(axis, ndim, f"fgrad.scipy.special.{fn}")))


def _shift(a, axis):
    """The maximum over `axis` (kept), as a constant; 0 where it is not finite (all -inf)."""
    m = stop_gradient(fnp.max(a, axis=axis, keepdims=True))
    return fnp.where(fnp.isfinite(m), m, 0.0)


def _log_of_sum(s):
    """log(s); where s is 0 (every a is -inf: a finite change of an a leaves it -inf) its
    derivative is 0, not the 0 * inf of exp's and log's, under fgrad.config.nan_safe_zeros."""
    if not config.nan_safe_zeros:
        return fnp.log(s)
    some = s != 0.0
    return fnp.where(some, fnp.log(fnp.where(some, s, 1.0)), -np.inf)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(b * exp(a))) over `axis`; with return_sign, (log|sum|, sign of sum)."""
    a = _as_operand(a)
    if b is not None:
        a, b = fnp.broadcast_arrays(a, _as_operand(b))
    if any(v is not None and v.dtype.kind == "c" for v in (a, b)):
        raise TypeError("fgrad.scipy.special.logsumexp: complex inputs are not supported (fgrad's logsumexp "
                        "is real; call scipy.special.logsumexp on plain complex arrays)")
    axis = _axes(axis, a.ndim, "logsumexp")
    m = _shift(a, axis)
    e = fnp.exp(a - m)
    s = fnp.sum(e if b is None else b * e, axis=axis, keepdims=True)
    sign = None
    if return_sign:
        sign, s = fnp.sign(s), fnp.abs(s)
    with np.errstate(divide="ignore"):  # log(0) = -inf is the answer when every a is -inf (as SciPy)
        out = _log_of_sum(s) + m
    if not keepdims:
        out = fnp.squeeze(out, axis=axis)
        sign = None if sign is None else fnp.squeeze(sign, axis=axis)
    return (out, sign) if return_sign else out


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (all elements when None), as scipy.special.softmax."""
    x = _as_operand(x)
    axis = _axes(axis, x.ndim, "softmax")
    e = fnp.exp(x - _shift(x, axis))
    return e / fnp.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis`, as scipy.special.log_softmax."""
    x = _as_operand(x)
    axis = _axes(axis, x.ndim, "log_softmax")
    shifted = x - _shift(x, axis)
    return shifted - fnp.log(fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True))
