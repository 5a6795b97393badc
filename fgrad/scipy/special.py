"""fgrad.scipy.special: scipy.special's names and signatures, differentiable.

The kernels (erf, gammaln, expit, ...) are primitives (fgrad/ops/special.py); logsumexp,
softmax and log_softmax are composites in fgrad ops, stabilized by subtracting the
maximum under stop_gradient (the result does not depend on the shift, so neither does
its derivative, and the shift need not be differentiated).
"""
import sys as _sys

import numpy as _np
import scipy.special as _scipy_special

from .. import numpy as _fnp
from ..numpy import bridge as _bridge
from ..numpy._core import _as_operand, normalize_axis
from ..ops.special import digamma, erf, erfc, expit, gammaln, logit, polygamma, xlogy
from ..ops.stop_gradient import stop_gradient as _stop_gradient

__all__ = [
    "digamma",
    "erf",
    "erfc",
    "expit",
    "gammaln",
    "log_softmax",
    "logit",
    "logsumexp",
    "polygamma",
    "psi",
    "softmax",
    "xlogy",
]

psi = digamma


def _shift(a, axis):
    """The maximum over `axis` (kept), as a constant; 0 where it is not finite (all -inf)."""
    m = _stop_gradient(_fnp.max(a, axis=axis, keepdims=True))
    return _fnp.where(_fnp.isfinite(m), m, 0.0)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(b * exp(a))) over `axis`; with return_sign, (log|sum|, sign of sum)."""
    a = _as_operand(a)
    if b is not None:
        a, b = _fnp.broadcast_arrays(a, _as_operand(b))
    if any(v is not None and v.dtype.kind == "c" for v in (a, b)):
        raise TypeError("fgrad.scipy.special.logsumexp: complex inputs are not supported (fgrad's logsumexp "
                        "is real; call scipy.special.logsumexp on plain complex arrays)")
    axis = normalize_axis(axis, a.ndim, "logsumexp")
    m = _shift(a, axis)
    e = _fnp.exp(a - m)
    s = _fnp.sum(e if b is None else b * e, axis=axis, keepdims=True)
    sign = None
    if return_sign:
        sign, s = _fnp.sign(s), _fnp.abs(s)
    with _np.errstate(divide="ignore"):  # log(0) = -inf is the answer when every a is -inf (as SciPy)
        out = _fnp.log(s) + m
    if not keepdims:
        out = _fnp.squeeze(out, axis=axis)
        sign = None if sign is None else _fnp.squeeze(sign, axis=axis)
    return (out, sign) if return_sign else out


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (all elements when None), as scipy.special.softmax."""
    x = _as_operand(x)
    e = _fnp.exp(x - _shift(x, axis))
    return e / _fnp.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis`, as scipy.special.log_softmax."""
    x = _as_operand(x)
    shifted = x - _shift(x, axis)
    return shifted - _fnp.log(_fnp.sum(_fnp.exp(shifted), axis=axis, keepdims=True))


# scipy.special's ufuncs on traced values run these (its Python-level functions convert first).
_bridge.cover(_sys.modules[__name__], _scipy_special, "scipy.special.", ufuncs_only=True)
