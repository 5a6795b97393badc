"""The backward engine: runs a recorded tape in reverse.

Given root nodes with their output cotangents, it visits nodes in a reverse topological
order, applies their vjp rules and accumulates the results into their producers. A
functional trace's tape is walked backwards; a graph without a tape (the imperative
face's) is walked with dependency counts and a ready queue: a node runs once every
consumer has sent its cotangent. A symbolic zero (None) cotangent skips the rule, so
unused branches cost nothing. No recursion anywhere: a chain of a million nodes is a
loop.

Note [cotangents are values of the caller's trace]: the rules run under whatever trace
is current when backward is called, so an outer transform traces the backward pass
itself; that is what makes grad-of-grad work.
"""
from ..ir.node import Edge
from ..ops.broadcasting import fit_cotangent
from ..ops.elementwise import add
from ..ops.primitive import NEG, ONE, OTHER
from .queue import ReadyQueue

__all__ = ["backward", "FreedGraphError"]


class FreedGraphError(RuntimeError):
    pass


def _count_dependencies(roots):
    deps = {}
    stack = []
    for node in roots:
        if node not in deps:
            deps[node] = 0
            stack.append(node)
    while stack:
        for t in stack.pop().inputs:
            if t is not None:
                parent = t.node if t.__class__ is Edge else t  # (a node is its own edge: no property call)
                count = deps.get(parent)
                if count is None:
                    deps[parent] = 1
                    stack.append(parent)
                else:
                    deps[parent] = count + 1
    return deps


def _accumulate(cts, node, index, g):
    if node.prim is not None and node.prim.multiple_results:
        slot = cts.get(node)
        if slot is None:
            slot = cts[node] = [None] * len(node.out)
        slot[index] = g if slot[index] is None else add(slot[index], g)
    else:
        prev = cts.get(node)
        cts[node] = g if prev is None else add(prev, g)


def apply_rule(node, g, primals, out):
    """The cotangents of `node`'s inputs (None for those without gradient or with a zero one).

    Note [symbolic zero outputs]: a multiple-result rule gets None for each output nothing
    used, not zeros: a rule need not compute through an output no one reads (eigvalsh's
    eigenvector term is 0 * inf where eigenvalues repeat). Rules that need arrays fill
    zeros with `materialize`.
    """
    prim, inputs, params = node.prim, node.inputs, node.params
    if prim.multiple_results:
        g = tuple(g)
    if prim.vjp_all is not None:
        grads = prim.vjp_all(g, out, primals, tuple(t is not None for t in inputs), **params)
    else:
        rules = prim.vjp
        grads = [None if t is None or rules[i] is None else rules[i](g, out, *primals, **params)
                 for i, t in enumerate(inputs)]
    fitted = []
    for i, t in enumerate(inputs):
        gi = grads[i]
        if t is not None and gi is not None:
            p = primals[i]  # None: an unread input already of g's shape and dtype
            if p is not None and not (getattr(gi, "shape", None) == p.shape and gi.dtype is p.dtype):
                gi = fit_cotangent(gi, p, prim, i)
        fitted.append(None if t is None else gi)
    return fitted


def freed_graph_error(node):
    return FreedGraphError(
        f"Trying to backward through the graph a second time (or to directly access saved tensors after "
        f"they have already been freed) at {node.name()}: its saved values were released by the first "
        f"backward. Specify retain_graph=True if you need to backward through the graph a second time.")


profiler = None  # set by fgrad.autograd.profiler while a profile is recording


def _ready_nodes(queue):
    pop = queue.pop
    while queue:
        yield pop()


def backward(roots, retain_graph=False, create_graph=False, capture=None, tape=None):
    """Propagate cotangents from `roots`, a list of (node, output_index, cotangent).

    Returns {leaf: cotangent} for every leaf node reached (None where the cotangent is
    zero). With retain_graph=False each node's residuals are released once its rule has
    run. Nodes with `meta` (the imperative face's nodes: hooks, saved-value checks)
    apply themselves through it. `capture`, a dict keyed by nodes, receives the
    cotangent each of those nodes got (for gradients with respect to non-leaf values).

    Note [a tape is already in order]: given `tape`, the nodes of one trace in execution
    order, the engine walks it backwards: a reverse execution order is a topological
    order, so no dependency counting is needed and a node no cotangent reached costs one
    dict lookup. Without a tape (the imperative face's graph) it counts dependencies.
    """
    cts = {}
    for node, index, g in roots:
        _accumulate(cts, node, index, g)
    if tape is not None and capture is None and profiler is None:
        return _walk_tape(tape, cts, retain_graph)
    if tape is None:
        deps = _count_dependencies([node for node, _, _ in roots])
        queue = ReadyQueue(node for node, count in deps.items() if count == 0)
        order, push = _ready_nodes(queue), queue.append
    else:
        deps, order = None, reversed(tape)
    take, get = cts.pop, cts.get
    leaves = {}
    for node in order:
        g = take(node, None)
        if g is None and deps is None:
            continue
        if capture is not None and node in capture:
            capture[node] = g
        prim = node.prim
        if prim is None:
            leaves[node] = g
            continue
        grads = rules = None
        by_meta = False
        if g is not None:
            t0 = profiler.clock() if profiler is not None else None
            meta = node.meta
            by_meta = meta is not None and (create_graph or not meta.plain(node))
            if by_meta:
                grads = meta.apply(node, g, retain_graph, create_graph)  # hooks, packing, anomaly, double backward
            else:
                primals, out, params = node.primals, node.out, node.params
                if primals is None:
                    raise freed_graph_error(node)
                if prim.simple:
                    rules = prim.vjp  # the common case: applied per input in the loop below
                    partials = prim.partials
                else:
                    grads = apply_rule(node, g, primals, out)
            if t0 is not None:
                profiler.record_backward(node, t0)
        i = -1
        for t in node.inputs:
            i += 1
            if t is None:
                continue
            parent = t.node if t.__class__ is Edge else t
            if rules is not None:
                if partials is not None:  # elementwise: the partial derivative times g (Note [the partial first])
                    d = partials[i]
                    gi = (None if d is None else g if d is ONE else -g if d is NEG else
                          primals[1 - i] * g if d is OTHER else d(out, *primals) * g)
                else:
                    rule = rules[i]
                    gi = None if rule is None else rule(g, out, *primals, **params) if params else rule(g, out, *primals)
                if gi is not None:
                    p = primals[i]  # None: an unread input already of g's shape and dtype
                    if p is not None and (gi.shape != p.shape or gi.dtype is not p.dtype):
                        gi = fit_cotangent(gi, p, prim, i)
            else:
                gi = None if grads is None else grads[i]
            if gi is not None:
                pp = parent.prim
                if pp is not None and pp.multiple_results:
                    _accumulate(cts, parent, t.index, gi)
                else:
                    prev = get(parent)
                    cts[parent] = gi if prev is None else add(prev, gi)
            if deps is not None:
                left = deps[parent] - 1
                deps[parent] = left
                if left == 0:
                    push(parent)
        if not retain_graph and g is not None and not by_meta:
            node.primals = node.out = None  # residuals released (meta.apply releases its own)
    if tape is not None:
        leaves.update(cts)  # what is left are the cotangents of the leaves
    return leaves


def _walk_tape(tape, cts, retain_graph):
    """backward's loop for a functional trace's tape (Note [a tape is already in order]).

    The hot path of grad: its nodes have no meta, nothing is captured or profiled, so the
    loop does only what every node needs. Elementwise nodes multiply by their partials
    inline (no rule call), and a one-input one (most of them) skips the input loop; other
    one-output nodes apply their per-argument rules in the same loop (apply_rule only for
    multiple results and all-argument rules).
    Cotangents add with `+`: on concrete arrays that is the kernel, on traced values
    (grad of grad) it binds the add primitive.
    """
    take, get = cts.pop, cts.get
    for node in reversed(tape):
        g = take(node, None)
        if g is None:
            continue
        prim, primals, inputs = node.prim, node.primals, node.inputs
        if primals is None:
            raise freed_graph_error(node)
        partials = prim.partials
        if partials is not None and len(inputs) == 1:  # unary elementwise
            t, d = inputs[0], partials[0]
            gi = g if d is ONE else -g if d is NEG else d(node.out, primals[0]) * g
            # A unary elementwise op keeps its input's shape, and g has the output's, so only
            # the dtype can need fitting. p None: an unread input already of g's dtype.
            p = primals[0]
            if p is not None and gi.dtype is not p.dtype:
                gi = fit_cotangent(gi, p, prim, 0)
            if t.__class__ is Edge:
                _accumulate(cts, t.node, t.index, gi)
            else:
                prev = get(t)
                cts[t] = gi if prev is None else prev + gi
        else:
            # Elementwise nodes with several inputs apply their partials here, and the other
            # one-output nodes their per-argument rules; the rest run in apply_rule.
            out = node.out
            grads = None
            if partials is None:
                if prim.simple:
                    rules, params = prim.vjp, node.params
                else:
                    grads = apply_rule(node, g, primals, out)
            i = -1
            for t in inputs:
                i += 1
                if partials is not None:  # (the partial first: Note [the partial first])
                    if t is None or (d := partials[i]) is None:
                        continue
                    gi = g if d is ONE else -g if d is NEG else primals[1 - i] * g if d is OTHER else d(out, *primals) * g
                    p = primals[i]  # None: an unread input already of g's shape and dtype
                    if p is not None and (gi.shape != p.shape or gi.dtype is not p.dtype):
                        gi = fit_cotangent(gi, p, prim, i)
                elif grads is None:  # (a rule may return a Python number: no .shape)
                    if t is None or (rule := rules[i]) is None:
                        continue
                    gi = rule(g, out, *primals, **params) if params else rule(g, out, *primals)
                    if gi is None:
                        continue
                    p = primals[i]
                    if p is not None and (getattr(gi, "shape", None) != p.shape or gi.dtype is not p.dtype):
                        gi = fit_cotangent(gi, p, prim, i)
                else:
                    gi = grads[i]
                    if gi is None:
                        continue
                if t.__class__ is Edge:  # an output of a multiple-result node
                    _accumulate(cts, t.node, t.index, gi)
                else:
                    prev = get(t)
                    cts[t] = gi if prev is None else prev + gi
        if not retain_graph:
            node.primals = node.out = None  # residuals released
    return cts  # what is left are the cotangents of the leaves
