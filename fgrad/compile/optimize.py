"""Passes over a staged Program, before it is turned into code (compile/codegen.py).

In one pass over the steps: scalar literals become 0-d arrays of their operand's dtype
(NumPy's weak-scalar path costs more per call); steps of constants alone are computed once,
now; a zero-cotangent policy product whose constant operand leaves the policy nothing to
change is its plain ufunc (_policy_moot); x * 1, x / 1 and x - 0 fold away; equal
steps are computed once (common subexpressions); then what neither an output nor a guard
reads is dropped (dead code), and a sum of scatter_adds (the cotangent of an array read in n
slices, x[t] in a loop) becomes one scatter_sum: n zeros arrays of x's size and n - 1 adds
were n^2 work, as eagerly before Note [scattered cotangents]. A step of an effectful primitive (a collective:
Primitive.effectful) is never folded, shared or dropped. Each keeps the program's results bit for bit: a fold happens
only where the kernel would return its operand's values unchanged, and steps are the same
only when their scalars are (0.0 and -0.0 differ).
"""
import collections
import math

import numpy as np

from ..backend import CPU
from ..ops.elementwise import divide, multiply, safe_divide, safe_multiply
from ..ops.indexing import _is_advanced, scatter_add, scatter_sum
from .program import Eqn, Guard, Literal, Program, value_key

__all__ = ["check_order", "optimize"]


def optimize(program: Program) -> Program:
    """The program, simplified: a new Program. `program`'s steps are left as they are (a step
    that changes is a new one); the avals table is shared, new constants added to it."""
    p = Program(program.invars, dict(program.consts), [], program.outvars, program.avals, program.input_labels)
    p.next_var = max(p.avals, default=-1) + 1  # (no values: a program of constants alone)
    alias, seen, body = {}, {}, []
    for step in program.body:
        if step.__class__ is Guard:
            v = alias.get(step.var, step.var)
            if v not in p.consts:  # (a guard on a constant always holds)
                body.append(step if v == step.var else Guard(v, step.value, step.where))
            continue
        ins = step.ins
        if alias:
            ins = tuple(alias.get(a, a) if a.__class__ is int else a for a in ins)
        if all(a.__class__ is Literal or a in p.consts for a in ins) and not step.prim.effectful:
            _fold_constant(p, step, ins)
            continue
        if step.prim in _PLAIN_FORM and _policy_moot(p, step.prim, ins, p.avals[step.outs[0]][1]):
            step = Eqn(_PLAIN_FORM[step.prim], step.params, ins, step.outs, step.errstate)
        if len(step.outs) == 1 and _is_ufunc(step.prim):
            ins = _literals_as_arrays(p, step, ins)
            same = _folded(p, step, ins)
            if same is not None:
                alias[step.outs[0]] = same
                continue
        if ins != step.ins:
            step = Eqn(step.prim, step.params, ins, step.outs, step.errstate)
        key = None if step.prim.effectful else _key(step)  # (a collective runs each time: Primitive.effectful)
        if key is not None:
            prev = seen.get(key)
            if prev is not None:
                alias.update(zip(step.outs, prev.outs))
                continue
            seen[key] = step
        body.append(step)
    p.body = body
    p.outvars = [alias.get(v, v) if v.__class__ is int else v for v in p.outvars]
    _drop_dead(p)
    _sum_scatters(p)
    check_order(p)
    return p


def check_order(p: Program) -> None:
    """Every step reads only inputs, constants and earlier steps' results. A pass that moves a
    step above its operands makes a program that raises on every replay (and traces again on
    every call, silently slow): it is fgrad's bug, said at once."""
    written = {v for v in p.invars if v.__class__ is int}
    written.update(p.consts)
    for step in p.body:
        for v in step.vars_read():
            if v not in written:
                raise RuntimeError(f"fgrad's compile optimizer placed a step that reads %{v} before %{v} is written "
                                   f"(in {step.prim.name if step.__class__ is Eqn else 'a guard'}); "
                                   "please report this with the program (Compiled.lower(...))")
        if step.__class__ is Eqn:
            written.update(step.outs)


def _fold_constant(p, step, ins):
    """A step of constants alone (a value no input reaches, inside a transform): computed now,
    its results constants of the program."""
    args = [a.value if a.__class__ is Literal else p.consts[a] for a in ins]
    with np.errstate(**(step.errstate or np.geterr())):
        out = step.prim.impl(*args, **step.params)
    for o, value in zip(step.outs, out if step.prim.multiple_results else (out,)):
        p.consts[o] = value


def _is_ufunc(prim):
    return isinstance(prim.impl, np.ufunc)


def _literals_as_arrays(p, step, ins):
    """A Python scalar operand of a ufunc becomes a 0-d array of the result's dtype, where
    that changes neither the dtype nor the value (a float in a float op). For NumPy arrays
    only: elsewhere the constant would have to be made on the op's device, and a NumPy
    scalar's own operators take a float faster (compile/codegen.py writes those)."""
    _, dtype, (cls, _) = p.avals[step.outs[0]]
    if dtype.kind != "f" or cls is not np.ndarray or not any(a.__class__ is Literal for a in ins):
        return ins
    if any(a.__class__ is int and p.avals[a][1] != dtype for a in ins):
        return ins  # (a mixed-dtype op: NumPy's promotion decides, leave the literal to it)
    out = []
    for a in ins:
        if a.__class__ is Literal and ((type(a.value) in (float, int) and dtype.type(a.value) == a.value)
                                       or (isinstance(a.value, np.generic) and a.value.dtype == dtype)):
            v = p.next_var
            p.next_var += 1
            p.avals[v] = ((), dtype, (np.ndarray, CPU))
            p.consts[v] = np.asarray(a.value, dtype=dtype)
            a = v
        out.append(a)
    return tuple(out)


# The zero-cotangent policy's products (Note [zero cotangents stay zero] in ops/elementwise.py)
# and the ufuncs they are wherever the policy changes no entry.
_PLAIN_FORM = {safe_multiply.prim: multiply.prim, safe_divide.prim: divide.prim}


def _policy_moot(p, prim, ins, dtype):
    """Can the policy change no entry of this product (of result dtype `dtype`), whatever its
    traced operand holds? It turns a NaN into 0 only where a factor (of a quotient, the
    numerator) is 0: a * c makes no such NaN where c is finite and nonzero everywhere (0 * c is
    0), c / a none where c has no 0, and a real a / c none where c is nonzero and not NaN (a
    complex 0 / c can be NaN: NumPy's quotient by a subnormal c). A constant cotangent, the ones
    of a sum's vjp, is such a c: W4's two products by it, which plain multiplies then fold away."""
    a, b = ins
    if prim is safe_multiply.prim:
        return _everywhere(p, a, _finite_nonzero) or _everywhere(p, b, _finite_nonzero)
    return _everywhere(p, a, _nonzero) or (dtype.kind != "c" and _everywhere(p, b, _nonzero_number))


def _finite_nonzero(c):
    return np.isfinite(c) & (c != 0)


def _nonzero(c):
    return c != 0


def _nonzero_number(c):
    return (c != 0) & (c == c)


def _everywhere(p, a, test):
    """Does `test` hold at every entry of operand `a`, a literal or a constant of at most
    _SCANNED entries? (False for a traced value.)"""
    c = a.value if a.__class__ is Literal else p.consts.get(a)
    if c is None or not isinstance(c, (np.ndarray, np.generic, float, int, complex)):
        return False  # (a traced value, or a constant on another device: not read here)
    c = np.asarray(c)
    return c.dtype.kind in "biufc" and c.size <= _SCANNED and bool(np.all(test(c)))


# The most entries of a constant the passes test (once per step, at compile time: 33 us at this size).
_SCANNED = 1 << 16

# op -> its neutral right operand, where x op n is x bit for bit (not x + 0: -0.0 + 0.0 is +0.0)
_IDENTITY = {"multiply": 1, "subtract": 0, "divide": 1}


def _neutral(p, a, value):
    """Is operand `a` the constant `value` everywhere (a literal, or a small constant array)?
    A zero must be +0.0 (x - -0.0 is x + 0.0, which turns -0.0 into +0.0)."""
    if a.__class__ is Literal:
        c = a.value
        if type(c) is not float and type(c) is not int:
            return False
        return c == value and math.copysign(1.0, c) > 0
    c = p.consts.get(a)
    if c is None or c.size > _SCANNED or c.dtype.kind == "c":  # (x * (1+0j) is not x where x has an infinity)
        return False
    return bool(np.all((c == value) & ~np.signbit(c)))


def _folded(p, step, ins):
    """x * 1 (either side), x - 0 and x / 1: the operand x the step returns unchanged, where
    the result has x's shape, dtype and kind; else None."""
    name = step.prim.name
    if name not in _IDENTITY or len(ins) != 2:
        return None
    out_aval = p.avals[step.outs[0]]
    a, b = ins
    for x, c in ((a, b), (b, a)) if name == "multiply" else ((a, b),):
        if x.__class__ is int and p.avals[x] == out_aval and _neutral(p, c, _IDENTITY[name]):
            return x
    return None


def _key(step):
    """What makes two steps the same computation (None: this one is never shared)."""
    try:
        key = (step.prim, step.ins, tuple(sorted((k, value_key(v)) for k, v in step.params.items()))
               if step.params else ())
        hash(key)
    except TypeError:  # (a parameter that is an array, a list: such steps are not shared)
        return None
    return key


def _sum_scatters(p):
    """Each tree of adds over scatter_adds (basic indices, one aval, each piece read only by its
    add) becomes one scatter_sum where the pieces do not overlap (so the sum is the same bit for
    bit), placed where the sum is first read. (In place: p.body.)"""
    uses = collections.Counter(v for step in p.body for v in step.vars_read())
    uses.update(v for v in p.outvars if v.__class__ is int)
    groups, body = {}, []  # var -> the steps of a sum of scatter_adds not yet written, in order
    for step in p.body:
        if step.__class__ is Eqn:
            if step.prim is scatter_add and step.ins[0].__class__ is int and not _is_advanced(step.params["index"]):
                if step.ins[0] in groups:  # (a scatter of a pending sum: that sum is written first)
                    body.extend(_summed(p, step.ins[0], groups.pop(step.ins[0])))
                groups[step.outs[0]] = [step]
                continue
            a, b = step.ins if step.prim.name == "add" and len(step.ins) == 2 else (None, None)
            if a in groups and b in groups and uses[a] == uses[b] == 1 and \
                    p.avals[a] == p.avals[b] == p.avals[step.outs[0]]:
                groups[step.outs[0]] = groups.pop(a) + groups.pop(b) + [step]
                continue
        for v in step.vars_read():
            if v in groups:
                body.extend(_summed(p, v, groups.pop(v)))
        body.append(step)
    for v, steps in groups.items():  # (sums only outputs read)
        body.extend(_summed(p, v, steps))
    p.body = body


def _summed(p, var, steps):
    """One scatter_sum for `steps` (scatter_adds and the adds of their sum), or the steps
    themselves: one piece, or pieces that overlap (a sum in another order could round apart)."""
    pieces = [s for s in steps if s.prim is scatter_add]
    if len(pieces) == 1:
        return steps
    shape = p.avals[var][0]
    covered = np.zeros(shape, dtype=bool)
    for s in pieces:
        index = s.params["index"]
        if covered[index].any():
            return steps
        covered[index] = True
    return [Eqn(scatter_sum, {"indices": tuple(s.params["index"] for s in pieces), "shape": shape},
                tuple(s.ins[0] for s in pieces), (var,))]


def _drop_dead(p):
    """Keep only the steps whose results an output or a guard reads (guards always stay)."""
    live = {v for v in p.outvars if v.__class__ is int}
    kept = []
    for step in reversed(p.body):
        if step.__class__ is Eqn and not step.prim.effectful and not any(v in live for v in step.outs):
            continue
        live.update(step.vars_read())
        kept.append(step)
    kept.reverse()
    p.body = kept
    p.consts = {v: c for v, c in p.consts.items() if v in live}
