"""fgrad.scipy.special: scipy.special's names and signatures, differentiable.

The kernels (erf, gammaln, betainc, jv, ...) are primitives (fgrad/ops/special.py), each with
its partial derivatives; a partial with no closed form (betainc's a and b, gammainc's a,
hyp1f1's and hyp2f1's parameters, a Bessel function's order, zeta's x) raises
NotImplementedError when it is needed, and discrete arguments (polygamma's, expn's, yn's
n) are not differentiated. Complex arguments as SciPy takes them, with the complex derivative
of a holomorphic function (erf, gamma, wofz, ...: Note [complex derivatives] in
ops/conversion.py); sph_harm_y's values are complex, not differentiated in its angles.
logsumexp, softmax and log_softmax are composites in fgrad ops, stabilized by
subtracting the maximum under stop_gradient, at the fgrad.numpy layer (numpy/_softmax.py),
which the Tensor face calls too; comb, factorial, multigammaln, sici, fresnel and bessel_jn
are composites of the primitives.
"""
import sys as _sys

import numpy as _np
import scipy.special as _scipy_special

from .. import numpy as _fnp
from ..ir.value import Tracer as _Tracer
from ..numpy import bridge as _bridge
from ..numpy import expm1, log1p
from ..numpy._arguments import _as_operand, _check_out
from ..numpy._softmax import log_softmax, logsumexp, softmax
from ..ops import special as _ops
from ..ops.special import (
    beta,
    betainc,
    betaln,
    binom,
    boxcox,
    boxcox1p,
    cosm1,
    dawsn,
    digamma,
    entr,
    erf,
    erfc,
    erfcinv,
    erfcx,
    erfinv,
    exp1,
    expi,
    expit,
    expn,
    exprel,
    gamma,
    gammainc,
    gammaincc,
    gammaln,
    gammasgn,
    hyp1f1,
    hyp2f1,
    i0,
    i0e,
    i1,
    i1e,
    iv,
    ive,
    j0,
    j1,
    jv,
    k0,
    k0e,
    k1,
    k1e,
    kl_div,
    kv,
    kve,
    log_expit,
    log_ndtr,
    loggamma,
    logit,
    ndtr,
    ndtri,
    owens_t,
    poch,
    polygamma,
    rel_entr,
    rgamma,
    spence,
    wofz,
    xlog1py,
    xlogy,
    y0,
    y1,
    yn,
    yv,
)

__all__ = [
    "bernoulli",
    "bessel_jn",
    "beta",
    "betainc",
    "betaln",
    "binom",
    "boxcox",
    "boxcox1p",
    "comb",
    "cosm1",
    "dawsn",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcinv",
    "erfcx",
    "erfinv",
    "exp1",
    "expi",
    "expit",
    "expm1",
    "expn",
    "exprel",
    "factorial",
    "fresnel",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammaln",
    "gammasgn",
    "hyp1f1",
    "hyp2f1",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "iv",
    "ive",
    "j0",
    "j1",
    "jn",
    "jv",
    "k0",
    "k0e",
    "k1",
    "k1e",
    "kl_div",
    "kv",
    "kve",
    "log1p",
    "log_expit",
    "log_ndtr",
    "log_softmax",
    "loggamma",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "owens_t",
    "poch",
    "polygamma",
    "psi",
    "rel_entr",
    "rgamma",
    "sici",
    "softmax",
    "spence",
    "sph_harm_y",
    "wofz",
    "xlog1py",
    "xlogy",
    "y0",
    "y1",
    "yn",
    "yv",
    "zeta",
]

psi = digamma
jn = jv  # (SciPy's jn is its jv)


def _traced(*values):
    return any(isinstance(v, _Tracer) for v in values)


def _static(fn, what, *values):
    """Refuse traced `values` where `fn` needs plain ones (`what` says which, and why)."""
    if _traced(*values):
        raise TypeError(f"fgrad.scipy.special.{fn}: {what} must not be a traced value")


# ---- normal values, composites of the primitives ------------------------------------------
def bernoulli(n):
    """The Bernoulli numbers B_0 ... B_n, as scipy.special.bernoulli: a NumPy array (nothing to
    differentiate: n is an integer)."""
    _static("bernoulli", "n (an integer)", n)
    return _scipy_special.bernoulli(n)


def bessel_jn(z, *, v, n_iter=50):
    """jv(k, z) for k = 0, 1, ..., v, stacked: shape (v + 1, *z.shape), as jax.scipy.special.bessel_jn
    (SciPy has no bessel_jn; n_iter, JAX's recurrence length, is accepted and unused).

    Examples
    --------
    >>> import scipy.special
    >>> J = fgrad.scipy.special.bessel_jn(np.array([1.0, 2.0]), v=2)  # J_0, J_1, J_2
    >>> J.shape, bool(np.allclose(J, [scipy.special.jv(k, [1.0, 2.0]) for k in range(3)]))
    ((3, 2), True)
    """
    _static("bessel_jn", "v (an integer)", v)
    z = _as_operand(z)
    return _fnp.stack([jv(k, z) for k in range(int(v) + 1)])


def comb(N, k, *, exact=False, repetition=False):
    """N choose k, as scipy.special.comb: binom(N, k) where 0 <= k <= N, else 0 (exact=True:
    integers, on plain values only)."""
    if exact:
        _static("comb", "N and k with exact=True (Python integers result)", N, k)
        return _scipy_special.comb(N, k, exact=True, repetition=repetition)
    N, k = _as_operand(N), _as_operand(k)
    if repetition:
        one = _fnp.logical_and(k == 0, N >= 0)
        return _fnp.where(one, 1.0, binom(N + k - 1, k))
    valid = _fnp.logical_and(_fnp.logical_and(k <= N, N >= 0), k >= 0)
    # (binom sees only valid points, so its derivative is not nan at the others)
    return _fnp.where(valid, binom(_fnp.where(valid, N, 1.0), _fnp.where(valid, k, 0.0)), 0.0)


def factorial(n, exact=False, extend="zero"):
    """n! = gamma(n + 1), and 0 for n < 0, as scipy.special.factorial (exact=True or
    extend="complex": on plain values only)."""
    if exact or extend != "zero":
        _static("factorial", "n with exact=True or extend='complex'", n)
        return _scipy_special.factorial(n, exact=exact, extend=extend)
    n = _as_operand(n)
    if n.dtype.kind == "c":
        raise TypeError("fgrad.scipy.special.factorial: complex n needs extend='complex' (on plain values)")
    negative = n < 0
    return _fnp.where(negative, 0.0, gamma(_fnp.where(negative, 0.0, n) + 1.0))


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension d, as scipy.special.multigammaln."""
    _static("multigammaln", "d (the dimension)", d)
    d = _np.asarray(d)[()]
    if not _np.isscalar(d) or (_np.floor(d) != d):
        raise ValueError("d should be a positive integer (dimension)")
    a = _as_operand(a)
    if not _traced(a) and _np.any(a <= 0.5 * (d - 1)):  # (on traced a the check would read its values)
        raise ValueError(f"condition a ({a}) > 0.5 * (d-1) ({0.5 * (d - 1)}) not met")
    total = gammaln(a)
    for j in range(2, int(d) + 1):
        total = total + gammaln(a - (j - 1.0) / 2)
    return (d * (d - 1) * 0.25) * _np.log(_np.pi) + total


def sici(x):
    """(si(x), ci(x)), the sine and cosine integrals, as scipy.special.sici (real x)."""
    return _ops.si(x), _ops.ci(x)


def fresnel(z):
    """(S(z), C(z)), the Fresnel integrals, as scipy.special.fresnel (real z)."""
    return _ops.fresnel_s(z), _ops.fresnel_c(z)


def zeta(x, q=None, out=None):
    """The Hurwitz zeta function zeta(x, q); the Riemann zeta function when q is None. Its
    derivative in q is -x zeta(x + 1, q); in x there is no closed form (it raises)."""
    _check_out("scipy.special.zeta", out)
    return _ops.riemann_zeta(x) if q is None else _ops.zeta(x, q)


def sph_harm_y(n, m, theta, phi, *, diff_n=0):
    """The spherical harmonic Y_n^m(theta, phi), as scipy.special.sph_harm_y: complex values,
    not differentiated by fgrad (diff_n > 0: SciPy's derivatives too, on plain values only).

    Examples
    --------
    >>> y = fgrad.scipy.special.sph_harm_y(0, 0, 0.3, 0.2)  # Y_0^0 = 1 / (2 sqrt(pi))
    >>> round(float(y.real), 6), round(float(1 / (2 * np.sqrt(np.pi))), 6)
    (0.282095, 0.282095)
    """
    if diff_n:
        _static("sph_harm_y", "every argument with diff_n > 0", n, m, theta, phi)
        return _scipy_special.sph_harm_y(n, m, theta, phi, diff_n=diff_n)
    return _ops.sph_harm_y(n, m, theta, phi)


# The examples of the entry functions scipy.special has and NumPy has not (SciPy's docstrings of
# them have none); before cover(), which puts each under fgrad's note.
_EXAMPLES = {
    entr: ">>> fgrad.scipy.special.entr(0.5), fgrad.grad(fgrad.scipy.special.entr)(0.5)  # -x log x; -log x - 1\n"
          "(np.float64(0.34657359...), np.float64(-0.30685281...))",
    kl_div: ">>> fgrad.scipy.special.kl_div(0.5, 0.25), fgrad.grad(fgrad.scipy.special.kl_div)(0.5, 0.25)\n"
            "(np.float64(0.09657359...), np.float64(0.69314718...))",
    rel_entr: ">>> fgrad.scipy.special.rel_entr(0.5, 0.25), fgrad.grad(fgrad.scipy.special.rel_entr)(0.5, 0.25)\n"
              "(np.float64(0.34657359...), np.float64(1.69314718...))",
}
for _fn, _example in _EXAMPLES.items():
    _fn.__doc__ += f"\n\nExamples\n--------\n{_example}\n"

# scipy.special's ufuncs on traced values run these (its Python-level functions convert first).
_bridge.cover(_sys.modules[__name__], _scipy_special, "scipy.special.", ufuncs_only=True)
