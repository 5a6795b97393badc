"""Traced values. A `Tracer` belongs to exactly one trace and wraps its primal.

Tracing is eager: the primal is a concrete array (or a value of the enclosing trace),
so `float(x)`, `bool(x > 0)`, `x.shape` and `len(x)` work and Python control flow may
differ from call to call. Operators and NumPy-style methods are attached by
`fgrad.numpy`, which owns the ops they call.
"""
from operator import attrgetter

import numpy as np

__all__ = ["JVPTracer", "Tracer", "VJPTracer", "concrete"]


def concrete(x):
    """The concrete array beneath any number of traced levels."""
    while isinstance(x, Tracer):
        x = x.primal
    return x


class Tracer:
    """A value under a transform: `_trace` owns it, `primal` is its value one level down."""

    __slots__ = ("_trace", "primal")
    __array_priority__ = 1000  # NumPy defers binary operators to us

    # Each level reads the level beneath, in C (attrgetter): no Python frame per read, and the
    # engine's fit checks and the rules read these many times per op (about 1k instructions
    # a read, against 1.9k for a Python property).
    shape = property(attrgetter("primal.shape"), doc="The shape of the value beneath.")
    dtype = property(attrgetter("primal.dtype"), doc="The dtype of the value beneath.")
    ndim = property(attrgetter("primal.ndim"), doc="The number of dimensions of the value beneath.")

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def device(self):
        from ..backend import device_of
        return device_of(concrete(self))

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d traced value")
        return shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __float__(self):
        return float(concrete(self))

    def __int__(self):
        return int(concrete(self))

    def __complex__(self):
        return complex(concrete(self))

    def __bool__(self):
        return bool(concrete(self))

    def __index__(self):
        return concrete(self).__index__()

    __hash__ = None  # like ndarray: comparison returns arrays

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            f"fgrad: converting a traced value of {self._trace.transform} (shape {self.shape}, "
            f"dtype {self.dtype}) to a NumPy array would drop its derivative; call the NumPy "
            f"function on it directly (fgrad handles it) or use fgrad.stop_gradient(x)")

    def __repr__(self):
        return f"Traced<{self._trace.transform}>({concrete(self)!r})"


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
