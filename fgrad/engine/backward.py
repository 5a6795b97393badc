"""The backward engine: runs a recorded tape in reverse.

Given root nodes with their output cotangents, it counts, for every node reachable
from the roots, how many consumers will send it a cotangent (dependency counts), then
pops ready nodes (all consumers done) from a ready queue, applies their vjp rules and
accumulates the results into their producers. A symbolic zero (None) cotangent skips
the rule but still releases the dependency, so unused branches cost nothing. No
recursion anywhere: a chain of a million nodes is a loop.

Note [cotangents are values of the caller's trace]: the rules run under whatever trace
is current when backward is called, so an outer transform traces the backward pass
itself; that is what makes grad-of-grad work.
"""
from ..ops.broadcasting import add, fit_cotangent, zeros_like_value
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
                parent = t.node
                count = deps.get(parent)
                if count is None:
                    deps[parent] = 1
                    stack.append(parent)
                else:
                    deps[parent] = count + 1
    return deps


def _accumulate(cts, node, index, g, add):
    if node.prim is not None and node.prim.multiple_results:
        slot = cts.get(node)
        if slot is None:
            slot = cts[node] = [None] * len(node.out)
        slot[index] = g if slot[index] is None else add(slot[index], g)
    else:
        prev = cts.get(node)
        cts[node] = g if prev is None else add(prev, g)


def backward(roots, retain_graph=False, hooks=None):
    """Propagate cotangents from `roots`, a list of (node, output_index, cotangent).

    Returns {leaf: cotangent} for every Leaf reached (None where the cotangent is zero).
    With retain_graph=False each node's residuals are released once its rule has run.
    `hooks`, when given, is called as hooks(node, cotangent) -> cotangent before a rule runs.
    """
    deps = _count_dependencies([node for node, _, _ in roots])
    cts = {}
    for node, index, g in roots:
        _accumulate(cts, node, index, g, add)
    queue = ReadyQueue()
    for node in deps:
        if deps[node] == 0:
            queue.push(node)
    leaves = {}
    while queue:
        node = queue.pop()
        g = cts.pop(node, None)
        prim = node.prim
        if prim is None:
            leaves[node] = g
            continue
        inputs = node.inputs
        if g is not None:
            primals = node.primals
            if primals is None:
                raise FreedGraphError(
                    f"Trying to backward through the graph a second time (or to access saved values "
                    f"after they have been freed) at {prim.name}: its saved values were released by "
                    f"the first backward. Specify retain_graph=True on the first backward call.")
            if hooks is not None:
                g = hooks(node, g)
            if prim.multiple_results:
                g = tuple(zeros_like_value(o) if c is None else c for o, c in zip(node.out, g))
            out, params = node.out, node.params
            if prim.vjp_all is not None:
                needs = tuple(t is not None for t in inputs)
                grads = prim.vjp_all(g, out, primals, needs, **params)
            else:
                rules = prim.vjp
                grads = [None if t is None or rules[i] is None else rules[i](g, out, *primals, **params)
                         for i, t in enumerate(inputs)]
            for i, t in enumerate(inputs):
                if t is not None and grads[i] is not None:
                    _accumulate(cts, t.node, t.index, fit_cotangent(grads[i], primals[i], prim, i), add)
            if not retain_graph:
                node.primals = node.out = None
        for t in inputs:
            if t is not None:
                parent = t.node
                left = deps[parent] - 1
                deps[parent] = left
                if left == 0:
                    queue.push(parent)
    return leaves
