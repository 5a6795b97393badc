"""Loops and branches under fgrad.compile: one step holding the body's program.

Where the staging trace is the current one (the construct's values are fgrad.compile's own),
the body (each branch) is staged once, on a child staging trace, into a Program of its own;
the enclosing program gets one step whose kernel runs that program as often as the loop
says. So a 20,000-step loop is one step, and compile time does not grow with the trip
count. Values the body closes over that the enclosing staging holds become extra inputs
of its program (JAX's closure conversion, done where every operand passes by:
_BodyTrace.operand). A body that makes a Python decision on a value it computes (a guard
in its program) cannot be one step: the construct then returns NOT_STAGED and runs as a
Python loop, traced through (Note [control flow as Python loops] in control_flow.py); so
does one whose types this module cannot confirm (the Python loop raises the error).
"""
from ..backend import array_module
from ..compile.codegen import generate
from ..compile.optimize import optimize
from ..compile.staging import StageTrace
from ..ir.value import StageTracer, Tracer, peek
from ..ops.primitive import Primitive, current_trace, pop_trace, push_trace
from ..transforms import trees
from .carries import leaf_type

__all__ = ["NOT_STAGED", "SCAN", "branches", "fori_loop", "record", "scan", "stage", "under_compile", "while_loop"]

NOT_STAGED = object()  # what a staging function returns when the construct must run as a Python loop


def under_compile():
    """Is the current trace fgrad.compile's staging (no transform between it and this call)?"""
    return isinstance(current_trace(), StageTrace)


class _BodyTrace(StageTrace):
    """Stages a body or a branch; a value of an enclosing staging it meets becomes an input."""

    __slots__ = ("captured", "capture_inputs", "_captures")

    def __init__(self, parent, transform):
        StageTrace.__init__(self, parent, transform)
        self.captured = []        # the enclosing stagings' values the body reads, in order
        self.capture_inputs = []  # this trace's input standing for each
        self._captures = {}       # id(value) -> its input

    def capture(self, a):
        t = self._captures.get(id(a))
        if t is None:
            t = self._captures[id(a)] = self.new_value(a.primal)
            self.captured.append(a)
            self.capture_inputs.append(t)
        return t

    def operand(self, a, prim):
        if a.__class__ is StageTracer and a._trace is not self and a._trace.alive:
            t = self.capture(a)
            return t.var, t.primal
        return StageTrace.operand(self, a, prim)


class _Sub:
    """A staged body: called on its inputs and then its captured values, returns its output leaves."""

    __slots__ = ("run", "program", "held")

    def __init__(self, run, program, held):
        self.run, self.program, self.held = run, program, held

    def __repr__(self):
        return f"<program of {len(self.program)} steps>"


def stage(fun, examples):
    """`fun` (a list of input leaves -> a list of output leaves) staged on inputs like
    `examples`: (its _Sub, the enclosing values it captured, its output leaves), or None
    where its program holds a guard or an output that is not an array or a number."""
    trace = push_trace(_BodyTrace, "compile")
    try:
        inputs = [trace.new_value(peek(x)) for x in examples]
        outs = []
        for o in fun(inputs):
            if o.__class__ is StageTracer:
                if o._trace is not trace:
                    o = trace.capture(o)
            elif isinstance(o, Tracer) or not (hasattr(o, "dtype") or isinstance(o, (bool, int, float, complex))):
                return None
            outs.append(o)
        program = trace.program(inputs + trace.capture_inputs, outs, [f"in{i}" for i in range(len(inputs))] +
                                [f"captured{i}" for i in range(len(trace.captured))])
    except BaseException:
        trace.held.release()
        raise
    finally:
        pop_trace(trace)
    if program.guards:  # (a Python decision inside: not one program for every iteration)
        trace.held.release()
        return None
    program = optimize(program)
    return _Sub(generate(program, "body")[0], program, trace.held), trace.captured, outs


def _typed(leaves, like):
    """Are `leaves` of the types of `like`, leaf for leaf?"""
    try:
        return len(leaves) == len(like) and all(leaf_type(a) == leaf_type(b) for a, b in zip(leaves, like))
    except TypeError:
        return False


def record(prim, operands, params):
    return current_trace().process(prim, tuple(operands), params)


# ---- while_loop ----------------------------------------------------------------------------------
def _while_impl(*values, cond, body, n_carry, n_cond):
    carry, captured = values[:n_carry], values[n_carry:]
    c_cap, b_cap = captured[:n_cond], captured[n_cond:]
    while cond.run(*carry, *c_cap)[0]:
        carry = body.run(*carry, *b_cap)
    return carry


WHILE = Primitive("while_loop", _while_impl, multiple_results=True, register=False, saves="nothing")


def while_loop(cond_fun, body_fun, leaves, tree):
    """lax.while_loop staged as one step, on the carry `leaves` of structure `tree`; or NOT_STAGED."""
    if not under_compile():
        return NOT_STAGED
    cond = stage(lambda c: [cond_fun(trees.unflatten(tree, c))], leaves)
    if cond is None or not _typed(cond[2], [True]):
        return NOT_STAGED
    out_tree = []
    body = stage(lambda c: _flat(body_fun(trees.unflatten(tree, c)), out_tree), leaves)
    if body is None or out_tree[0] != tree or not _typed(body[2], leaves):
        return NOT_STAGED
    params = {"cond": cond[0], "body": body[0], "n_carry": len(leaves), "n_cond": len(cond[1])}
    return list(record(WHILE, [*leaves, *cond[1], *body[1]], params))


def _flat(tree, into):
    leaves, treedef = trees.flatten(tree)
    into.append(treedef)
    return leaves


# ---- fori_loop -----------------------------------------------------------------------------------
def _fori_impl(*values, body, lower, upper, n_carry):
    carry, captured = values[:n_carry], values[n_carry:]
    for i in range(lower, upper):
        carry = body.run(i, *carry, *captured)
    return carry


FORI = Primitive("fori_loop", _fori_impl, multiple_results=True, register=False, saves="nothing")


def fori_loop(lower, upper, body_fun, leaves, tree):
    """lax.fori_loop with static bounds staged as one step; or NOT_STAGED. The body's program
    reads i as a Python int (a weak value: x * i keeps x's dtype, as eagerly)."""
    if not under_compile():
        return NOT_STAGED
    out_tree = []
    body = stage(lambda c: _flat(body_fun(c[0], trees.unflatten(tree, c[1:])), out_tree), [lower, *leaves])
    if body is None or out_tree[0] != tree or not _typed(body[2], leaves):
        return NOT_STAGED
    params = {"body": body[0], "lower": lower, "upper": upper, "n_carry": len(leaves)}
    return list(record(FORI, [*leaves, *body[1]], params))


# ---- scan ----------------------------------------------------------------------------------------
def _scan_impl(*values, body, n_carry, n_xs, length, reverse, n_ys):
    carry, xs, captured = values[:n_carry], values[n_carry:n_carry + n_xs], values[n_carry + n_xs:]
    run, outs = body.run, [None] * length
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        out = run(*carry, *[x[i] for x in xs], *captured)
        carry = out[:n_carry]
        outs[i] = out
    return (*carry, *[array_module(outs[0][j]).stack([o[j] for o in outs]) for j in range(n_carry, n_carry + n_ys)])


SCAN = Primitive("scan", _scan_impl, multiple_results=True, register=False, saves="nothing")


def scan(f, carry, carry_tree, x_leaves, x_tree, length, reverse):
    """lax.scan staged as one step: (final carry, stacked ys), or NOT_STAGED."""
    if not under_compile() or length == 0:
        return NOT_STAGED
    n = len(carry)
    first = length - 1 if reverse else 0
    trees_out = []

    def step(ins):
        result = f(trees.unflatten(carry_tree, ins[:n]), trees.unflatten(x_tree, ins[n:]))
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            return [object()]  # (not a pair: the Python loop says so)
        return _flat(result[0], trees_out) + _flat(result[1], trees_out)
    body = stage(step, carry + [peek(x)[first] for x in x_leaves])
    if body is None or len(trees_out) != 2 or trees_out[0] != carry_tree or not _typed(body[2][:n], carry):
        return NOT_STAGED
    n_ys = len(body[2]) - n
    params = {"body": body[0], "n_carry": n, "n_xs": len(x_leaves), "length": length, "reverse": reverse,
              "n_ys": n_ys}
    out = record(SCAN, [*carry, *x_leaves, *body[1]], params)
    return trees.unflatten(carry_tree, out[:n]), trees.unflatten(trees_out[1], out[n:])


# ---- cond and switch -----------------------------------------------------------------------------
def _switch_impl(index, *values, subs, n_ops, n_captured):
    ops, captured = values[:n_ops], values[n_ops:]
    k = int(index)
    start = sum(n_captured[:k])
    return subs[k].run(*ops, *captured[start:start + n_captured[k]])


SWITCH = Primitive("switch", _switch_impl, multiple_results=True, register=False, saves="nothing")


def branches(name, index, fns, operands, names):
    """cond or switch staged as one step choosing among the staged branches, or NOT_STAGED."""
    if not (under_compile() and index.__class__ is StageTracer):
        return NOT_STAGED
    leaves, tree = trees.flatten(operands)
    if not all(hasattr(x, "dtype") or isinstance(x, (bool, int, float, complex)) for x in leaves):
        return NOT_STAGED
    out_trees, staged = [], []
    for b in fns:
        s = stage(lambda ins, b=b: _flat(b(*trees.unflatten(tree, ins)), out_trees), leaves)
        if s is None:
            return NOT_STAGED
        staged.append(s)
    if any(t != out_trees[0] for t in out_trees) or not all(_typed(s[2], staged[0][2]) for s in staged):
        return NOT_STAGED  # (the Python path names the branches that differ)
    params = {"subs": tuple(s[0] for s in staged), "n_ops": len(leaves),
              "n_captured": tuple(len(s[1]) for s in staged)}
    out = record(SWITCH, [index, *leaves, *[c for s in staged for c in s[1]]], params)
    return trees.unflatten(out_trees[0], list(out))
