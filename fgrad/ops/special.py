"""Special-function primitives: the kernels of scipy.special, differentiable.

Each kernel runs scipy.special on NumPy arrays and cupyx.scipy.special on CuPy arrays,
and its derivative is declared once as a partial (elementwise.defderiv), in fgrad ops,
so it differentiates again: gammaln' = digamma, digamma' = polygamma(1, .), and so on.
Composites (logsumexp, softmax, log_softmax) live in fgrad.scipy.special.
"""
import numpy as np
import scipy.special

from ..backend import array_module
from .elementwise import broadcasts, defderiv, exp, log
from .entries import entry_for
from .primitive import Primitive

__all__ = ["digamma", "erf", "erfc", "expit", "gammaln", "logit", "polygamma", "xlogy"]

_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)


def _special_module(xp):
    if xp is np:
        return scipy.special
    if getattr(xp, "numpy_backed", False):  # (a second NumPy device, for tests: backend/__init__.py)
        return xp.over(scipy.special)
    import cupyx.scipy.special  # (imported here: CuPy is optional, and only CuPy arrays reach this line)
    return cupyx.scipy.special


def _kernel(name):
    found = {}  # array module -> its special.<name>, looked up on first use

    def impl(*args):
        xp = array_module(*args)
        fn = found.get(xp)
        if fn is None:
            fn = found[xp] = getattr(_special_module(xp), name)
        return fn(*args)
    impl.__name__ = name
    return impl


def special(name, *partials, saves="inputs and output"):
    """The entry function of a primitive running scipy.special.<name>, with the given partial
    derivatives (`saves` as for Primitive)."""
    return entry_for(defderiv(broadcasts(Primitive(name, _kernel(name), saves=saves)), *partials), len(partials))


erf = special("erf", lambda ans, x: _TWO_OVER_SQRT_PI * exp(-(x * x)), saves="inputs")
erfc = special("erfc", lambda ans, x: -_TWO_OVER_SQRT_PI * exp(-(x * x)), saves="inputs")
gammaln = special("gammaln", lambda ans, x: digamma(x), saves="inputs")
digamma = special("digamma", lambda ans, x: polygamma(1, x), saves="inputs")
polygamma = special("polygamma", None, lambda ans, n, x: polygamma(n + 1, x), saves="inputs")  # n: the order
expit = special("expit", lambda ans, x: ans * (1.0 - ans), saves="output")
logit = special("logit", lambda ans, x: 1.0 / (x * (1.0 - x)), saves="inputs")
xlogy = special("xlogy", lambda ans, x, y: log(y), lambda ans, x, y: x / y, saves="inputs")  # JAX's, also at x == 0
