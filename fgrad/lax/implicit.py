"""custom_root and custom_linear_solve: a solution differentiated implicitly, as jax.lax's.

The derivative of a root x*(theta) of f(x, theta) = 0 is -J_x^-1 (df/dtheta . dtheta), by
the implicit function theorem: the solver's iterations are never differentiated. theta is
whatever f closes over, as in JAX; fgrad finds it by running f once under a probe trace that
notes the traced values f reads without having made them (closure conversion: _Probe), and
calls f on other values for them under a substituting trace (_Subst). The solution is then a
custom_jvp function of theta, so every transform uses the rule (reverse mode transposes it;
vmap batches it; a hessian differentiates the rule again).
"""
import copy

import numpy as np

from ..ir.value import JVPTracer, Tracer, VJPTracer
from ..ops.primitive import Trace, pop_trace, push_trace
from ..ops.stop_gradient import stop_gradient
from ..transforms import checks, trees
from ..transforms.custom import custom_jvp, custom_vjp
from ..transforms.forward import jvp
from ..transforms.reverse import vjp
from ..tree_util import tree_map
from ..typing import Any, Callable, PyTree

__all__ = ["custom_linear_solve", "custom_root"]


# ---- closure conversion ------------------------------------------------------------------------
class _Probe(Trace):
    """Passes every op to its parent, noting the traced values read that it did not make."""

    __slots__ = ("made", "found", "_ids")

    def __init__(self, parent, transform):
        Trace.__init__(self, parent, transform)
        self.made, self.found, self._ids = set(), [], set()

    def _note(self, values):
        for a in values:
            if isinstance(a, Tracer) and id(a) not in self.made and id(a) not in self._ids:
                self._ids.add(id(a))
                self.found.append(a)

    def _made(self, out):
        self.made.update(id(o) for o in trees.flatten(out)[0] if isinstance(o, Tracer))
        return out

    def process(self, prim, args, params):
        self._note(args)
        return self._made(self.parent.process(prim, args, params))

    def process_custom(self, custom, args):
        self._note(trees.flatten(args)[0])
        return self._made(self.parent.process_custom(custom, args))


class _Subst(Trace):
    """Passes every op to its parent with each value of `subs` (by id) replaced."""

    __slots__ = ("subs",)

    def _swap(self, values):
        subs = self.subs
        return [subs.get(id(a), a) if isinstance(a, Tracer) else a for a in values]

    def process(self, prim, args, params):
        return self.parent.process(prim, tuple(self._swap(args)), params)

    def process_custom(self, custom, args):
        leaves, tree = trees.flatten(args)
        return self.parent.process_custom(custom, trees.unflatten(tree, self._swap(leaves)))


def closed_over(fun, *args):
    """(fun(*args), the traced values fun reads that are not made from args: what it closes over)."""
    leaves, tree = trees.flatten(args)
    leaves = [copy.copy(a) if isinstance(a, Tracer) else a for a in leaves]  # (fun may close over an argument too)
    trace = push_trace(_Probe, "closure conversion")
    trace.made.update(id(a) for a in leaves if isinstance(a, Tracer))
    try:
        out = fun(*trees.unflatten(tree, leaves))
    finally:
        pop_trace(trace)
    return out, trace.found


def converted(fun, consts, values):
    """`fun` with each traced value of `consts` it closes over read as the same place of `values`."""
    def call(*args):
        trace = push_trace(_Subst, "closure conversion")
        trace.subs = {id(c): v for c, v in zip(consts, values)}
        try:
            return fun(*args)
        finally:
            pop_trace(trace)
    return call


def _split(consts):
    """The floating-point closed-over values (differentiated) and the others (carried along)."""
    floats = [c for c in consts if checks.is_floating(c)]
    return floats, [c for c in consts if not checks.is_floating(c)]


def _differentiated(tree):
    """Is a leaf of `tree` a value of jvp or vjp (at the top of its tracing)?

    Note [the primal of an implicit solution]: a custom_jvp's function runs, under the trace
    beneath, where reverse mode takes the rule (fgrad transposes it) and wants the primal
    output: there a transform beneath may differentiate it too (a hessian, forward over
    reverse). The solver's result is cut off from derivatives (its iterations are not the
    solution's derivative), so the function hands such values to the custom function
    again: the trace beneath then applies the rule to them."""
    return any(x.__class__ is JVPTracer or x.__class__ is VJPTracer for x in trees.flatten(tree)[0])


def _tangent_like(v, x):
    """A tangent argument `v` of the linearized f as an array of x's dtype (g(1.0), as JAX's docs write)."""
    return v if hasattr(v, "dtype") else np.asarray(v, dtype=x.dtype)


# ---- custom_root -------------------------------------------------------------------------------
def custom_root(f: Callable[[PyTree], PyTree], initial_guess: PyTree, solve: Callable[..., Any],
                tangent_solve: Callable[[Callable[[PyTree], PyTree], PyTree], PyTree],
                has_aux: bool = False) -> Any:
    """A root of `f` found by `solve`, differentiated implicitly, as jax.lax.custom_root.

    f: x -> a pytree of x's structure (zero at the root); solve(f, initial_guess) returns
    the root (and an aux value if has_aux, returned beside it with its derivative cut);
    tangent_solve(g, y) solves the linear g(x) = y, g being f linearized at the root (for a
    scalar, `lambda g, y: y / g(1.0)`). The derivative with respect to what f closes over is
    -tangent_solve(g, df) at the root; the solver's iterations and initial_guess get none.

    Examples
    --------
    >>> def sqrt(a):  # the root of x ** 2 - a by Newton, differentiated implicitly
    ...     newton = lambda f, x0: fgrad.lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0)
    ...     return fgrad.lax.custom_root(lambda x: x ** 2 - a, 1.0, newton, lambda g, y: y / g(1.0))
    >>> round(float(sqrt(2.0)), 6), round(float(fgrad.grad(sqrt)(4.0)), 6)  # d sqrt(a) / da = 1 / (2 sqrt(a))
    (1.414214, 0.25)
    """
    guess = stop_gradient(initial_guess)
    solution, consts = closed_over(solve, f, guess)
    floats, others = _split(consts)
    if not floats:  # (nothing f reads is differentiated: the solver's result is the answer)
        return solution

    def fun(fs, os):
        if _differentiated(fs):  # (Note [the primal of an implicit solution])
            return root(fs, os)
        return stop_gradient(converted(solve, floats + others, fs + os)(converted(f, floats + others, fs + os),
                                                                         guess))

    def rule(os, primals, tangents):
        (fs,), (ts,) = primals, tangents
        out = root(fs, os)
        x = out[0] if has_aux else out
        f_at = converted(f, floats + others, list(fs) + list(os))
        _, f_dot = jvp(lambda fs: converted(f, floats + others, list(fs) + list(os))(x), (fs,), (ts,))
        linear = lambda v: jvp(f_at, (x,), (tree_map(_tangent_like, v, x),))[1]  # noqa: E731
        x_dot = tangent_solve(linear, tree_map(lambda t: -t, f_dot))
        if has_aux:
            return out, (x_dot, tree_map(_zero_tangent, out[1]))
        return out, x_dot
    root = custom_jvp(fun, nondiff_argnums=(1,))
    root.defjvp(rule)
    return root(floats, others)


def _zero_tangent(a):
    return np.zeros(np.shape(a), dtype=a.dtype) if hasattr(a, "dtype") else 0.0


# ---- custom_linear_solve -----------------------------------------------------------------------
def custom_linear_solve(matvec: Callable[[PyTree], PyTree], b: PyTree, solve: Callable[..., Any],
                        transpose_solve: Callable[..., Any] | None = None, symmetric: bool = False,
                        has_aux: bool = False) -> Any:
    """The x with matvec(x) = b found by `solve(matvec, b)`, differentiated implicitly, as
    jax.lax.custom_linear_solve: dx = solve(matvec, db - dmatvec(x)), the solver's own
    iterations never differentiated in forward mode.

    transpose_solve(vecmat, b) solves the transposed system (vecmat: matvec's transpose) for
    reverse mode; symmetric=True says the system is its own transpose (solve serves). With
    neither, reverse mode differentiates through `solve` (correct for a solver fgrad can
    differentiate, where JAX refuses). has_aux: solve returns (x, aux).

    Examples
    --------
    >>> A = np.array([[2.0, 0.0], [0.0, 4.0]])
    >>> solve = lambda matvec, b: b / np.diag(A)
    >>> f = lambda b: fgrad.lax.custom_linear_solve(lambda x: A @ x, b, solve, symmetric=True)
    >>> f(np.array([2.0, 2.0])), fgrad.grad(lambda b: fnp.sum(f(b)))(np.array([2.0, 2.0]))
    (array([1. , 0.5]), array([0.5 , 0.25]))
    """
    if transpose_solve is None and symmetric:
        transpose_solve = solve
    solution, consts = closed_over(solve, matvec, b)
    if transpose_solve is not None:  # (what it closes over is converted too)
        pull = vjp(matvec, b)[1]
        consts += closed_over(lambda: transpose_solve(lambda v: pull(v)[0], b))[1]
        consts = list({id(c): c for c in consts}.values())
    floats, others = _split(consts)
    if not floats and not any(isinstance(v, Tracer) for v in trees.flatten(b)[0]):
        return solution
    names = floats + others

    def system(fs, os):
        return converted(matvec, names, list(fs) + list(os))

    def solver(fun, fs, os):
        return converted(fun, names, list(fs) + list(os))

    def first(out):
        return out[0] if has_aux else out

    def fun(b, fs, os):
        if _differentiated((b, fs)):  # (Note [the primal of an implicit solution])
            return lin(b, fs, os)
        return stop_gradient(solver(solve, fs, os)(system(fs, os), b))

    def applied(rhs, fs, os):  # rhs -> the solution of matvec(x) = rhs: linear in rhs
        return first(solver(solve, fs, os)(system(fs, os), rhs))

    if transpose_solve is not None:
        applied = custom_vjp(applied, nondiff_argnums=(2,))

        def bwd(os, res, ct):  # d(A^-1 r) = A^-1 dr - A^-1 dA A^-1 r: u = A^-T ct, then dA's share
            y, fs = res
            pull = vjp(system(fs, os), y)[1]
            u = first(solver(transpose_solve, fs, os)(lambda v: pull(v)[0], ct))
            fs_ct = vjp(lambda fs: system(fs, os)(y), fs)[1](u)[0]
            return u, [-c for c in fs_ct]
        applied.defvjp(lambda rhs, fs, os: (lambda y: (y, (y, fs)))(applied.fun(rhs, fs, os)), bwd)

    def rule(os, primals, tangents):
        (b, fs), (b_dot, fs_dot) = primals, tangents
        out = lin(b, fs, os)
        _, mv_dot = jvp(lambda fs: system(fs, os)(first(out)), (fs,), (fs_dot,))
        x_dot = applied(tree_map(lambda db, dm: db - dm, b_dot, mv_dot), fs, os)
        if has_aux:
            return out, (x_dot, tree_map(_zero_tangent, out[1]))
        return out, x_dot
    lin = custom_jvp(fun, nondiff_argnums=(2,))
    lin.defjvp(rule)
    return lin(b, floats, others)
