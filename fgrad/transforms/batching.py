"""vmap: batching as a transform.

A `BatchTracer` holds every example of a value at once, stacked along its axis `bdim`, and
shows one example's shape. Each op on the tracers of a fresh `BatchTrace` runs its
primitive's batching rule (`Primitive.batch`, declared with the primitive) on the stacked
values, under the parent trace: the rule is fgrad ops, so an outer transform differentiates
it, and derivative rules run batched without change (a rule is fgrad ops too). Nothing
loops over the examples; the batch axis moves only where an op needs it elsewhere.
"""
import numpy as np
import optree
from numpy import ndarray

from ..config import config
from ..ir.value import BatchTracer, Tracer
from ..ops.axes import expand_dims, moveaxis
from ..ops.broadcasting import broadcast_to
from ..ops.indexing import getitem
from ..ops.primitive import Trace, _state, pop_trace, push_trace
from ..ops.shape import concatenate
from ..tree_util import NAMESPACE, tree_leaves, tree_structure
from ..typing import Any, Callable, P, PyTree
from . import checks, debug_nans, faces, trees

__all__ = ["BatchTrace", "BatchTracer", "keeping", "leaf_axes", "vmap"]


class BatchTrace(Trace):
    """Runs each primitive's batching rule on the stacked values of its tracers."""

    __slots__ = ("size",)

    def process(self, prim, args, params):
        # One pass: each argument's stacked value and batch axis (None for anything else, a
        # constant to this trace), and whether a Tensor of a traced value is among them. With
        # none of this trace's values, the op goes down (the bottom trace unwraps Tensors).
        primals, dims, mine, faced = [], [], False, False
        for a in args:
            if a.__class__ is BatchTracer and a._trace is self:
                primals.append(a.primal)
                dims.append(a.bdim)
                mine = True
                continue
            if a.__class__ is not ndarray and faces.is_traced_tensor(a):
                faced = True
            primals.append(a)
            dims.append(None)
        if not mine:
            return self.parent.process(prim, args, params)
        if faced:
            return faces.through_faces(prim, args, params)
        rule = prim.batch
        if rule is None:
            raise NotImplementedError(f"fgrad: vmap has no batching rule for the primitive {prim.name}; declare one "
                                      f"with its kernel (Primitive(..., batch=rule), ops/batching.py)")
        state = _state  # (the rule runs under the parent trace)
        prev, state.trace = state.trace, self.parent
        try:
            out, out_dim = rule(primals, dims, **params)
        finally:
            state.trace = prev
        if prim.multiple_results:
            if not isinstance(out_dim, tuple):
                out_dim = (out_dim,) * len(out)
            return tuple(self.wrap(o, d) for o, d in zip(out, out_dim))
        return self.wrap(out, out_dim)

    def process_custom(self, custom, args):
        return custom.process_batch(self, args)

    def wrap(self, value, bdim):
        """`value` (every example, stacked along `bdim`) as this trace's value; None: unbatched."""
        if bdim is None:
            return value
        t = BatchTracer()
        t._trace, t.primal, t.bdim = self, value, bdim
        return t


class _Unmapped:
    """Stands for None in an axes spec while optree matches it (optree reads None as no subtree)."""

    def __repr__(self):
        return "None"


_UNMAPPED = _Unmapped()


def _check_spec(spec, name):
    for leaf in optree.tree_leaves(spec, none_is_leaf=True, namespace=NAMESPACE):
        if leaf is not None and (not isinstance(leaf, (int, np.integer)) or isinstance(leaf, bool)):
            raise TypeError(f"vmap: {name} must be an int, None, or a tuple/list/dict of them matching the "
                            f"{'arguments' if name == 'in_axes' else 'outputs'}, but it holds {leaf!r}")


def leaf_axes(spec, tree, name, what):
    """The axis (or None) of each leaf of `tree`, from `spec`, a prefix of it (JAX's rule)."""
    if spec is None or isinstance(spec, (int, np.integer)):
        return [spec] * len(trees.flatten(tree)[0])
    marked = optree.tree_map(lambda a: _UNMAPPED if a is None else a, spec, none_is_leaf=True, namespace=NAMESPACE)
    try:
        full = optree.tree_broadcast_prefix(marked, tree, none_is_leaf=False, namespace=NAMESPACE)
    except ValueError as exc:
        raise ValueError(f"vmap: {name}={spec!r} does not match the structure of the {what} "
                         f"({tree_structure(tree)}): {exc}") from None
    return [None if a is _UNMAPPED else a for a in tree_leaves(full)]


def _in_axes(in_axes, args, kwargs, n_leaves):
    """Per leaf of (args, kwargs), `n_leaves` of them: its batch axis or None. Keyword arguments
    map along 0, as in JAX."""
    if not kwargs and (in_axes is None or isinstance(in_axes, int)):  # (the common case)
        return [in_axes] * n_leaves
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(in_axes)} entries, but the function was called with "
                             f"{len(args)} positional argument(s); give one entry per argument (or one int for all)")
        in_axes = tuple(in_axes)
    return leaf_axes(in_axes, args, "in_axes", "positional arguments") + [0] * len(trees.flatten(kwargs)[0])


def _label(treedef, i):
    """The name of leaf i of the (args, kwargs) tree, for messages: args[1]['w'], kwargs['b']."""
    path = treedef.paths()[i]
    return ("args" if path[0] == 0 else "kwargs") + "".join(f"[{p!r}]" for p in path[1:])


def _axis(value, axis, treedef, i):
    """`axis` normalized against `value`'s rank (a negative one counts from the end)."""
    ndim = np.ndim(value)
    if not -ndim <= axis < ndim:
        raise ValueError(f"vmap: in_axes maps {_label(treedef, i)} along axis {axis}, but it has shape "
                         f"{tuple(np.shape(value))} (rank {ndim}); a mapped value needs that axis")
    return axis % ndim


def _size(leaves, axes, treedef, axis_size):
    sizes = [(np.shape(x)[a], a, i) for i, (x, a) in enumerate(zip(leaves, axes)) if a is not None]
    found = {s for s, _, _ in sizes}
    if axis_size is not None:
        found.add(axis_size)
    if len(found) > 1:
        lines = "; ".join(f"{_label(treedef, i)} has size {s} along axis {a}" for s, a, i in sizes)
        extra = f"; axis_size is {axis_size}" if axis_size is not None else ""
        raise ValueError(f"vmap got inconsistent sizes for the mapped axes: {lines}{extra}")
    if not found:
        raise ValueError("vmap: in_axes maps no argument (every entry is None), so the batch size is unknown; "
                         "map at least one argument, or pass axis_size")
    return found.pop()


def _out_axis(axis, ndim, out_tree, i):
    """`axis` for output leaf i, whose batched rank is `ndim`, normalized (a negative one counts
    from the end); out of range raises, as in JAX (NumPy's moveaxis would wrap it silently)."""
    if not -ndim <= axis < ndim:
        raise ValueError(f"vmap: out_axes gives {trees.leaf_labels(out_tree, 'output')[i]} axis {axis}, but its "
                         f"batched rank is {ndim} (one example's rank is {ndim - 1}), so its batch axis must be in "
                         f"[{-ndim}, {ndim - 1}]")
    return axis % ndim


def _place(value, bdim, axis, size, out_tree, i):
    """Output leaf i (batched along `bdim`, or not batched: None) with its batch axis at `axis`
    (broadcast there if it has none)."""
    if bdim is not None:
        if axis is None:
            raise ValueError(f"vmap: out_axes is None for {trees.leaf_labels(out_tree, 'output')[i]}, but it depends "
                             f"on the mapped inputs (it differs between examples); give it an axis")
        return moveaxis(value, bdim, _out_axis(axis, value.ndim, out_tree, i))
    if axis is None:
        return value
    if not hasattr(value, "ndim"):
        value = np.asarray(value)
    axis = _out_axis(axis, value.ndim + 1, out_tree, i)
    shape = tuple(value.shape)
    return broadcast_to(expand_dims(value, axis), shape=shape[:axis] + (size,) + shape[axis:])


def _call(fun, leaves, axes, treedef, size):
    """fun on the (args, kwargs) tree of `leaves`, the mapped ones batched: (its output, its
    leaves, each leaf's batch axis or None, the output tree); batched leaves are unwrapped."""
    trace = push_trace(BatchTrace, "vmap")
    trace.size = size
    try:
        ins = [x if a is None else trace.wrap(x, a) for x, a in zip(leaves, axes)]
        # A mapped Tensor stays a Tensor inside (its Tensor methods, and grad, jacrev or hessian
        # of a Tensor function under vmap see a Tensor, as with torch.func); an unmapped one is
        # passed as it is.
        ins = faces.faced(ins, [x if a is not None else None for x, a in zip(leaves, axes)])
        args, kwargs = trees.unflatten(treedef, ins)
        out = fun(*args, **kwargs)
    finally:
        pop_trace(trace)
    out_leaves, out_tree = trees.flatten(out)
    values, dims = [], []
    for o in out_leaves:
        o = faces.unfaced(o)  # (a Tensor of a traced value: the value)
        mine = isinstance(o, Tracer) and o._trace is trace
        values.append(o.primal if mine else o)
        dims.append(o.bdim if mine else None)
    return out, values, dims, out_tree


def _run(fun, leaves, axes, treedef, size, out_axes):
    """fun on the batched leaves; its output leaves placed by out_axes."""
    out, values, dims, out_tree = _call(fun, leaves, axes, treedef, size)
    oaxes = [out_axes] * len(values) if out_axes is None or isinstance(out_axes, int) else \
        leaf_axes(out_axes, out, "out_axes", "outputs")
    return [_place(v, d, a, size, out_tree, i) for i, (v, d, a) in enumerate(zip(values, dims, oaxes))], oaxes, \
        out_tree


def _inputs(in_axes, axis_size, args, kwargs):
    """(leaves of (args, kwargs), each one's batch axis or None, their tree, the batch size)."""
    leaves, treedef = trees.flatten((args, kwargs))
    for i, x in enumerate(leaves):
        if x.__class__ is not ndarray and isinstance(x, ndarray):  # (Note [masked arrays and matrices are refused])
            checks.check_plain_array(x, _label(treedef, i), "vmap")
    axes = _in_axes(in_axes, args, kwargs, len(leaves))
    axes = [None if a is None else _axis(x, a, treedef, i) for i, (x, a) in enumerate(zip(leaves, axes))]
    return leaves, axes, treedef, _size(leaves, axes, treedef, axis_size)


def keeping(fun, in_axes):
    """`fun` vmapped over `in_axes`, for custom rules (transforms/custom.py): a function giving
    (output leaves, each one's batch axis: 0, or None for a leaf that is not batched, which is
    returned as it is (a residual that is not an array, too), the output tree)."""
    def call(*args):
        leaves, axes, treedef, size = _inputs(in_axes, None, args, {})
        _, values, dims, out_tree = _call(fun, leaves, axes, treedef, size)
        return ([v if d is None else moveaxis(v, d, 0) for v, d in zip(values, dims)],
                [None if d is None else 0 for d in dims], out_tree)
    return call


def _chunk(x, axis, start, stop):
    return getitem(x, index=(slice(None),) * axis + (slice(start, stop),))


_UNSET = object()


def vmap(fun: Callable[P, Any], in_axes: PyTree = 0, out_axes: PyTree = 0, axis_size: int | None = None,
         chunk_size: int | None = None, *, in_dims: PyTree = _UNSET, out_dims: PyTree = _UNSET) -> Callable[P, PyTree]:
    """`fun` mapped over an axis of its arguments: one call on stacked examples, as JAX's vmap
    (and torch.vmap: the keywords in_dims and out_dims are its names of in_axes and out_axes).

    in_axes: the mapped axis of each positional argument: an int (negative counts from the
    end) or None (not mapped), or a tuple of them, one per argument, each a prefix pytree of
    its argument. Keyword arguments are mapped along axis 0. out_axes: where the mapped axis
    goes in each output, in the same form. axis_size: the batch size, needed only when no
    argument is mapped. chunk_size: map at most this many examples at a time (bounding
    memory); the result is the same.

    Examples
    --------
    >>> fgrad.vmap(fnp.dot)(np.ones((3, 2)), np.arange(6.0).reshape(3, 2))  # a dot per row
    array([1., 5., 9.])
    >>> fgrad.vmap(fgrad.grad(lambda x: x ** 3))(np.array([1.0, 2.0]))  # per-example gradients
    array([ 3., 12.])
    """
    in_axes = in_axes if in_dims is _UNSET else in_dims
    out_axes = out_axes if out_dims is _UNSET else out_dims
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be a positive int or None, got {chunk_size!r}")

    def vmapped(*args, **kwargs):
        if config.debug_nans and not debug_nans.state.busy:  # (Note [NaN provenance])
            return debug_nans.checked_call("vmap", lambda t: vmapped(*t[0], **t[1]), [args, kwargs])
        leaves, axes, treedef, size = _inputs(in_axes, axis_size, args, kwargs)
        if chunk_size is None or chunk_size >= size:
            outs, _, out_tree = _run(fun, leaves, axes, treedef, size, out_axes)
            return trees.unflatten(out_tree, faces.plain_values(outs, leaves))
        pieces = []
        for start in range(0, size, chunk_size):
            stop = min(start + chunk_size, size)
            part = [x if a is None else _chunk(x, a, start, stop) for x, a in zip(leaves, axes)]
            pieces.append(_run(fun, part, axes, treedef, stop - start, out_axes))
        _, oaxes, out_tree = pieces[0]
        outs = []
        for i, a in enumerate(oaxes):
            parts = [p[0][i] for p in pieces]
            outs.append(parts[0] if a is None else concatenate(*parts, axis=a % parts[0].ndim))
        return trees.unflatten(out_tree, faces.plain_values(outs, leaves))
    return trees.wraps(vmapped, fun, "vmap")

