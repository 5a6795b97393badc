"""Staging: run a function once, recording every kernel it calls into a flat Program.

The staging trace is the bottom of the stack while `fgrad.compile` traces (compile is the
outermost transform): every primitive that any transform above computes on its values,
forward or backward, reaches `StageTrace.process`, which runs the kernel (so the values
exist, and Python may read them) and appends an equation. A read of a value by Python
appends a guard (Note [reading values while compiling] in ir/value.py).
"""
import itertools

import numpy as np

from ..backend import CPU, device_of
from ..ir.held import Held
from ..ir.value import StageTracer, Tracer
from ..ops.primitive import Trace, escaped_tracer_error
from .program import Eqn, Guard, Literal, Program

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
            self.body.append(Guard(tracer.var, tracer.primal.copy()))  # (a copy: the caller may write its array later)

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
