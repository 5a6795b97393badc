"""Reverse mode: the tape-recording trace and vjp / grad / value_and_grad.

Each call makes a fresh `VJPTrace`. Ops on its tracers record a Node (primitive,
params, input tracers, primal inputs and output) and return a new tracer; ops on
anything else pass through to the parent trace. The backward engine then walks the
recorded nodes in reverse (fgrad/engine).
"""

from typing import Literal, overload

from ..config import config
from ..engine.backward import backward
from ..engine.gc_pause import paused
from ..ir.held import Held
from ..ir.node import KEEPS_VALUES, Edge, Leaf, Node, new_node, unread
from ..ir.value import Tracer, VJPTracer
from ..ops import transpose
from ..ops.primitive import EVAL, Trace, pop_trace, push_trace, split_owned
from ..typing import Any, Callable, P, PyTree, R, Sequence
from . import checks, debug_nans, faces, owned, trees

__all__ = ["VJPTrace", "VJPTracer", "grad", "value_and_grad", "vjp", "vjp_tracer"]

Pullback = Callable[[PyTree], tuple[PyTree, ...]]  # vjp's vjp_fun: an output cotangent -> one per primal


def vjp_tracer(trace, primal, node, index=0):
    """The traced value of output `index` of `node`."""
    t = VJPTracer()
    t._trace, t.primal = trace, primal
    t.edge = node if index == 0 and (node.prim is None or not node.prim.multiple_results) else Edge(node, index)
    return t


class VJPTrace(Trace):
    """Records a tape of the primitives applied to its tracers."""

    __slots__ = ("tape", "lean", "held")

    def __init__(self, parent, transform):
        Trace.__init__(self, parent, transform)
        self.tape = []  # every node, in execution order (see Note [a tape is already in order])
        self.held = Held()  # the caller's arrays the tape reads (Note [what fgrad keeps is read-only])
        # Keep only the residuals the vjp rules read (Primitive.saves_*). linearize and
        # make_graph replay or print the tape and keep everything.
        self.lean = True

    def record(self, prim, params, inputs, primals, out):
        """Append a node for `prim` to the tape; return its output as this trace's value (a
        tuple of them for a multiple-result primitive). The one home of reverse-mode
        recording: process, its fast path and custom rules come here; the elementwise entry
        functions keep an inline copy (Note [the entries' inline steps] in ops/entries.py).
        The node and the value are bare class calls and slot stores (Note [bare class calls]
        in ir/node.py); a lean tape keeps the output only if the rules read it."""
        node = Node()
        node.prim = prim
        node.params = params
        node.inputs = inputs
        node.primals = primals
        node.out = out if prim.saves_output or prim.multiple_results or not self.lean else None
        node.meta = None
        self.tape.append(node)
        if prim.multiple_results:
            return tuple(vjp_tracer(self, o, node, i) for i, o in enumerate(out))
        t = VJPTracer()
        t._trace = self
        t.primal = out
        t.edge = node
        return t

    def process(self, prim, args, params):
        # Fast path: one or two arguments, each this trace's value or a constant, one output,
        # a lean tape. The primal runs as a kernel when direct, else in the parent trace (the
        # forward pass of forward-over-reverse, hvp and hessian, takes this path too).
        n = len(args)
        if n > 2 or not (self.lean and prim.simple):
            return self.process_general(prim, args, params)
        a = args[0]
        if n == 1:
            if a.__class__ is not VJPTracer or a._trace is not self:
                return self.process_general(prim, args, params)
            pa = a.primal
            if self.direct:
                out = prim.impl(pa, **params) if params else prim.impl(pa)
            else:
                out = self.parent.process(prim, (pa,), params)
            return self.record(prim, params, (a.edge,),
                               (pa,) if prim.keeps is KEEPS_VALUES else (unread(pa, out, prim),), out)
        b = args[1]
        mine_a = a.__class__ is VJPTracer and a._trace is self
        mine_b = b.__class__ is VJPTracer and b._trace is self
        if not ((mine_a or mine_b) and (mine_a or not isinstance(a, Tracer)) and (mine_b or not isinstance(b, Tracer))):
            return self.process_general(prim, args, params)
        pa = a.primal if mine_a else a
        pb = b.primal if mine_b else b
        if self.direct:
            out = prim.impl(pa, pb, **params) if params else prim.impl(pa, pb)
        else:
            out = self.parent.process(prim, (pa, pb), params)
        if prim.keeps is KEEPS_VALUES:  # (a Python float, the common constant, is immutable)
            primals = (pa if mine_a or pa.__class__ is float else self.held.keep(pa),
                       pb if mine_b or pb.__class__ is float else self.held.keep(pb))
        else:  # (a constant is never read: kept as it is)
            primals = (unread(pa, out, prim) if mine_a else pa, unread(pb, out, prim) if mine_b else pb)
        return self.record(prim, params, (a.edge if mine_a else None, b.edge if mine_b else None), primals, out)

    def process_general(self, prim, args, params):
        """Any number of arguments, values of other traces, several outputs."""
        owned, primals, indirect = split_owned(self, args)
        parent = self.parent
        if owned is None:
            return parent.process(prim, args, params)
        if parent is EVAL and not indirect:
            out = prim.impl(*primals, **params)
        else:
            self.direct = False
            out = parent.process(prim, primals, params)
        inputs = [None if t is None else t.edge for t in owned]
        if prim.nondiff:  # no derivative: on the tape only to be shown (make_graph)
            if not self.lean:
                self.tape.append(new_node(prim, params, inputs, primals, out))
            return out
        if prim.keeps is KEEPS_VALUES or not self.lean:  # a constant read later: held (not an
            keep = self.held.keep                          # outer level's value, not a float)
            primals = [p if t is not None or p.__class__ is float or isinstance(p, Tracer) else keep(p)
                       for p, t in zip(primals, owned)]
        else:  # an unread input: its Aval (unread), a constant as it is
            primals = [p if t is None else unread(p, out, prim) for p, t in zip(primals, owned)]
        return self.record(prim, params, inputs, primals, out)

    def process_custom(self, custom, args):
        return custom.process_vjp(self, args)

    def close(self):
        """Hand the tape over and forget it.

        Traced values point to their trace; a trace that kept its tape would keep every node
        and residual alive for as long as any of its traced values lives (an aux value, a
        leaked tracer). The transform keeps the tape instead, exactly as long as it needs it.
        """
        tape, self.tape = self.tape, None
        return tape


def trace_inputs(trace, leaves, labels, transform):
    """Leaf tracers for the differentiated inputs (checked to be floating point)."""
    tracers = []
    for x, label in zip(leaves, labels):
        x = checks.float_input(x, label, transform)
        if isinstance(x, Tracer):
            trace.direct = False
        else:
            x = trace.held.keep(x)
        leaf = Leaf()
        leaf.label = label
        tracers.append(vjp_tracer(trace, x, leaf))
    return tracers


def trace_call(fun, leaves, labels, args_of, transform, lean=True):
    """Reverse mode's one prologue: push a fresh VJPTrace (`lean`: its tape keeps only what the
    rules read), trace `leaves` as its inputs, call `fun(*args, **kwargs)` for `(args, kwargs)
    = args_of(inputs)` (the inputs as the function gets them: faces.faced), and pop the trace.
    Returns (trace, input tracers, fun's result, tape). If anything raises, the arrays the tape
    held are let go; else the caller releases `trace.held` when it is done with the tape."""
    trace = push_trace(VJPTrace, transform)
    trace.lean = lean and not debug_nans.rerunning()  # (a checked call's tapes keep the lines: Note [NaN provenance])
    try:
        in_tracers = trace_inputs(trace, leaves, labels, transform)
        args, kwargs = args_of(in_tracers if trace.direct else faces.faced(in_tracers, leaves))
        result = fun(*args, **kwargs)
    except BaseException:
        trace.held.release()
        raise
    finally:
        tape = pop_trace(trace)
    return trace, in_tracers, result, tape


def held_values(trace, values, leaves):
    """The primal outputs a vjp or linearize returns, held with its tape: a rule may read them
    (exp's output), so they stay read-only while the returned function lives (Note [what fgrad
    keeps is read-only]; the function's closure keeps `trace`, and with it `trace.held`)."""
    keep = trace.held.keep
    return [keep(v) for v in faces.plain_values(values, leaves)]


def run_vjp(trace, tape, in_tracers, outs, cts, retain_graph):
    """Cotangents of `in_tracers` given cotangents `cts` of the output leaves `outs`."""
    roots = []
    for o, ct in zip(outs, cts):
        if ct is not None and isinstance(o, VJPTracer) and o._trace is trace:
            e = o.edge  # its node, or an Edge to an output of a multiple-result node
            roots.append((e.node, e.index, ct) if e.__class__ is Edge else (e, 0, ct))
    leaves = backward(roots, retain_graph=retain_graph, tape=tape) if roots else {}
    return [leaves.get(t.edge) for t in in_tracers]  # (an input's edge is its Leaf)


@overload
def vjp(fun: Callable[..., PyTree], *primals: PyTree, has_aux: Literal[False] = False) -> tuple[PyTree, Pullback]: ...
@overload
def vjp(fun: Callable[..., PyTree], *primals: PyTree, has_aux: Literal[True]) -> tuple[PyTree, Pullback, PyTree]: ...
@overload
def vjp(fun: Callable[..., PyTree], *primals: PyTree, has_aux: bool) -> tuple[PyTree, ...]: ...
def vjp(fun: Callable[..., PyTree], *primals: PyTree,
        has_aux: bool = False) -> tuple[PyTree, Pullback] | tuple[PyTree, Pullback, PyTree]:
    """Evaluate `fun` at `primals` and return its vector-Jacobian product function (reverse mode).

    Parameters
    ----------
    fun : callable
        A function of the primals returning an array or a pytree of arrays (with `has_aux`, a
        pair (output, aux)).
    *primals : pytree
        The point to differentiate at: arrays, Python floats or pytrees of them (floating-point
        or complex leaves).
    has_aux : bool
        fun returns (output, aux); aux is returned as it is, not differentiated.

    Returns
    -------
    (out, vjp_fun) or (out, vjp_fun, aux)
        out is fun(*primals); vjp_fun(cotangent), with a cotangent of out's structure, shapes and
        dtypes, returns a tuple of one cotangent per primal (ct @ J). vjp_fun may be called many
        times.

    Raises
    ------
    TypeError
        An integer or non-array primal, or a cotangent not matching out (vjp_fun).

    Examples
    --------
    >>> out, vjp_fun = fgrad.vjp(lambda x: fnp.sin(x) * 2, np.array([0.0, 1.0]))
    >>> vjp_fun(np.ones(2))
    (array([2.        , 1.08060461]),)
    """
    return vjp_named(fun, primals, has_aux, "vjp")


@paused
def vjp_named(fun, primals, has_aux, transform):
    """vjp, reporting errors and escaped values under the name `transform` (jacrev, ...)."""
    leaves, treedef = trees.flatten(primals)
    trace, in_tracers, result, tape = trace_call(fun, leaves, trees.leaf_labels(treedef, "primals"),
                                                 lambda ins: (trees.unflatten(treedef, ins), {}), transform)
    out, aux = checks.split_aux(result, has_aux, transform)
    aux = trees.strip_aux(aux, trace) if has_aux else None
    out_leaves, out_tree = trees.flatten(out)
    out_leaves = [faces.unfaced(o) for o in out_leaves]
    out_primals = held_values(trace, [trees.primal_of(o, trace) for o in out_leaves], leaves)

    @paused
    def vjp_fun(cotangent):
        if config.debug_nans and not debug_nans.state.busy:  # (Note [NaN provenance])
            return debug_nans.checked_call(transform, lambda t: vjp_named(fun, t[0], has_aux, transform)[1](t[1]),
                                           [primals, cotangent], numbers=True)
        ct_leaves = checks.check_cotangent(cotangent, out_tree, out_primals, transform)
        grads = run_vjp(trace, tape, in_tracers, out_leaves, ct_leaves, retain_graph=True)
        grads = owned.own_arrays(owned.fill_zeros(grads, in_tracers), leaves + ct_leaves)
        return trees.unflatten(treedef, grads)

    vjp_fun.held = trace.held
    value = trees.unflatten(out_tree, out_primals)
    return (value, vjp_fun, aux) if has_aux else (value, vjp_fun)


def value_and_grad(fun: Callable[P, R], argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False) -> Callable[P, tuple[R, PyTree]]:
    """Like grad, but the function returned gives `(fun(*args), gradient)` from one evaluation.

    Parameters are grad's (`argnums`, `has_aux`, `holomorphic`); with has_aux the value is the pair
    (scalar, aux). Raises as grad.

    Examples
    --------
    >>> fgrad.value_and_grad(lambda x: fnp.sum(x ** 2))(np.array([1.0, 2.0]))
    (np.float64(5.0), array([2., 4.]))
    """
    return value_and_grad_named(fun, argnums, has_aux, "value_and_grad", holomorphic)


def value_and_grad_named(fun, argnums, has_aux, transform, holomorphic=False):
    """value_and_grad under the name `transform` (hvp, ...)."""
    checked = checks.ArgnumsCache(argnums, transform)

    def value_and_grad_fun(*args, **kwargs):
        return value_and_grad_call(fun, checked(len(args)), argnums, has_aux, args, kwargs, transform, holomorphic)
    return trees.wraps(value_and_grad_fun, fun, transform)


@paused
def value_and_grad_call(fun, nums, argnums, has_aux, args, kwargs, transform, holomorphic=False):
    """One call of value_and_grad: `nums`, the normalized `argnums`, as check_argnums gives."""
    if config.debug_nans and not debug_nans.state.busy:  # (Note [NaN provenance])
        return debug_nans.checked_call(transform, lambda t: value_and_grad_call.__wrapped__(  # (paused already)
            fun, nums, argnums, has_aux, debug_nans.replaced(args, nums, t), kwargs, transform, holomorphic),
            [args[i] for i in nums], numbers=True)
    leaves, treedef = trees.flatten_args(args, nums)
    if holomorphic:
        checks.check_complex_inputs(leaves, transform)

    def args_of(ins):  # args, with the traced inputs in the places argnums names
        traced_args = list(args)
        for i, a in zip(nums, ins if treedef is None else trees.unflatten(treedef, ins)):
            traced_args[i] = a
        return traced_args, kwargs
    trace, in_tracers, out, tape = trace_call(fun, leaves, trees.leaf_labels(treedef, "args", nums), args_of,
                                              transform)
    try:  # (the tape is done with the caller's arrays when this call returns or raises)
        if has_aux:
            out, aux = checks.split_aux(out, has_aux, transform)
        if out.__class__ is not VJPTracer:  # (a Tensor of a traced value, when fun was given Tensors)
            out = faces.unfaced(out)
        seed = checks.scalar_seed(out, transform, fun, holomorphic)
        grads = owned.fill_zeros(run_vjp(trace, tape, in_tracers, [out], [seed], retain_graph=False), in_tracers)
        owned.own_arrays(grads, args if treedef is None else leaves + list(args))
        if treedef is not None:
            grads = trees.unflatten(treedef, grads)
        grads = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = faces.plain_value(trees.primal_of(out, trace), args)  # (an nn module may have run inside)
        return ((value, trees.strip_aux(aux, trace)), grads) if has_aux else (value, grads)
    finally:
        trace.held.release()


def grad(fun: Callable[P, Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False) -> Callable[P, PyTree]:
    """The gradient of a scalar-valued `fun` with respect to its argument(s) `argnums` (reverse mode).

    As jax.grad: a real output's cotangent 1 pulled back; for complex inputs the conjugate
    convention df/dx - i df/dy (Note [complex derivatives] in ops/conversion.py), or with
    `holomorphic=True` f'(z) of a complex output of complex inputs.

    Parameters
    ----------
    fun : callable
        A function returning a real scalar (with `has_aux`, a pair (scalar, aux)).
    argnums : int or sequence of int
        The positional argument(s) to differentiate with respect to (default 0); a tuple gives a
        tuple of gradients.
    has_aux : bool
        fun returns (scalar, aux); the gradient function then returns (gradient, aux).
    holomorphic : bool
        Differentiate a complex-valued holomorphic fun of complex inputs.

    Returns
    -------
    callable
        A function of fun's arguments returning the gradient, of the structure, shape and dtype of
        args[argnums] (a tuple of them for a tuple argnums).

    Raises
    ------
    TypeError
        fun's output is not a scalar (use jacrev, jacfwd or vjp), or a differentiated argument is
        an integer or not an array.
    ValueError
        argnums names an argument the call does not have.

    Examples
    --------
    >>> fgrad.grad(lambda x: fnp.sum(fnp.sin(x)))(np.array([0.0, 1.0]))
    array([1.        , 0.54030231])
    >>> fgrad.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 3.0)
    (np.float64(3.0), np.float64(2.0))
    """
    checked = checks.ArgnumsCache(argnums, "grad")

    def grad_fun(*args, **kwargs):
        value, g = value_and_grad_call(fun, checked(len(args)), argnums, has_aux, args, kwargs, "grad", holomorphic)
        return (g, value[1]) if has_aux else g
    return trees.wraps(grad_fun, fun, "grad")


transpose.vjp = vjp  # the decompositions' vjps transpose their jvp rules with it (ops/transpose.py)
