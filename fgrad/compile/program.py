"""The Program: the flat list of kernel calls that `fgrad.compile` traces once and replays.

Values are numbered (a var is an int). An `Eqn` calls one primitive's kernel on vars,
`Literal`s (Python and NumPy scalars) and constant arrays (vars bound in `consts`); a
`Guard` says that a value must be what it was when the program was traced, because Python
read it (Note [reading values while compiling] in ir/value.py). Printing gives one line
per step, as a Graph does; `to_networkx()` and `to_dot()` export it.
"""
import math
from typing import TYPE_CHECKING

import numpy as np

from ..ir.graph import aval_text, param_text
from ..ir.pictures import Pictured
from ..ir.value import WEAK_TYPES
from ..typing import Iterator, Sequence

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Eqn", "Guard", "Literal", "Program", "PythonOp", "value_key"]


def value_key(value):
    """What tells two scalars apart for a program: type and value, and for floats the sign of
    zero too (x * 0.0 and x * -0.0 differ). NaN equals nothing, so two NaN operands are never
    taken for the same one (which only costs a shared step)."""
    if isinstance(value, (float, np.floating)):
        return type(value), value, math.copysign(1.0, value)
    if isinstance(value, (complex, np.complexfloating)):
        return type(value), value, math.copysign(1.0, value.real), math.copysign(1.0, value.imag)
    return type(value), value


class Literal:
    """A scalar operand, kept in the equation itself."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Literal) and value_key(other.value) == value_key(self.value)

    def __hash__(self):
        return hash(value_key(self.value))

    def __repr__(self):
        return repr(self.value.item() if isinstance(self.value, np.generic) else self.value)


class Eqn:
    """`outs = prim(*ins, **params)`: ins are vars and Literals, outs vars; `errstate`, when
    not None, is NumPy's floating-point error handling the kernel ran under (np.errstate)."""

    __slots__ = ("prim", "params", "ins", "outs", "errstate")

    def __init__(self, prim, params, ins, outs, errstate=None):
        self.prim, self.params, self.ins, self.outs = prim, params, tuple(ins), tuple(outs)
        self.errstate = errstate

    def vars_read(self):
        return [v for v in self.ins if v.__class__ is int]


class Guard:
    """Replay goes on only while var `var` equals `value` (what Python read when tracing);
    `where` is (file, line) of the user's code that read it, for the retrace's reason."""

    __slots__ = ("var", "value", "where")

    def __init__(self, var, value, where=None):
        self.var, self.value, self.where = var, value, where

    def vars_read(self):
        return [self.var]


class PythonOp:
    """Python's own operator on Python numbers, a step's `prim` where every operand is one
    (Note [weak values] in ir/value.py): `lr * 2` of a Python float is a Python float, as
    eagerly, where np.multiply would return a float64 that promotes a float32 array."""

    __slots__ = ("name", "impl")
    effectful = fresh = multiple_results = False  # (what the passes and codegen ask of a primitive)

    def __init__(self, name, impl):
        self.name, self.impl = name, impl

    def __repr__(self):
        return f"PythonOp({self.name})"


class Program(Pictured):
    """Inputs, constants, steps (Eqns and Guards, in order) and outputs of one traced call."""

    def __init__(self, invars: Sequence[int], consts: dict, body: Sequence[Eqn | Guard],
                 outvars: Sequence[int | Literal], avals: dict, input_labels: Sequence[str]) -> None:
        # (The containers are the program's own, not copies: long programs hold millions of steps.)
        self.invars = invars            # the var of each traced input leaf (array or Python number), in order
        self.consts = consts            # var -> constant array (closed over by the traced function)
        self.body = body
        self.outvars = outvars          # per output leaf: a var, or a Literal for a scalar constant
        self.avals = avals              # var -> (shape, dtype, (array class, device))
        self.input_labels = list(input_labels)

    @property
    def eqns(self) -> list[Eqn]:
        return [s for s in self.body if s.__class__ is Eqn]

    @property
    def guards(self) -> list[Guard]:
        return [s for s in self.body if s.__class__ is Guard]

    def __len__(self) -> int:
        return len(self.body)

    def __iter__(self) -> Iterator[Eqn | Guard]:
        return iter(self.body)

    def primitives(self) -> list[str]:
        """Names of the primitives the program calls, in order."""
        return [s.prim.name for s in self.eqns]

    def _name(self, v):
        if v.__class__ is not int:
            return repr(v)
        return f"%c{v}" if v in self.consts else f"%{v}"

    def _typed(self, v):
        shape, dtype, (cls, _) = self.avals[v]
        return f"{self._name(v)}:{cls.__name__ if cls in WEAK_TYPES else aval_text(shape, dtype)}"  # (`%1:float`)

    def step_text(self, step) -> str:
        """One step as printed: `%3:float64[5] = sin(%1)`, or `guard %2 == True`."""
        if step.__class__ is Guard:
            return f"guard {self._name(step.var)} == {param_text(step.value)}"
        params = ", ".join(f"{k}={param_text(v)}" for k, v in step.params.items())
        args = ", ".join(self._name(v) for v in step.ins)
        outs = ", ".join(self._typed(v) for v in step.outs)
        return f"{outs} = {step.prim.name}({args}{'; ' + params if params else ''})"

    def __str__(self) -> str:
        head = ", ".join(f"{self._typed(v)} ({label})" for v, label in zip(self.invars, self.input_labels))
        lines = [f"program({head}) {{"]
        lines += [f"  const {self._typed(v)}" for v in self.consts]
        lines += ["  " + self.step_text(s) for s in self.body]
        lines.append(f"  return {', '.join(self._name(v) for v in self.outvars)}")
        lines.append("}")
        return "\n".join(lines)

    __repr__ = __str__

    def to_networkx(self) -> "nx.DiGraph":
        """A networkx.DiGraph: a vertex per input, constant, step and output; edges along data flow."""
        import networkx as nx  # (imported here: `import fgrad` need not load networkx)
        g = nx.DiGraph()
        made = {}  # var -> the vertex that makes it
        for v, label in zip(self.invars, self.input_labels):
            made[v] = name = self._name(v)
            g.add_node(name, kind="input", label=str(label), aval=aval_text(*self.avals[v][:2]))
        for v in self.consts:
            made[v] = name = self._name(v)
            g.add_node(name, kind="const", aval=aval_text(*self.avals[v][:2]))
        for k, step in enumerate(self.body):
            name = f"#{k}"
            if step.__class__ is Guard:
                g.add_node(name, kind="guard", text=self.step_text(step), index=k)
            else:
                g.add_node(name, kind="op", prim=step.prim.name, text=self.step_text(step), index=k,
                           params={key: param_text(v) for key, v in step.params.items()},
                           avals=[aval_text(*self.avals[v][:2]) for v in step.outs])
                for v in step.outs:
                    made[v] = name
            for pos, v in enumerate(step.ins if step.__class__ is Eqn else (step.var,)):
                if v.__class__ is int:
                    g.add_edge(made[v], name, argnum=pos)
        for j, v in enumerate(self.outvars):
            g.add_node(f"%out{j}", kind="output")
            if v.__class__ is int:
                g.add_edge(made[v], f"%out{j}", argnum=0)
        return g

    def to_dot(self) -> str:
        """Graphviz DOT text of the program."""
        g = self.to_networkx()
        lines = ["digraph fgrad {", "  rankdir=TB;", '  node [fontname="monospace"];']
        for name, data in g.nodes(data=True):
            kind = data["kind"]
            label = data.get("text", f"{name}\\n{data.get('label', '')}\\n{data.get('aval', '')}".rstrip("\\n"))
            shape = {"input": "ellipse", "const": "ellipse", "output": "plaintext", "guard": "diamond"}.get(kind, "box")
            label = label.replace('"', '\\"')
            lines.append(f'  "{name}" [label="{label}", shape={shape}];')
        for a, b, data in g.edges(data=True):
            lines.append(f'  "{a}" -> "{b}" [label="{data["argnum"]}"];')
        lines.append("}")
        return "\n".join(lines)
