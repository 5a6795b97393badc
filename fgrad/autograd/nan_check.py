"""debug_nans on the imperative face (Note [NaN provenance] in transforms/debug_nans.py).

A backward() can't run again from the forward pass, as a functional transform does: the
user's code ran once. Under debug_nans its graph keeps its saved values until every leaf's
gradient is checked; when one holds a NaN or inf the leaf's value did not, the rules of the
graph that is still there run again, hooks left out, and the first node whose rule made
non-finite values from finite ones is named; then the saved values go, as without the check.
"""
from ..engine.backward import _count_dependencies, apply_rule, send
from ..errors import NonFiniteError
from ..ir.node import Edge
from ..ops.indexing import dense
from ..transforms.debug_nans import non_finite

__all__ = ["first_made", "non_finite", "raise_for", "release"]


def _edge(node, index):
    return Edge(node, index) if node.prim is not None and node.prim.multiple_results else node


def _nodes(roots):
    return _count_dependencies([node for node, _, _ in roots])


def first_made(roots):
    """(node, input index, 'nan' or 'inf'): the first node, from `roots`, whose rule sent an
    input non-finite values made from finite cotangents and saved values; None if none did."""
    deps, cts = _nodes(roots), {}
    for node, index, g in roots:
        send(cts, _edge(node, index), g)
    ready = [node for node, count in deps.items() if count == 0]
    while ready:
        node = ready.pop()
        g = cts.pop(node, None)
        if g is not None and node.prim is not None:
            g = [None if x is None else dense(x) for x in g] if g.__class__ is list else dense(g)
            meta = node.meta
            primals, out = meta.residuals(node, False) if meta is not None else (node.primals, node.out)
            grads = apply_rule(node, g, primals, out)
            if not any(non_finite(v) for v in (*(g if g.__class__ is list else [g]), *primals)):
                for i, gi in enumerate(grads):
                    kind = None if gi is None else non_finite(gi)
                    if kind:
                        return node, i, kind
            for t, gi in zip(node.inputs, grads):
                if t is not None and gi is not None:
                    send(cts, t, gi)
        for t in node.inputs:
            if t is not None:
                parent = t.node
                deps[parent] -= 1
                if deps[parent] == 0:
                    ready.append(parent)
    return None


def release(roots):
    """Let the saved values of every node under `roots` go (a backward without retain_graph)."""
    for node in _nodes(roots):
        if node.prim is not None and node.primals is not None:
            if node.meta is None:
                node.primals = node.out = None
            else:
                node.meta.release(node)


def raise_for(roots, leaf, kind):
    """NonFiniteError for the leaf tensor whose gradient holds `kind` ('nan' or 'inf'), naming
    the node that made it (its rules run again on the graph, which still has its values)."""
    found = first_made(roots)
    what = f"backward() gave a leaf of shape {tuple(leaf.shape)} a gradient holding {kind}, which its value did not"
    if found is None:
        raise NonFiniteError(f"fgrad debug_nans: {what}; no node's rule made it from finite values (a hook or a "
                             f"gradient passed to backward() brought it)")
    node, i, made = found
    operands = ", ".join(f"{p.dtype}{list(p.shape)}" for p in node.primals if hasattr(p, "dtype"))
    stack = node.meta.stack if node.meta is not None else None
    where = f"; the forward call:\n{stack}" if stack else \
        " (run the forward pass under fgrad.autograd.detect_anomaly() to see the line that made the node)"
    raise NonFiniteError(f"fgrad debug_nans: {what}: {node.name()} (of {operands or 'no saved values'}) made "
                         f"{made} from finite values in the gradient of its input {i}{where}", node=node)
