"""Reverse mode of scan and fori_loop under fgrad.compile: a forward scan and a transposed one.

Under `compile(grad(f))` a loop in f is called on vjp's values, right above the staging
trace. Traced through, it would put every iteration, forward and backward, in the program.
Instead (JAX's rule for scan): the body is closure-converted (implicit.closed_over: one
probing step), the loop becomes a custom_vjp function of its carry, xs and closed-over
values, whose forward pass is a scan saving each iteration's input carry and whose
backward pass is a reverse scan of the body's vjp at those carries (the body's
intermediates rematerialized, not stored). Both scans run on the staging trace, so each is
one step holding its body's program.
"""
from .. import numpy as fnp
from ..compile.staging import StageTrace
from ..ir.value import Tracer, VJPTracer
from ..ops.primitive import current_trace, run_under
from ..transforms import checks, trees
from ..transforms.custom import custom_vjp
from ..transforms.reverse import VJPTrace, vjp
from . import staged
from .implicit import closed_over, converted

__all__ = ["applies", "scan_by_transposition"]


def applies(leaves):
    """Is the current trace vjp's, right above fgrad.compile's staging, and every carry leaf
    (of `leaves`) floating point (its cotangent then rides in the reverse scan's carry)?"""
    trace = current_trace()
    return (trace.__class__ is VJPTrace and isinstance(trace.parent, StageTrace)
            and all(checks.is_floating(x) for x in leaves))


def scan_by_transposition(scan, f, init, xs, length, reverse):
    """lax.scan(f, init, xs, length, reverse) as one custom_vjp call (see above); `scan` is
    lax.scan itself, which the rules call on the staging trace."""
    x_leaves, x_tree = trees.flatten(xs)
    first = length - 1 if reverse else 0
    x0 = trees.unflatten(x_tree, [x[first] for x in x_leaves])
    _, consts = closed_over(f, init, x0)
    trace = current_trace()
    if not any(_mine(v, trace) for v in trees.flatten((init, xs))[0] + consts):  # (nothing to differentiate)
        return run_under(trace.parent, scan, f, init, xs, length, reverse)
    fs = [c for c in consts if checks.is_floating(c)]
    others = [c for c in consts if not checks.is_floating(c)]
    names = fs + others
    # (xs that are not vjp's own have no cotangent to compute: the reverse scan skips the
    # body's vjp in x, a matmul per step in an RNN's x @ U)
    xs_differentiated = all(checks.is_floating(x) for x in x_leaves) and any(_mine(x, trace) for x in x_leaves)

    cells = _cells(f)

    def body(c, x, fs, os):
        with _as_called(cells):
            return converted(f, names, list(fs) + list(os))(c, x)

    def loop(init, xs, fs, os):
        return scan(lambda c, x: body(c, x, fs, os), init, xs, length, reverse)

    def back(fs, os):  # one step of the transposed scan: the body's vjp at its input carry
        def step(state, inputs):
            ct, acc = state
            c, x, gy = inputs
            if xs_differentiated:
                _, pull = vjp(lambda c, x, fs: body(c, x, fs, os), c, x, fs)
                ct_c, ct_x, ct_fs = pull((ct, gy))
            else:
                _, pull = vjp(lambda c, fs: body(c, x, fs, os), c, fs)
                (ct_c, ct_fs), ct_x = pull((ct, gy)), None
            return (ct_c, [a + b for a, b in zip(acc, ct_fs)]), ct_x
        return step

    def fwd(init, xs, fs, os):
        def step(c, x):
            c_out, y = body(c, x, fs, os)
            return c_out, (y, c)
        final, (ys, carries) = scan(step, init, xs, length, reverse)
        # (staged now, while what f closes over is as it was: Note [closures read late])
        staged_back = _stage_back(back(fs, os), init, x0_of(xs), ys, fs)
        return (final, ys), (carries, xs, fs, staged_back)

    def bwd(os, res, g):
        carries, xs, fs, staged_back = res
        g_final, g_ys = g
        acc = [fnp.zeros_like(v) for v in fs]
        if staged_back is not None and staged.under_compile():
            (ct_init, ct_fs), ct_xs = staged_back((g_final, acc), (carries, xs, g_ys), length, not reverse)
        else:
            (ct_init, ct_fs), ct_xs = scan(back(fs, os), (g_final, acc), (carries, xs, g_ys), length, not reverse)
        return ct_init, ct_xs if xs_differentiated else None, ct_fs

    def x0_of(xs):
        leaves, tree = trees.flatten(xs)
        return trees.unflatten(tree, [x[first] for x in leaves])
    transposed = custom_vjp(loop, nondiff_argnums=(3,))
    transposed.defvjp(fwd, bwd)
    transposed.checks_output = False  # (fwd's output is loop's own)
    return transposed(init, xs, fs, others)


def _stage_back(back, init, x0, ys, fs):
    """The transposed scan's step `back` staged on values like the forward pass's (its program
    read on replay by a scan step: (state, inputs, length, reverse) -> (state, ct_xs)); None
    where it cannot be staged (a Python decision on its values)."""
    state_ex = (init, list(fs))
    y_leaves, y_tree = trees.flatten(ys)
    inputs_ex = (init, x0, trees.unflatten(y_tree, [y[0] for y in y_leaves]))
    s_leaves, s_tree = trees.flatten(state_ex)
    i_leaves, i_tree = trees.flatten(inputs_ex)
    n_state, out_trees = len(s_leaves), []

    def flat(ins):
        state, ct_x = back(trees.unflatten(s_tree, ins[:n_state]), trees.unflatten(i_tree, ins[n_state:]))
        out_trees.append(trees.flatten(ct_x)[1])
        return trees.flatten(state)[0] + trees.flatten(ct_x)[0]
    sub = staged.stage(flat, s_leaves + i_leaves)
    if sub is None:
        return None
    program, captured, outs = sub
    n_ys = len(outs) - n_state

    def run(state, inputs, length, reverse):
        params = {"body": program, "n_carry": n_state, "n_xs": len(i_leaves), "length": length,
                  "reverse": reverse, "n_ys": n_ys}
        out = staged.record(staged.SCAN, [*trees.flatten(state)[0], *trees.flatten(inputs)[0], *captured], params)
        return trees.unflatten(s_tree, out[:n_state]), trees.unflatten(out_trees[0], out[n_state:])
    return run


def _cells(fun, seen=None):
    """(cell, its contents now) for the closure cells of `fun` and of the functions they hold."""
    seen = set() if seen is None else seen
    out = []
    for cell in getattr(fun, "__closure__", None) or ():
        if id(cell) in seen:
            continue
        seen.add(id(cell))
        try:
            value = cell.cell_contents
        except ValueError:  # (a cell not yet bound)
            continue
        out.append((cell, value))
        if callable(value) and hasattr(value, "__closure__"):
            out.extend(_cells(value, seen))
    return out


class _as_called:
    """Note [closures read late]: the backward pass calls the body again, after the loop has
    returned, when a variable it closes over may have been rebound (`v, _ = scan(lambda h, x:
    h * v, v, xs)`): while it runs, its closure cells hold what they held when it was called."""

    def __init__(self, cells):
        self.cells = cells

    def __enter__(self):
        self.now = []
        for cell, value in self.cells:
            try:
                self.now.append((cell, cell.cell_contents))
            except ValueError:
                continue
            cell.cell_contents = value

    def __exit__(self, *exc):
        for cell, value in self.now:
            cell.cell_contents = value
        return False


def _mine(v, trace):
    """Is `v` a value of vjp's `trace` (at any level beneath an outer face)?"""
    while isinstance(v, Tracer):
        if v.__class__ is VJPTracer and v._trace is trace:
            return True
        v = v.primal
    return False
