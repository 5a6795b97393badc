"""Tape nodes: one per recorded primitive application.

A node holds only what backward needs: the primitive, its parameters, an edge per
input that carries gradient (None for constants), and the residuals its rules read
(primal inputs and output). Nodes point only to their producers, never to their
outputs or to traced values, so a finished tape is a DAG freed by reference counting
alone, and an array no rule needs is freed as soon as the user's code drops it.

Note [bare class calls]: classes made once per recorded op (Node, VJPTracer, JVPTracer)
have no __init__; the hot paths call the bare class and store the slots: cheaper than
object.__new__(cls), whose wrapper checks the class and packs an argument tuple first
(docs/design.md, "Measured"), and an __init__ would cost a frame.

Note [edges]: an input edge names (producer node, output index). A single-output node
is its own edge (`node.node is node`, `node.index == 0`); an `Edge` names an output of a
multiple-result node, output 0 included, so an engine tells the two apart by class.
"""

__all__ = ["KEEPS_AVALS", "KEEPS_FIT", "KEEPS_VALUES", "Aval", "Edge", "Leaf", "Node", "new_node", "unread"]

# Note [what a node keeps of its inputs]: one field of a primitive's declaration,
# Primitive.keeps (ops/primitive.py), says what every recording site (ops/entries.py's inline
# steps, VJPTrace.process and process_general, the Tensor face's record and record_general)
# keeps of a traced input:
# KEEPS_VALUES, its value (the rules read it, `saves=` says so); KEEPS_FIT, nothing when it
# has the output's shape and dtype and its Aval otherwise (an elementwise op with declared
# partials, whose cotangent needs fitting only where the input broadcast or was cast); or
# KEEPS_AVALS, its Aval (the rules need its shape and dtype alone). `unread` below
# applies the last two; the inline steps copy it (Note [the entries' inline steps]). A
# constant input is kept as it is, and held where the rules read values (KEEPS_VALUES: Note
# [what fgrad keeps is read-only] in ir/held.py); an index array a rule reads otherwise
# (gather's) is fgrad's own copy (ops/indexing.py's normalize_index) or a traced value.
KEEPS_VALUES, KEEPS_FIT, KEEPS_AVALS = "values", "avals where they do not fit", "avals"


class Node:
    """A recorded primitive application (made by `new_node`).

    prim, params: the primitive and its parameters.
    inputs: per argument, an edge to its producer when it carries gradient, else None.
    primals: per argument, the primal value (a residual for the rules), or its Aval.
    out: the primal output (a tuple for multiple-result primitives), or None if unused.
    meta: the imperative face's extras (hooks, saved-value guards); None on the functional path.

    No __init__ (Note [bare class calls]): the recording hot paths call `Node()` and store
    the slots themselves.

    Examples
    --------
    >>> x = fgrad.tensor([1.0], requires_grad=True)
    >>> y = x.sin() * 2
    >>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
    ('MulBackward0', 'SinBackward0')
    """

    __slots__ = ("prim", "params", "inputs", "primals", "out", "meta", "__weakref__")
    index = 0  # as an edge: output 0

    @property
    def node(self):
        """As an edge: this node (see Note [edges])."""
        return self

    def name(self):
        """The node's name: PyTorch style (MulBackward0) on the imperative face, else the primitive's."""
        return self.meta.name if self.meta is not None else self.prim.name

    @property
    def next_functions(self):
        """Per input: (producer node, output index); (None, 0) for constants."""
        return tuple((None, 0) if t is None else (t.node, t.index) for t in self.inputs)

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after this node's rule runs (imperative face)."""
        return self._meta().register("post_hooks", fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) before this node's rule runs (imperative face)."""
        return self._meta().register("pre_hooks", fn)

    def _meta(self):
        if self.meta is None:
            raise RuntimeError(f"hooks can only be registered on nodes of the imperative face (Tensor ops), "
                               f"not on the functional tape node {self.prim.name}")
        return self.meta

    def __repr__(self):
        return f"<{self.name()}>"


def new_node(prim, params, inputs, primals, out, meta=None):
    """A Node with these fields."""
    node = Node()
    node.prim, node.params, node.inputs, node.primals, node.out, node.meta = prim, params, inputs, primals, out, meta
    return node


class Edge:
    """A fixed reference to output `index` of `node` (what a recorded input points at).

    The imperative face stores edges, not tensors, for non-leaf inputs: an in-place op
    later gives the tensor a new history, but this node must keep the old one.
    """

    __slots__ = ("node", "index")

    def __init__(self, node, index):
        self.node, self.index = node, index


class Aval:
    """The shape and dtype of a value a rule does not read: all that backward needs of it."""

    __slots__ = ("shape", "dtype")

    def __init__(self, value):
        self.shape, self.dtype = value.shape, value.dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"Aval({self.dtype}{list(self.shape)})"


class Leaf:
    """The source of a differentiated input: where its cotangent ends up. (Made by a bare
    class call and a store of `label`, the input's name: Note [bare class calls].)"""

    __slots__ = ("label", "__weakref__")
    prim = None
    meta = None
    inputs = ()
    index = 0

    @property
    def node(self):
        return self

    def name(self):
        return str(self.label)

    def __repr__(self):
        return f"<Leaf {self.label}>"


def unread(value, out, prim):
    """What a lean tape keeps of a traced input its rules do not read (`prim.keeps` is
    KEEPS_FIT or KEEPS_AVALS: Note [what a node keeps of its inputs]): its
    Aval, or None for an input of an elementwise op that has the output's shape and dtype
    (nothing to fit)."""
    if prim.keeps is KEEPS_FIT and value.shape == out.shape and value.dtype is out.dtype:
        return None
    return Aval(value)
