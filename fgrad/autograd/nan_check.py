"""debug_nans on the imperative face (Note [NaN provenance] in transforms/debug_nans.py).

A backward() can't run again from the forward pass, as a functional transform does: the
user's code ran once. Under debug_nans its graph keeps its saved values until every leaf's
gradient is checked; when one holds a NaN or inf the leaf's value did not, the rules of the
graph that is still there run again, hooks left out, and the first node whose rule made
non-finite values from finite ones is named; then the saved values go, as without the check.
With debug_nans "full" (as anomaly mode, on for every thread) each op on tensors is checked
as it runs, forward (`check_op`) and backward (`check_rule`), and the first NaN made from
NaN-free values raises at once, as the functional face's "full" mode.
"""
from ..engine.backward import _count_dependencies, apply_rule, send
from ..errors import NonFiniteError
from ..ir.node import Edge
from ..ops.indexing import dense
from ..transforms.debug_nans import Brought, Origin, non_finite, operand_text, user_frame

__all__ = ["check_op", "check_rule", "first_made", "non_finite", "raise_for", "release"]


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


def _has_nan(values):
    return any(v is not None and non_finite(v) == "nan" for v in values)


def _operands(values):
    return [f"{p.dtype}{list(p.shape)}" for p in values if hasattr(p, "dtype")]


def _has_inf(values):
    return any(v is not None and non_finite(v) == "inf" for v in values)


def check_op(prim, primals, out):
    """debug_nans "full", forward: raise when `prim` made a NaN from NaN-free operands (an inf
    among them is said: the forward pass lets infs through)."""
    if _has_nan(out if prim.multiple_results else (out,)) and not _has_nan(primals):
        cause = Brought("inf", "with an operand (the check lets an inf through; a NaN raises)") \
            if _has_inf(primals) else None
        origin = Origin(prim.name, [operand_text(p) for p in primals], user_frame(), None, None, "nan", cause)
        raise NonFiniteError(f"fgrad debug_nans: {origin.describe()}.", origin)


def check_rule(node, g, primals, grads):
    """debug_nans "full", backward: raise when `node`'s rule made a NaN from NaN-free
    cotangents and saved values."""
    for i, gi in enumerate(grads):
        if gi is not None and _has_nan((gi,)):
            g = g if g.__class__ is list else (g,)
            if not _has_nan(g) and not _has_nan(primals):
                source = "values holding inf" if _has_inf(g) or _has_inf(primals) else "finite values"
                _raise_made(node, i, "nan", "backward() made a NaN", source)
            return


def _raise_made(node, i, made, what, source="finite values"):
    operands = ", ".join(_operands(node.primals)) or "no saved values"
    stack = node.meta.stack if node.meta is not None else None
    where = f"; the forward call:\n{stack}" if stack else \
        " (run the forward pass under fgrad.autograd.detect_anomaly() to see the line that made the node)"
    raise NonFiniteError(f"fgrad debug_nans: {what}: {node.name()} (of {operands}) made "
                         f"{made} from {source} in the gradient of its input {i}{where}", node=node)


def raise_for(roots, leaf, kind):
    """NonFiniteError for the leaf tensor whose gradient holds `kind` ('nan' or 'inf'), naming
    the node that made it (its rules run again on the graph, which still has its values)."""
    found = first_made(roots)
    what = f"backward() gave a leaf of shape {tuple(leaf.shape)} a gradient holding {kind}, which its value did not"
    if found is None:
        raise NonFiniteError(f"fgrad debug_nans: {what}; no node's rule made it from finite values (a hook or a "
                             f"gradient passed to backward() brought it)")
    _raise_made(*found, what)
