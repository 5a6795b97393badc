"""What fgrad.scipy.stats's distributions share: promoting arguments to floating values,
guarded branches (the "double where"), and the shape parameters whose derivative has no
closed form.

Note [guarded branches]: `fnp.where(c, f(x), g)` differentiates both branches and selects,
so a branch that is undefined (inf or nan, or an infinite derivative) at the points it does
not serve makes a nan derivative there (0 * inf). Each branch is therefore evaluated at a
sanitized input, `fnp.where(c, x, safe)`, and only then selected: the derivative at a point
is that of the branch that serves it.
"""
import functools

import numpy as np

from ... import numpy as fnp
from ...backend import array_module
from ...ir.value import Tracer, peek
from ...ops.primitive import Primitive

inf = np.inf
nan = np.nan


def _is_array(a):
    return isinstance(a, Tracer) or (hasattr(a, "dtype") and not isinstance(a, np.generic))


def promote(*args):
    """The arguments as floating values: integer and boolean arrays cast to the floating dtype
    of the array arguments (float64 where there is none), lists made arrays, and Python and
    NumPy scalars made arrays of that dtype on the device of the array arguments (so that a
    branch of scalars alone, `fnp.where(c, 1.0, df)`, is made there too); with no array
    argument, NumPy scalars."""
    args = [fnp.asarray(a) if isinstance(a, (list, tuple)) else a for a in args]
    arrays = [a for a in args if _is_array(a)]
    if any(isinstance(a, complex) or getattr(a, "dtype", np.dtype(float)).kind == "c" for a in args):
        raise TypeError("fgrad.scipy.stats: complex arguments are not supported (the distributions are of real "
                        "values; SciPy's only run their formulas on complex ones)")
    floats = [a.dtype for a in arrays if a.dtype.kind == "f"]
    dtype = np.result_type(*floats) if floats else np.dtype(np.float64)
    xp = array_module(peek(arrays[0])) if arrays else None
    out = []
    for a in args:
        if _is_array(a):
            out.append(fnp.astype(a, dtype) if a.dtype.kind in "biu" else a)
        else:
            out.append(dtype.type(a) if xp is None else xp.asarray(a, dtype=dtype))
    return out


def standardize(x, loc, scale):
    """(y, scale): x promoted with loc and scale (promote), and y = (x - loc) / scale."""
    x, loc, scale = promote(x, loc, scale)
    return (x - loc) / scale, scale


def quiet(fn):
    """fn without NumPy's warnings for the inf and nan its unselected branches make (the
    results are SciPy's, which warns about none of them)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            return fn(*args, **kwargs)
    return wrapper


def check(value, ok):
    """value where `ok` (the parameters are valid), nan elsewhere (SciPy's bad value)."""
    return fnp.where(ok, value, nan)


def interior(y, lo, hi, fn, below, above, safe):
    """fn(y) where lo < y < hi, `below` where y <= lo, `above` where y >= hi, nan where y is
    nan; fn sees `safe` at the points it does not serve (Note [guarded branches])."""
    inside = fnp.logical_and(y > lo, y < hi)
    ys = fnp.where(inside, y, safe)
    return fnp.where(inside, fn(ys), fnp.where(y <= lo, below, fnp.where(y >= hi, above, nan)))


def _refuse(*args, message):
    raise NotImplementedError(message)


def _guard_batch(args, dims, message):
    return _guard(args[0], args[1], message=message), dims[0]


# guard(out, v) is out; its derivative with respect to v raises (Note [no closed form])
_guard = Primitive("stats_no_closed_form", lambda out, v, message: out, batch=_guard_batch)
_guard.defvjp(lambda g, ans, out, v, message: g, _refuse)
_guard.defjvp(lambda t, ans, out, v, message: t, _refuse)


class NoClosedForm:
    """The guard of a shape parameter v whose derivative has no closed form in `fn` (say
    "t.cdf"), where `fn` needs `kernel`'s (betainc's, gammainc's) derivative with respect to
    its parameters. `enter(v)` and `leave(out, v)` return v and out.

    Note [no closed form]: differentiating with respect to v must raise naming fn and v, not
    the kernel and its own argument, so the guard's rule must run before the kernel's: in
    forward mode that is enter's, applied to v before the kernel sees it; in reverse mode,
    leave's, applied to the result, where the backward pass starts. Both are one primitive,
    `_guard(out, v)`, whose derivative in out is the identity and in v raises: its rule for v
    runs only when v's derivative is asked for, so a v that is traced but not differentiated
    (vmap, compile, or a derivative with respect to x alone) goes through untouched."""

    def __init__(self, fn, arg, kernel):
        self.message = (f"fgrad.scipy.stats.{fn}: the derivative with respect to {arg} has no closed form (it "
                        f"needs {kernel}'s derivative in its parameters), and fgrad does not approximate it; hold "
                        f"{arg} constant (a Python number or fgrad.stop_gradient) to differentiate with respect to "
                        f"the other arguments")

    def enter(self, v):
        return _guard(v, v, message=self.message) if isinstance(v, Tracer) else v

    def leave(self, out, v):
        return _guard(out, v, message=self.message) if isinstance(v, Tracer) else out


def lattice(k, loc, lo, hi, ok, fn, safe):
    """A discrete distribution's logpmf, as SciPy's rv_discrete.logpmf: fn(y) at the integers
    y = k - loc in [lo, hi], -inf at the other numbers, nan where the parameters are not valid
    (`ok` false) or k is nan; fn sees `safe` (a point of the support) at the points it does
    not serve (Note [guarded branches])."""
    y = k - loc
    inside = fnp.logical_and(fnp.logical_and(y >= lo, y <= hi), fnp.floor(y) == y)
    value = fnp.where(inside, fn(fnp.where(inside, y, safe)), -inf)
    return fnp.where(fnp.logical_and(ok, ~fnp.isnan(y)), value, nan)


def integral(n):
    """n is a whole number (SciPy's _isintegral)."""
    return n == fnp.round(n)
