"""make_graph: trace one call of a function onto a full tape and hand it over as a Graph.

The Graph (fgrad/ir/graph.py) prints the tape one line per node and exports it; this
module is the transform that records it: a reverse-mode trace whose tape keeps every
node and residual (lean off), so nothing the graph shows is dropped.
"""
import numpy as np

from ..ir.graph import Graph
from ..ir.value import peek
from ..ops.primitive import new_trace
from ..typing import Callable, PyTree
from . import trees
from .reverse import VJPTrace, VJPTracer, trace_inputs

__all__ = ["make_graph"]


def make_graph(fun: Callable[..., PyTree]) -> Callable[..., Graph]:
    """`make_graph(f)(*args)` -> the Graph of one call of f (every float leaf of args is traced)."""
    def graph_of(*args, **kwargs):
        leaves, treedef = trees.flatten(args)
        labels = trees.leaf_labels(treedef, "args")
        floating = [(hasattr(x, "dtype") and np.issubdtype(np.asarray(peek(x)).dtype, np.floating))
                    or isinstance(x, float) for x in leaves]
        ctx = new_trace(VJPTrace, "make_graph")
        with ctx as trace:
            trace.lean = False  # the graph shows every value
            traced = trace_inputs(trace, [x for x, f in zip(leaves, floating) if f],
                                  [lbl for lbl, f in zip(labels, floating) if f], "make_graph")
            it = iter(traced)
            ins = [next(it) if f else x for x, f in zip(leaves, floating)]
            out = fun(*trees.unflatten(treedef, ins), **kwargs)
        out_leaves, _ = trees.flatten(out)
        outputs = [(o.node, o.index) if isinstance(o, VJPTracer) and o._trace is trace else None for o in out_leaves]
        graph = Graph([t.node for t in traced], ctx.closed, outputs, [t.node.label for t in traced])
        graph._input_values = [t.primal for t in traced]
        graph.output_values = [trees.primal_of(o, trace) for o in out_leaves]
        trace.held.release()  # (a graph is printed, never run again)
        return graph
    return graph_of
