"""NaN provenance (fgrad.config's debug_nans): which op made the NaN or inf a derivative holds.

Note [NaN provenance]: a transform's call (grad, vjp's pullback, jvp, vmap, the Jacobians,
compile) is pure, so it can run again. With debug_nans "cheap" a call's concrete results
are checked (one isfinite per floating-point leaf); on a hit whose inputs were finite, the call
runs again under a `CheckTrace`, the outermost trace, which sees every primitive applied to a
value derived from the traced inputs, forward and backward, at its concrete values. Each of
its values carries `origin`: None while finite, else the op that first made non-finite values
from finite ones on that value's path (an op of non-finite inputs hands its inputs' origin
on; a finite output drops it, so a masked inf is forgotten). The result's origin names the
culprit: the primitive, its operands' shapes, and the user's source line: the op's own in the
forward pass or in a custom rule, and in the backward pass the forward line of the node whose
rule ran (the engine tells the CheckTrace on the trace stack of the thread that runs the rule:
`engine.backward.watching`; tapes keep every output then, where the line is recorded). With
"full" every call runs so, and the first NaN made from NaN-free values raises at once, as
jax_debug_nans. Nothing here runs with the switch off.
"""
import cmath
import linecache
import math
import os
import sys
import threading

import numpy as np

from ..config import config
from ..engine import backward as engine
from ..errors import NonFiniteError
from ..ir.value import Tracer, peek
from ..ops.primitive import EVAL, Trace, pop_trace, push_trace, split_owned
from ..tree_util import keystr, tree_flatten_with_path, tree_leaves, tree_map

__all__ = [
    "Brought",
    "CheckTrace",
    "CheckTracer",
    "Origin",
    "checked_call",
    "non_finite",
    "operand_text",
    "replaced",
    "rerunning",
    "state",
    "user_frame",
]

_FGRAD = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def rerunning():
    """Is this thread's call running under a CheckTrace (then tapes keep every output: the lines)?"""
    return engine.watch > 0 and engine.watching() is not None


class CheckTracer(Tracer):
    """A value of a call that runs checked: `origin` (None while finite) and `where`, the
    (file, line) of the user's code that made it."""

    __slots__ = ("origin", "where")


class Origin:
    """The op that made non-finite values (`kind`, 'nan' or 'inf') from finite ones, or a NaN
    from infs (`cause`: their origin). Raised NonFiniteErrors carry it as `.origin`."""

    __slots__ = ("prim", "operands", "where", "node", "node_where", "kind", "cause")

    def __init__(self, prim, operands, where, node, node_where, kind, cause):
        self.prim, self.operands, self.where = prim, operands, where
        self.node, self.node_where, self.kind, self.cause = node, node_where, kind, cause

    def describe(self):
        ops = ", ".join(self.operands) or "no operands"
        if self.node is not None:
            at = f"in the backward pass, in the derivative rule of `{self.node}`"
            at += f", whose forward op is {_line(self.node_where)}" if self.node_where else ""
            if self.where is not None:
                at += f"; the rule's op is {_line(self.where)}"
        else:
            at = f"at {_line(self.where)}" if self.where else "(no line of user code was on the stack)"
        made = f"`{self.prim}` of {ops} made {self.kind} from {'finite values' if self.cause is None else 'inf'}, {at}"
        return made if self.cause is None else f"{made}; the inf: {self.cause.describe()}"


def _line(where):
    file, line = where
    text = linecache.getline(file, line).strip()
    return f'File "{file}", line {line}' + (f": {text}" if text else "")


def user_frame():
    """(file, line) of the innermost frame outside fgrad's package, or None."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_FGRAD):
        f = f.f_back
    return None if f is None else (f.f_code.co_filename, f.f_lineno)


def non_finite(x):
    """None if x is finite (or not floating point), else 'nan' or 'inf'."""
    x = peek(x)
    if x.__class__ is float or x.__class__ is complex:
        x = np.asarray(x)
    elif not isinstance(x, (np.ndarray, np.generic)) and not hasattr(x, "__cuda_array_interface__"):
        return None  # (an Aval, None, a Python int: no values to check)
    if x.dtype.kind not in "fc":
        return None
    if bool(np.isfinite(x).all()):
        return None
    return "nan" if bool(np.isnan(x).any()) else "inf"


def operand_text(x):
    """How an error names an operand: its dtype and shape, else its type."""
    x = peek(x)
    dtype = getattr(x, "dtype", None)
    return type(x).__name__ if dtype is None else f"{dtype}{list(x.shape)}"


class CheckTrace(Trace):
    """The outermost trace of a checked call: runs each primitive at once and follows where
    non-finite values come from (Note [NaN provenance]). `node`: the tape node whose rule is
    running (set by the engine), `raise_nan`: raise at the first NaN made (the full mode)."""

    __slots__ = ("node", "raise_nan", "call_site")
    watches_nodes = True  # (the engine tells it the node whose rule runs: engine.backward.watching)

    def __init__(self, parent, transform):
        Trace.__init__(self, parent, transform)
        self.node, self.raise_nan, self.call_site = None, False, None

    def process(self, prim, args, params):
        owned, primals, indirect = split_owned(self, args)
        if owned is None:
            return self.parent.process(prim, args, params)
        if self.parent is EVAL and not indirect:
            out = prim.impl(*primals, **params)
        else:
            out = self.parent.process(prim, primals, params)
        inherited = None
        for a, p in zip(owned, primals):
            o = a.origin if a is not None else Brought.of(p, "with a constant (an array the function closed over "
                                                                "or was given untraced)")
            if o is not None:
                inherited = o
                break
        where = user_frame()
        if prim.multiple_results:
            return tuple(self.wrap(prim, primals, o, inherited, where) for o in out)
        return self.wrap(prim, primals, out, inherited, where)

    def wrap(self, prim, primals, out, inherited, where):
        kind = non_finite(out)
        origin = None
        if kind is not None:
            origin = inherited
            if origin is None or (kind == "nan" and origin.kind == "inf" and _no_nan(primals)):
                node = self.node  # (in the backward pass, a rule's ops run from the transform's call site)
                own = None if node is not None and where == self.call_site else where
                origin = Origin(prim.name, [operand_text(p) for p in primals], own,
                                None if node is None else node.name(),
                                None if node is None else _forward_line(node), kind, origin)
                if kind == "nan" and self.raise_nan:
                    raise NonFiniteError(f"fgrad debug_nans: {origin.describe()}.", origin)
        t = CheckTracer()
        t._trace, t.primal, t.origin, t.where = self, out, origin, where
        return t


def _no_nan(values):
    for v in values:
        v = peek(v)
        if getattr(v, "dtype", None) is not None and v.dtype.kind in "fc" and bool(np.isnan(v).any()):
            return False
    return True


class Brought:
    """The origin of non-finite values that came in (an input, a constant), not made by an op."""

    __slots__ = ("kind", "how")

    def __init__(self, kind, how):
        self.kind, self.how = kind, how

    @classmethod
    def of(cls, value, how):
        kind = non_finite(value)
        return None if kind is None else cls(kind, how)

    def describe(self):
        return f"the {self.kind} came in {self.how}"


_AS_INPUT = "as an input"


def _forward_line(node):
    """The user's line of a tape node's forward op: its output's `where` (a checked call's
    tapes keep every output: rerunning())."""
    out = node.out
    if out.__class__ is tuple:
        out = out[0] if out else None
    while isinstance(out, Tracer) and out.__class__ is not CheckTracer:  # (vmap's, jvp's levels between)
        out = out.primal
    return getattr(out, "where", None)


def _label(transform, path):
    """What a result leaf at `path` is, as the transform's caller knows it."""
    head, rest = (path[0].entry, keystr(path[1:])) if path and hasattr(path[0], "entry") else (None, keystr(path))
    if transform in ("grad", "value_and_grad"):  # (value_and_grad_call's (value, gradients))
        return f"gradient{rest}" if head == 1 else f"value{rest}"
    if transform in ("jvp", "hvp"):
        return f"tangent output{rest}" if head == 1 else f"primal output{rest}"
    if transform == "vjp":
        return f"cotangent of primals{keystr(path)}"
    return f"result{keystr(path)}" if path else "result"


def _maybe_non_finite(x):
    """Might x hold a NaN or inf? A scalar is asked; an array makes one BLAS dot, x . conj(x), a
    sum of squares: NaN or inf exactly where x holds one, or where it overflows (then
    non_finite decides)."""
    cls = x.__class__
    if cls is float or cls is np.float64 or cls is np.float32:
        return not math.isfinite(x)
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype.kind not in "fc":
        return False
    if dtype.kind == "f":
        return not math.isfinite(np.vdot(x, x))
    return not cmath.isfinite(complex(np.vdot(x, x)))


def _leaves(tree):
    """tree's leaves: without optree for an array, a scalar, or a tuple of them (or of tuples
    of them), what transforms return most."""
    if tree.__class__ is np.ndarray or tree.__class__ is np.float64:
        return (tree,)
    if tree.__class__ is tuple:
        leaves = []
        for item in tree:
            if item.__class__ is np.ndarray or item.__class__ is np.float64:
                leaves.append(item)
            else:
                leaves.extend(_leaves(item) if item.__class__ is tuple else tree_leaves(item))
        return leaves
    return tree_leaves(tree)


def _first_non_finite(results):
    """(path, kind) of the first leaf of `results` that holds a NaN or inf; None when all are
    finite; False when a leaf is a traced value (a call inside another transform)."""
    hit = False
    for leaf in _leaves(results):
        if isinstance(leaf, Tracer):
            return False
        hit = hit or _maybe_non_finite(leaf)
    if not hit:
        return None
    for path, leaf in tree_flatten_with_path(results)[0]:
        kind = non_finite(leaf)
        if kind is not None:
            return path, kind
    return None


def replaced(args, nums, values):
    """args (a tuple) with args[i] = values[k] for the k-th i of nums."""
    args = list(args)
    for i, v in zip(nums, values):
        args[i] = v
    return tuple(args)


class _State(threading.local):
    busy = False  # a checked call is running in this thread (transforms inside it are not checked again)


state = _State()
_watch_lock = threading.Lock()  # (engine.watch counts the checked calls of every thread)


def checked_call(transform, again, traced, numbers=False):
    """`again(traced)`, a transform's call (`traced`: the values it traces, a list), under
    config.debug_nans (Note [NaN provenance]): its results, or NonFiniteError naming the op
    that made a NaN or inf they hold that `traced` did not. A transform calls it when the
    switch is on and `state.busy` is not (again then runs the transform's own body).
    `numbers`: the transform makes a Python float or complex in `traced` a NumPy scalar
    (a differentiated input), so the check may follow it as one; vmap and compile keep
    Python numbers weak, so theirs are not followed."""
    state.busy = True
    try:
        if config.debug_nans == "cheap":
            results = again(traced)
            if not _first_non_finite(results) or _first_non_finite(traced) is not None:
                return results  # (finite, inside another transform, or inputs not finite)
        return _rerun(transform, again, traced, config.debug_nans == "full", numbers)
    finally:
        state.busy = False


def _rerun(transform, again, traced, raise_nan, numbers):
    trace = push_trace(CheckTrace, "debug_nans")
    trace.raise_nan, trace.call_site = raise_nan, user_frame()
    with _watch_lock:
        engine.watch += 1
    try:
        def wrap(x):
            if numbers and (x.__class__ is float or x.__class__ is complex):
                x = np.float64(x) if x.__class__ is float else np.complex128(x)  # (as checks.float_input)
            kind = non_finite(x) if hasattr(x, "dtype") and x.dtype.kind in "fc" else False
            if kind is False:
                return x
            t = CheckTracer()
            t._trace, t.primal, t.where = trace, x, None
            t.origin = None if kind is None else Brought(kind, _AS_INPUT)
            return t
        results = again(tree_map(wrap, traced))
    finally:
        with _watch_lock:
            engine.watch -= 1
        pop_trace(trace)
    pairs, treedef = tree_flatten_with_path(results)
    for path, leaf in pairs:
        origin = leaf.origin if leaf.__class__ is CheckTracer else None
        if origin is not None and getattr(origin, "how", None) != _AS_INPUT:
            raise NonFiniteError(f"fgrad debug_nans: {transform}'s {_label(transform, path)} holds {origin.kind}, "
                                 f"which its inputs did not: {origin.describe()}.", origin)
        kind = None if origin is not None or leaf.__class__ is CheckTracer else non_finite(leaf)
        if kind is not None:
            raise NonFiniteError(f"fgrad debug_nans: {transform}'s {_label(transform, path)} holds {kind}, which "
                                 f"no checked op made: a constant of the function, or made from a Python number input "
                                 f"(vmap and compile keep those weak and the check follows arrays: pass it as "
                                 f"np.float64)", None)
    return treedef.unflatten([leaf.primal if leaf.__class__ is CheckTracer else leaf for _, leaf in pairs])


