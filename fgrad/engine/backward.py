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
import math

from numpy import float64, ndarray

from ..backend import CPU, device_of
from ..config import config
from ..errors import FreedGraphError
from ..ir.node import Edge, Node
from ..ops import primitive
from ..ops.broadcasting import fit_cotangent
from ..ops.elementwise import add, nan_in, times
from ..ops.indexing import Scattered, dense
from ..ops.primitive import EVAL, NEG, ONE, OTHER, Quotient, apply_partial, made_by_nan_safe
from .queue import ReadyQueue
from .threads import HEAVY, Offload, heavy

__all__ = ["FreedGraphError", "backward"]


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


def send(cts, t, g):
    """Accumulate cotangent `g` into `cts` at edge `t`: a node's slot, or, for an output of a
    multiple-result node (an Edge, Note [edges] in ir/node.py), that output's place in its
    node's list. Cotangents add with `+`: on arrays the kernel, on traced values (grad of
    grad) the add primitive."""
    if t.__class__ is Edge:
        node, index = t.node, t.index
        g = dense(g)  # (an output of a multiple-result node: its slot sums with add)
        slot = cts.get(node)
        if slot is None:
            out = node.out
            if out is None:  # (released by a backward: Note [what a backward releases])
                raise freed_graph_error(node)
            slot = cts[node] = [None] * len(out)
        slot[index] = g if slot[index] is None else add(slot[index], g)
    else:
        prev = cts.get(t)
        cts[t] = g if prev is None else prev + g


def apply_rule(node, g, primals, out):
    """The cotangents of `node`'s inputs, fitted to their primals (Note [cotangents fit their
    primal]); None for an input without gradient or with a zero one. The one place a node's
    rules are applied, for both of backward's loops and the imperative face's hooks:
    partials (through apply_partial), per-argument rules, or one rule for all arguments.

    Note [symbolic zero outputs]: a multiple-result rule gets None for each output nothing
    used, not zeros: a rule need not compute through an output no one reads (eigvalsh's
    eigenvector term is 0 * inf where eigenvalues repeat). Rules that need arrays fill
    zeros with `materialize`.
    """
    prim, inputs, params = node.prim, node.inputs, node.params
    partials = prim.partials
    grads = rules = None
    if partials is None:
        if prim.vjp_all is not None:
            grads = prim.vjp_all(tuple(g) if prim.multiple_results else g, out, primals,
                                 tuple(t is not None for t in inputs), **params)
        else:
            rules = prim.vjp
    fitted = []
    i = -1
    for t in inputs:
        i += 1
        if t is None:
            fitted.append(None)
            continue
        if grads is not None:
            gi = grads[i]
        elif rules is None:
            gi = None if (d := partials[i]) is None else apply_partial(
                d, g, i, out, primals, d is OTHER and made_by_nan_safe(inputs[1 - i]))
        else:
            gi = None if (rule := rules[i]) is None else rule(g, out, *primals, **params) if params \
                else rule(g, out, *primals)
        if gi is not None:
            p = primals[i]  # None: an unread input already of g's shape and dtype
            if p is not None and not (getattr(gi, "shape", None) == p.shape and gi.dtype is p.dtype):
                gi = fit_cotangent(gi, p, prim, i)
        fitted.append(gi)
    return fitted


# Note [what a backward releases]: without retain_graph, a backward releases each node's
# residuals once its rule has run, so that a second backward through them raises
# (freed_graph_error) instead of reading released values. A node of the imperative face whose
# rules read no value (meta.saved is None: add, sum, reshape, a Function that saved nothing)
# keeps what it has, only shapes and constants, as PyTorch releases only saved tensors: then a
# second backward of `(x + 1).sum()` works, as in PyTorch, and one through `(x * x).sum()`
# raises at MulBackward0, which saved x.


def freed_graph_error(node):
    return FreedGraphError(
        f"Trying to backward through the graph a second time (or to directly access saved tensors after "
        f"they have already been freed) at {node.name()}: its saved values were released by the first "
        f"backward. Specify retain_graph=True if you need to backward through the graph a second time.")


profiler = None  # set by fgrad.autograd.profiler while a profile is recording
watch = 0  # checked calls running, in any thread (transforms/debug_nans.py): told each node whose rule runs


def watching():
    """The CheckTrace of the checked call this thread (or the worker's driver) runs, or None:
    the trace on its stack that `watches_nodes`."""
    trace = primitive.current_trace()
    while trace is not None and not getattr(trace, "watches_nodes", False):
        trace = trace.parent
    return trace


def _ready_nodes(queue):
    pop = queue.pop
    while queue:
        yield pop()


def _scheduled(queue, workers, cts):
    """_ready_nodes, while workers run some nodes (engine/threads.py): a node a worker finished
    has its cotangents sent on here, on the driver, and is handed to the loop again, which
    finds no cotangent for it and only lowers its inputs' counts. When nothing is ready the
    driver waits for a worker."""
    pop, running = queue.pop, workers.running
    while True:
        while queue and not running:  # (no worker busy: as _ready_nodes)
            yield pop()
        if running:
            for node, grads in workers.finished(block=not queue):
                _send_all(cts, node, grads)
                yield node
        if queue:
            yield pop()
        elif not running:
            return


def _device(g):
    """The device of cotangent g when it is not the CPU's (None: the CPU); a multiple-result
    node's cotangents (a list) are on its device."""
    if g.__class__ is ndarray:
        return None
    if g.__class__ is list:
        g = next((x for x in g if x is not None), None)
    d = device_of(g)
    return None if d is CPU else d


def backward(roots, retain_graph=False, create_graph=False, capture=None, tape=None, on_leaf=None):
    """Propagate cotangents from `roots`, a list of (node, output_index, cotangent).

    Returns {leaf: cotangent} for every leaf node reached (None where the cotangent is
    zero). With retain_graph=False each node's residuals are released once its rule has
    run. Nodes with `meta` (the imperative face's nodes: hooks, saved-value checks)
    apply themselves through it. `capture`, a dict keyed by nodes, receives the
    cotangent each of those nodes got (for gradients with respect to non-leaf values).

    Note [leaves as they complete]: in a graph's walk, `on_leaf(leaf, cotangent)` (when
    given) is called on the driver the moment a leaf's last consumer has sent its share, as
    PyTorch's engine runs AccumulateGrad at once, and that leaf is then not in the returned
    dict (a leaf that is itself a root still is). The Tensor face accumulates .grad and runs
    post-accumulate-grad hooks there, so DistributedDataParallel starts a bucket's all-reduce
    while the rest of the graph is still being walked. A tape's walk ignores it.

    Note [a tape is already in order]: given `tape`, the nodes of one trace in execution
    order, the engine walks it backwards: a reverse execution order is a topological
    order, so no dependency counting is needed and a node no cotangent reached costs one
    dict lookup. Without a tape (the imperative face's graph) it counts dependencies and
    takes the next node from a ready queue. That is all the two walks differ in: one loop
    applies each node's rules and sends its cotangents on, for both.

    Note [the inline partials]: elementwise ops make most of a traced program, so their
    nodes apply their partials in the loop, with no call: the one inline copy of
    apply_partial (ops/primitive.py) and of send, in two forms (one argument, the common
    case, with no input loop; then any number). Every other node goes through apply_rule
    and send. tests/engine/test_backward.py compares the two. Multiply's step (OTHER) applies
    the zero-cotangent policy's product, `times`, where its other input was made by a nan_safe
    primitive (Note [zero cotangents stay zero] in ops/elementwise.py). A nan_safe primitive
    of one argument applies its partial (Primitive.safe_partials: a product, or a Quotient's
    v / divisor) in a third form, where no cotangent is traced (no outer transform, no
    create_graph), with one NaN test: the policy's product (apply_partial's `safe`) decides
    only where the test finds a NaN, so its values are the plain ones wherever those have
    none. Traced, or of two arguments, its rules run, which record the policy's products (so
    the policy holds at every order). The plain forms test nothing of it: the branch comes
    after theirs (three lines of it per node there cost W1's eager call 1.7%, 2,213,094 ->
    2,245,276 instructions), and W5's chain costs 3,198,959 instructions per call at --size
    test, against 3,195,617 before the policy (benchmarks/instructions.py).
    """
    cts = {}
    for node, index, g in roots:
        send(cts, Edge(node, index) if node.prim is not None and node.prim.multiple_results else node, g)
    # Workers (engine/threads.py), when there are any and no outer transform traces this
    # backward: a graph's walk gets them (an Offload) now; a tape's walk may turn into a
    # graph's (Note [a tape turns into a graph]), which gets them then.
    use_workers = not create_graph and capture is None and profiler is None and primitive._state.trace is EVAL \
        and Offload.wanted()
    workers = queue = None
    if tape is None:
        deps = _count_dependencies([node for node, _, _ in roots])
        queue = ReadyQueue(node for node, count in deps.items() if count == 0)
        if use_workers:
            workers = Offload()
        order = _ready_nodes(queue) if workers is None else _scheduled(queue, workers, cts)
        may_turn = False
    else:
        deps, order, may_turn = None, reversed(tape), use_workers
    return _stopping(workers, order, cts, deps, queue, workers, may_turn, tape, retain_graph, create_graph, capture,
                     on_leaf if tape is None else None)


def _stopping(workers, *walk):
    """_walk(*walk); on an error, the workers (an Offload, or None) stop first (none may still
    be running a node of this graph when the caller sees the error)."""
    try:
        return _walk(*walk)
    except BaseException:
        if workers is not None:
            workers.stop()
        raise


def _walk(order, cts, deps, queue, workers, may_turn, tape, retain_graph, create_graph, capture, on_leaf):
    """backward's loop (see there). `workers`: an Offload whose workers may take heavy nodes (a
    graph's walk only), or None; `may_turn`: a tape's walk may turn into a graph's, with
    workers (Note [a tape turns into a graph])."""
    take, get = cts.pop, cts.get
    push = queue.append if queue is not None else None
    leaves = {}
    simple = capture is None and profiler is None and not watch  # (then only a node's meta can ask for more)
    on_values = not create_graph and primitive._state.trace is EVAL  # (no cotangent is traced)
    policy = config.nan_safe_zeros  # (Note [zero cotangents stay zero] in ops/elementwise.py)
    if workers is not None:
        def run(node, g):
            return _node_grads(node, g, retain_graph, create_graph)
    for node in order:
        g = take(node, None)
        if g is None:
            if deps is None:
                continue
        else:  # (g may be a Scattered: the inline steps' arithmetic makes it dense, and so does
            prim = node.prim  # each branch that hands g on as it is: Note [scattered cotangents])
            if workers is not None and (g.__class__ is not ndarray or g.size >= HEAVY) and prim is not None:
                g = dense(g)
                if workers.takes(node, g, _device(g), bool(queue), run):
                    continue  # (a worker runs it; _scheduled completes it. A small CPU node never leaves.)
            meta = node.meta
            if not simple or prim is None or (meta is not None and (create_graph or not meta.plain(node))):
                g = dense(g)
                if capture is not None and node in capture:
                    capture[node] = g
                if prim is None:  # a leaf: its cotangent is an answer
                    leaves[node] = g
                else:
                    _apply_node(node, g, cts, retain_graph, create_graph)
            else:
                primals, inputs = node.primals, node.inputs
                if primals is None:
                    raise freed_graph_error(node)
                partials = prim.partials
                if partials is not None and len(inputs) == 1:  # (Note [the inline partials])
                    t, d = inputs[0], partials[0]
                    gi = g if d is ONE else -g if d is NEG else d(node.out, primals[0]) * g
                    # An op of one argument keeps its shape, and g has the output's, so only the
                    # dtype can need fitting. p None: an unread input already of g's dtype.
                    p = primals[0]
                    if p is not None and gi.dtype is not p.dtype:
                        gi = fit_cotangent(dense(gi), p, prim, 0)
                    if t.__class__ is Edge:
                        send(cts, t, gi)
                    else:
                        prev = get(t)
                        cts[t] = gi if prev is None else prev + gi
                elif partials is not None:  # (Note [the inline partials])
                    i = -1
                    for t in inputs:
                        i += 1
                        if t is None or (d := partials[i]) is None:
                            continue
                        if d is OTHER:  # (apply_partial's safe: made_by_nan_safe, inline)
                            o = inputs[1 - i]
                            gi = times(primals[1 - i], g) if o.__class__ is Node and o.prim is not None and \
                                o.prim.nan_safe else primals[1 - i] * g
                        else:
                            gi = g if d is ONE else -g if d is NEG else d(node.out, *primals) * g
                        p = primals[i]  # None: an unread input already of g's shape and dtype
                        if p is not None and (gi.shape != p.shape or gi.dtype is not p.dtype):
                            gi = fit_cotangent(dense(gi), p, prim, i)
                        if t.__class__ is Edge:
                            send(cts, t, gi)
                        else:
                            prev = get(t)
                            cts[t] = gi if prev is None else prev + gi
                elif on_values and (safe := prim.safe_partials) is not None and len(inputs) == 1:
                    d, p = safe[0], primals[0]  # (a nan_safe primitive's partial: Note [the inline partials])
                    gi = dense(g) / d.divisor(node.out, p) if d.__class__ is Quotient else d(node.out, p) * g
                    # (nan_in's float64 case inline: a call less per op, W5 eager 3,340,031 -> 3,317,388)
                    if policy and (math.isnan(gi) if gi.__class__ is float64 else nan_in(gi)):
                        gi = apply_partial(d, dense(g), 0, node.out, primals, True)  # (a NaN: the policy decides)
                    if p is not None and gi.dtype is not p.dtype:
                        gi = fit_cotangent(dense(gi), p, prim, 0)
                    send(cts, inputs[0], gi)
                else:
                    if may_turn and (
                            g.size >= HEAVY if g.__class__ is ndarray else g.__class__ is list and heavy(g)):
                        cts[node] = g  # (Note [a tape turns into a graph])
                        return _as_graph(cts, Offload(), retain_graph, create_graph)
                    i = -1
                    for gi in apply_rule(node, dense(g), primals, node.out):
                        i += 1
                        if gi is not None:
                            send(cts, inputs[i], gi)
                if not retain_graph and (meta is None or meta.saved is not None):
                    node.primals = node.out = None  # residuals released (Note [what a backward releases])
        if deps is not None:
            for t in node.inputs:
                if t is not None:
                    parent = t.node if t.__class__ is Edge else t  # (a node is its own edge: no property call)
                    left = deps[parent] - 1
                    deps[parent] = left
                    if left == 0:
                        if on_leaf is not None and parent.prim is None:  # (Note [leaves as they complete])
                            on_leaf(parent, take(parent, None))
                        else:
                            push(parent)
    if tape is not None:  # what is left are the cotangents of the leaves
        for leaf, g in cts.items():
            if g.__class__ is Scattered:
                cts[leaf] = g.dense()  # (a value replaced, no key added: the loop may go on)
        leaves.update(cts)
    return leaves


def _as_graph(cts, workers, retain_graph, create_graph):
    """The rest of a tape's walk by dependency counts, from the nodes whose cotangents wait in
    `cts`.

    Note [a tape turns into a graph]: a tape's reverse order is one sequence, so its walk
    cannot run two nodes at once. Once a heavy node (a rule of its own, not an elementwise
    partial, with a cotangent of HEAVY elements) comes up while workers may help, the walk
    goes on as the imperative face's does: dependencies counted from the waiting nodes (the
    nodes already walked are never reached again: inputs point back in time), a ready
    queue, workers for heavy nodes. A tape of small ops never turns: it costs no count."""
    deps = _count_dependencies(list(cts))
    queue = ReadyQueue(node for node, count in deps.items() if count == 0)
    return _stopping(workers, _scheduled(queue, workers, cts), cts, deps, queue, workers, False, None,
                     retain_graph, create_graph, None, None)


def _apply_node(node, g, cts, retain_graph, create_graph):
    """A node with the imperative face's extras (hooks, packed values, anomaly checks, a
    double backward), or any node while a profile records or cotangents are captured: its
    rules (_node_grads), then send."""
    _send_all(cts, node, _node_grads(node, g, retain_graph, create_graph))


def _send_all(cts, node, grads):
    """send each of `grads`, the cotangents of node's inputs, to its input."""
    i = -1
    for t in node.inputs:
        i += 1
        if t is not None and (gi := grads[i]) is not None:
            send(cts, t, gi)


def _node_grads(node, g, retain_graph, create_graph):
    """The cotangents of `node`'s inputs (through its meta when it has extras), timed if a
    profile records; what a worker runs (engine/threads.py)."""
    t0 = profiler.clock() if profiler is not None else None
    checker = watching() if watch else None  # (ops made here name the node: see debug_nans.py)
    if checker is not None:
        outer, checker.node = checker.node, node
    meta = node.meta
    if meta is not None and (create_graph or not meta.plain(node)):
        grads = meta.apply(node, g, retain_graph, create_graph)  # (releases its residuals itself)
    else:
        if node.primals is None:
            raise freed_graph_error(node)
        grads = apply_rule(node, g, node.primals, node.out)
        if not retain_graph and (meta is None or meta.saved is not None):
            node.primals = node.out = None
    if t0 is not None:
        profiler.record_backward(node, t0)
    if checker is not None:
        checker.node = outer
    return grads
