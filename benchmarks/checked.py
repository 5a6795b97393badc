"""The checked tape: the least a tape that makes fgrad's checks costs, as a reference row.

The tape floor (floor.py) records and multiplies and does nothing else. This tape makes, on
its fast path, the checks that fgrad's design asks of every op (../shared/DESIGN.md):

- dispatch goes to the innermost trace, which must own the value (fresh identities). A
  value of a finished trace raises, naming it. A value of an enclosing live trace would go
  to a general path for nesting, which is not built here: no workload takes it.
- local derivatives are written in the tape's own ops and run in the backward pass (rules
  in fgrad ops), so a nested transform could trace them.
- nodes have fgrad's layout (primitive, params, input edges, residuals, output, meta), and
  keep only the residuals their rules read (lean tapes).
- each cotangent is checked against its input's shape and dtype, and fitted if they differ.
  A released node raises.

What it leaves out is fgrad's generality: nesting, forward mode, the imperative face, full
tapes. Each op's entry is a closure made for its arity and residuals, as fgrad's entry
functions are (fgrad/ops/entries.py), but with nothing to check for those. The row runs W1
and W5 (the chains, through their namespace `m`), and it stands between the floor and fgrad:
it shows what the per-op checks cost, apart from what fgrad's generality adds.
"""
import gc
import threading
import types

import numpy as np

from . import workloads as wl

__all__ = ["checked_impls", "grad"]

ONE, NEG = "one", "neg"  # local derivatives that cost no multiply, as in fgrad
OTHER = "other"  # the local derivative is the other argument (multiply's): no call either
BROADCAST = "broadcast"  # sum's: the cotangent is g broadcast to the input's shape


class _State(threading.local):
    def __init__(self):
        self.trace = None  # the innermost trace of this thread; None: nothing is traced


_state = _State()


class Trace:
    __slots__ = ("alive", "tape")


class Tracer:
    """A traced value: its trace, its primal and the edge (node) that made it."""

    __slots__ = ("_trace", "primal", "edge")
    __array_ufunc__ = None  # ndarray (op) Tracer defers to Tracer's reflected operators


class Node:
    """fgrad's node layout (ir/node.py): prim holds the op's local derivatives."""

    __slots__ = ("prim", "params", "inputs", "primals", "out", "meta")


class Leaf:
    """Where the input's cotangent ends up."""

    __slots__ = ()


class Op:
    """An op's name and its local derivatives d out / d arg_i: each a function (ans, *args)
    -> value, written in this tape's ops, or one of the markers above."""

    __slots__ = ("name", "partials")

    def __init__(self, name, *partials):
        self.name, self.partials = name, partials


_NO_PARAMS = {}
_UNREAD = (None,)


def _general_path_error(x, op):
    """The error for a value the fast path does not own (where fgrad's `process` goes on)."""
    trace = x._trace
    if not trace.alive:
        return TypeError(f"{op.name} got a traced value (shape {np.shape(x.primal)}) of a grad that has already "
                         f"returned; a traced value must not escape the function being transformed")
    return NotImplementedError(f"{op.name}: a value of an enclosing trace (nested transforms are not part of "
                               f"the checked tape, and no workload takes this path)")


def _record(trace, op, inputs, primals, out, keep_out):
    """Record one op and return its traced value (sum's way, once per call; the per-op
    entries write these stores inline)."""
    node = Node()
    node.prim = op
    node.params = _NO_PARAMS
    node.inputs = inputs
    node.primals = primals
    node.out = out if keep_out else None
    node.meta = None
    trace.tape.append(node)
    t = Tracer()
    t._trace = trace
    t.primal = out
    t.edge = node
    return t


def unary(name, kernel, partial, reads_x, reads_out):
    """An elementwise op of one argument: one check when nothing is traced."""
    op = Op(name, partial)

    def entry(x):
        if x.__class__ is not Tracer:
            return kernel(x)
        trace = _state.trace
        if x._trace is not trace:
            raise _general_path_error(x, op)
        pa = x.primal
        out = kernel(pa)
        node = Node()  # (what _record does, inline: the per-op path is this tape's hot path)
        node.prim = op
        node.params = _NO_PARAMS
        node.inputs = (x.edge,)
        node.primals = (pa,) if reads_x else _UNREAD if pa.dtype is out.dtype else (_Aval(pa),)
        node.out = out if reads_out else None
        node.meta = None
        trace.tape.append(node)
        t = Tracer()
        t._trace = trace
        t.primal = out
        t.edge = node
        return t
    entry.__name__ = name
    return entry


def binary(name, kernel, partial_a, partial_b, reads):
    """An elementwise op of two arguments, either of which may be a constant."""
    op = Op(name, partial_a, partial_b)

    def entry(a, b):
        mine_a, mine_b = a.__class__ is Tracer, b.__class__ is Tracer
        if not (mine_a or mine_b):
            return kernel(a, b)
        trace = _state.trace
        if mine_a and a._trace is not trace:
            raise _general_path_error(a, op)
        if mine_b and b._trace is not trace:
            raise _general_path_error(b, op)
        pa = a.primal if mine_a else a
        pb = b.primal if mine_b else b
        out = kernel(pa, pb)
        node = Node()
        node.prim = op
        node.params = _NO_PARAMS
        node.inputs = (a.edge if mine_a else None, b.edge if mine_b else None)
        if reads:
            node.primals = (pa, pb)
        else:  # a constant is kept as it is; a traced input not at all, or as its shape if it broadcasts
            node.primals = (
                (None if pa.shape == out.shape and pa.dtype is out.dtype else _Aval(pa)) if mine_a else pa,
                (None if pb.shape == out.shape and pb.dtype is out.dtype else _Aval(pb)) if mine_b else pb)
        node.out = None
        node.meta = None
        trace.tape.append(node)
        t = Tracer()
        t._trace = trace
        t.primal = out
        t.edge = node
        return t
    entry.__name__ = name
    return entry


class _Aval:
    __slots__ = ("shape", "dtype")

    def __init__(self, x):
        self.shape, self.dtype = x.shape, x.dtype


# The functions of the W1 and W5 programs; the derivatives use these same functions.
m = types.SimpleNamespace()
m.sin = unary("sin", np.sin, lambda ans, x: m.cos(x), True, False)
m.cos = unary("cos", np.cos, lambda ans, x: -m.sin(x), True, False)
m.tanh = unary("tanh", np.tanh, lambda ans, x: 1.0 - ans * ans, False, True)
m.exp = unary("exp", np.exp, lambda ans, x: ans, False, True)
m.log = unary("log", np.log, lambda ans, x: 1.0 / x, True, False)
m.sqrt = unary("sqrt", np.sqrt, lambda ans, x: 0.5 / ans, False, True)
m.arcsin = unary("arcsin", np.arcsin, lambda ans, x: 1.0 / m.sqrt(1.0 - x * x), True, False)
m.arctanh = unary("arctanh", np.arctanh, lambda ans, x: 1.0 / (1.0 - x * x), True, False)
_negative = unary("negative", np.negative, NEG, False, False)
_add = binary("add", np.add, ONE, ONE, False)
_subtract = binary("subtract", np.subtract, ONE, NEG, False)
_multiply = binary("multiply", np.multiply, OTHER, OTHER, True)


def _sum(x):
    if x.__class__ is not Tracer:
        return np.add.reduce(x, axis=None)
    trace = _state.trace
    if x._trace is not trace:
        raise _general_path_error(x, _SUM)
    pa = x.primal
    return _record(trace, _SUM, (x.edge,), (_Aval(pa),), np.add.reduce(pa, axis=None), False)


_SUM = Op("sum", BROADCAST)
m.sum = _sum

# The entries are the operators themselves (add and multiply commute, so x + c and c + x
# run the same kernel call).
Tracer.__add__ = Tracer.__radd__ = _add
Tracer.__sub__ = _subtract
Tracer.__rsub__ = lambda self, other: _subtract(other, self)
Tracer.__mul__ = Tracer.__rmul__ = _multiply
Tracer.__neg__ = _negative


def _fit(g, like):
    """g summed over the axes `like` was broadcast along, in like's dtype."""
    shape = like.shape
    if g.shape != shape:
        lead = g.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and g.shape[i + lead] != 1)
        g = np.add.reduce(g, axis=axes, keepdims=True).reshape(shape) if axes else g
    dtype = like.dtype
    return g if g.dtype is dtype else g.astype(dtype)


def grad(fun, x):
    """d fun / d x for a scalar `fun` of one floating-point array or scalar."""
    if x.__class__ is float:
        x = np.float64(x)
    if getattr(x, "dtype", None) is None or x.dtype.kind != "f":
        raise TypeError(f"grad: x must be a floating-point array or scalar, got {type(x).__name__}")
    trace = Trace()
    trace.alive, trace.tape = True, []
    prev, _state.trace = _state.trace, trace
    enabled = gc.isenabled()
    gc.disable()  # as fgrad (engine/gc_pause.py)
    try:
        leaf = Leaf()
        t = Tracer()
        t._trace, t.primal, t.edge = trace, x, leaf
        try:
            out = fun(t)
        finally:
            trace.alive = False
            _state.trace = prev
        tape, trace.tape = trace.tape, None
        if not (out.__class__ is Tracer and out._trace is trace):
            return np.zeros_like(x)
        if np.shape(out.primal) != ():
            raise TypeError(f"grad: the function must return a scalar, got shape {np.shape(out.primal)}")
        cts = _walk(tape, out.edge, out.primal.dtype.type(1))
        g = cts.get(leaf)
        return np.zeros_like(x) if g is None else g
    finally:
        if enabled:
            gc.enable()


def _walk(tape, root, seed):
    """The tape backwards (a reverse execution order is a topological order)."""
    cts = {root: seed}
    take, get = cts.pop, cts.get
    for node in reversed(tape):
        g = take(node, None)
        if g is None:
            continue
        primals, out, inputs = node.primals, node.out, node.inputs
        if primals is None:
            raise RuntimeError(f"{node.prim.name}: the tape was already walked and its residuals released")
        d = node.prim.partials[0]
        if len(inputs) == 1 and d is not BROADCAST:  # a unary op: no loop, and only the dtype can differ
            p, e = primals[0], inputs[0]
            gi = g if d is ONE else -g if d is NEG else d(out, p) * g
            if p is not None and gi.dtype is not p.dtype:
                gi = _fit(gi, p)
            prev = get(e)
            cts[e] = gi if prev is None else prev + gi
            node.primals = node.out = None
            continue
        i = -1
        for e in inputs:
            i += 1
            if e is None:
                continue
            d, p = node.prim.partials[i], primals[i]
            if d is ONE:
                gi = g
            elif d is NEG:
                gi = -g
            elif d is OTHER:
                gi = primals[1 - i] * g
            elif d is BROADCAST:
                gi = np.broadcast_to(g, p.shape)
            else:
                gi = d(out, *primals) * g
            if p is not None and (gi.shape != p.shape or gi.dtype is not p.dtype):
                gi = _fit(gi, p)
            prev = get(e)
            cts[e] = gi if prev is None else prev + gi
        node.primals = node.out = None
    return cts


def _setup(case):
    return wl.chain_runner(case, grad, m) or "the checked tape runs the chains only (W1, W5)"


def checked_impls():
    return [wl.Impl("checked tape", _setup, "fgrad's per-op checks, one closure per op (benchmarks/checked.py)")]
