"""Staging: run a function once, recording every kernel it calls into a flat Program.

The staging trace is the bottom of the stack while `fgrad.compile` traces (compile is the
outermost transform): every primitive that any transform above computes on its values,
forward or backward, reaches `StageTrace.process`, which runs the kernel (so the values
exist, and Python may read them) and appends an equation. A read of a value by Python
appends a guard (Note [reading values while compiling] in ir/value.py), which remembers
the user's line that read it. A Python number argument is a weak value (Note [weak values]
in ir/value.py): Python's operators between weak values are recorded as Python's own
(`PythonOp` steps), so `1 - lr` stays a Python float, as it is eagerly.
"""
import itertools
import operator
import os
import sys

import numpy as np

from ..backend import CPU, device_of
from ..ir.held import Held
from ..ir.value import WEAK_TYPES, StageTracer, Tracer
from ..ops.primitive import NO_PARAMS, Trace, escaped_tracer_error
from .program import Eqn, Guard, Literal, Program, PythonOp

__all__ = ["StageTrace"]


_AVALS = {}  # (class, shape, dtype) -> the aval of a CPU value: one tuple for all values alike


def _aval(value):
    """(shape, dtype, where): where is the array's class and device, so that a buffer is
    reused only for a value of the same kind (compile/codegen.py)."""
    cls = value.__class__
    if cls is np.ndarray or isinstance(value, np.generic):
        key = (cls, value.shape, value.dtype)
        aval = _AVALS.get(key)
        if aval is None:
            if len(_AVALS) > 4096:  # (kept small: a long-running process meets many shapes)
                _AVALS.clear()
            aval = _AVALS[key] = (value.shape, value.dtype, (cls, CPU))
        return aval
    return np.shape(value), getattr(value, "dtype", None) or np.result_type(value), (cls, device_of(value))


class StageTrace(Trace):
    """Records a Program of the kernels applied to its values (StageTracers)."""

    __slots__ = ("body", "consts", "avals", "guarded", "held", "_ids", "_const_vars", "_errstate")

    def __init__(self, parent, transform):
        Trace.__init__(self, parent, transform)
        self.body = []     # Eqns and Guards, in execution order
        self.consts = {}   # var -> a constant array some op read
        self.avals = {}    # var -> (shape, dtype, where): _aval
        self.guarded = set()
        self.held = Held()  # the constants, read-only while the program lives (Note [what fgrad keeps is read-only])
        self._ids = itertools.count()  # (next() is atomic: engine workers may record too)
        self._const_vars = {}  # id(array) -> its var, so a constant read twice is one var
        self._errstate = np.geterr()  # the error handling around the call; an op under another keeps its own

    def new_value(self, primal):
        """A fresh var holding `primal`, as this trace's value."""
        t = StageTracer()
        t._trace = self
        t.primal = primal
        t.var = v = next(self._ids)
        self.avals[v] = _aval(primal)
        return t

    def operand(self, a, prim):
        """(what an equation reads for argument `a`, its concrete value)."""
        if a.__class__ is StageTracer and a._trace is self:
            return a.var, a.primal
        if isinstance(a, Tracer):  # (a value of a trace that has returned, or a Tensor)
            raise escaped_tracer_error(prim, a)
        if hasattr(a, "shape") and not isinstance(a, np.generic):  # an array: a constant var
            v = self._const_vars.get(id(a))
            if v is None:
                v = self._const_vars[id(a)] = next(self._ids)
                self.consts[v] = self.held.keep(a)
                self.avals[v] = _aval(a)
            return v, self.consts[v]
        return Literal(a), a

    def process(self, prim, args, params):
        ins, vals = [], []
        for a in args:
            i, val = self.operand(a, prim)
            ins.append(i)
            vals.append(val)
        out = prim.impl(*vals, **params)
        err = np.geterr()
        err = None if err == self._errstate else err  # (np.errstate in fgrad's own code: logsumexp's)
        if prim.multiple_results:
            outs = tuple(self.new_value(o) for o in out)
            self.body.append(Eqn(prim, params, ins, [o.var for o in outs], err))
            return outs
        t = self.new_value(out)
        self.body.append(Eqn(prim, params, ins, (t.var,), err))
        return t

    def read_value(self, tracer):
        """Python read `tracer`'s value: the program holds only while it stays the same."""
        if tracer.var not in self.guarded:
            self.guarded.add(tracer.var)
            value = tracer.primal
            if value.__class__ not in WEAK_TYPES:
                value = value.copy()  # (a copy: the caller may write its array later; a Python number is immutable)
            self.body.append(Guard(tracer.var, value, _user_line()))

    def program(self, in_tracers, out_leaves, input_labels):
        """The Program recorded, reading `in_tracers` and returning `out_leaves` (each this
        trace's value or a constant; checked by the caller)."""
        outvars = []
        for o in out_leaves:
            if o.__class__ is StageTracer:
                outvars.append(o.var)
            else:
                outvars.append(self.operand(o, None)[0])
        program = Program([t.var for t in in_tracers], self.consts, self.body, outvars, self.avals, input_labels)
        self.body, self.consts, self.avals, self.guarded = [], {}, {}, set()  # (the program owns them now)
        return program


# Libraries whose frames are not the user's line: fgrad's own, and NumPy's (np.ones(n) reads n)
_LIBRARIES = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
              os.path.dirname(os.path.abspath(np.__file__)) + os.sep)


def _user_line():
    """(file, line) of the innermost frame outside fgrad and NumPy: the user's code that read a value."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_LIBRARIES):
        frame = frame.f_back
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def _is_weak(x, trace):
    """Is `x` a Python number, or a weak value of `trace` (Note [weak values])?"""
    if x.__class__ is StageTracer:
        return x._trace is trace and x.primal.__class__ in WEAK_TYPES
    return x.__class__ in WEAK_TYPES


def _weak_binary(prim, generic, reflected):
    """StageTracer's operator `generic` (`__mul__`, `__rmul__`): Python's operator (prim, a
    PythonOp) when both operands are weak, else the operator every traced value has
    (fgrad.numpy's, a primitive)."""
    def op(self, other):
        trace = self._trace
        if self.primal.__class__ in WEAK_TYPES and _is_weak(other, trace):
            if not trace.alive:
                raise escaped_tracer_error(prim, self)
            return trace.process(prim, (other, self) if reflected else (self, other), NO_PARAMS)
        return getattr(Tracer, generic)(self, other)
    op.__name__ = generic
    return op


def _weak_unary(prim, generic):
    def op(self):
        if self.primal.__class__ in WEAK_TYPES:
            if not self._trace.alive:
                raise escaped_tracer_error(prim, self)
            return self._trace.process(prim, (self,), NO_PARAMS)
        return getattr(Tracer, generic)(self)
    op.__name__ = generic
    return op


def _install_weak_operators():
    binary = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor"]
    for name in binary + ["eq", "ne", "lt", "le", "gt", "ge"]:
        prim, dunder = PythonOp(name.rstrip("_"), getattr(operator, name)), name.rstrip("_")
        setattr(StageTracer, f"__{dunder}__", _weak_binary(prim, f"__{dunder}__", False))
        if name in binary:
            setattr(StageTracer, f"__r{dunder}__", _weak_binary(prim, f"__r{dunder}__", True))
    for name in ("neg", "pos", "abs", "invert"):
        setattr(StageTracer, f"__{name}__", _weak_unary(PythonOp(name, getattr(operator, name)), f"__{name}__"))


_install_weak_operators()
