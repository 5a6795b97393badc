"""Forward mode by dual numbers: jvp and linearize.

A `JVPTracer` carries a tangent beside its primal (None is a symbolic zero). Each op
on the tracers of a fresh `JVPTrace` runs the primitive on the primals through the
parent trace, then its jvp rule, also under the parent, so an enclosing transform
sees and differentiates the tangent computation too. (When the parent is the bottom
trace, everything is concrete and the rule runs in place: see JVPTrace.process.)
"""
from typing import Literal, overload

import numpy as np

from ..config import config
from ..engine.gc_pause import paused
from ..ir.value import JVPTracer, Tracer
from ..ops.broadcasting import fit_tangent
from ..ops.primitive import Trace, apply_partial, pop_trace, push_trace, set_current, split_owned
from ..ops.zeros import zeros_like_value
from ..typing import Callable, PyTree, Sequence
from . import checks, debug_nans, faces, owned, trees
from .reverse import VJPTracer, held_values, trace_call

__all__ = ["JVPTrace", "JVPTracer", "dual", "jvp", "linearize", "tangent_of"]


def dual(trace, primal, tangent):
    """The dual number of `trace` with this primal and tangent."""
    t = JVPTracer()
    t._trace, t.primal, t.tangent = trace, primal, tangent
    return t


def tangent_of(prim, primals, tangents, ans, params):
    """The output tangent of `prim` (a tuple for multiple results); None when zero."""
    if prim.jvp_full is not None:
        return prim.jvp_full(primals, tangents, ans, **params)
    total = None
    partials = prim.partials
    rules = prim.jvp if partials is None else partials  # elementwise: t times the partial derivative
    i = -1
    for t in tangents:
        i += 1
        rule = rules[i]
        if t is None or rule is None:
            continue
        c = apply_partial(rule, t, i, ans, primals) if partials is not None else rule(t, ans, *primals, **params)
        total = c if total is None else total + c
    if total is None or (total.shape == ans.shape and total.dtype == ans.dtype):
        return total
    return fit_tangent(total, ans)


class JVPTrace(Trace):
    """Propagates tangents alongside primals."""

    __slots__ = ()

    def process(self, prim, args, params):
        # Fast path: one or two arguments, each this trace's tracer or a constant, concrete
        # primals, one output, per-argument rules. The rule runs under this trace: its ops see
        # only concrete values (the parent is the bottom trace, so no outer transform is
        # active), so each runs its kernel at once (Primitive.__call__), with no trace switch.
        # (An elementwise op called through its entry function takes this step there, inline:
        # Note [the entries' inline steps] in ops/entries.py.)
        n = len(args)
        if not (self.direct and prim.simple and prim.jvp_full is None and n <= 2):
            return self.process_general(prim, args, params)
        a = args[0]
        mine_a = a.__class__ is JVPTracer and a._trace is self
        if n == 1:
            if not mine_a:
                return self.process_general(prim, args, params)
            out, t_out = self._by_rule(prim, (a.primal,), (a.tangent,), params)
        else:
            b = args[1]
            mine_b = b.__class__ is JVPTracer and b._trace is self
            if not ((mine_a or mine_b) and (mine_a or not isinstance(a, Tracer))
                    and (mine_b or not isinstance(b, Tracer))):
                return self.process_general(prim, args, params)
            out, t_out = self._by_rule(prim, (a.primal if mine_a else a, b.primal if mine_b else b),
                                       (a.tangent if mine_a else None, b.tangent if mine_b else None), params)
        if t_out is None:
            return out
        t = JVPTracer()
        t._trace, t.primal, t.tangent = self, out, t_out
        return t

    @staticmethod
    def _by_rule(prim, primals, tangents, params):
        """(out, tangent) of an op on concrete primals: its jvp_pair, if it has one that
        accepts these values, else its kernel and jvp rules (or partials)."""
        pair = prim.jvp_pair
        if pair is not None and (t_pair := pair(primals, tangents, params)) is not None:
            return t_pair
        out = prim.impl(*primals, **params) if params else prim.impl(*primals)
        return out, tangent_of(prim, primals, tangents, out, params)

    def _tangent(self, prim, primals, tangents, out, params):
        """The jvp rule, run under the parent trace (which then differentiates it too)."""
        prev = set_current(self.parent)
        try:
            return tangent_of(prim, primals, tangents, out, params)
        finally:
            set_current(prev)

    def process_general(self, prim, args, params):
        """Any number of arguments, values of other traces, several outputs."""
        owned, primals, indirect = split_owned(self, args)
        parent = self.parent
        if owned is None:
            return parent.process(prim, args, params)
        tangents = [None if a is None else a.tangent for a in owned]
        if indirect or not self.direct:
            self.direct = False
            out = parent.process(prim, primals, params)
        else:
            out = prim.impl(*primals, **params)
        if prim.nondiff:
            return out
        t_out = self._tangent(prim, primals, tangents, out, params)
        if prim.multiple_results:
            if t_out is None:
                return out
            return tuple(o if t is None else dual(self, o, t) for o, t in zip(out, t_out))
        return out if t_out is None else dual(self, out, t_out)

    def process_custom(self, custom, args):
        return custom.process_jvp(self, args)


def _check_tangents(primals, tangents, transform):
    """(primal leaves, tangent leaves, their tree): floating-point primals and tangents of
    their shapes and dtypes, or a TypeError naming the first that is not. The tree is None
    for a tuple of float arrays with matching tangents (the common case: no optree)."""
    if primals.__class__ is tuple and tangents.__class__ is tuple and len(primals) == len(tangents):
        for p, t in zip(primals, tangents):
            if not (p.__class__ is np.ndarray and t.__class__ is np.ndarray and t.dtype is p.dtype
                    and p.dtype.kind == "f" and t.shape == p.shape):
                break
        else:
            return primals, tangents, None
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"{transform}: primals and tangents must be tuples (one entry per argument), got "
                        f"{type(primals).__name__} and {type(tangents).__name__}")
    if len(primals) != len(tangents):
        raise TypeError(f"{transform}: got {len(primals)} primals but {len(tangents)} tangents")
    primals, tangents = tuple(primals), tuple(tangents)
    p_leaves, p_tree = trees.flatten(primals)
    labels = trees.leaf_labels(p_tree, "primals")
    p_leaves = [checks.float_input(x, label, transform) for x, label in zip(p_leaves, labels)]
    t_leaves = checks.check_cotangent(tangents, p_tree, p_leaves, transform, what="tangent")
    return p_leaves, t_leaves, p_tree


def _split_duals(out, trace):
    """(primals, tangents) of jvp's output `out`, in its structure: a dual number of `trace`
    gives its parts, any other leaf (a constant) a zero tangent."""
    if out.__class__ is JVPTracer and out._trace is trace:  # one output, or each of a tuple: no optree
        return out.primal, out.tangent
    if out.__class__ is tuple:
        ps, ts = [], []
        for o in out:
            if o.__class__ is not JVPTracer or o._trace is not trace:
                break
            ps.append(o.primal)
            ts.append(o.tangent)
        else:
            return tuple(ps), tuple(ts)
    out_leaves, out_tree = trees.flatten_out(out)
    primals_out, tangents_out = [], []
    for o in out_leaves:
        o = faces.unfaced(o)
        if isinstance(o, JVPTracer) and o._trace is trace:
            primals_out.append(o.primal)
            tangents_out.append(o.tangent)
        else:
            primals_out.append(o)
            tangents_out.append(zeros_like_value(o))
    return trees.unflatten_out(out_tree, primals_out), trees.unflatten_out(out_tree, tangents_out)


@overload
def jvp(fun: Callable[..., PyTree], primals: Sequence[PyTree], tangents: Sequence[PyTree],
        has_aux: Literal[False] = False) -> tuple[PyTree, PyTree]: ...
@overload
def jvp(fun: Callable[..., PyTree], primals: Sequence[PyTree], tangents: Sequence[PyTree],
        has_aux: Literal[True]) -> tuple[PyTree, PyTree, PyTree]: ...
@overload
def jvp(fun: Callable[..., PyTree], primals: Sequence[PyTree], tangents: Sequence[PyTree],
        has_aux: bool) -> tuple[PyTree, ...]: ...
def jvp(fun: Callable[..., PyTree], primals: Sequence[PyTree], tangents: Sequence[PyTree],
        has_aux: bool = False) -> tuple[PyTree, PyTree] | tuple[PyTree, PyTree, PyTree]:
    """Evaluate `fun` at `primals` and its Jacobian-vector product with `tangents` (forward mode).

    Parameters
    ----------
    fun : callable
        A function of len(primals) arguments returning an array or a pytree of arrays (with
        `has_aux`, a pair (output, aux)).
    primals : tuple
        The point: one entry per argument of fun (arrays, floats or pytrees of them).
    tangents : tuple
        One tangent per primal, of its structure, shape and dtype.
    has_aux : bool
        fun returns (output, aux); aux is returned as it is.

    Returns
    -------
    (out, tangent_out) or (out, tangent_out, aux)
        out is fun(*primals); tangent_out is J @ tangents, of out's structure, computed by dual
        numbers in the same pass (no Jacobian is formed).

    Raises
    ------
    TypeError
        primals or tangents not tuples, of different lengths, or a tangent whose structure,
        shape or dtype does not match its primal.

    Examples
    --------
    >>> fgrad.jvp(lambda x: x ** 2, (np.array([1.0, 2.0]),), (np.ones(2),))
    (array([1., 4.]), array([2., 4.]))
    """
    return jvp_named(fun, primals, tangents, has_aux, "jvp")


@paused
def jvp_named(fun, primals, tangents, has_aux, transform):
    """jvp, reporting errors and escaped values under the name `transform` (hvp, ...)."""
    if config.debug_nans and not debug_nans.state.busy:  # (Note [NaN provenance])
        return debug_nans.checked_call(transform, lambda t: jvp_named.__wrapped__(  # (paused already)
            fun, t[0], t[1], has_aux, transform), [primals, tangents], numbers=True)
    p_leaves, t_leaves, p_tree = _check_tangents(primals, tangents, transform)
    trace = push_trace(JVPTrace, transform)
    try:
        ins = [dual(trace, p, t) for p, t in zip(p_leaves, t_leaves)]
        if p_tree is not None:
            if any(isinstance(p, Tracer) for p in p_leaves):  # (plain arrays have none)
                trace.direct = False
                ins = faces.faced(ins, p_leaves)
            ins = trees.unflatten(p_tree, ins)
        result = fun(*ins)
    finally:
        pop_trace(trace)
    out, aux = checks.split_aux(result, has_aux, transform) if has_aux else (result, None)
    primals_out, tangents_out = _finish(*_split_duals(out, trace), [*p_leaves, *t_leaves])
    if not has_aux:
        return primals_out, tangents_out
    return primals_out, tangents_out, trees.strip_aux(aux, trace)


def _finish(primals, tangents, callers):
    """jvp's outputs: tangents the caller owns (Note [returned derivatives are owned] in
    owned.py), and arrays, not Tensors, for array inputs (faces.plain_values); `primals` and
    `tangents` are one value, a tuple, or pytrees of them."""
    if primals.__class__ is tuple and tangents.__class__ is tuple:  # (the common cases: no optree)
        for p in primals:
            if isinstance(p, Tracer):
                primals = tuple(faces.plain_values(list(primals), callers))
                break
        return primals, tuple(owned.own_arrays(list(tangents), callers))
    if trees.is_leaf(primals):
        if isinstance(primals, Tracer):
            primals = faces.plain_values([primals], callers)[0]
        return primals, owned.own_arrays([tangents], callers)[0]
    p_leaves, tree = trees.flatten_out(primals)
    t_leaves = trees.flatten_out(tangents)[0]
    return (trees.unflatten_out(tree, faces.plain_values(p_leaves, callers)),
            trees.unflatten_out(tree, owned.own_arrays(t_leaves, callers)))


def linearize(fun: Callable[..., PyTree], *primals: PyTree) -> tuple[PyTree, Callable[..., PyTree]]:
    """`(fun(*primals), f_jvp)`: f_jvp(*tangents) applies the Jacobian without re-running fun.

    fun is traced once onto a tape; f_jvp pushes tangents through the recorded nodes'
    jvp rules, reusing their saved primals.

    Examples
    --------
    >>> y, f_jvp = fgrad.linearize(fnp.sin, 0.0)
    >>> y, f_jvp(2.0)  # cos(0) * 2
    (np.float64(0.0), np.float64(2.0))
    """
    return linearize_named(fun, primals, False, "linearize")


@paused
def linearize_named(fun, primals, has_aux, transform):
    """linearize under the name `transform` (jacfwd, ...); with has_aux, also returns aux."""
    leaves, treedef = trees.flatten(primals)
    trace, in_tracers, result, tape = trace_call(fun, leaves, trees.leaf_labels(treedef, "primals"),
                                                 lambda ins: (trees.unflatten(treedef, ins), {}), transform,
                                                 lean=False)  # (the tangent replay reads every residual)
    out, aux = checks.split_aux(result, has_aux, transform)
    aux = trees.strip_aux(aux, trace) if has_aux else None
    out_leaves, out_tree = trees.flatten(out)
    out_leaves = [faces.unfaced(o) for o in out_leaves]
    out_primals = held_values(trace, [trees.primal_of(o, trace) for o in out_leaves], leaves)

    @paused
    def f_jvp(*tangents):
        t_leaves = checks.check_cotangent(tangents, treedef, [t.primal for t in in_tracers], transform, "tangent")
        known = {t.node: [tl] for t, tl in zip(in_tracers, t_leaves)}
        for node in tape:
            if node.prim.nondiff:
                continue
            ts = [None if t is None else known.get(t.node, (None,) * (t.index + 1))[t.index] for t in node.inputs]
            if all(t is None for t in ts):
                continue
            t_out = tangent_of(node.prim, node.primals, ts, node.out, node.params)
            known[node] = list(t_out) if node.prim.multiple_results else [t_out]
        result = []
        for o, p in zip(out_leaves, out_primals):
            t = known.get(o.node, [None] * (o.index + 1))[o.index] \
                if isinstance(o, VJPTracer) and o._trace is trace else None
            result.append(zeros_like_value(p) if t is None else t)
        return trees.unflatten(out_tree, owned.own_arrays(result, t_leaves + [t.primal for t in in_tracers]))

    value = trees.unflatten(out_tree, out_primals)
    return (value, f_jvp, aux) if has_aux else (value, f_jvp)
