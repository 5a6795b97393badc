"""fgrad.scipy.integrate: trapezoid, and odeint with the signature and semantics of
jax.experimental.ode.odeint, differentiated by the adjoint method.

trapezoid is a composite of fgrad ops. odeint is a custom_vjp: its forward pass integrates
with an adaptive Dormand-Prince 5(4) method (JAX's) written in fgrad ops, and its backward
pass integrates the augmented adjoint system (y, y_bar, t0_bar, args_bar) backward in time
with odeint itself, taking vector-Jacobian products of func with fgrad.vjp (Chen et al.,
"Neural ordinary differential equations", 2018; as JAX and HIPS autograd do). Because the
backward pass is odeint again, derivatives of every order exist, each by the adjoint method.

The solver's loop is a lax.while_loop per output interval: step sizes are fgrad values, per
example under vmap (a step is accepted or rejected by fnp.where), so vmap(odeint) gives each
example's own solution, and under fgrad.compile one staged body serves every step, so a
compiled training step traces once whatever its parameters. Where nothing is traced (grad's
forward solve and its backward pass), each is one fgrad.compile'd program, kept per vector
field and replayed (Note [odeint replays one program per solver]).
"""
import numpy as _np

from .. import numpy as _fnp
from ..compile.api import compile as _compile
from ..ir.value import Tracer as _Tracer
from ..ir.value import concrete as _concrete
from ..lax import control_flow as _lax
from ..numpy._arguments import _as_operand, normalize_axis
from ..transforms import trees as _trees
from ..transforms.custom import custom_vjp as _custom_vjp
from ..transforms.reverse import vjp as _vjp

__all__ = ["odeint", "trapezoid"]


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """scipy.integrate.trapezoid: the integral of y along `axis` by the trapezoidal rule, at
    sample points x (a 1-D array along the axis, or y's shape) or spacing dx.

    Examples
    --------
    >>> x = np.linspace(0.0, 1.0, 5)
    >>> fgrad.scipy.integrate.trapezoid(x ** 2, x), fgrad.grad(lambda y: fgrad.scipy.integrate.trapezoid(y, x))(x)
    (np.float64(0.34375), array([0.125, 0.25 , 0.25 , 0.25 , 0.125]))
    """
    y = _as_operand(y)
    axis = normalize_axis(axis, y.ndim, "trapezoid")[0]
    n = _fnp.shape(y)[axis]
    lead = (slice(None),) * axis
    upper, lower = y[lead + (slice(1, None),)], y[lead + (slice(None, n - 1),)]
    if x is None:
        d = dx
    else:
        x = _as_operand(x)
        if x.ndim == 1:
            if _fnp.shape(x)[0] != n:
                raise ValueError(f"fgrad.scipy.integrate.trapezoid: x has {_fnp.shape(x)[0]} points but y has {n} "
                                 f"along axis {axis}")
            d = _fnp.reshape(x[1:] - x[:-1], (n - 1,) + (1,) * (y.ndim - axis - 1))
        else:
            xn = _fnp.shape(x)[axis]
            d = x[lead + (slice(1, None),)] - x[lead + (slice(None, xn - 1),)]
    return _fnp.sum(d * (upper + lower) / 2.0, axis=axis)


# ---- odeint ------------------------------------------------------------------------------------
def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=_np.inf, hmax=_np.inf, tfirst=False, **scipy_args):
    """jax.experimental.ode.odeint: the solution of dy/dt = func(y, t, *args), y(t[0]) = y0, at the
    times t (strictly increasing), stacked along a new first axis (of every leaf, for a pytree y0).

    SciPy's signature is taken too: `args=(a, b)` for the extra arguments, `tfirst=True` for
    func(t, y, ...), and rtol/atol None, hmax 0 and mxstep 0 for the solver's defaults.

    Differentiable (reverse mode by the adjoint method, and every other transform through it) in
    y0, t and args, which must be pytrees of float arrays. func must not close over traced values
    (fgrad raises if it does): pass them through *args.

    Examples
    --------
    >>> t = np.array([0.0, 1.0])
    >>> f = lambda k: fgrad.scipy.integrate.odeint(lambda y, t, k: -k * y, 1.0, t, k)[-1]  # exp(-k t)
    >>> round(float(f(0.5)), 6), round(float(fgrad.grad(f)(0.5)), 6)  # d/dk exp(-k) = -exp(-k)
    (0.606531, -0.606531)
    """
    if scipy_args:
        if set(scipy_args) != {"args"}:
            raise TypeError(f"fgrad.scipy.integrate.odeint: unsupported arguments {sorted(set(scipy_args) - {'args'})}"
                            f" (of SciPy's, fgrad takes args, tfirst, rtol, atol, hmax and mxstep)")
        if args:
            raise TypeError("fgrad.scipy.integrate.odeint: extra arguments given both positionally and as args=")
        args = scipy_args["args"] if isinstance(scipy_args["args"], tuple) else (scipy_args["args"],)  # (as SciPy)
    rtol, atol = 1.4e-8 if rtol is None else rtol, 1.4e-8 if atol is None else atol
    hmax, mxstep = _np.inf if hmax == 0 else hmax, _np.inf if mxstep == 0 else mxstep  # (SciPy's 0: no bound)
    for name, value in (("rtol", rtol), ("atol", atol), ("mxstep", mxstep), ("hmax", hmax)):
        if not isinstance(value, (int, float, _np.integer, _np.floating)):
            raise TypeError(f"fgrad.scipy.integrate.odeint: {name} must be a Python number, got {value!r}")
    if tfirst:
        func = _swapped(func)
    t = _as_operand(t)
    if t.ndim != 1:
        raise ValueError(f"fgrad.scipy.integrate.odeint: t must be a 1-D array of times, got shape {_fnp.shape(t)}")
    if not _np.issubdtype(t.dtype, _np.floating):
        t = _fnp.astype(t, _np.float64)
    times = _np.asarray(_concrete(t))
    if times.ndim == 1 and _np.any(_np.diff(times) < 0):  # (times that vmap batches are stacked: not checked)
        raise ValueError("fgrad.scipy.integrate.odeint: t must be increasing")
    return _odeint(func, float(rtol), float(atol), mxstep, float(hmax), _floats(y0, "y0"), t,
                   *[_floats(a, "args") for a in args])


def _swapped(func):
    """func(t, y, *args) as func(y, t, *args): SciPy's tfirst=True."""
    def swapped(y, t, *args):
        return func(t, y, *args)
    return swapped


def _floats(tree, what):
    """tree with its leaves as float arrays (integers and booleans as float64)."""
    def one(x):
        x = _as_operand(x)
        if x.dtype.kind in "biu":
            return _fnp.astype(x, _np.float64)
        if x.dtype.kind != "f":
            raise TypeError(f"fgrad.scipy.integrate.odeint: {what} must hold float arrays, got dtype {x.dtype}")
        return x
    leaves, treedef = _trees.flatten(tree)
    return _trees.unflatten(treedef, [one(x) for x in leaves])


def _ravel(tree):
    """(the leaves of `tree` as one vector, a function making a tree of that structure of a vector)."""
    leaves, treedef = _trees.flatten(tree)
    shapes = [_fnp.shape(v) for v in leaves]
    flat = _fnp.concatenate([_fnp.ravel(v) for v in leaves]) if len(leaves) != 1 else _fnp.ravel(leaves[0])

    def unravel(v, lead=()):
        out, start = [], 0
        for s in shapes:
            size = int(_np.prod(s, dtype=_np.int64))
            out.append(_fnp.reshape(v[..., start:start + size], lead + s))
            start += size
        return _trees.unflatten(treedef, out)
    return flat, unravel


def _map(fn, *trees):
    """fn over the leaves of trees of one structure."""
    leaves = [_trees.flatten(t)[0] for t in trees]
    return _trees.unflatten(_trees.flatten(trees[0])[1], [fn(*vs) for vs in zip(*leaves)])


def _odeint_impl(func, rtol, atol, mxstep, hmax, y0, t, *args):
    if any(isinstance(v, _Tracer) for v in _trees.flatten((y0, t, args))[0]):
        return _solve(func, rtol, atol, mxstep, hmax, y0, t, *args)
    return _replayed("solve", _solve, func, rtol, atol, mxstep, hmax)(y0, t, *args)


def _solve(func, rtol, atol, mxstep, hmax, y0, t, *args, staged=False):
    """odeint's solution; with `staged`, the vector field staged by fgrad.compile for this solve."""
    flat, unravel = _ravel(y0)

    def fun(y, s):
        try:
            dy = _ravel(func(unravel(y), s, *args))[0]
        except TypeError as e:
            if "is not active here" not in str(e):
                raise
            raise TypeError("fgrad.scipy.integrate.odeint: func uses a traced value it closes over; pass such values "
                            "through odeint's *args (as odeint(func, y0, t, a), with func(y, t, a)), which it "
                            "differentiates") from e
        if _fnp.shape(dy) != _fnp.shape(y):
            raise ValueError(f"fgrad.scipy.integrate.odeint: func returned {_fnp.shape(dy)[0]} values for a state "
                             f"of {_fnp.shape(y)[0]} (its output must have y's structure and shapes)")
        return dy
    return unravel(_integrate(_staged(fun) if staged else fun, flat, t, rtol, atol, mxstep, hmax),
                   lead=(_fnp.shape(t)[0],))


# Note [odeint replays one program per solver]: on concrete values (grad's forward solve and
# its backward pass, a plain call), the whole solve, or the whole adjoint pass, is staged by
# fgrad.compile once per vector field and tolerances and replayed on later calls: its loops
# are lax.while_loops, so the program holds one step's body, and a replay runs NumPy's
# kernels with no tracing, dispatch or tape (benchmarks/odeint_fit.py measures it against
# hand-written NumPy). The field is known by its code and by what its closure and the globals
# it names hold, so a function made anew per call (a lambda, tfirst's wrapper, the adjoint's
# dynamics) shares the program. Only a field whose closure and globals hold nothing but
# functions (known the same way), numbers, strings, and NumPy's, math's and fgrad's own
# functions and modules is kept so (a user's class or module may be given a new attribute,
# unseen: M.k = 4.0 once replayed the program of M.k = 1.0): an array
# it reads would be a constant of a long-lived program, read-only while it lives (Note [what
# fgrad keeps is read-only]) and stale if written in place. Another field is staged once per
# solve and replayed at each stage of each step, the loops running in Python; so is one whose
# program has been retraced _RETRACES times (Python decisions on its values: guards that fail).
_RETRACES = 4
_SOLVERS = {}  # key -> (the compiled solver, the field: what the key names by id stays alive)
_SOLVERS_KEPT = 64
_PLAIN = (type(None), bool, int, float, complex, str)
_LIBRARIES = ("fgrad", "numpy", "math", "builtins")
_MODULE = type(_np)


def _replayed(kind, build, func, *options):
    """`build(func, *options, ...)` compiled, one per (kind, func's identity, options); where
    func cannot be identified or its program keeps being retraced, Python's loop instead."""
    def fallback(*a):
        return _solve(func, *options, *a, staged=True) if build is _solve else build(func, *options, *a)
    ident = _identity(func)
    if ident is None:
        return fallback
    key = (kind, ident, options)
    entry = _SOLVERS.get(key)
    if entry is None:
        if len(_SOLVERS) >= _SOLVERS_KEPT:
            _SOLVERS.pop(next(iter(_SOLVERS)))  # (the oldest)
        entry = _SOLVERS[key] = (_compile(lambda *a: build(func, *options, *a)), func)
    compiled = entry[0]
    return fallback if compiled.cache_info().retraces >= _RETRACES else compiled


def _identity(func, depth=0):
    """What a Python function's program depends on besides its arguments (its code, defaults,
    and what its closure and the globals it names hold, functions among them by their own
    identity), or None: another callable, or one that reads any other object (an array)."""
    code = getattr(func, "__code__", None)
    if code is None or depth > 8 or not hasattr(func, "__globals__"):
        return None
    g = func.__globals__
    held = [_contents(cell) for cell in func.__closure__ or ()] + [g[n] for n in code.co_names if n in g]
    held += list(func.__defaults__ or ()) + list((func.__kwdefaults__ or {}).values())
    parts = []
    for v in held:
        if _library(v):
            parts.append(id(v))  # (NumPy's and fgrad's own functions and modules: what they read is not the user's)
        elif hasattr(v, "__code__"):
            inner = _identity(v, depth + 1)
            if inner is None:
                return None
            parts.append(inner)
        elif isinstance(v, _PLAIN):
            parts.append(v)
        else:  # (an array, a dict, a user's class or module: what it holds may change, unseen)
            return None
    return code, tuple(parts)


def _library(v):
    name = v.__name__ if isinstance(v, _MODULE) else getattr(v, "__module__", None)
    return isinstance(name, str) and name.partition(".")[0] in _LIBRARIES


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # (an empty cell: a name not bound yet)
        return None


def _staged(fun, retraces=4):
    """`fun` (the vector field on concrete values) staged by fgrad.compile once per solve, each
    call a replay of its program; `fun` itself again once the program has been traced anew
    `retraces` times (a vector field whose Python decisions read y or t: a retrace each call)."""
    compiled = _compile(fun)

    def call(y, s):
        if compiled.cache_info().retraces >= retraces:
            return fun(y, s)
        return compiled(y, s)
    return call


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, t, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, t, *args)
    return ys, (ys, t, args)


def _odeint_bwd(func, rtol, atol, mxstep, hmax, res, g):
    ys, t, args = res
    if any(isinstance(v, _Tracer) for v in _trees.flatten((ys, t, args, g))[0]):
        return _adjoint(func, rtol, atol, mxstep, hmax, ys, t, args, g)
    return _replayed("adjoint", _adjoint, func, rtol, atol, mxstep, hmax)(ys, t, args, g)


def _augmented(func):
    """The adjoint system's dynamics of func, in negated time s = -t: d/ds of (y, y_bar,
    t0_bar, args_bar), of that structure. Made afresh per call; _identity knows it by func."""
    def aug_dynamics(state, s, *args):
        y, y_bar = state[0], state[1]
        y_dot, pull = _vjp(func, y, -s, *args)
        cts = pull(y_bar)
        return _map(lambda v: -v, y_dot), cts[0], cts[1], tuple(cts[2:])
    return aug_dynamics


def _adjoint(func, rtol, atol, mxstep, hmax, ys, t, args, g):
    """JAX's _odeint_rev: from the last time to the first, integrate the adjoint system backward
    (in negated time s = -t, so that the integrator steps forward), adding each output's cotangent."""
    def at(tree, i):
        return _map(lambda v: v[i], tree)

    def dot(a, b):
        return sum(_fnp.sum(u * v) for u, v in zip(_trees.flatten(a)[0], _trees.flatten(b)[0]))

    aug_dynamics = _augmented(func)
    n = _fnp.shape(t)[0]
    y_bar = at(g, n - 1)
    t0_bar = _fnp.zeros_like(t[0])
    args_bar = _map(_fnp.zeros_like, args)
    ts_bar = []
    for i in range(n - 1, 0, -1):
        t_bar = dot(func(at(ys, i), t[i], *args), at(g, i))  # the effect of moving t[i]
        ts_bar.append(t_bar)
        t0_bar = t0_bar - t_bar
        state = (at(ys, i), y_bar, t0_bar, args_bar)
        _, y_bar, t0_bar, args_bar = at(_odeint(aug_dynamics, rtol, atol, mxstep, hmax, state,
                                                _fnp.stack([-t[i], -t[i - 1]]), *args), 1)
        y_bar = _map(lambda a, b: a + b, y_bar, at(g, i - 1))
    t_bar = _fnp.stack([t0_bar] + ts_bar[::-1])
    return (y_bar, _fnp.astype(t_bar, t.dtype), *args_bar)


_odeint = _custom_vjp(_odeint_impl, nondiff_argnums=(0, 1, 2, 3, 4))
_odeint.defvjp(_odeint_fwd, _odeint_bwd)


# ---- Dormand-Prince 5(4), JAX's tableau and step-size control --------------------------------------
_ALPHA = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_BETA = ((1 / 5,),
         (3 / 40, 9 / 40),
         (44 / 45, -56 / 15, 32 / 9),
         (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
         (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
         (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
_C_SOL = _BETA[-1]  # (the last stage is evaluated at the solution: "first same as last")
_C_ERROR = (35 / 384 - 1951 / 21600, 0.0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
            -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1 / 60)


def _combine(coeffs, ks):
    return sum(c * k for c, k in zip(coeffs, ks) if c != 0.0)


def _dopri_step(fun, y, f0, t, h):
    """One step of size h: (y1, fun(y1, t + h), the error estimate)."""
    ks = [f0]
    for alpha, beta in zip(_ALPHA, _BETA):
        ks.append(fun(y + h * _combine(beta, ks), t + alpha * h))
    return y + h * _combine(_C_SOL, ks), ks[-1], h * _combine(_C_ERROR, ks)


def _error_ratio(err, rtol, atol, y0, y1):
    tol = atol + rtol * _fnp.maximum(_fnp.abs(y0), _fnp.abs(y1))
    return _fnp.sqrt(_fnp.mean((err / tol) ** 2))


def _optimal_step(last, ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0):
    dfactor = _fnp.where(ratio < 1, 1.0, dfactor)
    with _np.errstate(divide="ignore"):  # (ratio 0: the step grows by ifactor)
        factor = _fnp.minimum(ifactor, _fnp.maximum(safety * ratio ** (-1.0 / order), dfactor))
    return _fnp.where(ratio == 0, last * ifactor, last * factor)


def _initial_step(fun, t0, y0, f0, rtol, atol, order=5.0):
    """Hairer, Norsett and Wanner, Solving ODEs I, Sec. II.4 (as JAX's initial_step_size)."""
    scale = atol + _fnp.abs(y0) * rtol
    d0 = _fnp.sqrt(_fnp.sum((y0 / scale) ** 2))
    d1 = _fnp.sqrt(_fnp.sum((f0 / scale) ** 2))
    with _np.errstate(divide="ignore", invalid="ignore"):  # (the branch not taken may divide by 0)
        h0 = _fnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
        f1 = fun(y0 + h0 * f0, t0 + h0)
        d2 = _fnp.sqrt(_fnp.sum(((f1 - f0) / scale) ** 2)) / h0
        h1 = _fnp.where((d1 <= 1e-15) & (d2 <= 1e-15), _fnp.maximum(1e-6, h0 * 1e-3),
                        (0.01 / _fnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)))
    return _fnp.minimum(100.0 * h0, h1)


def _integrate(fun, y0, ts, rtol, atol, mxstep, hmax):
    """The solution of dy/dt = fun(y, t) at the times ts (stacked), stepping exactly onto each.

    Each interval is a lax.while_loop of Dormand-Prince steps (one staged body under compile).
    Every quantity is an fgrad value, so under vmap each example has its own time, step size
    and acceptance (the loop runs while any example runs; a rejected or finished example
    keeps its state through fnp.where)."""
    t = ts[0]
    f0 = fun(y0, t)
    carry = (t, y0, f0, _initial_step(fun, t, y0, f0, rtol, atol))
    out = [y0]
    for i in range(1, _fnp.shape(ts)[0]):
        carry = _interval(fun, carry, ts[i], rtol, atol, mxstep, hmax)
        if mxstep != _np.inf and not _np.all(_concrete(carry[0] >= ts[i])):
            raise RuntimeError(f"fgrad.scipy.integrate.odeint: mxstep={mxstep} steps did not reach t[{i}]; "
                               f"raise mxstep, or loosen rtol and atol (the problem may be stiff)")
        out.append(carry[1])
    return _fnp.stack(out)


def _interval(fun, carry, target, rtol, atol, mxstep, hmax):
    """(t, y, f(y, t), the next step size) stepped from carry's t onto `target`, in at most mxstep steps."""
    def running(state):
        return _fnp.logical_and(state[0] < target, state[4] < mxstep)

    def step(state):
        t, y, f0, dt, steps = state
        remaining = target - t
        h = _fnp.minimum(_fnp.minimum(dt, remaining), hmax)
        clipped = h >= remaining  # (this step lands on the target)
        y1, f1, err = _dopri_step(fun, y, f0, t, h)
        ratio = _error_ratio(err, rtol, atol, y, y1)
        accept = ratio <= 1.0
        y, f0 = _fnp.where(accept, y1, y), _fnp.where(accept, f1, f0)
        t = _fnp.where(accept, _fnp.where(clipped, target, t + h), t)
        new = _optimal_step(h, ratio)  # (after a step cut short to land on the target, keep the longer one)
        return t, y, f0, _fnp.where(accept & clipped, _fnp.maximum(dt, new), new), steps + 1
    return _lax.while_loop(running, step, (*carry, _fnp.asarray(0)))[:4]
