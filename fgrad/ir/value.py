"""Traced values. A `Tracer` belongs to exactly one trace and wraps its primal.

Tracing is eager: the primal is a concrete array (or a value of the enclosing trace),
so `bool(x > 0)`, `int(n)`, `x.shape` and `len(x)` work and Python control flow may
differ from call to call. Conversions that would drop the derivative (`float(x)`,
`complex(x)`, and through them `math.sin(x)` and writing a traced value into a NumPy
array) raise instead (Note [no silent conversions]). Operators and NumPy-style methods
are attached by `fgrad.numpy`, which owns the ops they call.

Note [no silent conversions]: `float(x)` of a traced value would return its primal, a
constant to every transform, so the derivative through it would silently be zero: the
worst bug an AD library can have. Control flow is different: `bool(x > 0)` picks a branch
and `int(n)` a shape or an index, and neither carries a derivative (both are piecewise
constant), so they stay free. The Tensor face keeps PyTorch's conversions (autograd/tensor.py).
"""
from operator import attrgetter

import numpy as np

from ..backend import device_of
from ..errors import BatchedValueError, ConversionError

__all__ = ["WEAK_TYPES", "BatchTracer", "JVPTracer", "StageTracer", "Tracer", "VJPTracer", "concrete",
           "conversion_error", "decided", "is_batched", "is_staged", "peek"]


WEAK_TYPES = frozenset((bool, int, float, complex))  # Python numbers, traced weakly by compile: Note [weak values]


def concrete(x):
    """The concrete array beneath any number of traced levels, for its values: a program
    being compiled is valid only while this value stays the same (Note [reading values while
    compiling]). For its device, dtype or shape alone, call `peek`."""
    while isinstance(x, Tracer):
        if x.__class__ is StageTracer:
            x._trace.read_value(x)
        x = x.primal
    return x


def peek(x):
    """The concrete array beneath any number of traced levels, for its metadata only (device,
    array module, dtype, shape: what a compiled program is guarded on anyway)."""
    while isinstance(x, Tracer):
        x = x.primal
    return x


class Tracer:
    """A value under a transform: `_trace` owns it, `primal` is its value one level down."""

    __slots__ = ("_trace", "primal")
    __array_priority__ = 1000  # NumPy defers binary operators to us

    # Each level reads the level beneath, in C (attrgetter): no Python frame per read, and the
    # engine's fit checks and the rules read these many times per op (docs/design.md, "Measured").
    shape = property(attrgetter("primal.shape"), doc="The shape of the value beneath.")
    dtype = property(attrgetter("primal.dtype"), doc="The dtype of the value beneath.")
    ndim = property(attrgetter("primal.ndim"), doc="The number of dimensions of the value beneath.")

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def device(self):
        return device_of(peek(self))

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d traced value")
        return shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __float__(self):
        raise conversion_error(self, "float()")

    def __complex__(self):
        raise conversion_error(self, "complex()")

    def __int__(self):  # shapes, counts and indices: piecewise constant, no derivative to lose
        return int(decided(self, "int()"))

    def __format__(self, spec):  # f"{loss:.3f}" prints the value; printing feeds nothing back
        return format(peek(self), spec) if spec else str(self)

    def __bool__(self):
        return bool(decided(self, "bool()"))

    def __index__(self):
        return decided(self, "using it as an index").__index__()

    __hash__ = None  # like ndarray: comparison returns arrays

    def __array__(self, dtype=None, copy=None):  # (fgrad.numpy's bridge installs a fuller diagnosis)
        raise conversion_error(self, "converting it to a NumPy array")

    def __repr__(self):
        return f"Traced<{self._trace.transform}>({peek(self)!r})"


def decided(x, what):
    """The concrete value beneath `x`, for a Python decision on it or a value that must be the
    same for every example (`what`: "bool()", "an index", ...); a BatchedValueError (a TypeError)
    when vmap batches it."""
    v = x
    while isinstance(v, Tracer):
        if v.__class__ is BatchTracer:
            raise _batched_error(v, what)
        if v.__class__ is StageTracer:
            v._trace.read_value(v)
        v = v.primal
    return v


def _batched_error(v, what):
    return BatchedValueError(
        f"fgrad: {what} needs a value that is the same for every example, but this one is batched by vmap "
        f"(one example's shape {v.shape}, dtype {v.dtype}) and may differ between examples, so Python "
        f"control flow, conversions, shapes and indices cannot depend on it. Compute per example with fgrad.numpy "
        f"(fnp.where(cond, a, b) to select), or pass the value unbatched (in_axes=None)")


def _has_level(x, cls):
    """Is `x`, or a level beneath it, a traced value of class `cls`?"""
    while isinstance(x, Tracer):
        if x.__class__ is cls:
            return True
        x = x.primal
    return False


def is_batched(x):
    """Is `x` (or a level beneath it) a value batched by vmap?"""
    return _has_level(x, BatchTracer)


def is_staged(x):
    """Is `x` (or a level beneath it) a value of a call fgrad.compile is tracing?"""
    return _has_level(x, StageTracer)


def conversion_error(value, what, instead=None):
    """The ConversionError (a TypeError) for a conversion of traced `value` that would drop
    its derivative (Note [no silent conversions]): `what` names the conversion, `instead` what
    to write. Under vmap the value differs between examples: a BatchedValueError says so."""
    v = value
    while isinstance(v, Tracer):
        if v.__class__ is BatchTracer:
            return _batched_error(v, what)
        v = v.primal
    transform = value._trace.transform
    if instead is None:
        instead = ("use fgrad.numpy's functions on it (fnp.sin(x), not math.sin(x)); build arrays with "
                   "fnp.stack, fnp.where or fnp.at(b)[i].set(x) instead of writing it into a NumPy array "
                   "(b[i] = x converts it with float())")
    return ConversionError(
        f"fgrad: {what} would drop the derivative of a traced value of {transform} (shape {value.shape}, dtype "
        f"{value.dtype}), and {transform} would return a wrong number. Instead, {instead}; or apply "
        f"fgrad.stop_gradient(x) first if dropping the derivative is meant. (Control flow is free: "
        f"`if x > 0`, `while`, int() for shapes and indices.)")


class VJPTracer(Tracer):
    """A value recorded on a reverse-mode tape: `edge` is where it came from.

    The edge is what a consumer records (Note [edges] in ir/node.py): the producing node
    itself for a single-output node, an `Edge` for every output of a multiple-result node.
    (Made by `transforms.reverse.vjp_tracer`, or by a bare class call on the hot paths:
    Note [bare class calls] in ir/node.py. It lives here, beside Tracer, because the
    primitives' entry functions (ops/entries.py) record onto a tape themselves.)
    """

    __slots__ = ("edge",)

    @property
    def node(self):
        return self.edge.node

    @property
    def index(self):
        return self.edge.index


class JVPTracer(Tracer):
    """A dual number: `primal` + epsilon * `tangent` (forward mode, transforms/forward.py).

    (Made by `transforms.forward.dual`, or by a bare class call: Note [bare class calls] in
    ir/node.py. It lives here for the reason VJPTracer does: the entry functions run
    forward mode's elementwise step themselves.)
    """

    __slots__ = ("tangent",)


class BatchTracer(Tracer):
    """A value under vmap: `primal` holds every example, stacked along its axis `bdim`; the
    shape it shows is one example's (transforms/batching.py)."""

    __slots__ = ("bdim",)

    @property
    def shape(self):
        s, d = self.primal.shape, self.bdim
        return s[:d] + s[d + 1:]

    @property
    def ndim(self):
        return self.primal.ndim - 1


class StageTracer(Tracer):
    """A value of a call being compiled (compile/staging.py): `primal` is its concrete
    value (staging runs every kernel), `var` its number in the program being recorded.
    It lives here, with the other traced values, not in fgrad/compile/: ops test for it
    (`is_staged`, `any_zero` in ops/reductions.py), and ops sit below compile.

    Note [reading values while compiling]: a compiled program replays kernels on new inputs,
    so any Python that read a traced value while it was recorded (`if x > 0`, `int(n)`, a
    rule's `np.any(x == 0)`) decided for those inputs only. Every such read goes through
    `concrete` or `decided`, which tell the staging trace (`read_value`): it records a guard,
    and a replay whose value differs is abandoned and traced again. `peek` reads metadata
    without a guard; shapes, dtypes and devices are in the program's key already.

    Note [weak values]: a Python number passed to a compiled function is traced as itself
    (its primal is the float, int, bool or complex), so every kernel sees what it would see
    eagerly and keeps NumPy's promotion (a float32 array times a Python float is float32),
    as JAX's weakly typed values do. It answers shape (), and NumPy's default dtype of its
    kind (float64 for a float, as np.asarray gives) through `__getattr__`, which Python
    calls only when the class's attrgetter fails: arrays pay nothing. Python's operators
    between weak values are Python's (`lr * 2` stays a Python float: compile/staging.py).
    """

    __slots__ = ("var",)

    def __getattr__(self, name):  # (Note [weak values]: only a Python number's shape, ndim, dtype get here)
        primal = object.__getattribute__(self, "primal")
        if primal.__class__ in WEAK_TYPES:
            if name == "shape":
                return ()
            if name == "ndim":
                return 0
            if name == "dtype":
                return np.result_type(primal)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __len__(self):
        if self.primal.__class__ in WEAK_TYPES:  # (an int taken for a tuple: an axis, a shape, a count of splits)
            raise TypeError(f"fgrad.compile: len() of a traced Python {type(self.primal).__name__} ({self.primal!r}): "
                            f"fgrad.compile traces Python numbers, and this op wanted a plain int or a sequence "
                            f"here (an axis, a shape, a number of pieces); mark the argument static "
                            f"(static_argnums= or static_argnames=), or pass int(n)")
        return Tracer.__len__(self)

    # Conversions: under compile alone no derivative is dropped, so they read the value (a guard).
    def __float__(self):
        return float(decided(self, "float()"))

    def __complex__(self):
        return complex(decided(self, "complex()"))

    def __array__(self, dtype=None, copy=None):
        return np.asarray(decided(self, "converting it to a NumPy array"), dtype=dtype)

    def item(self, *args):
        return decided(self, ".item()").item(*args)

    def tolist(self):
        return decided(self, ".tolist()").tolist()
