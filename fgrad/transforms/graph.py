"""make_graph: trace one call of a function onto a full tape and hand it over as a Graph.

The Graph (fgrad/ir/graph.py) prints the tape one line per node and exports it; this
module is the transform that records it: a reverse-mode trace whose tape keeps every
node and residual (lean off), so nothing the graph shows is dropped.
"""

from ..ir.graph import Graph
from ..typing import Callable, PyTree
from . import checks, trees
from .reverse import VJPTracer, trace_call

__all__ = ["make_graph"]


def make_graph(fun: Callable[..., PyTree]) -> Callable[..., Graph]:
    """`make_graph(f)(*args)` -> the Graph of one call of f (every float leaf of args is traced).

    Examples
    --------
    >>> print(fgrad.make_graph(lambda x: fnp.sin(x) * 2)(1.0))
    graph(%in0:float64[] (args[0])) {
      %0:float64[] = sin(%in0)
      %1:float64[] = multiply(%0, 2)
      return %1
    }
    """
    def graph_of(*args, **kwargs):
        leaves, treedef = trees.flatten(args)
        labels = trees.leaf_labels(treedef, "args")
        floating = [checks.is_floating(x) for x in leaves]
        floating_leaves = [x for x, f in zip(leaves, floating) if f]

        def args_of(traced):  # (the floating leaves traced, the rest as they are)
            it = iter(traced)
            return trees.unflatten(treedef, [next(it) if f else x for x, f in zip(leaves, floating)]), kwargs
        trace, traced, out, tape = trace_call(fun, floating_leaves, [lbl for lbl, f in zip(labels, floating) if f],
                                              args_of, "make_graph", lean=False)  # (the graph shows every value)
        out_leaves, _ = trees.flatten(out)
        outputs = [(o.node, o.index) if isinstance(o, VJPTracer) and o._trace is trace else None for o in out_leaves]
        graph = Graph([t.node for t in traced], tape, outputs, [t.node.label for t in traced])
        graph._input_values = [t.primal for t in traced]
        graph.output_values = [trees.primal_of(o, trace) for o in out_leaves]
        trace.held.release()  # (a graph is printed, never run again)
        return graph
    return graph_of
