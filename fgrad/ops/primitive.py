"""Primitives and `bind`, the one interception point of every traced op.

A `Primitive` is declared once with its implementation (a single array kernel), its
per-argument vjp rules and its jvp rule(s). Rules are written in fgrad ops, so an outer
transform traces them (that is how `grad(grad(f))` works).

Dispatch follows Autodidax part 2: one thread-local *current trace*. `bind` hands the
op to it; a trace unwraps the values it owns, treats every other value as a constant,
and asks its parent for the primal result. Every transform call makes a fresh trace,
so values of different transform calls can never be confused.
"""
import threading

from ..backend import check_one_device
from ..errors import DeviceMismatchError, EscapedTracerError
from ..ir.node import KEEPS_AVALS, KEEPS_FIT, KEEPS_VALUES, Node
from ..ir.value import Tracer, peek
from ..typing import Any, Callable

__all__ = [
    "NEG",
    "NO_PARAMS",
    "ONE",
    "OTHER",
    "REGISTRY",
    "VIEW",
    "EvalTrace",
    "Primitive",
    "Quotient",
    "Trace",
    "apply_partial",
    "bind",
    "current_trace",
    "new_trace",
    "pop_trace",
    "push_trace",
    "two_devices_check",
]


REGISTRY = {}  # name -> Primitive: every op fgrad knows, for the per-primitive test table

# Partial derivatives (Primitive.partials) that need no call: 1, -1, and multiply's (the
# other argument). apply_partial says what they mean.
ONE, NEG, OTHER = "one", "neg", "other"


class Quotient:
    """A partial derivative 1 / divisor(ans, *primals), applied as a quotient, v / divisor: log's
    (v / x) and sqrt's (v / (2 * ans)), as JAX writes them (a product by the reciprocal would
    differ in the last bit, and overflow where the divisor is subnormal)."""

    __slots__ = ("divisor",)

    def __init__(self, divisor: Callable[..., Any]):
        self.divisor = divisor


NO_PARAMS = {}  # the params of an op without any: one dict serves every such node

# The rule signatures a declaration takes (Primitive's docstring says each one's arguments):
Kernel = Callable[..., Any]       # impl(*arrays, **params) -> array (a tuple for several results)
VJPRule = Callable[..., Any]      # rule(g, ans, *primals, **params) -> one argument's cotangent, or None
VJPAllRule = Callable[..., tuple]  # rule(g, ans, primals, needs, **params) -> a cotangent (or None) per argument
JVPRule = Callable[..., Any]      # rule(t, ans, *primals, **params) -> one argument's share of the tangent
JVPFullRule = Callable[..., Any]  # rule(primals, tangents, ans, **params) -> the output's tangent
Partial = Callable[..., Any] | str | Quotient  # d(ans, *primals) -> d out / d argument i; ONE, NEG, OTHER; a Quotient
BatchRule = Callable[..., tuple]  # rule(args, dims, **params) -> (out, out_dim)
ViewInverse = Callable[..., Any] | str  # view(base, view_value, **params) -> base; or VIEW


times = over = None  # ops/elementwise's times and over, set when it loads (apply_partial's policy products)


def apply_partial(d: Partial, v: Any, i: int, out: Any, primals: tuple, safe: bool = False) -> Any:
    """`d`, a partial derivative of Primitive.partials (d out / d argument i), applied to `v`,
    a cotangent or a tangent (elementwise: the same product either way). The engine's rules
    (apply_rule) and forward mode (tangent_of) apply partials here; the backward loop and
    the entry functions keep inline copies, named and tested (Note [the inline partials]
    in engine/backward.py, Note [the entries' inline steps] in ops/entries.py). The partial
    goes first: Note [the partial first] in ops/elementwise.py. `safe`: multiply's product is
    the zero-cotangent policy's (made_by_nan_safe of the other input: Note [zero cotangents stay
    zero] in ops/elementwise.py)."""
    if d is ONE:
        return v
    if d is NEG:
        return -v
    if d is OTHER:  # multiply's: the other argument (after v if a Python complex: 1j * np.float64(2.0) is a complex)
        p = primals[1 - i]
        if safe:
            return times(v, p) if p.__class__ is complex else times(p, v)
        return v * p if p.__class__ is complex else p * v
    if d.__class__ is Quotient:
        return over(v, d.divisor(out, *primals)) if safe else v / d.divisor(out, *primals)
    return times(d(out, *primals), v) if safe else d(out, *primals) * v


def made_by_nan_safe(edge) -> bool:
    """Was the value at `edge` (a node's input) made by a nan_safe primitive (where an infinite
    factor is usually born)? Multiply's reverse step applies the zero-cotangent policy then."""
    return edge.__class__ is Node and edge.prim is not None and edge.prim.nan_safe

# What a primitive's vjp rules read of a node's values (`saves=`): the rest is dropped.
_SAVES = {"inputs and output": (True, True), "inputs": (True, False), "output": (False, True),
          "nothing": (False, False)}


VIEW = "a view with no inverse"  # `view=` of a view that in-place writes cannot go through (broadcast_to)


class Primitive:
    """A named op: `impl(*arrays, **params)`, its vjp rules and jvp rule(s).

    vjp: tuple with one rule per positional argument, `rule(g, ans, *primals, **params)`
         returning the cotangent of that argument (or None for a symbolic zero); a None
         entry means the argument is not differentiable. An empty tuple makes the whole
         primitive non-differentiable: its outputs are never traced.
    jvp: tuple with one rule per argument, `rule(t, ans, *primals, **params)` giving that
         argument's contribution to the output tangent; or `jvp_full(primals, tangents,
         ans, **params)` when the tangent is not a sum of per-argument terms.

    The declaration also says what the rules read (`saves`: "inputs", "output", "inputs and
    output" or "nothing"; a tape keeps only that), the name of its node on the Tensor face
    (`torch_name`, PyTorch's: "Mul" for MulBackward0, or a function of the primals), and
    whether its output is a view of its first argument (`view`: the inverse,
    `view(base, view_value, **params)` -> base with the viewed part replaced, through which
    an in-place write to the view goes to its base; or VIEW when there is none), and how vmap
    batches it (`batch`: `rule(args, dims, **params)` -> (out, out_dim), where dims[i] is the
    batch axis of args[i] or None when it has none, and out_dim the batch axis of the result,
    a tuple of them for a multiple-result primitive; the rule runs under vmap's parent trace,
    in fgrad ops, so outer transforms see it: transforms/batching.py). `nan_safe` declares that
    a partial can be infinite or NaN where the primitive is finite (sqrt and log at 0): its
    rules then apply the zero-cotangent policy, a zero cotangent or tangent times the partial
    is zero (Note [zero cotangents stay zero] in ops/elementwise.py); the rules of the others
    are plain products. `fuse` says whether fgrad.compile may fuse the kernel into a numba loop
    ("exact", "libm" or None, below).
    """

    __slots__ = ("name", "impl", "vjp", "vjp_all", "jvp", "jvp_full", "jvp_pair", "multiple_results", "nondiff",
                 "simple", "partials", "keeps", "saves_output", "node_name", "view", "batch", "fresh",
                 "nan_safe", "safe_partials", "fuse", "__weakref__")

    # Does the kernel act beyond its result (a collective exchanges data with other processes)?
    # fgrad.compile then never folds, merges or drops its steps: each process runs every one.
    effectful = False

    def __init__(self, name: str, impl: Kernel, multiple_results: bool = False, register: bool = True, *,
                 saves: str = "inputs and output", torch_name: str | Callable[[tuple], str] | None = None,
                 view: ViewInverse | None = None, batch: BatchRule | None = None, fresh: bool = False,
                 nan_safe: bool = False, fuse: str | None = None):
        self.name = name
        self.impl = impl
        self.vjp = ()
        self.vjp_all = None
        self.jvp = ()
        self.jvp_full = None
        # Optional kernel for concrete values: (primals, tangents, params) -> (out, tangent)
        # in fewer kernel calls than impl plus the jvp rule, or None to decline.
        self.jvp_pair = None
        self.multiple_results = multiple_results
        self.nondiff = True
        self.simple = False  # differentiable, one output, per-argument vjp rules: the engine's fast case
        self.partials = None  # elementwise: d out / d arg_i, from which defderiv made both rules (defpartials)
        # What a node keeps of each traced input (Note [what a node keeps of its inputs]); does
        # it keep the output (do the vjp rules read it)?
        saves_inputs, self.saves_output = _SAVES[saves]
        self.keeps = KEEPS_VALUES if saves_inputs else KEEPS_AVALS
        if torch_name is None:
            torch_name = "".join(w.capitalize() for w in name.replace("[", "_").replace("]", "").split("_"))
        # The node's name on the Tensor face: a str, or a function of the primals (matmul's).
        self.node_name = torch_name + "Backward0" if isinstance(torch_name, str) else torch_name
        self.view = view
        self.batch = batch
        # Does the kernel always return a new array (never a view, never an input), so that
        # fgrad.compile may reuse its buffer once it dies? (Ufuncs do, and say so themselves.)
        self.fresh = fresh
        self.nan_safe = nan_safe  # (Note [zero cotangents stay zero] in ops/elementwise.py)
        # May fgrad.compile fuse this elementwise kernel (a NumPy ufunc) into a numba loop that
        # calls the same ufunc per element (compile/fusion.py)? "exact": numba's code gives
        # NumPy's bits (IEEE-rounded arithmetic, comparisons); "libm": it calls the C library's
        # function, which can differ from NumPy's own loop in the last bit (fused only when
        # asked: compile(fuse="libm")); None: never fused.
        self.fuse = fuse
        # A nan_safe primitive's partials, which the engine's walk applies by the policy's
        # product on values (Note [the inline partials] in engine/backward.py); None for the
        # others, whose partials (above) every mode applies as plain products.
        self.safe_partials = None
        if register:
            REGISTRY[name] = self

    def defvjp(self, *rules: VJPRule | None) -> "Primitive":
        self.vjp = rules
        self.nondiff = False
        self.simple = not self.multiple_results and self.vjp_all is None
        return self

    def defpartials(self, partials: tuple) -> "Primitive":
        """The partial derivatives d out / d arg_i of an elementwise primitive, which the engine
        and the entry functions apply directly; a node then keeps nothing of an input that has
        the output's shape and dtype (unless the rules read its value)."""
        self.partials = partials
        if self.keeps is KEEPS_AVALS:
            self.keeps = KEEPS_FIT
        return self

    def defvjp_all(self, rule: VJPAllRule) -> "Primitive":
        """One rule for all arguments: `rule(g, ans, primals, needs, **params)` -> tuple."""
        self.vjp_all = rule
        self.nondiff = False
        self.simple = False
        return self

    def defjvp(self, *rules: JVPRule | None) -> "Primitive":
        self.jvp = rules
        self.nondiff = False
        return self

    def defbatch(self, rule: BatchRule) -> "Primitive":
        """How vmap batches this primitive (see `batch` above)."""
        self.batch = rule
        return self

    def defjvp_full(self, rule: JVPFullRule) -> "Primitive":
        self.jvp_full = rule
        self.nondiff = False
        return self

    def __call__(self, *args, **params):
        try:
            for a in args:
                if isinstance(a, Tracer):
                    return _state.trace.process(self, args, params)
            # No traced value: every trace would hand the op down to the bottom one (a trace
            # treats values it does not own as constants), so run the kernel at once.
            return self.impl(*args, **params) if params else self.impl(*args)
        except (TypeError, ValueError) as e:  # (no cost unless raised: Note [devices named in errors])
            two_devices_check(self.name, args, e)
            raise

    def __repr__(self):
        return f"<primitive {self.name}>"


class Trace:
    """An interpreter of primitives. `parent` runs the primal computation.

    Note [what the entries read of a trace]: the entry functions' inline steps (ops/entries.py)
    do a trace's work without calling it, so these fields are a contract: of the current trace
    they read `direct` (its primals are concrete: kernels run at once), `parent` (else the
    primal is asked of it: `parent.process`) and, of a VJPTrace, `lean` (its tape keeps only
    what the rules read), `tape` (appended to) and `held` (Note [what fgrad keeps is
    read-only]); of each argument, `_trace` (whose value it is). A trace that changes what
    these mean changes the entries too; tests/ops/test_entries.py compares both paths.
    """

    __slots__ = ("parent", "alive", "transform", "direct")

    def __init__(self, parent, transform):
        self.parent = parent
        self.alive = True
        self.transform = transform
        # True while every primal of this trace is a concrete array: its parent is the bottom
        # trace, so kernels run without dispatch. A foreign traced value (an outer level's, or
        # a Tensor) turns it off for good.
        self.direct = parent.__class__ is EvalTrace

    def process(self, prim, args, params):
        raise NotImplementedError

    def process_custom(self, custom, args):
        """A function with a user-defined derivative (custom_vjp, custom_jvp, checkpoint)."""
        return custom.process_eval(self, args)

    def close(self):
        """Called as the trace leaves the stack; returns what its transform keeps (a tape)."""
        return None


def split_owned(trace, args):
    """(owned, primals, indirect) for a trace's process: owned[i] is args[i] when `trace`
    owns it, else None; primals has owned values unwrapped one level; indirect tells
    whether any value of another trace (or a Tensor) is involved. owned is None when
    `trace` owns no argument."""
    owned = None
    primals = args
    indirect = False
    for i, a in enumerate(args):
        if isinstance(a, Tracer):
            if a._trace is trace:
                if owned is None:
                    owned = [None] * len(args)
                    primals = list(args)
                owned[i] = a
                p = primals[i] = a.primal
                if isinstance(p, Tracer):
                    indirect = True
            else:
                indirect = True
    return owned, primals, indirect


class EvalTrace(Trace):
    """The bottom trace: runs kernels on concrete arrays."""

    __slots__ = ()

    def process(self, prim, args, params):
        for a in args:
            if isinstance(a, Tracer):
                if a._trace is self:  # a Tensor: the imperative face records the op
                    return record_tensor_op(prim, args, params)
                raise escaped_tracer_error(prim, a)
        return prim.impl(*args, **params)

    def process_custom(self, custom, args):
        return record_tensor_custom(custom, args)  # (Tensors among args: the imperative face records the call)


def two_devices_check(name, args, error):
    """Called where `error` was raised while op `name` ran on `args`: when the arrays live on
    two devices, raise fgrad's DeviceMismatchError (naming the op and both devices) from it;
    else return, and the caller re-raises `error`.

    Note [devices named in errors]: CuPy refuses a NumPy array with its own TypeError
    ("Unsupported type"), and arrays of two GPUs with a ValueError, neither naming the op
    or the devices. The binding points (Primitive.__call__, the entry functions) wrap their
    bodies in a try, free in Python 3.11 until something is raised, and ask here.
    """
    try:
        check_one_device(name, [peek(a) for a in args])
    except DeviceMismatchError as mismatch:
        raise mismatch from error


def record_tensor_op(prim, args, params):
    """Replaced by fgrad.autograd.tape.record when the imperative face is imported."""
    raise TypeError(f"fgrad: {prim.name} got a Tensor but fgrad.autograd is not loaded")


def record_tensor_custom(custom, args):
    """A custom function's call on the bottom trace. Replaced by fgrad.autograd.function's when
    the imperative face is imported: where Tensors that record are among the arguments, the call
    is one node whose backward is the function's rule (else fun's own ops would be recorded and
    the rule ignored)."""
    return custom.process_eval(EVAL, args)


def escaped_tracer_error(prim, value):
    """The EscapedTracerError (a TypeError) for op `prim` meeting `value`, a traced value of a
    transform that has returned or is not the one active here."""
    t = value._trace
    state = "has already returned" if not t.alive else "is not active here"
    return EscapedTracerError(
        f"fgrad: {prim.name} got a traced value of {t.transform} (shape {value.shape}, "
        f"dtype {value.dtype}) but that {t.transform} {state}; a traced value must not "
        f"escape the function being transformed (return it instead, or use stop_gradient)")


EVAL = EvalTrace(None, "eval")


class _State(threading.local):
    """Per thread: the innermost active trace (the bottom trace when none is)."""

    def __init__(self):
        self.trace = EVAL


_state = _State()


def current_trace():
    """The innermost active trace of this thread."""
    return _state.trace


def set_current(trace):
    """Make `trace` current; returns the previous one (restore it with set_current)."""
    prev = _state.trace
    _state.trace = trace
    return prev


def push_trace(cls, transform):
    """Make a fresh trace of class `cls` current; end it with pop_trace (in a `finally`)."""
    trace = cls(_state.trace, transform)
    _state.trace = trace
    return trace


def pop_trace(trace):
    """End `trace`: it dies, its parent is current again; returns what it hands over (Trace.close)."""
    trace.alive = False
    _state.trace = trace.parent
    return trace.close()


class new_trace:
    """Context manager: push a fresh trace of class `cls`; it dies on exit.

    On exit `closed` holds what the trace handed over (see Trace.close). (The transforms
    call push_trace and pop_trace themselves: a Python-level context manager costs two
    calls from C per entry.)
    """

    __slots__ = ("cls", "transform", "trace", "closed")

    def __init__(self, cls, transform):
        self.cls, self.transform = cls, transform

    def __enter__(self):
        self.trace = push_trace(self.cls, self.transform)
        return self.trace

    def __exit__(self, *exc):
        self.closed = pop_trace(self.trace)
        return False


def bind(prim, args, params):
    """Hand `prim(*args, **params)` to the current trace. (Primitive.__call__ and the
    operators of traced values inline this one expression: it is their hot path.)"""
    return _state.trace.process(prim, args, params)


def run_under(trace, fn, *args):
    """Call `fn(*args)` with `trace` current (rules run under a trace's parent)."""
    prev = _state.trace
    _state.trace = trace
    try:
        return fn(*args)
    finally:
        _state.trace = prev
