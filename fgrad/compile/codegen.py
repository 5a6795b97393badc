"""From a Program to a Python function: straight-line source calling the kernels.

A program of up to `CHUNK` steps becomes one function whose locals are the values; a
longer one becomes functions of `CHUNK` steps each, handing values that cross a boundary
through a list; beyond `LOOP_LIMIT` steps Python's compiler would take long and much
memory for little gain, so the program runs as a tight loop over (kernel, operands)
instead (docs/compile.md has the measurements).

Liveness decides two things. A value is deleted after its last use (a local would keep it
to the end of the function, where eager code frees it at once). And a ufunc writes into
the buffer of an operand that dies at that step (`out=`), when that buffer is one no other
value can see (Note [reusing buffers]).
"""
import operator

import numpy as np

from ..ir.value import WEAK_TYPES
from .program import Eqn, Guard, Literal, Program, value_key

__all__ = ["CHUNK", "LOOP_LIMIT", "Retrace", "generate"]

CHUNK = 2000          # steps per generated function
LOOP_LIMIT = 100_000  # beyond this many steps, interpret instead of generating code
POISON = False        # debug: fill each buffer free for reuse with NaN when it dies (tests)

# The kinds of a step of the loop (_loop), by what it reads: the common calls index V directly.
GUARD = 0                # raise Retrace unless V[a] equals b, the value Python read when tracing
CALL_ONE_VALUE = 1       # V[out] = kernel(V[a])
CALL_TWO_VALUES = 2      # V[out] = kernel(V[a], V[b])
CALL_VALUE_CONSTANT = 3  # V[out] = kernel(V[a], b): b a constant or a literal
CALL_CONSTANT_VALUE = 4  # V[out] = kernel(a, V[b]): a a constant or a literal
CALL_ANY = 5             # V[out] (or each of several outs) = kernel(*operands, **params)


class Retrace(Exception):
    """A guard failed on replay: the program does not hold for these inputs (`index`: the
    guard's step; `value`: what the guarded value is now)."""

    def __init__(self, index, value=None):
        Exception.__init__(self, index)
        self.index, self.value = index, value


def _same(a, b):
    """Do the value `a` and the guarded value `b` agree (NaN agreeing with NaN)?"""
    if b.__class__ in WEAK_TYPES:
        return _same_number(a, b)
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))


def _same_number(a, b):
    """Python numbers: equal, told apart as a program must (0.0 from -0.0; NaN agrees with NaN)."""
    return (a == b and value_key(a) == value_key(b)) or (a != a and b != b)


def _inline(value):
    """Python source for `value` if it round-trips through repr, else None."""
    if value is None or value.__class__ in (bool, str):
        return repr(value)
    if value.__class__ is int:
        return repr(value)
    if value.__class__ is float:
        return repr(value) if np.isfinite(value) else None
    if value.__class__ is tuple:
        items = [_inline(v) for v in value]
        return None if None in items else "(" + "".join(i + ", " for i in items) + ")"
    return None


def _writes_out(prim):
    """Can `prim`'s kernel write into a given buffer (out=)? A ufunc of one result can; it also
    returns a new array every call, never a view."""
    return isinstance(prim.impl, np.ufunc) and prim.impl.nout == 1


def _fresh(prim):
    """Does `prim`'s kernel return a new array every call (a ufunc, or declared fresh: matmul)?"""
    return prim.fresh or _writes_out(prim)


def reusable_buffers(p):
    """Note [reusing buffers]: the vars whose buffer a later ufunc may write into once they die.
    A buffer qualifies when a fresh kernel made it (a ufunc, or a primitive declared fresh,
    matmul: a new array, not a view, not a NumPy scalar: it has at least one dimension),
    every step that reads it is a ufunc (so no view of it exists anywhere), and it is
    neither an input, a constant nor an output."""
    made_fresh = set()
    for s in p.body:
        if s.__class__ is Eqn and _fresh(s.prim) and len(p.avals[s.outs[0]][0]) > 0:
            made_fresh.add(s.outs[0])
    for s in p.body:
        if s.__class__ is Guard or not _writes_out(s.prim):
            made_fresh.difference_update(s.vars_read())
    made_fresh.difference_update(v for v in p.outvars if v.__class__ is int)
    return made_fresh


def _last_uses(p):
    """last[v]: the index of the last step that reads var v (len(body) for an output, -1 for
    a var nothing reads); a list, as vars are numbered densely (long programs have millions)."""
    last = [-1] * (max(p.avals, default=-1) + 1)
    for i, s in enumerate(p.body):
        for v in s.vars_read():
            last[v] = i
    for v in p.outvars:
        if v.__class__ is int:
            last[v] = len(p.body)
    return last


def _dying(s, i, last, consts):
    """The vars step i reads for the last time (never a constant): deleted, or reused, after it."""
    return [a for a in dict.fromkeys(s.vars_read()) if last[a] == i and a not in consts]


class _Namer:
    """The namespace of generated code: kernels, constants, guard values, parameters."""

    def __init__(self, p):
        self.ns = {"Retrace": Retrace, "_same": _same, "_same_number": _same_number, "_poison": _poison,
                   "errstate": np.errstate}
        self._kernels = {}
        for v, c in p.consts.items():
            self.ns[f"c{v}"] = c
        self.consts = p.consts

    def var(self, v):
        if v.__class__ is Literal:
            return self.value(v.value)
        return f"c{v}" if v in self.consts else f"v{v}"

    def value(self, value):
        text = _inline(value)
        if text is None:
            text = f"k{len(self.ns)}"
            self.ns[text] = value
        return text

    def kernel(self, prim):
        name = self._kernels.get(id(prim.impl))
        if name is None:
            base = "".join(ch if ch.isalnum() else "_" for ch in prim.name)
            name = self._kernels[id(prim.impl)] = f"{base}_{len(self._kernels)}"
            self.ns[name] = prim.impl
        return name


# Kernels that are Python's operators on NumPy scalars: `a * b` on two np.float64 is the
# same IEEE operation as np.multiply(a, b), without the ufunc machinery (~0.4 us a call).
_BINARY_OPERATORS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/", np.power: "**"}


def _as_operator(p, s, args, names):
    """`a op b` (or `-a`) for an elementwise step on NumPy scalars, else None. A kernel that is
    an operator but where it makes a NaN (`impl.operator`: the zero-cotangent policy's products,
    ops/elementwise.py) is the operator, and the kernel only there: one comparison instead of
    a call."""
    impl = s.prim.impl
    retried = getattr(impl, "operator", None)
    if s.params or not (impl in _BINARY_OPERATORS or impl is np.negative or retried):
        return None
    if not issubclass(p.avals[s.outs[0]][2][0], np.generic):
        return None
    if not all(a.__class__ is not int or issubclass(p.avals[a][2][0], np.generic) for a in s.ins):
        return None
    if retried:  # (x == x is False only for a NaN)
        return f"_w if (_w := {args[0]} {retried} {args[1]}) == _w else {names.kernel(s.prim)}({args[0]}, {args[1]})"
    return f"-{args[0]}" if impl is np.negative else f"{args[0]} {_BINARY_OPERATORS[impl]} {args[1]}"


def _poison(buffer):
    buffer.fill(np.nan if buffer.dtype.kind in "fc" else 0)


def _lines(p, names, steps, start, last, reusable):
    """Source lines for `steps` (p.body[start:...]), with deletions and buffer reuse."""
    out = []
    for i, s in enumerate(steps, start):
        if s.__class__ is Guard:
            g = names.value(s.value)
            v = names.var(s.var)
            if s.value.__class__ in WEAK_TYPES:  # (a Python number: == alone, unless a zero, a NaN or complex)
                exact = s.value.__class__ in (bool, int) or (s.value.__class__ is float and s.value == s.value != 0)
                out.append(f"if {v} != {g}: raise Retrace({i}, {v})" if exact else
                           f"if not _same_number({v}, {g}): raise Retrace({i}, {v})")
            elif s.value.ndim == 0 and s.value.dtype.kind in "biu":
                out.append(f"if {v} != {g}: raise Retrace({i}, {v})")
            else:
                out.append(f"if not _same({v}, {g}): raise Retrace({i}, {v})")
        else:
            args = [names.var(a) for a in s.ins]
            dying = _dying(s, i, last, names.consts)
            into = None
            if _writes_out(s.prim) and len(p.avals[s.outs[0]][0]) > 0:
                into = next((a for a in dying if a in reusable and p.avals[a] == p.avals[s.outs[0]]), None)
            if into is not None and not POISON:
                args.append(f"out={names.var(into)}")  # (Note [reusing buffers])
            args += [f"{k}={names.value(v)}" for k, v in s.params.items()]
            lhs = ", ".join(f"v{o}" for o in s.outs) + ("," if len(s.outs) == 1 and s.prim.multiple_results else "")
            expr = _as_operator(p, s, args, names)
            call = f"{lhs} = {expr or names.kernel(s.prim) + '(' + ', '.join(args) + ')'}"
            if s.errstate is not None:
                call = f"with errstate(**{names.value(s.errstate)}): {call}"
            out.append(call)
            for a in dying:
                if POISON and a in reusable:
                    out.append(f"_poison(v{a})")
                out.append(f"del v{a}")
        for o in (s.outs if s.__class__ is Eqn else ()):
            if last[o] < 0:  # (a result nothing reads: one of several outputs of a step)
                out.append(f"del v{o}")
    return out


def generate(p: Program, name: str = "program"):
    """(a function of the program's inputs returning its outputs as a tuple, its source)."""
    if len(p.body) > LOOP_LIMIT:
        return _loop(p), f"# {len(p.body)} steps: run as a loop over kernels (more than LOOP_LIMIT)\n"
    names = _Namer(p)
    last = _last_uses(p)
    reusable = reusable_buffers(p)
    params = ", ".join(f"v{v}" for v in p.invars)
    results = "(" + "".join(names.var(v) + ", " for v in p.outvars) + ")"
    if len(p.body) <= CHUNK:
        body = _lines(p, names, p.body, 0, last, reusable)
        source = f"def {name}({params}):\n" + "".join(f"    {line}\n" for line in body) + f"    return {results}\n"
    else:
        source = _chunked(p, names, last, reusable, name, params, results)
    code = compile(source, f"<fgrad.compile {name}>", "exec")
    exec(code, names.ns)
    return names.ns[name], source


def _chunked(p, names, last, reusable, name, params, results):
    """Source of a long program: one function per CHUNK steps, values crossing chunks in V."""
    defined_in = {v: -1 for v in p.invars}
    for i, s in enumerate(p.body):
        for o in (s.outs if s.__class__ is Eqn else ()):
            defined_in[o] = i // CHUNK
    parts, calls = [], []
    n = len(p.body)
    for c, start in enumerate(range(0, n, CHUNK)):
        end = min(start + CHUNK, n)
        steps = p.body[start:end]
        reads = dict.fromkeys(v for s in steps for v in s.vars_read() if v not in names.consts)
        loads = [v for v in reads if defined_in[v] < c]
        made = [o for s in steps if s.__class__ is Eqn for o in s.outs]
        stores = [o for o in made if last[o] >= end]
        lines = [f"v{v} = V[{v}]" for v in loads]
        lines += [f"V[{v}] = None" for v in loads if last[v] < end]  # (its last reader is here)
        lines += _lines(p, names, steps, start, last, reusable)
        lines += [f"V[{v}] = v{v}" for v in stores]
        parts.append(f"def {name}_{c}(V):\n" + "".join(f"    {line}\n" for line in lines) + "    pass\n")
        calls.append(f"    {name}_{c}(V)\n")
    size = max(p.avals, default=-1) + 1
    head = f"def {name}({params}):\n    V = [None] * {size}\n" + "".join(f"    V[{v}] = v{v}\n" for v in p.invars)
    results = "(" + "".join((f"V[{v}]" if v.__class__ is int and v not in names.consts else names.var(v)) + ", "
                            for v in p.outvars) + ")"
    return "".join(parts) + head + "".join(calls) + f"    return {results}\n"


def _under(kernel, errstate):
    def run(*args, **params):
        with np.errstate(**errstate):
            return kernel(*args, **params)
    return run


def _loop(p):
    """A program too long to compile, as a loop over its steps, values in a list V (freed
    after their last use). Each step is (kind, kernel, out, a, b, frees); the common kinds,
    one or two operands without parameters, index V directly (GUARD ... CALL_ANY above)."""
    size = max(p.avals, default=-1) + 1
    last = _last_uses(p)
    ops = {np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
           np.true_divide: operator.truediv, np.power: operator.pow, np.negative: operator.neg}
    steps = []
    for i, s in enumerate(p.body):
        frees = tuple(_dying(s, i, last, p.consts))
        if s.__class__ is Guard:
            steps.append((GUARD, None, i, s.var, s.value, frees))
            continue
        kernel = s.prim.impl
        if kernel in ops and _as_operator(p, s, ["a", "b"], None) is not None:
            kernel = ops[kernel]  # (NumPy scalars: Python's operator, as the generated code)
        if s.errstate is not None:
            kernel = _under(kernel, s.errstate)
        ins = [a if a.__class__ is int and a not in p.consts else
               (p.consts[a] if a.__class__ is int else a.value, ) for a in s.ins]
        var = [a.__class__ is int for a in ins]
        if s.params or s.prim.multiple_results or len(ins) > 2:
            steps.append((CALL_ANY, kernel, s.outs if s.prim.multiple_results else s.outs[0], ins, s.params, frees))
        elif var == [True]:
            steps.append((CALL_ONE_VALUE, kernel, s.outs[0], ins[0], None, frees))
        elif var == [True, True]:
            steps.append((CALL_TWO_VALUES, kernel, s.outs[0], ins[0], ins[1], frees))
        elif var == [True, False]:
            steps.append((CALL_VALUE_CONSTANT, kernel, s.outs[0], ins[0], ins[1][0], frees))
        elif var == [False, True]:
            steps.append((CALL_CONSTANT_VALUE, kernel, s.outs[0], ins[0][0], ins[1], frees))
        else:
            steps.append((CALL_ANY, kernel, s.outs[0], ins, s.params, frees))
    invars, consts = p.invars, p.consts
    outs = [(v, None) if v.__class__ is int and v not in consts else
            (None, v.value if v.__class__ is Literal else consts[v]) for v in p.outvars]

    def program(*inputs):
        # (The kinds as locals, tested by identity: each step holds these very objects, and
        # `is` on a local is the cheapest test; `==` on a local cost +0.4% per replay, callgrind.)
        call_one_value, call_two_values, call_value_constant, call_constant_value, guard = \
            CALL_ONE_VALUE, CALL_TWO_VALUES, CALL_VALUE_CONSTANT, CALL_CONSTANT_VALUE, GUARD
        V = [None] * size
        for v, x in zip(invars, inputs):
            V[v] = x
        for kind, kernel, out, a, b, frees in steps:
            if kind is call_one_value:
                V[out] = kernel(V[a])
            elif kind is call_two_values:
                V[out] = kernel(V[a], V[b])
            elif kind is call_value_constant:
                V[out] = kernel(V[a], b)
            elif kind is call_constant_value:
                V[out] = kernel(a, V[b])
            elif kind is guard:
                if not _same(V[a], b):
                    raise Retrace(out, V[a])
            else:  # CALL_ANY
                r = kernel(*[V[x] if x.__class__ is int else x[0] for x in a], **b)
                if out.__class__ is int:
                    V[out] = r
                else:
                    for o, x in zip(out, r):
                        V[o] = x
            for v in frees:
                V[v] = None
        return tuple(V[v] if v is not None else c for v, c in outs)
    return program
