"""Special-function primitives: the kernels of scipy.special, differentiable.

Each kernel runs scipy.special on NumPy arrays and cupyx.scipy.special on CuPy arrays,
and its derivative is declared once as a partial (elementwise.defderiv), in fgrad ops,
so it differentiates again: gammaln' = digamma, digamma' = polygamma(1, .), and so on.
Composites live in fgrad.scipy.special (comb, multigammaln, ...) and, for logsumexp, softmax
and log_softmax, which the Tensor face uses too, in fgrad/numpy/_softmax.py.

A partial that has no closed form (betainc's a and b, a Bessel function's order, zeta's
x, ...) raises NotImplementedError naming the function and the argument when it is
needed (`_no_closed_form`): an error, never a wrong number. Discrete arguments (polygamma's
n, yn's n, expn's n) have no partial at all (None). Complex values (Note [complex derivatives]
in ops/conversion.py): a holomorphic function's partial is its complex derivative, the same
formula (erf, gamma, wofz); where SciPy has no complex kernel for the derivative (digamma's
polygamma) or the function is not holomorphic (ive scales by exp(-|Re z|)), the partial of a
complex value raises (`_real_partial`). sph_harm_y's angles have no partials yet.
"""
import math

import numpy as np

from ..backend import array_module, scipy_function
from .elementwise import (
    absolute,
    broadcasts,
    cos,
    defderiv,
    exp,
    expm1,
    less,
    log,
    log1p,
    power,
    sign,
    sin,
    sinc,
    times,
    where,
)
from .entries import entry_doc, entry_for
from .primitive import Primitive

__all__ = [
    "beta", "betainc", "betaln", "binom", "boxcox", "boxcox1p", "ci", "cosm1", "dawsn", "digamma", "entr", "erf",
    "erfc", "erfcinv", "erfcx", "erfinv", "exp1", "expi", "expit", "expn", "exprel", "fresnel_c", "fresnel_s",
    "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "hyp1f1", "hyp2f1", "i0", "i0e", "i1", "i1e", "iv",
    "ive", "j0", "j1", "jv", "k0", "k0e", "k1", "k1e", "kl_div", "kv", "kve", "log_expit", "log_ndtr", "loggamma",
    "logit", "ndtr", "ndtri", "owens_t", "poch", "polygamma", "rel_entr", "rgamma", "riemann_zeta", "si",
    "special", "spence", "sph_harm_y", "wofz", "xlog1py", "xlogy", "y0", "y1", "yn", "yv", "zeta",
]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)  # (Python floats: Note [float constants] in ops/elementwise.py)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _kernel(name, pick=None, device=True):
    """The kernel running special.<name>; `pick`: which of its results (sici's, fresnel's) is
    this one; device=False: on CuPy arrays, SciPy's on the host even where cupyx has the name
    (Riemann's zeta: cupyx's zeta is Hurwitz's alone)."""
    found = {}  # array module -> the function, looked up once (a kernel call is the hot path)

    def impl(*args):
        xp = array_module(*args)
        fn = found.get(xp)
        if fn is None:
            fn = found[xp] = scipy_function(xp, "special", name, device)
        return fn(*args) if pick is None else fn(*args)[pick]
    impl.__name__ = name
    return impl


def _defderiv_many(prim, partials):
    """defderiv for three or four arguments (elementwise.defderiv's rules take one or two)."""
    if prim.nan_safe:  # (Note [zero cotangents stay zero] in ops/elementwise.py: no inline partials)
        prim.defvjp(*(None if d is None else (lambda g, ans, *a, d=d: times(d(ans, *a), g)) for d in partials))
        prim.defjvp(*(None if d is None else (lambda t, ans, *a, d=d: times(d(ans, *a), t)) for d in partials))
        return prim
    prim.defvjp(*(None if d is None else (lambda g, ans, *a, d=d: d(ans, *a) * g) for d in partials))
    prim.defjvp(*(None if d is None else (lambda t, ans, *a, d=d: d(ans, *a) * t) for d in partials))
    prim.defpartials(partials)
    return prim


def _entry_many(prim):
    """The entry function of a primitive of three or more arguments: the primitive's own call."""
    def entry(*args):
        return prim(*args)
    entry.__name__ = entry.__qualname__ = prim.name
    entry.__doc__ = entry_doc(prim)
    entry.prim = prim
    return entry


def special(name, *partials, saves="inputs and output", arity=None, impl=None, nan_safe=False):
    """The entry function of a primitive running scipy.special.<name>, with the given partial
    derivatives (`saves` and `nan_safe` as for Primitive: nan_safe where a partial is infinite
    at a pole or a logarithm's 0). Without partials it has no derivative (give its `arity`);
    `impl`, a kernel of its own (default: special.<name>)."""
    prim = broadcasts(Primitive(name, impl or _kernel(name), saves=saves, nan_safe=nan_safe))
    n = len(partials) or arity
    if partials:
        defderiv(prim, *partials) if n <= 2 else _defderiv_many(prim, partials)
    return entry_for(prim, n) if n <= 2 else _entry_many(prim)


def _no_closed_form(fn, arg):
    """The partial of `fn` with respect to `arg` where it has no closed form: it raises."""
    def partial(ans, *args):
        raise NotImplementedError(
            f"fgrad.scipy.special.{fn}: the derivative with respect to {arg} has no closed form, and fgrad "
            f"does not approximate it; hold {arg} constant (a Python number or fgrad.stop_gradient) to "
            f"differentiate with respect to the other arguments")
    return partial


def _complex_result(fn):
    """The partials of `fn`'s angles, which fgrad does not have: they raise."""
    def partial(ans, *args):
        raise NotImplementedError(
            f"fgrad.scipy.special.{fn}: its derivatives with respect to the angles are not implemented; call it "
            f"on values that are not differentiated (or under fgrad.stop_gradient)")
    return partial


def _real_partial(fn, why, partial):
    """`partial`, for real arguments only: for a complex one it raises a TypeError saying `why`."""
    def checked(ans, *args):
        if any(getattr(a, "dtype", None) is not None and a.dtype.kind == "c" for a in args):
            raise TypeError(f"fgrad.scipy.special.{fn}: no derivative for complex values ({why}); differentiate "
                            f"it at real values, or hold the complex ones constant (fgrad.stop_gradient)")
        return partial(ans, *args)
    return checked


# ---- series where a closed form divides by zero or cancels --------------------------------
def _horner(coefs, u):
    out = coefs[-1]
    for c in reversed(coefs[:-1]):
        out = out * u + c
    return out


def _series_near(u, radius, coefs, direct, away=1.0):
    """sum(coefs[k] * u**k) where |u| < radius, direct(u) elsewhere. Each branch sees only its
    own points (the other's are replaced by 0 and `away`), so neither makes a nan derivative;
    the series is exact at u = 0 to every order, where `direct` divides by zero."""
    near = less(absolute(u), radius)
    return where(near, _horner(coefs, where(near, u, 0.0)), direct(where(near, away, u)))


# (t e^t - expm1(t)) / t^2 = sum_k (k+1)/(k+2)! t^k: exprel's derivative, and boxcox's in lambda
_EXPREL_SLOPE = [(k + 1) / math.factorial(k + 2) for k in range(15)]
# log(1 + u) / -u = -sum_k (-u)^k / (k+1): spence's derivative at z = 1 + u
_SPENCE_SLOPE = [-((-1.0) ** k) / (k + 1) for k in range(15)]
# j1(x)/x, i1(x)/x near 0
_J1_OVER_X = [0.5, 0.0, -1.0 / 16, 0.0, 1.0 / 384, 0.0, -1.0 / 18432]
_I1_OVER_X = [0.5, 0.0, 1.0 / 16, 0.0, 1.0 / 384, 0.0, 1.0 / 18432]


def _exprel_slope(t):
    return _series_near(t, 0.5, _EXPREL_SLOPE, lambda t: (t * exp(t) - expm1(t)) / (t * t))


def _j1_over_x(x):
    return _series_near(x, 1e-2, _J1_OVER_X, lambda x: j1(x) / x)


def _i1_over_x(x):
    return _series_near(x, 1e-2, _I1_OVER_X, lambda x: i1(x) / x)


def _i1e_over_x(x):
    """i1e(x)/x, by the series of i1(x)/x times exp(-|x|) near 0 (i1 itself overflows far out)."""
    near = less(absolute(x), 1e-2)
    xn, xd = where(near, x, 0.0), where(near, 1.0, x)
    return where(near, exp(-absolute(xn)) * _horner(_I1_OVER_X, xn), i1e(xd) / xd)


def _rgamma_slope(ans, x):
    """-rgamma(x) digamma(x) for x >= 1/2; below, the derivative of the reflection formula
    rgamma(x) = gamma(1 - x) sin(pi x) / pi, which stays accurate near (and at) the poles of
    gamma, 0, -1, -2, ..., where digamma(x) does not."""
    left = less(x, 0.5)
    xl = where(left, x, 0.0)
    reflected = gamma(1.0 - xl) * (cos(np.pi * xl) - digamma(1.0 - xl) * sin(np.pi * xl) / np.pi)
    return where(left, reflected, -ans * digamma(where(left, 1.0, x)))


def _expn_slope(ans, n, x):
    """E_n' = -E_(n-1); E_0 = exp(-x)/x has E_0' = -E_0 (1 + 1/x)."""
    if isinstance(n, (int, np.integer)):  # (no array made for a Python order: x may live on another device)
        return -ans * (1.0 + 1.0 / x) if n < 1 else -expn(n - 1, x)
    first = less(n, 1)
    return where(first, -ans * (1.0 + 1.0 / x), -expn(where(first, 0, n - 1), x))


def _gammainc_slope(ans, a, x):
    """The density of the regularized lower incomplete gamma function: x^(a-1) e^-x / gamma(a)."""
    return exp(xlogy(a - 1.0, x) - x - gammaln(a))


def _betainc_slope(ans, a, b, x):
    """The beta density: x^(a-1) (1-x)^(b-1) / B(a, b)."""
    return exp(xlogy(a - 1.0, x) + xlog1py(b - 1.0, -x) - betaln(a, b))


# ---- error function and normal distribution --------------------------------------------
erf = special("erf", lambda ans, x: _TWO_OVER_SQRT_PI * exp(-(x * x)), saves="inputs")
erfc = special("erfc", lambda ans, x: -_TWO_OVER_SQRT_PI * exp(-(x * x)), saves="inputs")
erfcx = special("erfcx", lambda ans, x: 2.0 * x * ans - _TWO_OVER_SQRT_PI)
erfinv = special("erfinv", lambda ans, x: _SQRT_PI_OVER_2 * exp(ans * ans), saves="output", nan_safe=True)
erfcinv = special("erfcinv", lambda ans, x: -_SQRT_PI_OVER_2 * exp(ans * ans), saves="output", nan_safe=True)
dawsn = special("dawsn", lambda ans, x: 1.0 - 2.0 * x * ans)
ndtr = special("ndtr", lambda ans, x: exp(-0.5 * (x * x)) / _SQRT_2PI, saves="inputs")
ndtri = special("ndtri", lambda ans, x: _SQRT_2PI * exp(0.5 * (ans * ans)), saves="output", nan_safe=True)
log_ndtr = special("log_ndtr", lambda ans, x: exp(-0.5 * (x * x) - ans) / _SQRT_2PI)  # pdf / cdf, as one exp
owens_t = special("owens_t",
                  lambda ans, h, a: -exp(-0.5 * (h * h)) * erf(a * h / math.sqrt(2.0)) / (2.0 * _SQRT_2PI),
                  lambda ans, h, a: exp(-0.5 * (h * h) * (1.0 + a * a)) / (2.0 * np.pi * (1.0 + a * a)),
                  saves="inputs")
wofz = special("wofz", lambda ans, z: -2.0 * z * ans + 2j / math.sqrt(math.pi))  # w' = -2 z w + 2i/sqrt(pi)

# ---- gamma and beta functions ------------------------------------------------------------
gammaln = special("gammaln", lambda ans, x: digamma(x), saves="inputs", nan_safe=True)
digamma = special("digamma", _real_partial("digamma", "SciPy's polygamma(1, z) takes real z only",
                                           lambda ans, x: polygamma(1, x)), saves="inputs", nan_safe=True)
_polygamma = _kernel("polygamma")


def _polygamma_kernel(n, x):
    """special.polygamma; on CuPy arrays a Python order goes as an array of x's dtype (cupyx's
    polygamma compares n with 0 as an array)."""
    if not hasattr(n, "dtype") and hasattr(x, "dtype") and array_module(x) is not np:
        n = array_module(x).asarray(n, dtype=x.dtype if x.dtype.kind == "f" else None)
    return _polygamma(n, x)


polygamma = special("polygamma", None, lambda ans, n, x: polygamma(n + 1, x), saves="inputs", impl=_polygamma_kernel,
                    nan_safe=True)
gamma = special("gamma", lambda ans, x: ans * digamma(x), nan_safe=True)
rgamma = special("rgamma", _rgamma_slope)
def _loggamma_partial(ans, x):
    """digamma(x); nan for real x < 0, where SciPy's loggamma is nan (complex x: off the cut, digamma)."""
    return digamma(x) if x.dtype.kind == "c" else where(less(x, 0.0), np.nan, digamma(x))


loggamma = special("loggamma", _loggamma_partial, saves="inputs", nan_safe=True)
gammasgn = special("gammasgn", arity=1)  # piecewise constant: no derivative, as sign
beta = special("beta", lambda ans, a, b: ans * (digamma(a) - digamma(a + b)),
               lambda ans, a, b: ans * (digamma(b) - digamma(a + b)), nan_safe=True)
betaln = special("betaln", lambda ans, a, b: digamma(a) - digamma(a + b),
                 lambda ans, a, b: digamma(b) - digamma(a + b), saves="inputs", nan_safe=True)
binom = special("binom", lambda ans, n, k: ans * (digamma(n + 1.0) - digamma(n - k + 1.0)),
                lambda ans, n, k: ans * (digamma(n - k + 1.0) - digamma(k + 1.0)), nan_safe=True)
poch = special("poch", lambda ans, z, m: ans * (digamma(z + m) - digamma(z)), lambda ans, z, m: ans * digamma(z + m),
               nan_safe=True)
gammainc = special("gammainc", _no_closed_form("gammainc", "a"), _gammainc_slope, saves="inputs", nan_safe=True)
gammaincc = special("gammaincc", _no_closed_form("gammaincc", "a"),
                    lambda ans, a, x: -_gammainc_slope(ans, a, x), saves="inputs", nan_safe=True)
betainc = special("betainc", _no_closed_form("betainc", "a"), _no_closed_form("betainc", "b"), _betainc_slope,
                  saves="inputs", nan_safe=True)
zeta = special("zeta", _no_closed_form("zeta", "x"), lambda ans, x, q: -x * zeta(x + 1.0, q), saves="inputs",  # Hurwitz
               nan_safe=True)
riemann_zeta = special("riemann_zeta", _no_closed_form("zeta", "x"), saves="nothing",
                       impl=_kernel("zeta", device=False))

# ---- exponential integrals, Fresnel and sine/cosine integrals, dilogarithm ----------------
exp1 = special("exp1", lambda ans, x: -exp(-x) / x, saves="inputs", nan_safe=True)
expi = special("expi", lambda ans, x: exp(x) / x, saves="inputs", nan_safe=True)
expn = special("expn", None, _expn_slope, nan_safe=True)  # n: the order
si = special("si", lambda ans, x: sinc(x / np.pi), saves="inputs", impl=_kernel("sici", 0))
ci = special("ci", lambda ans, x: cos(x) / x, saves="inputs", impl=_kernel("sici", 1), nan_safe=True)
fresnel_s = special("fresnel_s", lambda ans, x: sin(0.5 * np.pi * (x * x)), saves="inputs", impl=_kernel("fresnel", 0))
fresnel_c = special("fresnel_c", lambda ans, x: cos(0.5 * np.pi * (x * x)), saves="inputs", impl=_kernel("fresnel", 1))
spence = special("spence", lambda ans, z: _series_near(z - 1.0, 0.1, _SPENCE_SLOPE, lambda u: log1p(u) / -u),
                 saves="inputs", nan_safe=True)  # log(z) / (1 - z), -1 at z = 1

# ---- logistic, logarithms, entropies, Box-Cox ------------------------------------------------
expit = special("expit", lambda ans, x: ans * (1.0 - ans), saves="output")
logit = special("logit", lambda ans, x: 1.0 / (x * (1.0 - x)), saves="inputs", nan_safe=True)
log_expit = special("log_expit", lambda ans, x: expit(-x), saves="inputs")
xlogy = special("xlogy", lambda ans, x, y: log(y), lambda ans, x, y: x / y, saves="inputs",  # JAX's, also at x == 0
                nan_safe=True)
xlog1py = special("xlog1py", lambda ans, x, y: log1p(y), lambda ans, x, y: x / (1.0 + y), saves="inputs", nan_safe=True)
exprel = special("exprel", lambda ans, x: _exprel_slope(x), saves="inputs")
cosm1 = special("cosm1", lambda ans, x: -sin(x), saves="inputs")
entr = special("entr", lambda ans, x: -(log(x) + 1.0), saves="inputs", nan_safe=True)
rel_entr = special("rel_entr", lambda ans, x, y: log(x / y) + 1.0, lambda ans, x, y: -x / y, saves="inputs",
                   nan_safe=True)
kl_div = special("kl_div", lambda ans, x, y: log(x / y), lambda ans, x, y: 1.0 - x / y, saves="inputs", nan_safe=True)
boxcox = special("boxcox", lambda ans, x, lm: power(x, lm - 1.0),
                 lambda ans, x, lm: log(x) * log(x) * _exprel_slope(lm * log(x)), saves="inputs", nan_safe=True)
boxcox1p = special("boxcox1p", lambda ans, x, lm: power(1.0 + x, lm - 1.0),
                   lambda ans, x, lm: log1p(x) * log1p(x) * _exprel_slope(lm * log1p(x)), saves="inputs", nan_safe=True)
hyp1f1 = special("hyp1f1", _no_closed_form("hyp1f1", "a"), _no_closed_form("hyp1f1", "b"),
                 lambda ans, a, b, x: a / b * hyp1f1(a + 1.0, b + 1.0, x), saves="inputs")
hyp2f1 = special("hyp2f1", _no_closed_form("hyp2f1", "a"), _no_closed_form("hyp2f1", "b"),
                 _no_closed_form("hyp2f1", "c"),
                 lambda ans, a, b, c, z: a * b / c * hyp2f1(a + 1.0, b + 1.0, c + 1.0, z), saves="inputs")
sph_harm_y = special("sph_harm_y", None, None, _complex_result("sph_harm_y"), _complex_result("sph_harm_y"),
                     saves="nothing")

# ---- Bessel functions: x-derivatives by the recurrences (DLMF 10.6, 10.29) ---------------------
j0 = special("j0", lambda ans, x: -j1(x), saves="inputs")
j1 = special("j1", lambda ans, x: j0(x) - _j1_over_x(x), saves="inputs")
jv = special("jv", _no_closed_form("jv", "v"), lambda ans, v, x: 0.5 * (jv(v - 1.0, x) - jv(v + 1.0, x)),
             saves="inputs", nan_safe=True)
y0 = special("y0", lambda ans, x: -y1(x), saves="inputs", nan_safe=True)
y1 = special("y1", lambda ans, x: y0(x) - ans / x, nan_safe=True)
# (Y_n' = n/x Y_n - Y_{n+1}: no order below n, since cupyx's yn is NaN at negative orders)
yn = special("yn", None, lambda ans, n, x: n / x * ans - yn(n + 1, x), nan_safe=True)  # n: the order
yv = special("yv", _no_closed_form("yv", "v"), lambda ans, v, x: 0.5 * (yv(v - 1.0, x) - yv(v + 1.0, x)),
             saves="inputs", nan_safe=True)
i0 = special("i0", lambda ans, x: i1(x), saves="inputs")
i1 = special("i1", lambda ans, x: i0(x) - _i1_over_x(x), saves="inputs")
i0e = special("i0e", lambda ans, x: i1e(x) - sign(x) * ans)
i1e = special("i1e", lambda ans, x: i0e(x) - _i1e_over_x(x) - sign(x) * ans)
iv = special("iv", _no_closed_form("iv", "v"), lambda ans, v, x: 0.5 * (iv(v - 1.0, x) + iv(v + 1.0, x)),
             saves="inputs", nan_safe=True)
ive = special("ive", _no_closed_form("ive", "v"),
              _real_partial("ive", "its scaling exp(-|Re z|) is not holomorphic",
                            lambda ans, v, x: 0.5 * (ive(v - 1.0, x) + ive(v + 1.0, x)) - sign(x) * ans), nan_safe=True)
k0 = special("k0", lambda ans, x: -k1(x), saves="inputs", nan_safe=True)
k1 = special("k1", lambda ans, x: -k0(x) - ans / x, nan_safe=True)
k0e = special("k0e", lambda ans, x: ans - k1e(x), nan_safe=True)
k1e = special("k1e", lambda ans, x: ans - k0e(x) - ans / x, nan_safe=True)
kv = special("kv", _no_closed_form("kv", "v"), lambda ans, v, x: -0.5 * (kv(v - 1.0, x) + kv(v + 1.0, x)),
             saves="inputs", nan_safe=True)
kve = special("kve", _no_closed_form("kve", "v"),
              lambda ans, v, x: ans - 0.5 * (kve(v - 1.0, x) + kve(v + 1.0, x)), nan_safe=True)
