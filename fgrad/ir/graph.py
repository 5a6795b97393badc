"""The Graph: the tape of one traced call, for reading, printing and export.

`fgrad.make_graph(f)(*args)` (fgrad/transforms/graph.py) records every primitive applied
to traced values, in execution order. Printing gives one line per node; `to_networkx()`
and `to_dot()` export it (networkx is imported only there, never on the hot path), and
`render()` draws it (pictures.py; a notebook shows the picture).
"""
from typing import TYPE_CHECKING

import numpy as np

from ..typing import Any, Iterator, Sequence
from .node import Leaf, Node
from .pictures import Pictured
from .value import peek

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Graph", "aval_text", "param_text"]


def aval_text(shape, dtype):
    """`float64[3,4]`: how graphs and programs print an array's kind."""
    return f"{dtype}[{','.join(str(d) for d in shape)}]"


def _aval(value):
    c = peek(value)
    dtype = getattr(c, "dtype", None)
    if dtype is None:
        return type(c).__name__
    return aval_text(np.shape(c), dtype)


def param_text(value):
    """A parameter as printed: an array (or a tuple holding arrays) by its kind, else repr."""
    if hasattr(value, "shape") and np.ndim(value) > 0:
        return f"<{_aval(value)}>"
    if isinstance(value, tuple) and any(hasattr(v, "shape") and np.ndim(v) > 0 for v in value):
        return "(" + ", ".join(param_text(v) for v in value) + ")"
    return repr(value)


class Graph(Pictured):
    """Inputs, nodes in execution order, and outputs of one traced call; `render()` draws it.

    Examples
    --------
    >>> g = fgrad.make_graph(lambda x: fnp.sin(x) * 2)(1.0)
    >>> [node.prim.name for node in g.nodes]
    ['sin', 'multiply']
    """

    def __init__(self, inputs: Sequence[Leaf], nodes: Sequence[Node], outputs: Sequence[tuple[Node, int] | None],
                 input_labels: Sequence[object]) -> None:
        self.inputs = inputs        # Leaf per differentiated input leaf
        self.nodes = nodes          # Node per recorded primitive application
        self.outputs = outputs      # per output leaf: (node, index) or None for a constant
        self.input_labels = input_labels
        self._names = {}
        for k, leaf in enumerate(inputs):
            self._names[(leaf, 0)] = f"%in{k}"
        for k, node in enumerate(nodes):
            outs = node.out if node.prim.multiple_results else (node.out,)
            for j in range(len(outs)):
                self._names[(node, j)] = f"%{k}" if len(outs) == 1 else f"%{k}.{j}"
        self._by_value = {id(node.out): self._names[(node, 0)] for node in nodes if not node.prim.multiple_results}

    def name_of(self, tracer_or_value: Any) -> str:
        """The %name of a value on this tape, or a description of a constant."""
        node = getattr(tracer_or_value, "node", None)
        if node is not None and (node, tracer_or_value.index) in self._names:
            return self._names[(node, tracer_or_value.index)]
        if id(tracer_or_value) in self._by_value:
            return self._by_value[id(tracer_or_value)]
        c = tracer_or_value
        if np.ndim(c) == 0 and isinstance(c, (int, float, np.number)):
            return repr(c.item() if hasattr(c, "item") else c)
        return f"const:{_aval(c)}"

    def _node_line(self, k, node):
        args = [self.name_of(t if t is not None else p) for t, p in zip(node.inputs, node.primals)]
        params = ", ".join(f"{key}={param_text(v)}" for key, v in node.params.items())
        outs = node.out if node.prim.multiple_results else (node.out,)
        lhs = ", ".join(f"{self._names[(node, j)]}:{_aval(o)}" for j, o in enumerate(outs))
        return f"{lhs} = {node.prim.name}({', '.join(args)}{'; ' + params if params else ''})"

    def __str__(self) -> str:
        lines = ["graph(" + ", ".join(f"%in{k}:{_aval(leaf_value)} ({label})" for k, (label, leaf_value)
                                       in enumerate(zip(self.input_labels, self._input_values))) + ") {"]
        lines += ["  " + self._node_line(k, node) for k, node in enumerate(self.nodes)]
        outs = [self._names.get(o, "?") if o is not None else "const" for o in self.outputs]
        lines.append(f"  return {', '.join(outs)}")
        lines.append("}")
        return "\n".join(lines)

    __repr__ = __str__

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def primitives(self) -> list[str]:
        """Names of the primitives on the tape, in order."""
        return [node.prim.name for node in self.nodes]

    def to_networkx(self) -> "nx.DiGraph":
        """A networkx.DiGraph: one vertex per input and node, edges along data flow."""
        import networkx as nx  # (imported here: `import fgrad` need not load networkx)
        g = nx.DiGraph()
        for k, _leaf in enumerate(self.inputs):
            g.add_node(f"%in{k}", kind="input", label=str(self.input_labels[k]), aval=_aval(self._input_values[k]))
        for k, node in enumerate(self.nodes):
            name = self._names[(node, 0)].split(".")[0]
            outs = node.out if node.prim.multiple_results else (node.out,)
            g.add_node(name, kind="op", prim=node.prim.name,
                       params={key: param_text(v) for key, v in node.params.items()},
                       avals=[_aval(o) for o in outs], index=k)
            for pos, t in enumerate(node.inputs):
                if t is not None:
                    src = self._names[(t.node, t.index)].split(".")[0]
                    g.add_edge(src, name, argnum=pos, output=t.index)
                elif id(node.primals[pos]) in self._by_value:
                    g.add_edge(self._by_value[id(node.primals[pos])], name, argnum=pos, output=0)
        for j, o in enumerate(self.outputs):
            g.add_node(f"%out{j}", kind="output")
            if o is not None:
                g.add_edge(self._names[o].split(".")[0], f"%out{j}", argnum=0, output=o[1])
        return g

    def to_dot(self) -> str:
        """The graph as Graphviz DOT text: inputs as ellipses labelled with name and aval, one box per
        node, outputs as plain text, edges in data-flow order. Render it with Graphviz's `dot`.
        """
        g = self.to_networkx()
        lines = ["digraph fgrad {", "  rankdir=TB;", '  node [fontname="monospace"];']
        for name, data in g.nodes(data=True):
            if data["kind"] == "input":
                label, shape = f"{name}\\n{data['label']}\\n{data['aval']}", "ellipse"
            elif data["kind"] == "output":
                label, shape = name, "plaintext"
            else:
                label, shape = f"{name} = {data['prim']}\\n{' '.join(data['avals'])}", "box"
            lines.append(f'  "{name}" [label="{label}", shape={shape}];')
        for a, b, data in g.edges(data=True):
            lines.append(f'  "{a}" -> "{b}" [label="{data["argnum"]}"];')
        lines.append("}")
        return "\n".join(lines)
