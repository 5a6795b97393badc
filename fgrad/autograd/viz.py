"""fgrad.autograd.viz: a picture of a Tensor's grad_fn graph, as torchviz's make_dot draws one.

    dot = fgrad.autograd.viz.make_dot(loss, params=dict(model.named_parameters()))
    dot.render("graph.svg")     # or look at `dot` in a notebook

One box per backward node (MulBackward0, ...) with the sizes of what it saved for backward; one
box per leaf with its name (from `params`), shape and dtype; the outputs in blue. A node whose
kept output holds a NaN or inf (sqrt's, exp's, tanh's: the nodes whose rules read their
output), or one given in `highlight` (a NonFiniteError's `.node`, say), is red.
"""
import numpy as np

from ..ir.node import Aval
from ..ir.pictures import Pictured
from .tensor import Tensor

__all__ = ["TensorGraph", "make_dot"]


def _aval(x):
    x = x.primal if isinstance(x, Tensor) else x
    return f"{x.dtype}{list(x.shape)}" if hasattr(x, "dtype") else type(x).__name__


def _saved_bytes(node):
    """The bytes a node's rules keep (its saved inputs and output), None once released."""
    if node.primals is None:
        return None
    values = [p for p in node.primals if hasattr(p, "nbytes") and p.__class__ is not Aval]
    out = node.out
    values += [o for o in (out if isinstance(out, tuple) else (out,)) if hasattr(o, "nbytes")]
    return sum(int(v.nbytes) for v in values)


def _non_finite(node):
    out = node.out
    for o in out if isinstance(out, tuple) else (out,):
        o = o.primal if isinstance(o, Tensor) else o
        if hasattr(o, "dtype") and o.dtype.kind in "fc" and not bool(np.isfinite(o).all()):
            return True
    return False


def _size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


class TensorGraph(Pictured):
    """The backward graph under some tensors: `to_dot()`, `render(path_or_format)`, a
    notebook picture; printing lists its nodes."""

    def __init__(self, roots, params=None, show_saved=True, highlight=()):
        self.roots = list(roots)
        self.names = {id(t): name for name, t in (params or {}).items()}
        self.show_saved = show_saved
        self.highlight = {id(n) for n in highlight}
        self.nodes = self._walk()

    def _walk(self):
        """Every node reached from the roots' grad_fns, each once, roots first."""
        seen, order = set(), []
        stack = [t.grad_fn for t in reversed(self.roots) if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            order.append(node)
            stack.extend(n for n, _ in reversed(node.next_functions) if n is not None)
        return order

    def _label(self, node):
        if type(node).__name__ == "AccumulateGrad":
            leaf = node.variable()
            name = self.names.get(id(leaf), "")
            return (f"{name}\\n" if name else "") + (_aval(leaf) if leaf is not None else "(freed)")
        label = node.name()
        if self.show_saved and node.prim is not None:
            saved = _saved_bytes(node)
            label += "\\nsaved: released" if saved is None else f"\\nsaved: {_size(saved)}" if saved else ""
        return label

    def to_dot(self) -> str:
        """The graph as Graphviz DOT text (torchviz's layout: leaves light blue, outputs darker)."""
        ids = {id(n): f"n{k}" for k, n in enumerate(self.nodes)}
        lines = ["digraph fgrad {", '  node [shape=box, style=filled, fillcolor=white, fontname="monospace"];']
        for k, t in enumerate(self.roots):
            lines.append(f'  "out{k}" [label="{_aval(t)}", fillcolor="#a2cffe"];')
            if t.grad_fn is not None:
                lines.append(f'  "{ids[id(t.grad_fn)]}" -> "out{k}";')
        for node in self.nodes:
            leaf = type(node).__name__ == "AccumulateGrad"
            bad = id(node) in self.highlight or (not leaf and node.out is not None and _non_finite(node))
            color = "#ff9999" if bad else "lightblue" if leaf else "lightgrey"
            lines.append(f'  "{ids[id(node)]}" [label="{self._label(node)}", fillcolor="{color}"];')
            for parent, _ in node.next_functions:
                if parent is not None:
                    lines.append(f'  "{ids[id(parent)]}" -> "{ids[id(node)]}";')
        lines.append("}")
        return "\n".join(lines)

    def __str__(self):
        return "\n".join(self._label(n).replace("\\n", " ") for n in self.nodes)

    __repr__ = __str__


def make_dot(var, params=None, show_saved=True, highlight=()):
    """The backward graph under `var` (a Tensor or a sequence of them) as a TensorGraph, as
    torchviz.make_dot draws it. `params`: {name: tensor} to name the leaves
    (`dict(model.named_parameters())`); `show_saved`: each node's saved-value size;
    `highlight`: nodes to paint red (nodes whose output is not finite are red anyway).

    >>> w = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> print(make_dot((w * w).sum(), params={"w": w}))
    SumBackward0
    MulBackward0 saved: 32 B
    w float64[2]
    """
    roots = [var] if isinstance(var, Tensor) else list(var)
    return TensorGraph(roots, params, show_saved, highlight)
