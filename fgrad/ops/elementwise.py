"""Elementwise primitives: NumPy ufuncs and their derivatives, one line each.

`defderiv(prim, *partials)` declares d(out)/d(arg_i) once and derives both rules from
it: vjp = partial * g, jvp = partial * t. ONE and NEG mark the linear cases so they cost
no multiply, and OTHER marks multiply's partials (the other argument) so they cost no call.
Broadcasting is undone centrally (ops/broadcasting.py), not here.

Note [the partial first]: every rule, and the engine where it applies partials inline,
multiplies `partial * g`, not `g * partial`. The partial is computed from residuals, which
an outer transform traces (hvp, hessian: forward over reverse), while the cotangent or
tangent it meets is often a plain array. With the traced value on the left, Python calls
the tracer's own operator; with an ndarray on the left, NumPy first runs its
__array_ufunc__ override protocol first (docs/design.md, "Measured"). The product is the
same either way: elementwise multiplication commutes.

Note [float constants]: constants in rules are Python floats (`1.0 - ans * ans`), never
ints. Both are weak scalars to NumPy 2 (a float32 array stays float32), but an int operand
makes a small-array ufunc call dearer (docs/design.md, "Measured").

Note [zero cotangents stay zero]: a derivative contribution whose cotangent (or tangent) is
exactly zero is zero, even where the partial is infinite or NaN. `where(x > 0, sqrt(x), 0.)`
at 0 sends sqrt a zero cotangent, and 0 * inf would make the gradient NaN although the
selected branch is finite; so would masking, clip, maximum and indexing. The primitives whose
partials can be infinite or NaN where they are finite declare it (`nan_safe=True`), and their
rules multiply and divide by the policy's products: safe_multiply(p, v) is p * v, and 0 where
that is NaN because a factor is 0 (either factor: a zero partial meeting an infinite
cotangent is zero too, which gives norm and cdist their subgradient 0 at 0); safe_divide(v, q)
is v / q, and 0 where that is NaN because v is 0. Elsewhere their values are the plain
products', bit for bit, so the check is one NaN test of the result. They are primitives whose
derivatives are the product rule in the same products, so the policy holds at every order (a
where-mask would drop the derivative of the cotangent itself: the Hessian of
sum(sqrt(x) * (x - 1)) at 1 would lose a term) and under every transform (vmap batches them,
compile stages them as steps). A declared primitive's partials are not Primitive.partials,
which forward mode and the entries apply as plain products, but its `safe_partials`, which
the engine's walk applies on values with one NaN test per product (Note [the inline partials]
in engine/backward.py), and fgrad.compile writes each policy product on NumPy scalars as its
operator, retried by the kernel only at a NaN (codegen's _as_operator); so the others' hot
path is untouched. Multiply, the
hottest op, cannot pay a NaN test per product; its partial is its other factor, infinite only
where that was made infinite, mostly by a declared primitive (log(0) in `where(x > 0, x *
log(x), 0.)`), so its reverse-mode step applies `times` where the other factor's node is a
declared primitive's (a node's class and a flag: apply_partial's `safe`), and the plain product
elsewhere (an infinite constant, or forward mode, where `where` selects the tangent anyway).
fgrad.config.nan_safe_zeros off: the plain products, JAX's values (docs/sharp-bits.md).
"""
import math

import numpy as np

from ..backend import array_module
from ..config import config
from ..ir.value import Tracer, concrete, is_batched, is_staged, peek
from . import primitive
from .batching import elementwise as broadcasting_rule
from .batching import first, same_rank
from .conversion import cast, conj, convert, real
from .entries import binary, entry_for, unary
from .primitive import NEG, ONE, OTHER, Partial, Primitive, Quotient
from .stop_gradient import stop_gradient


def _rules(partial, arity, i, safe=False):
    if partial.__class__ is Quotient:  # (a nan_safe primitive's of one argument: defderiv checks)
        q = partial.divisor
        return (lambda g, ans, x: over(g, q(ans, x))), (lambda t, ans, x: over(t, q(ans, x)))
    if safe and callable(partial):  # (ONE, NEG and OTHER are strings: applied as they are)
        return _safe_rules(partial, arity, i)
    if partial is None:
        return None, None
    if partial is ONE:
        return (lambda g, ans, *args: g), (lambda t, ans, *args: t)
    if partial is NEG:
        return (lambda g, ans, *args: -g), (lambda t, ans, *args: -t)
    if partial is OTHER:  # d(x * y)/dx = y, d(x * y)/dy = x
        if i == 0:
            return (lambda g, ans, x, y: y * g), (lambda t, ans, x, y: y * t)
        return (lambda g, ans, x, y: x * g), (lambda t, ans, x, y: x * t)
    # The partial goes first (Note [the partial first]).
    if arity == 1:  # no *args packing on the hot path
        return (lambda g, ans, x: partial(ans, x) * g), (lambda t, ans, x: partial(ans, x) * t)
    return (lambda g, ans, x, y: partial(ans, x, y) * g), (lambda t, ans, x, y: partial(ans, x, y) * t)


def _safe_rules(partial, arity, i):
    """_rules of a nan_safe primitive: the partial times the cotangent or tangent by `times`
    (Note [zero cotangents stay zero])."""
    if arity == 1:
        return (lambda g, ans, x: times(partial(ans, x), g)), (lambda t, ans, x: times(partial(ans, x), t))
    return ((lambda g, ans, x, y: times(partial(ans, x, y), g)),
            (lambda t, ans, x, y: times(partial(ans, x, y), t)))


def defderiv(prim: Primitive, *partials: Partial | None) -> Primitive:
    """Declare the partial derivative of `prim` with respect to each argument. For a nan_safe
    primitive the rules apply the zero-cotangent policy (Note [zero cotangents stay zero])."""
    if any(p.__class__ is Quotient for p in partials) and not (prim.nan_safe and len(partials) == 1):
        raise TypeError(f"defderiv({prim.name}): a Quotient partial is a nan_safe primitive's of one argument "
                        "(the plain partials' inline steps apply products only)")
    pairs = [_rules(p, len(partials), i, prim.nan_safe) for i, p in enumerate(partials)]
    prim.defvjp(*(v for v, _ in pairs))
    prim.defjvp(*(j for _, j in pairs))
    if not prim.nan_safe or all(p is None or isinstance(p, str) for p in partials):
        prim.defpartials(partials)  # the engine applies these directly: one Python call less per rule
    else:
        prim.safe_partials = partials  # (the engine's walk applies these on values: Note [the inline partials])
    return prim


def broadcasts(prim):
    """`prim`, batched (vmap) as the broadcasting op it is: ops/batching.py's elementwise rule."""
    return prim.defbatch(broadcasting_rule(prim))


def ufunc(name, fn, *partials, saves="inputs and output", torch_name=None, aliases=(), methods=None,
          nan_safe=False, fuse=None):
    """The entry function (ops/entries.py) of a primitive backed by a NumPy ufunc (CuPy arrays
    dispatch through __array_ufunc__); without partials it has no derivative. `saves`,
    `torch_name` and `nan_safe` are the Primitive's; `aliases` are NumPy's other names for it (fgrad.numpy
    exports the entry under its name and these); `methods` names the fgrad.numpy function
    each of the ufunc's methods is ({"reduce": "sum"}: np.add.reduce runs fgrad.numpy.sum).
    `fuse`: may fgrad.compile fuse it (Primitive's `fuse`: "exact", "libm" or None)."""
    prim = broadcasts(Primitive(name, fn, saves=saves, torch_name=torch_name, nan_safe=nan_safe, fuse=fuse))
    if partials:
        defderiv(prim, *partials)
    entry = entry_for(prim, len(partials) if partials else fn.nin, aliases)
    entry.numpy_methods = methods or {}
    return entry


# ---- linear and arithmetic ----------------------------------------------------------
negative = ufunc("negative", np.negative, NEG, saves="nothing", torch_name="Neg", fuse="exact")
add = ufunc("add", np.add, ONE, ONE, saves="nothing", methods={"reduce": "sum", "accumulate": "cumsum"}, fuse="exact")
subtract = ufunc("subtract", np.subtract, ONE, NEG, saves="nothing", torch_name="Sub", fuse="exact")
multiply = ufunc("multiply", np.multiply, OTHER, OTHER, saves="inputs", torch_name="Mul",
                 methods={"reduce": "prod", "accumulate": "cumprod"}, fuse="exact")
divide = binary(broadcasts(Primitive("divide", np.true_divide, torch_name="Div", nan_safe=True, fuse="exact").defvjp(
    lambda g, ans, x, y: over(g, y), lambda g, ans, x, y: -over(times(g, ans), y)).defjvp(
    lambda t, ans, x, y: over(t, y), lambda t, ans, x, y: -over(times(t, ans), y))), aliases=("true_divide",))


def _pow_dy(ans, x, y):
    return ans * log(where(x == 0, 1.0, x))  # 0**y has derivative 0 in y for y > 0


def _pow_dx(ans, x, y):
    if isinstance(y, (int, float)):  # the common case, x ** 2: no masking needed
        return 2.0 * x if y == 2 else y * x ** (y - 1) if y != 0 else 0.0 * x
    return y * x ** where(y == 0, 1.0, y - 1)  # x ** 0 has slope 0 everywhere, also at x = 0


def _power(x, y):
    if (y.__class__ is int or y.__class__ is float) and y == 2 and x.__class__ is np.ndarray and x.dtype.kind == "f":
        return np.square(x)  # x ** 2, the common case: the same numbers as pow, in half the time
    return np.power(x, y)


power = ufunc("power", _power, _pow_dx, _pow_dy, torch_name="Pow", nan_safe=True)
# (2x is finite, but 0 times an infinite cotangent is 0: sqrt(sum(square(x))) at 0)
square = ufunc("square", np.square, lambda ans, x: 2.0 * x, saves="inputs", torch_name="Pow", nan_safe=True,
               fuse="exact")
reciprocal = ufunc("reciprocal", np.reciprocal, lambda ans, x: -ans * ans, saves="output", nan_safe=True, fuse="exact")


def _abs_partial(ans, x):
    """d|x|/dx: sign(x); for complex x, conj(x)/|x| (0 at 0, as JAX), whose product with a
    tangent becomes Re(conj(x)/|x| * t) as it fits the real output (Note [complex derivatives]
    in ops/conversion.py)."""
    return sign(x) if x.dtype.kind != "c" else conj(sgn(x))


absolute = ufunc("absolute", np.absolute, _abs_partial, saves="inputs", torch_name="Abs", aliases=("abs", "fabs"),
                 fuse="exact")
sqrt = ufunc("sqrt", np.sqrt, Quotient(lambda ans, x: 2.0 * ans), saves="output", nan_safe=True, fuse="exact")
cbrt = ufunc("cbrt", np.cbrt, lambda ans, x: 1.0 / (3.0 * ans * ans), saves="output", nan_safe=True)

# ---- exponentials and logarithms ----------------------------------------------------
exp = ufunc("exp", np.exp, lambda ans, x: ans, saves="output", fuse="libm")
exp2 = ufunc("exp2", np.exp2, lambda ans, x: ans * np.log(2.0), saves="output", fuse="libm")
expm1 = ufunc("expm1", np.expm1, lambda ans, x: ans + 1.0, saves="output", fuse="libm")
log = ufunc("log", np.log, Quotient(lambda ans, x: x), saves="inputs", nan_safe=True, fuse="libm")
log2 = ufunc("log2", np.log2, lambda ans, x: 1.0 / (x * np.log(2.0)), saves="inputs", nan_safe=True)
log10 = ufunc("log10", np.log10, lambda ans, x: 1.0 / (x * np.log(10.0)), saves="inputs", nan_safe=True, fuse="libm")
log1p = ufunc("log1p", np.log1p, lambda ans, x: 1.0 / (1.0 + x), saves="inputs", nan_safe=True, fuse="libm")


def _share(base):
    """d logaddexp(x, y)/dx = base(x - ans) (base exp, or exp2 for logaddexp2), the share of x
    in the sum, also where x and ans are the same infinity (inf - inf): there x's share is
    1, or 1/2 if y is that infinity too (a tie splits, as for maximum)."""
    def partial(ans, x, y):
        top = x == ans
        d = where(top, 0.0, x) - where(top, 0.0, ans)  # x - ans, and 0 where x attains the sum
        return where(top & (y == ans), 0.5, base(d))
    return partial


logaddexp = ufunc("logaddexp", np.logaddexp, _share(exp), lambda ans, x, y: _share(exp)(ans, y, x), fuse="libm")
logaddexp2 = ufunc("logaddexp2", np.logaddexp2, _share(exp2), lambda ans, x, y: _share(exp2)(ans, y, x))

# ---- trigonometric and hyperbolic ---------------------------------------------------
sin = ufunc("sin", np.sin, lambda ans, x: cos(x), saves="inputs", fuse="libm")
cos = ufunc("cos", np.cos, lambda ans, x: -sin(x), saves="inputs", fuse="libm")
tan = ufunc("tan", np.tan, lambda ans, x: 1.0 + ans * ans, saves="output", fuse="libm")
arcsin = ufunc("arcsin", np.arcsin, lambda ans, x: 1.0 / sqrt(1.0 - x * x), saves="inputs", aliases=("asin",),
               nan_safe=True, fuse="libm")
arccos = ufunc("arccos", np.arccos, lambda ans, x: -1.0 / sqrt(1.0 - x * x), saves="inputs", aliases=("acos",),
               nan_safe=True, fuse="libm")
arctan = ufunc("arctan", np.arctan, lambda ans, x: 1.0 / (1.0 + x * x), saves="inputs", aliases=("atan",), fuse="libm")
sinh = ufunc("sinh", np.sinh, lambda ans, x: cosh(x), saves="inputs", fuse="libm")
cosh = ufunc("cosh", np.cosh, lambda ans, x: sinh(x), saves="inputs", fuse="libm")
tanh = ufunc("tanh", np.tanh, lambda ans, x: 1.0 - ans * ans, saves="output")
arcsinh = ufunc("arcsinh", np.arcsinh, lambda ans, x: 1.0 / sqrt(x * x + 1.0), saves="inputs", aliases=("asinh",),
                fuse="libm")
arccosh = ufunc("arccosh", np.arccosh, lambda ans, x: 1.0 / sqrt(x * x - 1.0), saves="inputs", aliases=("acosh",),
                nan_safe=True, fuse="libm")
arctanh = ufunc("arctanh", np.arctanh, lambda ans, x: 1.0 / (1.0 - x * x), saves="inputs", aliases=("atanh",),
                nan_safe=True, fuse="libm")
arctan2 = ufunc("arctan2", np.arctan2, lambda ans, y, x: x / (x * x + y * y), lambda ans, y, x: -y / (x * x + y * y),
                saves="inputs", aliases=("atan2",), nan_safe=True, fuse="libm")  # (0/0 at the origin)


def _hypot_dx(ans, x, y):
    """x / hypot(x, y), and 1/2 at (0, 0), as JAX."""
    zero = ans == 0.0
    return where(zero, 0.5, x / where(zero, 1.0, ans))


hypot = ufunc("hypot", np.hypot, _hypot_dx, lambda ans, x, y: _hypot_dx(ans, y, x), fuse="libm")


def _sinc_deriv(ans, x):
    safe = where(x == 0, 1.0, x)  # sinc is even and smooth: its slope at 0 is 0
    return where(x == 0, 0.0, (cos(np.pi * safe) - ans) / safe)


sinc = ufunc("sinc", np.sinc, _sinc_deriv)


# ---- selection: ties split the gradient evenly, as JAX does --------------------------
# (nan_safe: the unpicked side's 0 times an infinite cotangent is 0, as sqrt(maximum(x, 0)) at x < 0)
def _picked(ans, x, y):
    """1 where x was picked, 1/2 where x and y tie, else 0 (in x's dtype)."""
    return where(x == ans, where(x == y, 0.5, 1.0), 0.0).astype(result_dtype(x, y))


maximum = ufunc("maximum", np.maximum, _picked, lambda ans, x, y: _picked(ans, y, x), methods={"reduce": "max"},
                 nan_safe=True)
minimum = ufunc("minimum", np.minimum, _picked, lambda ans, x, y: _picked(ans, y, x), methods={"reduce": "min"},
                 nan_safe=True)
fmax = ufunc("fmax", np.fmax, _picked, lambda ans, x, y: _picked(ans, y, x), nan_safe=True)
fmin = ufunc("fmin", np.fmin, _picked, lambda ans, x, y: _picked(ans, y, x), nan_safe=True)
remainder = ufunc("remainder", np.remainder, ONE, lambda ans, x, y: -floor_divide(x, y), saves="inputs",
                  aliases=("mod",))
fmod = ufunc("fmod", np.fmod, ONE, lambda ans, x, y: -trunc(x / y), saves="inputs")
copysign = ufunc("copysign", np.copysign, lambda ans, x, y: sign(x) * sign(ans), None, fuse="exact")

copy = ufunc("copy", lambda x: x.copy() if hasattr(x, "copy") else x, ONE, saves="nothing", torch_name="Clone")

# ---- steps: constant almost everywhere, their derivative zero ------------------------------
def _zero(v, ans, x, **params):
    """A step's cotangent or tangent of x: zeros (torch's FloorBackward0 gives zeros, not no
    gradient; JAX's floor a zero tangent), concrete, so nothing is traced behind them."""
    return _zeros_of(v)


def step(op):
    """`op` (an entry function, or a Primitive) declared a step: its output traced, its derivative zero."""
    getattr(op, "prim", op).defvjp(_zero).defjvp(_zero)
    return op


# ---- sign: of a real value a step, of a complex one x/|x| -------------------------------
_real_sign = step(ufunc("sign", np.sign, saves="nothing"))


def _sgn_parts(ans, x):
    """(True where x is 0, |x| with 1 there, safe to divide by) for sgn's rules."""
    r = absolute(x)
    zero = r == 0.0
    return zero, where(zero, 1.0, r)


def _sgn_jvp(t, ans, x):
    """d(x/|x|) = (t - s Re(conj(s) t)) / |x| for s = x/|x|: the change of phase alone (0 at 0)."""
    zero, r = _sgn_parts(ans, x)
    return where(zero, 0.0, (t - ans * real(conj(ans) * t)) / r)


def _sgn_vjp(g, ans, x):
    """The transpose of _sgn_jvp (Note [complex derivatives] in ops/conversion.py)."""
    zero, r = _sgn_parts(ans, x)
    return where(zero, 0.0, (g - real(g * ans) * conj(ans)) / r)


# The sign of a complex value, x/|x|, moves with x's phase: its derivative is PyTorch's sgn's
# (JAX's sign has none, a zero where the function is not constant: docs/complex.md).
sgn = unary(broadcasts(Primitive("sgn", np.sign, torch_name="Sgn").defvjp(_sgn_vjp).defjvp(_sgn_jvp)))


def sign(x):
    """np.sign: zero derivative for real x; x/|x| (0 at 0) for complex x, with its derivative
    (the primitive sgn). The entry function of the real sign's primitive `.prim`."""
    if x.__class__ is not np.ndarray and getattr(x, "dtype", None) is not None and x.dtype.kind == "c":
        return sgn(x)
    return _real_sign(x)


sign.prim, sign.numpy_names, sign.numpy_methods = _real_sign.prim, _real_sign.numpy_names, {}
_real_sign.numpy_names = sgn.numpy_names = ()  # (fgrad.numpy.sign is `sign`; NumPy has no sgn)

# ---- the other steps -----------------------------------------------------------------
floor = step(ufunc("floor", np.floor, saves="nothing", fuse="exact"))
ceil = step(ufunc("ceil", np.ceil, saves="nothing", fuse="exact"))
trunc = step(ufunc("trunc", np.trunc, saves="nothing", aliases=("fix",), fuse="exact"))
rint = step(ufunc("rint", np.rint, saves="nothing", fuse="exact"))
floor_divide = ufunc("floor_divide", np.floor_divide)  # (torch's has no derivative: not a step here)
around = step(broadcasts(Primitive("round", lambda x, decimals=0: np.round(x, decimals), saves="nothing")))

# ---- non-differentiable: comparisons and predicates ---------------------------------
equal = ufunc("equal", np.equal, fuse="exact")
not_equal = ufunc("not_equal", np.not_equal, fuse="exact")
less = ufunc("less", np.less, fuse="exact")
less_equal = ufunc("less_equal", np.less_equal, fuse="exact")
greater = ufunc("greater", np.greater, fuse="exact")
greater_equal = ufunc("greater_equal", np.greater_equal, fuse="exact")
logical_and = ufunc("logical_and", np.logical_and, fuse="exact")
logical_or = ufunc("logical_or", np.logical_or, fuse="exact")
logical_xor = ufunc("logical_xor", np.logical_xor, fuse="exact")
logical_not = ufunc("logical_not", np.logical_not, fuse="exact")
isfinite = ufunc("isfinite", np.isfinite, fuse="exact")
isnan = ufunc("isnan", np.isnan, fuse="exact")
isinf = ufunc("isinf", np.isinf, fuse="exact")
signbit = ufunc("signbit", np.signbit, fuse="exact")
heaviside = ufunc("heaviside", np.heaviside)  # (a step: zero derivative where it has one)
nextafter = ufunc("nextafter", np.nextafter)
spacing = ufunc("spacing", np.spacing)


def ones_like_value(x):
    """Ones of x's shape and dtype, on its device (a constant)."""
    return array_module(peek(x)).ones(x.shape, x.dtype)


# ---- integers and bits: no derivative ----------------------------------------------------
bitwise_and = ufunc("bitwise_and", np.bitwise_and)
bitwise_or = ufunc("bitwise_or", np.bitwise_or)
bitwise_xor = ufunc("bitwise_xor", np.bitwise_xor)
bitwise_not = ufunc("bitwise_not", np.invert, aliases=("invert", "bitwise_invert"))
left_shift = ufunc("left_shift", np.left_shift, aliases=("bitwise_left_shift",))
right_shift = ufunc("right_shift", np.right_shift, aliases=("bitwise_right_shift",))
bitwise_count = ufunc("bitwise_count", np.bitwise_count)
gcd = ufunc("gcd", np.gcd)
lcm = ufunc("lcm", np.lcm)
ldexp = ufunc("ldexp", np.ldexp, lambda ans, x, n: ldexp(ones_like_value(x), n), None, saves="inputs")  # x * 2**n


# ---- where: the condition selects, the branches carry gradient -----------------------
def _select(cond, x, y):
    return array_module(cond, x, y).where(cond, x, y)


select = broadcasts(Primitive("where", _select, saves="inputs")).defvjp(
    None, lambda g, ans, c, x, y: where(c, g, 0.0), lambda g, ans, c, x, y: where(c, 0.0, g)).defjvp(
    None, lambda t, ans, c, x, y: where(c, t, 0.0), lambda t, ans, c, x, y: where(c, 0.0, t))


def where(cond, x, y):
    """`where(cond, x, y)` on traced or plain values."""
    return select(cond, x, y)


# ---- the zero-cotangent policy's products (Note [zero cotangents stay zero]) -------------
def nan_in(c):
    """May c hold a NaN? True wherever it does; where it says so, the policy's exact step
    decides, so a false alarm (below) costs time, never a value. (A scalar is its own test.)"""
    if c.__class__ is np.float64:  # (the common scalar, a Python float too: math's test, no NumPy call)
        return math.isnan(c)
    if getattr(c, "ndim", 0):
        if c.dtype.kind in "biu":  # (no NaN in booleans and integers; any other dtype is tested)
            return False
        # vdot(c, c), the sum of |c|^2, is NaN where an entry is (its terms are >= 0 or inf, so no
        # inf - inf): one pass and no temporary, where isnan(c).any() fills a boolean array and
        # reduces it (16 float64 entries: 12,790 -> 6,919 instructions; 1,000: 7.3 -> 1.7 us).
        # A complex entry with an infinite part may make a NaN imaginary part: a false alarm.
        s = array_module(c).vdot(c, c)
        return math.isnan(s) if s.__class__ is np.float64 else bool(s != s)
    return c != c


def _zeroed(c, zero):
    """c with 0 where it is NaN and `zero` (a factor is 0) holds."""
    xp = array_module(c)
    c = xp.asarray(c)  # (Python floats too: 0.0 * inf)
    out = xp.where(xp.isnan(c) & zero, xp.zeros((), c.dtype), c)
    return out if out.ndim else out[()]


def _safe_multiply(a, b):
    c = a * b
    return _zeroed(c, (a == 0) | (b == 0)) if nan_in(c) else c


def _safe_divide(a, b):
    try:
        c = a / b  # (NumPy's scalar operator: np.true_divide of two scalars costs ~5x as much)
    except ZeroDivisionError:  # (two Python numbers: NumPy's quotient, inf or nan, as for arrays)
        c = np.true_divide(a, b)
    return _zeroed(c, a == 0) if nan_in(c) else c


# On NumPy scalars each is its operator where that makes no NaN: fgrad.compile writes the
# operator, and calls the kernel only on a NaN (compile/codegen.py's _as_operator).
_safe_multiply.operator, _safe_divide.operator = "*", "/"


# Their derivatives are the product and quotient rules in these same products, so the policy
# holds at every order; in multiply's and divide's order of operations, so that where no factor
# is 0 every order's values are theirs, bit for bit. (Either factor may be traced.)
safe_multiply = binary(broadcasts(Primitive("safe_multiply", _safe_multiply, saves="inputs", torch_name="Mul").defvjp(
    lambda g, ans, a, b: safe_multiply(b, g), lambda g, ans, a, b: safe_multiply(a, g)).defjvp(
    lambda t, ans, a, b: safe_multiply(b, t), lambda t, ans, a, b: safe_multiply(a, t))))
safe_divide = binary(broadcasts(Primitive("safe_divide", _safe_divide, torch_name="Div").defvjp(
    lambda g, ans, a, b: safe_divide(g, b), lambda g, ans, a, b: -safe_divide(safe_multiply(g, ans), b)).defjvp(
    lambda t, ans, a, b: safe_divide(t, b), lambda t, ans, a, b: -safe_divide(safe_multiply(t, ans), b))))
safe_multiply.numpy_names = safe_divide.numpy_names = ()  # (the rules' products, not NumPy's functions)


# Their jvp on values in one NaN test of the output and one of the tangent (JVPTrace's
# jvp_pair), where the rules' products would test each product (forward-over-reverse runs
# one per policy product of the backward pass: W4). A NaN propagates through the tangent's
# sum, so where neither has one no product had one, and the policy's values are these plain
# ones, bit for bit (the rules' order); else None: the rules decide.
# (tests/transforms/test_nan_safe.py compares them with the rules.)
def _safe_multiply_pair(primals, tangents, params):
    (a, b), (ta, tb) = primals, tangents
    out = a * b
    t = b * ta if tb is None else a * tb if ta is None else b * ta + a * tb
    return _fitting(out, t)


def _safe_divide_pair(primals, tangents, params):
    (a, b), (ta, tb) = primals, tangents
    try:
        out = a / b
    except ZeroDivisionError:  # (Python numbers: _safe_divide's NumPy quotient, by the rules)
        return None
    t = ta / b if tb is None else -(tb * out / b) if ta is None else ta / b + -(tb * out / b)
    return _fitting(out, t)


def _fitting(out, t):
    """(out, t) where neither holds a NaN and t has out's shape and dtype (else the rules decide)."""
    if getattr(out, "shape", None) != t.shape or getattr(out, "dtype", None) is not t.dtype:
        return None
    if out.__class__ is np.ndarray and out.ndim == 1 and out.dtype.kind == "f" and t.__class__ is np.ndarray:
        # Both in one pass: a NaN entry of either makes their dot product NaN (NaN * 0 is NaN);
        # so may an inf * 0 or inf - inf, a false alarm that only sends the step to the rules.
        # np.vdot, not the method: ndarray.dot warns on an overflow (1e200 entries), which
        # -W error turns into an exception. (W4 eager: see benchmarks/README.md's policy cost.)
        return None if math.isnan(np.vdot(out, t)) else (out, t)
    return None if nan_in(out) or nan_in(t) else (out, t)


safe_multiply.prim.jvp_pair, safe_divide.prim.jvp_pair = _safe_multiply_pair, _safe_divide_pair


def times(p, v):
    """p * v in a derivative: with fgrad.config.nan_safe_zeros on, 0 where a factor is 0 even if
    the other is infinite or NaN (safe_multiply: on values its kernel, traced its step, which a
    finite nonzero Python constant factor does not need)."""
    if not config.nan_safe_zeros:
        return p * v
    if not (isinstance(p, Tracer) or isinstance(v, Tracer)):
        return _safe_multiply(p, v)  # (values: the kernel, without the entry's dispatch)
    if (p.__class__ is float and p != 0.0 and p - p == 0.0) or (v.__class__ is float and v != 0.0 and v - v == 0.0):
        return p * v  # (no safe_multiply step recorded for a constant factor)
    return safe_multiply(p, v)


primitive.times = times  # (apply_partial's multiply step: ops/primitive.py sits below this module)


def over(v, q):
    """v / q in a derivative: with fgrad.config.nan_safe_zeros on, 0 where v is 0 even if q is 0
    or NaN (safe_divide)."""
    if not config.nan_safe_zeros:
        return v / q
    if isinstance(v, Tracer) or isinstance(q, Tracer):
        return safe_divide(v, q)
    return _safe_divide(v, q)  # (values: the kernel, without the entry's dispatch)


primitive.over = over  # (apply_partial's Quotient step)


# ---- overwrite: what an in-place fill leaves (Tensor.zero_, fill_, copy_) -------------------
def _overwrite(x, value):
    out = array_module(x).empty(x.shape, x.dtype)
    out[...] = value  # broadcast, and cast to x's dtype (as copy_ casts)
    return out


def _zeros_of(g):
    """Concrete zeros of g's shape and dtype: the cotangent of what an overwrite discarded."""
    return array_module(peek(g)).zeros(g.shape, g.dtype)


# `value` written over x: x's old values are gone, so their cotangent is zeros (PyTorch's
# ZeroBackward and CopyBackwards hand zeros to the old history, so a leaf behind it gets a
# zero .grad, not none); the value's is g, summed and cast to its shape and dtype by the engine.
def _overwrite_batch(args, dims):
    """The result has x's shape: x goes first (repeated if unbatched), the value lines up with it."""
    (x, value), (dx, dv) = args, dims
    x = first(x, dx, value.shape[dv] if dx is None else x.shape[dx])
    return overwrite(x, value if dv is None else same_rank(value, dv, x.ndim - 1)), 0


overwrite = Primitive("overwrite", _overwrite, saves="nothing", torch_name="Copy", batch=_overwrite_batch).defvjp(
    lambda g, ans, x, value: _zeros_of(g), lambda g, ans, x, value: g).defjvp(
    None, lambda t, ans, x, value: t)


def result_dtype(*values):
    """NumPy's result dtype for `values` (Python scalars are weak, as in NumPy 2)."""
    return np.result_type(*[v if isinstance(v, (int, float, complex)) else v.dtype for v in values])


# ---- dtype conversion: the convert primitive lives in ops/conversion.py -----------------
def astype(x, dtype):
    """Cast; a cast to an integer or boolean dtype has zero derivative."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if not np.issubdtype(dtype, np.inexact):  # (under vmap each example's cast, under compile a step: no derivative)
        return convert(stop_gradient(x), dtype=dtype) if is_batched(x) or is_staged(x) else cast(concrete(x), dtype)
    return convert(x, dtype=dtype)
