"""The collectives as primitives, each declared once with its kernel and its rules.

all_reduce, broadcast, reduce, all_gather and reduce_scatter take a pytree; each call is one
primitive of all its leaves (one message per dtype, not per leaf: buffers.py). Their rules
are the collectives' transposes, written with these same primitives, so grad, jvp, vmap,
compile and the Tensor face work through them and an outer transform differentiates the
rules again:

    all_reduce(sum)    vjp: all_reduce(sum) of the cotangents     jvp: all_reduce(sum) of the tangents
    all_reduce(mean)   vjp: all_reduce(mean)                      jvp: all_reduce(mean)
    all_reduce(max)    vjp: all_reduce(sum) of the cotangents, shared among the ranks that hold the max
    broadcast(root)    vjp: reduce(sum, root)                     jvp: broadcast(root)
    reduce(sum, root)  vjp: broadcast(root)                       jvp: reduce(sum, root)
    all_gather         vjp: reduce_scatter(sum)                   jvp: all_gather
    reduce_scatter     vjp: all_gather                            jvp: reduce_scatter

A vjp is the derivative of the sum of every rank's loss, as a data-parallel loss means it:
each rank's grad of its own loss is that sum's gradient with respect to its own inputs.

Every rank must make the same collectives in the same order, forward and backward; so each
collective is bound through the current trace even when its arguments are constants (then
fgrad.compile stages it too, and Primitive.effectful keeps it in the program), and a rule
passes zeros, not None, for a cotangent that did not reach this rank.
"""
import numpy as np

from .. import numpy as fnp
from ..backend.arrays import array_module
from ..ir.value import peek
from ..ops.batching import front
from ..ops.primitive import Primitive, current_trace
from ..ops.zeros import materialize, zeros_like_value
from ..transforms import trees
from ..typing import PyTree
from .agreement import Call
from .world import world

__all__ = ["Collective", "all_gather", "all_reduce", "broadcast", "reduce", "reduce_scatter"]

OPS = ("sum", "mean", "max", "min")


class Collective(Primitive):
    """A primitive whose kernel exchanges data with the other ranks (Primitive.effectful)."""

    __slots__ = ()
    effectful = True


def _bind(prim, leaves, **params):
    """Through the current trace even for constants (the module's docstring says why)."""
    return current_trace().process(prim, tuple(leaves), params)


def _arrays(xs):
    return [np.asarray(x) if isinstance(x, (int, float, complex, np.generic)) else x for x in xs]


def _like(outs, xs):
    """Scalars back for scalars (a Python float in gives a NumPy float out), arrays for arrays."""
    return tuple(o[()] if isinstance(x, (int, float, complex, np.generic)) else o for o, x in zip(outs, xs))


def _zeros(values, like):
    return [zeros_like_value(v) if t is None else t for v, t in zip(like, values)]


# ---- all_reduce ------------------------------------------------------------------------
def _all_reduce_kernel(*xs, op, labels):
    return _like(world().all_reduce(_arrays(xs), op, Call("all_reduce", f"op={op!r}", labels)), xs)


def _shares(primals, ans):
    """Where each rank's x holds the max (or min): 1, else 0 (ties split it, as max's rule)."""
    return [fnp.astype(fnp.equal(x, y), peek(x).dtype) for x, y in zip(primals, ans)]


def _all_reduce_vjp(g, ans, primals, needs, op, labels):
    g = materialize(g, ans)
    if op in ("sum", "mean"):
        return _bind(all_reduce_p, g, op=op, labels=labels)
    hits, n = _shares(primals, ans), len(g)
    both = _bind(all_reduce_p, [*g, *hits], op="sum", labels=labels + labels)
    return tuple(s * h / c for s, h, c in zip(both[:n], hits, both[n:]))


def _all_reduce_jvp(primals, tangents, ans, op, labels):
    if all(t is None for t in tangents):
        return None
    t = _zeros(tangents, primals)
    if op in ("sum", "mean"):
        return _bind(all_reduce_p, t, op=op, labels=labels)
    hits, n = _shares(primals, ans), len(t)
    both = _bind(all_reduce_p, [*(ti * h for ti, h in zip(t, hits)), *hits], op="sum", labels=labels + labels)
    return tuple(s / c for s, c in zip(both[:n], both[n:]))


def _same_axes(prim):
    """The batching rule of a collective that acts on each element: the stacked values as they
    are (every rank batches alike), each output batched as its input."""
    def rule(args, dims, **params):
        return _bind(prim, args, **params), tuple(dims)
    return rule


all_reduce_p = Collective("all_reduce", _all_reduce_kernel, multiple_results=True, torch_name="AllReduce")
all_reduce_p.defvjp_all(_all_reduce_vjp).defjvp_full(_all_reduce_jvp).defbatch(_same_axes(all_reduce_p))


# ---- broadcast and reduce: each other's transposes ---------------------------------------
def _broadcast_kernel(*xs, root, labels):
    return _like(world().broadcast(_arrays(xs), root, Call("broadcast", f"root={root}", labels)), xs)


def _reduce_kernel(*xs, root, op, labels):
    return _like(world().reduce(_arrays(xs), root, op, Call("reduce", f"root={root}, op={op!r}", labels)), xs)


broadcast_p = Collective("broadcast", _broadcast_kernel, multiple_results=True, saves="output", torch_name="Broadcast")
reduce_p = Collective("reduce", _reduce_kernel, multiple_results=True, saves="output", torch_name="Reduce")
broadcast_p.defvjp_all(
    lambda g, ans, primals, needs, root, labels: _bind(reduce_p, materialize(g, ans), root=root, op="sum",
                                                        labels=labels)).defjvp_full(
    lambda primals, tangents, ans, root, labels: None if all(t is None for t in tangents) else
    _bind(broadcast_p, _zeros(tangents, primals), root=root, labels=labels)).defbatch(_same_axes(broadcast_p))


def _reduce_vjp(g, ans, primals, needs, root, op, labels):
    out = _bind(broadcast_p, materialize(g, ans), root=root, labels=labels)
    return out if op == "sum" else tuple(o / world().size for o in out)


reduce_p.defvjp_all(_reduce_vjp).defjvp_full(
    lambda primals, tangents, ans, root, op, labels: None if all(t is None for t in tangents) else
    _bind(reduce_p, _zeros(tangents, primals), root=root, op=op, labels=labels)).defbatch(_same_axes(reduce_p))


# ---- all_gather and reduce_scatter: each other's transposes -----------------------------
def _all_gather_kernel(*xs, axes, tiled, labels):
    arrays = _arrays(xs)
    stacked = world().all_gather(arrays, Call("all_gather", f"axes={axes}, tiled={tiled}", labels))
    outs = []
    for s, a, axis in zip(stacked, arrays, axes):
        xp = array_module(s)
        moved = xp.moveaxis(s, 0, axis)
        if tiled:
            moved = moved.reshape(a.shape[:axis] + (s.shape[0] * a.shape[axis],) + a.shape[axis + 1:])
        outs.append(xp.ascontiguousarray(moved))
    return tuple(outs)


def _reduce_scatter_kernel(*xs, op, axes, tiled, labels):
    arrays, n = _arrays(xs), world().size
    rows = []
    for a, axis in zip(arrays, axes):
        m = array_module(a).moveaxis(a, axis, 0)
        rows.append(m.reshape((n, m.shape[0] // n) + m.shape[1:]) if tiled else m)
    mine = world().reduce_scatter(rows, op, Call("reduce_scatter", f"op={op!r}, axes={axes}, tiled={tiled}", labels))
    return tuple(array_module(o).ascontiguousarray(array_module(o).moveaxis(o, 0, axis)) if tiled else o
                 for o, axis in zip(mine, axes))


def _moved_batch(prim):
    """The batching rule of all_gather and reduce_scatter: a batched leaf's batch axis goes
    first and its gathered (or scattered) axis one further; its output is batched along 0."""
    def rule(args, dims, axes, **params):
        moved = [a if d is None else front(a, d) for a, d in zip(args, dims)]
        shifted = tuple(ax if d is None else ax + 1 for ax, d in zip(axes, dims))
        return _bind(prim, moved, axes=shifted, **params), tuple(None if d is None else 0 for d in dims)
    return rule


all_gather_p = Collective("all_gather", _all_gather_kernel, multiple_results=True, saves="nothing",
                          torch_name="AllGather")
reduce_scatter_p = Collective("reduce_scatter", _reduce_scatter_kernel, multiple_results=True, saves="output",
                              torch_name="ReduceScatter")
all_gather_p.defvjp_all(
    lambda g, ans, primals, needs, axes, tiled, labels: _bind(
        reduce_scatter_p, materialize(g, ans), op="sum", axes=axes, tiled=tiled, labels=labels)).defjvp_full(
    lambda primals, tangents, ans, axes, tiled, labels: None if all(t is None for t in tangents) else
    _bind(all_gather_p, _zeros(tangents, primals), axes=axes, tiled=tiled, labels=labels)).defbatch(
    _moved_batch(all_gather_p))


def _reduce_scatter_vjp(g, ans, primals, needs, op, axes, tiled, labels):
    out = _bind(all_gather_p, materialize(g, ans), axes=axes, tiled=tiled, labels=labels)
    return out if op == "sum" else tuple(o / world().size for o in out)


reduce_scatter_p.defvjp_all(_reduce_scatter_vjp).defjvp_full(
    lambda primals, tangents, ans, op, axes, tiled, labels: None if all(t is None for t in tangents) else
    _bind(reduce_scatter_p, _zeros(tangents, primals), op=op, axes=axes, tiled=tiled, labels=labels)).defbatch(
    _moved_batch(reduce_scatter_p))


# ---- the public functions: pytrees in, pytrees out --------------------------------------
def _leaves(fn, tree, name, ops=None, op=None):
    """The leaves of `tree`, their labels, and the tree; refuses leaves no collective takes."""
    leaves, treedef = trees.flatten(tree)
    labels = tuple(name + "".join(f"[{k!r}]" for k in path) for path in treedef.paths())
    if ops is not None and op not in ops:
        raise ValueError(f"fgrad.distributed.{fn}: op must be one of {', '.join(map(repr, ops))}, got {op!r}")
    for leaf, label in zip(leaves, labels):
        value = peek(leaf)
        dtype = value.dtype if hasattr(value, "dtype") else np.result_type(value)
        kind = np.dtype(dtype).kind
        if kind not in "iufc":
            raise TypeError(f"fgrad.distributed.{fn}: {label} has dtype {dtype}; collectives take numbers "
                            f"(integers, floats, complex): cast it first")
        if op == "mean" and kind not in "fc":
            raise TypeError(f"fgrad.distributed.{fn}: the mean of {label}, of dtype {dtype}, is not an integer; "
                            f"cast it to a float first")
        if op in ("max", "min") and kind == "c":
            raise TypeError(f"fgrad.distributed.{fn}: {op} of {label}, of dtype {dtype}: complex numbers have no order")
    return leaves, labels, treedef


def _shape(leaf):
    """One example's shape under vmap (a traced value shows its own), as every rule sees it."""
    return tuple(leaf.shape) if hasattr(leaf, "shape") else np.shape(leaf)


def _root(fn, root):
    size = world().size
    if not isinstance(root, (int, np.integer)) or isinstance(root, bool) or not 0 <= root < size:
        raise ValueError(f"fgrad.distributed.{fn}: root must be a rank, 0 to {size - 1}, got {root!r}")
    return int(root)


def _axes(fn, leaves, labels, axis, extra):
    """Each leaf's `axis` made non-negative (`extra`: 1 where the result has one more axis)."""
    out = []
    for leaf, label in zip(leaves, labels):
        ndim = len(_shape(leaf)) + extra
        if not isinstance(axis, (int, np.integer)) or not -ndim <= axis < ndim:
            raise ValueError(f"fgrad.distributed.{fn}: axis {axis!r} is out of range for {label}, of shape "
                             f"{_shape(leaf)}")
        out.append(int(axis) % ndim)
    return tuple(out)


def all_reduce(x: PyTree, op: str = "sum", *, name: str = "x") -> PyTree:
    """Every rank's `x` combined elementwise, leaf by leaf, on every rank.

    Differentiable: its vjp is the all_reduce (sum or mean) of the cotangents.

    Parameters
    ----------
    x : pytree of arrays (or Python numbers, traced values, Tensors), the same structure,
        shapes and dtypes on every rank.
    op : "sum", "mean", "max" or "min".
    name : what messages call `x` (`x['W1']`).

    Examples
    --------
    >>> import numpy as np, fgrad.distributed as dist
    >>> dist.all_reduce({"w": np.array([1.0, 2.0])}, op="sum")["w"] * 1 / dist.world_size()
    array([1., 2.])
    """
    leaves, labels, treedef = _leaves("all_reduce", x, name, OPS, op)
    return trees.unflatten(treedef, _bind(all_reduce_p, leaves, op=op, labels=labels))


def broadcast(x: PyTree, root: int = 0, *, name: str = "x") -> PyTree:
    """Rank `root`'s `x`, on every rank (each rank passes a pytree of the same structure,
    shapes and dtypes). Its vjp sums the cotangents onto `root` (`reduce`).

    Examples
    --------
    >>> import numpy as np, fgrad.distributed as dist
    >>> dist.broadcast(np.full(2, float(dist.rank())), root=0)
    array([0., 0.])
    """
    leaves, labels, treedef = _leaves("broadcast", x, name)
    return trees.unflatten(treedef, _bind(broadcast_p, leaves, root=_root("broadcast", root), labels=labels))


def reduce(x: PyTree, root: int = 0, op: str = "sum", *, name: str = "x") -> PyTree:
    """The sum (or mean) of every rank's `x` on rank `root`, and zeros on the others. Its vjp
    is the broadcast of root's cotangents.

    Examples
    --------
    >>> import numpy as np, fgrad.distributed as dist
    >>> out = dist.reduce(np.ones(2), root=0)
    >>> bool((out == (dist.world_size() if dist.rank() == 0 else 0)).all())
    True
    """
    leaves, labels, treedef = _leaves("reduce", x, name, ("sum", "mean"), op)
    return trees.unflatten(treedef, _bind(reduce_p, leaves, root=_root("reduce", root), op=op, labels=labels))


def all_gather(x: PyTree, axis: int = 0, tiled: bool = False, *, name: str = "x") -> PyTree:
    """Every rank's `x`, stacked along a new axis `axis` (rank r's at index r), or with
    tiled=True concatenated along its axis `axis`, on every rank. Its vjp is reduce_scatter.

    Examples
    --------
    >>> import numpy as np, fgrad.distributed as dist
    >>> dist.all_gather(np.array([1.0, 2.0])).shape == (dist.world_size(), 2)
    True
    """
    leaves, labels, treedef = _leaves("all_gather", x, name)
    if tiled and any(len(_shape(leaf)) == 0 for leaf in leaves):
        raise ValueError("fgrad.distributed.all_gather: tiled=True concatenates along an axis; a 0-d leaf has none")
    axes = _axes("all_gather", leaves, labels, axis, 0 if tiled else 1)
    return trees.unflatten(treedef, _bind(all_gather_p, leaves, axes=axes, tiled=bool(tiled), labels=labels))


def reduce_scatter(x: PyTree, op: str = "sum", axis: int = 0, tiled: bool = False, *, name: str = "x") -> PyTree:
    """Every rank's `x` summed (or averaged), then split along `axis` among the ranks: rank r
    keeps index r of that axis (which must have world_size() entries), or with tiled=True its
    r-th chunk (the axis divides evenly). Its vjp is all_gather.

    Examples
    --------
    >>> import numpy as np, fgrad.distributed as dist
    >>> n = dist.world_size()
    >>> dist.reduce_scatter(np.ones((n, 3)), op="sum").tolist() == [float(n)] * 3
    True
    """
    leaves, labels, treedef = _leaves("reduce_scatter", x, name, ("sum", "mean"), op)
    axes = _axes("reduce_scatter", leaves, labels, axis, 0)
    n = world().size
    for leaf, label, ax in zip(leaves, labels, axes):
        size = _shape(leaf)[ax]
        if (size % n if tiled else size != n):
            want = f"a multiple of the {n} ranks" if tiled else f"one entry per rank ({n})"
            raise ValueError(f"fgrad.distributed.reduce_scatter: {label} has {size} entries along axis {ax}, "
                             f"but needs {want}")
    return trees.unflatten(treedef, _bind(reduce_scatter_p, leaves, op=op, axes=axes, tiled=bool(tiled),
                                          labels=labels))
