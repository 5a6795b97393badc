"""The tape floor: what the least Python an eager tape needs costs, as a reference row.

A reverse-mode tape in micrograd's style: one class that is both the traced value and its
node, local derivatives computed in the forward pass (as the hand-written NumPy does), a
backward loop that multiplies and adds, and nothing else: no dispatch, no checks, no
pytrees, no nesting, no error messages. It runs the same programs as every other row (the
W1 and W5 chains through their namespace; W4 forward over reverse, with dual numbers as
the tape's values and the same stacked BLAS call for a matrix times a value and its
tangent that fgrad makes).

What fgrad costs above this row is the price of its generality; what this row costs above
hand-written NumPy is the least any eager Python tape pays on this machine. A target
below this row cannot be met by trimming a tape, only by doing fewer kernel calls.
"""
import gc

import numpy as np

from . import workloads as wl

__all__ = ["floor_impls", "grad", "hvp"]

_new = object.__new__
_tape = []  # the nodes of the running grad, in execution order (one grad at a time)


class Var:
    """A traced value and its node: `a` and `b` are its inputs, `da` and `db` their local
    derivatives (None: the derivative is 1). Values are arrays, floats, or Duals."""

    __slots__ = ("value", "a", "da", "b", "db")
    __array_ufunc__ = None  # ndarray (op) Var defers to Var's reflected operators

    def __add__(self, other):
        if other.__class__ is Var:
            return _node(self.value + other.value, self, None, other, None)
        return _node(self.value + other, self, None)

    __radd__ = __add__

    def __sub__(self, other):
        if other.__class__ is Var:
            return _node(self.value - other.value, self, None, other, -1.0)
        return _node(self.value - other, self, None)

    def __rsub__(self, other):
        return _node(other - self.value, self, -1.0)

    def __mul__(self, other):
        if other.__class__ is Var:
            return _node(self.value * other.value, self, other.value, other, self.value)
        return _node(self.value * other, self, other)

    __rmul__ = __mul__

    def __neg__(self):
        return _node(-self.value, self, -1.0)

    def __pow__(self, k):
        return _node(self.value ** k, self, k * self.value ** (k - 1))

    def __rmatmul__(self, matrix):
        return _node(_values.matmul(matrix, self.value), self, _MatrixVJP(matrix))


def _node(value, a, da, b=None, db=None):
    v = _new(Var)
    v.value, v.a, v.da, v.b, v.db = value, a, da, b, db
    _tape.append(v)
    return v


class _MatrixVJP:
    """The local derivative of matrix @ x: `g * it` is the cotangent g @ matrix."""

    __slots__ = ("matrix",)
    __array_ufunc__ = None

    def __init__(self, matrix):
        self.matrix = matrix

    def __rmul__(self, g):
        return _values.vecmat(g, self.matrix)


def _unary(name):
    """The op `name` on a Var: the hand-written NumPy's forward and local derivative
    (workloads._LOCAL, the same statements the baseline runs), recorded on the tape. It
    reads the module's `_values` when called, so it runs on arrays and on dual numbers."""
    body = "".join(f"    {stmt}\n" for stmt in wl._LOCAL[name] if stmt is not None)
    exec(compile(f"def {name}(v):\n    x, m = v.value, _values\n{body}    return _node(x, v, d)\n",
                 f"<tape floor {name}>", "exec"), globals(), scope := {})
    return staticmethod(scope[name])


class _Namespace:
    """The functions of the W1, W4 and W5 programs, on Vars whose values live in `_values`."""

    sin, cos, tanh, exp, log, arcsin, arctanh = (
        _unary(name) for name in ("sin", "cos", "tanh", "exp", "log", "arcsin", "arctanh"))

    @staticmethod
    def sum(x):
        return _node(_values.sum(x.value), x, _values.ones_like(x.value))


# ---- dual numbers: the values of the tape in forward over reverse (W4) --------------------
class Dual:
    """primal + epsilon * tangent."""

    __slots__ = ("p", "t")
    __array_ufunc__ = None

    def __add__(self, o):
        if o.__class__ is Dual:
            return _dual(self.p + o.p, self.t + o.t)
        return _dual(self.p + o, self.t)

    __radd__ = __add__

    def __sub__(self, o):
        if o.__class__ is Dual:
            return _dual(self.p - o.p, self.t - o.t)
        return _dual(self.p - o, self.t)

    def __rsub__(self, o):
        return _dual(o - self.p, -self.t)

    def __mul__(self, o):
        if o.__class__ is Dual:
            return _dual(self.p * o.p, self.t * o.p + self.p * o.t)
        if o.__class__ is _MatrixVJP:
            return NotImplemented
        return _dual(self.p * o, self.t * o)

    __rmul__ = __mul__

    def __neg__(self):
        return _dual(-self.p, -self.t)

    def __pow__(self, k):
        return _dual(self.p ** k, self.t * (k * self.p ** (k - 1)))


def _dual(p, t):
    d = _new(Dual)
    d.p, d.t = p, t
    return d


def _stacked(v):
    both = np.empty((2,) + v.p.shape)
    both[0], both[1] = v.p, v.t
    return both


class _DualValues:
    """NumPy's functions on Duals (only those W4 needs)."""

    @staticmethod
    def tanh(x):
        t = np.tanh(x.p)
        return _dual(t, x.t * (1.0 - t * t))

    @staticmethod
    def sum(x):
        return _dual(np.add.reduce(x.p), np.add.reduce(x.t))

    @staticmethod
    def ones_like(x):
        return np.ones_like(x.p)

    @staticmethod
    def matmul(matrix, x):  # value and tangent in one BLAS call, as fgrad's matmul.jvp_pair
        r = np.matmul(matrix, _stacked(x).T).T
        return _dual(r[0], r[1])

    @staticmethod
    def vecmat(g, matrix):
        if g.__class__ is not Dual:
            return g @ matrix
        r = np.matmul(_stacked(g), matrix)
        return _dual(r[0], r[1])


class _ArrayValues:
    sin, cos, tanh, exp, log, arcsin, arctanh, sqrt, ones_like = (
        np.sin, np.cos, np.tanh, np.exp, np.log, np.arcsin, np.arctanh, np.sqrt, np.ones_like)
    sum = staticmethod(np.add.reduce)
    matmul = staticmethod(np.matmul)

    @staticmethod
    def vecmat(g, matrix):
        return g @ matrix


_values = _ArrayValues
m = _Namespace


def grad(fun, x, values=_ArrayValues):
    """d fun / d x for a scalar `fun` of one value, through the tape."""
    global _values
    del _tape[:]
    _values = values
    enabled = gc.isenabled()
    gc.disable()  # as fgrad: the tape's objects would only make the collector scan again and again
    try:
        leaf = _new(Var)
        leaf.value, leaf.a, leaf.b = x, None, None
        out = fun(leaf)
        cts = {out: 1.0}
        pop, get = cts.pop, cts.get
        for v in reversed(_tape):
            g = pop(v, None)
            if g is None:
                continue
            gi = g if v.da is None else g * v.da
            prev = get(v.a)
            cts[v.a] = gi if prev is None else prev + gi
            if v.b is not None:
                gi = g if v.db is None else g * v.db
                prev = get(v.b)
                cts[v.b] = gi if prev is None else prev + gi
        return cts[leaf]
    finally:
        del _tape[:]
        _values = _ArrayValues
        if enabled:
            gc.enable()


def hvp(fun, x, v):
    """H @ v of a scalar `fun`, forward over reverse: the tape runs on dual numbers."""
    return grad(fun, _dual(x, v), _DualValues).t


def _floor_setup(case):
    d = case.data
    if case.workload == "W4":
        A, x, v = d["A"], d["x"], d["v"]
        return lambda: hvp(lambda u: wl.hvp_objective(u, A, m), x, v)
    return wl.chain_runner(case, grad, m) or "a floor for the small-op workloads only (W1, W4, W5)"


def floor_impls():
    return [wl.Impl("tape floor", _floor_setup, "minimal tape, no checks (benchmarks/floor.py)")]
