"""Tape nodes: one per recorded primitive application.

A node holds only what backward needs: the primitive, its parameters, the input
tracers that carry gradient (None for constants), the primal inputs and the output
(residuals for the rules). Nodes point only to their inputs, never to their outputs,
so a finished tape is a DAG freed by reference counting alone.
"""

__all__ = ["Node", "Leaf"]


class Node:
    """A recorded primitive application."""

    __slots__ = ("prim", "params", "inputs", "primals", "out", "__weakref__")

    def __init__(self, prim, params, inputs, primals, out):
        self.prim = prim
        self.params = params
        self.inputs = inputs    # per argument: the input's Tracer when it carries gradient, else None
        self.primals = primals  # per argument: the primal value (residual for the rules)
        self.out = out          # the primal output (a tuple for multiple-result primitives)

    def name(self):
        return self.prim.name

    def __repr__(self):
        return f"<Node {self.prim.name}>"


class Leaf:
    """The source of a differentiated input: where its cotangent ends up."""

    __slots__ = ("label", "__weakref__")
    prim = None
    inputs = ()

    def __init__(self, label):
        self.label = label

    def name(self):
        return self.label

    def __repr__(self):
        return f"<Leaf {self.label}>"
