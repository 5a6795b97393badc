"""The imperative tape: ops on tensors record grad_fn nodes (PyTorch's autograd).

The bottom trace hands every op that has a Tensor among its arguments to `record`.
It runs the kernel on the tensors' arrays and, when grad mode is on and an input
requires grad, records an ordinary tape Node (the same Node and the same rules the
functional transforms use) whose `meta` is a `NodeMeta`: the PyTorch-facing extras
(a name like MulBackward0, hooks, version guards on saved values, anomaly stacks).

Note [tensors of traced values]: under a functional transform, a custom Function's forward
and backward get Tensors wrapping traced values (autograd/function.py), so that they may
use Tensor methods. Such a Tensor never requires grad; an op on it binds the primitive to
its traced values, so the current transform traces it, and wraps the result again; its
detach() stops the transform's gradient too, as the imperative face's detach() stops a
double backward.

Note [saved values are guarded]: a node remembers the version of every tensor whose
value its rule reads; an in-place change bumps the version, and backward refuses to
use a changed value instead of returning a wrong gradient.

Note [the Tensor face's complex gradients]: the rules and the engine compute JAX's
cotangents (Note [complex derivatives] in ops/conversion.py); PyTorch's gradients are
their conjugates (for a real loss, torch's `.grad` of a complex leaf is conj(jax.grad)), and
a gradient torch is given is the conjugate of the cotangent it stands for. So the Tensor
face conjugates where its gradients meet the user, and nowhere else: a `gradient=` or
`grad_outputs` coming in; `.grad`, autograd.grad's results and the gradients of non-leaf
inputs going out; every hook's arguments on the way in and its results on the way back
(tensor, node, leaf and post-accumulate hooks all see torch's convention); and a Function's
backward, given conjugated gradients and returning torch's (function.py). `flipped` is that
conjugation: the identity on real values (one dtype test), and the conj primitive on
complex ones (recorded under create_graph, so a double backward differentiates it too).
"""
import os
import traceback
import weakref

import numpy as np

from ..engine.backward import apply_rule, freed_graph_error
from ..errors import NonFiniteError
from ..ir.held import Held
from ..ir.node import KEEPS_VALUES, Aval, Edge, Node, new_node, unread
from ..ir.value import Tracer
from ..ops import primitive
from ..ops.conversion import conj
from ..ops.indexing import dense
from ..ops.primitive import OTHER, escaped_tracer_error
from ..typing import Any
from . import anomaly_mode, grad_mode, nan_check, saved_hooks

__all__ = ["AccumulateGrad", "NodeMeta", "RemovableHandle", "VersionCounter", "flipped", "record",
           "with_history"]

Tensor = None  # fgrad.autograd.tensor.Tensor, set when that module loads (it imports this one)


def flipped(g):
    """A cotangent as PyTorch's gradient, or back (Note [the Tensor face's complex gradients]):
    the conjugate of a complex one; a real one, or None, as it is."""
    return conj(g) if g is not None and g.dtype.kind == "c" else g


def _flipped_all(gs):
    return tuple(flipped(g) for g in gs) if gs.__class__ is tuple else [flipped(g) for g in gs]

class VersionCounter:
    """Counts in-place changes of a tensor's data; views share their base's counter."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


class RemovableHandle:
    """Returned by register_*hook: `.remove()` unregisters the hook."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks: list[Any], fn: Any) -> None:
        self._hooks, self._fn = hooks, fn
        hooks.append(fn)

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


class NodeMeta:
    """What the imperative face adds to a tape node."""

    __slots__ = ("name", "saved", "packed", "pre_hooks", "post_hooks", "tensor_hooks", "stack", "held")

    def __init__(self, name):
        self.name = name
        self.saved = None         # [(position or -1 for the output, VersionCounter, version)]
        self.packed = None        # {position: (packed value, unpack)} under saved_tensors_hooks
        self.pre_hooks = ()       # lists once a hook is registered
        self.post_hooks = ()
        self.tensor_hooks = None  # {output index: [hook]} from Tensor.register_hook on non-leaf tensors
        self.stack = None         # forward traceback, in anomaly mode
        self.held = None          # a Held of the NumPy arrays among the inputs that the rule reads

    def register(self, kind, fn):
        """Add fn to the "pre_hooks" or "post_hooks"; returns its removable handle."""
        hooks = getattr(self, kind)
        if not hooks:
            hooks = []
            setattr(self, kind, hooks)
        return RemovableHandle(hooks, fn)

    def check_versions(self, node):
        for pos, counter, version in self.saved or ():
            if counter.value != version:
                desc = _describe(node.out if pos < 0 else node.primals[pos])
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{desc}], which is {'output 0' if pos < 0 else f'input {pos}'} of {self.name}, "
                    f"is at version {counter.value}; expected version {version} instead. Hint: the in-place "
                    f"change happened after the value was saved for {self.name}; clone() it before modifying it.")

    def residuals(self, node, create_graph):
        primals = list(node.primals)
        out = node.out
        if self.packed is not None:  # (create_graph gives them their history below)
            outs = list(out) if out.__class__ is tuple else None
            for pos, (packed, unpack) in self.packed.items():
                value = unpack(packed)
                value = value.primal if isinstance(value, Tensor) else value
                if pos >= 0:
                    primals[pos] = value
                elif outs is None:
                    out = value
                else:
                    outs[-1 - pos] = value
            if outs is not None:
                out = tuple(outs)
        if create_graph:
            for i, t in enumerate(node.inputs):
                if t is not None and primals[i] is not None and primals[i].__class__ is not Aval:
                    primals[i] = _input_tensor(t, primals[i])
            if node.prim.multiple_results:
                out = tuple(Tensor._wrap(o, node, i) for i, o in enumerate(out))
            elif out is not None:
                out = Tensor._wrap(out, node, 0)
        return primals, out

    def plain(self, node):
        """Nothing to do beyond the rule (no hooks, packing or anomaly checks): then the engine
        applies the rule itself. The saved-value guard still runs here."""
        if self.pre_hooks or self.post_hooks or self.tensor_hooks or self.packed is not None \
                or self.stack is not None or self.held is not None \
                or (anomaly_mode.ever_enabled and anomaly_mode.active()):  # (NaN checks)
            return False
        if node.primals is None:
            raise freed_graph_error(node)
        if self.saved:
            self.check_versions(node)
        return True

    def apply(self, node, g, retain_graph, create_graph):
        if node.primals is None:
            raise freed_graph_error(node)
        self.check_versions(node)
        if self.tensor_hooks or self.pre_hooks:  # (hooks see PyTorch's convention, and give it back)
            multi = node.prim.multiple_results
            g = self._run_pre_hooks(_flipped_all(g) if multi else flipped(g), multi)
            g = _flipped_all(g) if multi else flipped(g)
        primals, out = self.residuals(node, create_graph)
        try:  # grad mode is set for the whole backward (autograd/functional.py)
            grads = [dense(x) for x in apply_rule(node, g, primals, out)]  # (hooks see arrays)
        except NonFiniteError as exc:  # (debug_nans "full": an op of the rule made a NaN)
            if exc.node is not None:
                raise
            where = f"; its forward call:\n{self.stack}" if self.stack else ""
            raise NonFiniteError(f"{exc} (in the backward of {self.name}{where})", exc.origin, node=node) from None
        except Exception as exc:
            if self.stack is not None:
                raise RuntimeError(f"Error detected in {self.name}: {type(exc).__name__}: {exc}\n"
                                   f"Traceback of forward call that caused the error:\n{self.stack}") from exc
            raise
        if anomaly_mode.check_nan_enabled():
            anomaly_mode.check_nan(self, grads)
        if anomaly_mode.nan_full:
            nan_check.check_rule(node, g, primals, grads)
        if self.post_hooks:
            outs = _flipped_all(g) if isinstance(g, (tuple, list)) else flipped(g)
            grads = _flipped_all(self._run_post_hooks(_flipped_all(grads), outs))
        if not retain_graph:
            self.release(node)
        return grads

    def release(self, node):
        """Let node's saved values go, as a backward without retain_graph does (Note [what a
        backward releases] in engine/backward.py): a node that saved nothing keeps what it has."""
        if self.saved is not None:
            node.primals = node.out = None
            self.packed = None
            if self.held is not None:
                self.held.release()

    def _run_pre_hooks(self, g, multi):
        outs = list(g) if multi else [g]
        for index, hooks in (self.tensor_hooks or {}).items():
            for hook in list(hooks):
                if outs[index] is not None:
                    outs[index] = _call_hook(hook, outs[index])
        for hook in list(self.pre_hooks):
            res = hook(tuple(_as_tensor(o) for o in outs))
            if res is not None:
                outs = _hook_results(hook, res, outs)
        return tuple(outs) if multi else outs[0]

    def _run_post_hooks(self, grads, g):
        outs = g if isinstance(g, tuple) else (g,)
        for hook in list(self.post_hooks):
            res = hook(tuple(_as_tensor(x) for x in grads), tuple(_as_tensor(x) for x in outs))
            if res is not None:
                grads = _hook_results(hook, res, grads)
        return grads


def _input_tensor(edge, primal):
    """The input as a tensor with its recorded history (for create_graph)."""
    if isinstance(edge, AccumulateGrad):
        leaf = edge.variable()
        return with_history(primal, leaf) if leaf is not None else Tensor._wrap(primal, None, 0)
    return Tensor._wrap(primal, edge.node, edge.index)


def with_history(array, like):
    """A tensor of `array` whose history is tensor `like`'s: a double backward through it reaches
    what one through `like` reaches. As PyTorch unpacks a saved tensor: the unpack hook's data,
    the saved tensor's edge (of a leaf, its AccumulateGrad)."""
    if like.primal is array:
        return like
    if like._grad_fn is not None:
        return Tensor._wrap(array, like._grad_fn, like.index)
    t = Tensor._wrap(array, None, 0)
    if like._requires_grad:
        t._requires_grad, t._accumulator = True, like.node
    return t


def _as_tensor(value):
    return value if value is None or isinstance(value, Tensor) else Tensor._wrap(value, None, 0)


def _unwrap_like(value, like):
    """A hook's result back in the engine's representation (raw array unless `like` is a Tensor)."""
    if isinstance(value, Tensor) and not isinstance(like, Tensor):
        return value.primal
    return value


def _call_hook(hook, g):
    res = hook(_as_tensor(g))
    return g if res is None else _hook_results(hook, (res,), (g,))[0]


def _hook_results(hook, results, grads):
    """A hook's replacement gradients, each checked to have the shape and dtype of the one it
    replaces (as PyTorch checks): a hook's result is not summed or broadcast to fit."""
    if len(results) != len(grads):
        raise RuntimeError(f"hook {_hook_name(hook)} returned {len(results)} gradients, but it was given "
                           f"{len(grads)}")
    out = []
    for r, g in zip(results, grads):
        if r is not None and g is not None:
            r = _unwrap_like(r, g)
            if np.shape(r) != np.shape(g) or getattr(r, "dtype", None) != getattr(g, "dtype", None):
                raise RuntimeError(f"hook {_hook_name(hook)} returned a gradient of shape {tuple(np.shape(r))} and "
                                   f"dtype {getattr(r, 'dtype', type(r).__name__)} in place of one of shape "
                                   f"{tuple(np.shape(g))} and dtype {g.dtype}; a hook must return a gradient of the "
                                   f"shape and dtype it was given (or None to keep it)")
        out.append(r)
    return out


def _hook_name(hook):
    return f"'{getattr(hook, '__qualname__', None) or type(hook).__name__}'"


class AccumulateGrad:
    """The leaf node of a tensor that requires grad: its cotangent goes into `.grad`."""

    __slots__ = ("variable", "hooks", "__weakref__")
    prim = None
    meta = None
    inputs = ()
    next_functions = ()
    index = 0  # as an edge (see Note [edges] in fgrad/ir/node.py)

    @property
    def node(self):
        return self

    def __init__(self, tensor):
        self.variable = weakref.ref(tensor)
        self.hooks = None  # NodeMeta holding pre/post hooks, made on first registration

    def _meta(self):
        if self.hooks is None:
            self.hooks = NodeMeta("AccumulateGrad")
        return self.hooks

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after the gradient is accumulated."""
        return self._meta().register("post_hooks", fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) before the gradient is accumulated; may return a new one."""
        return self._meta().register("pre_hooks", fn)

    def name(self):
        return "AccumulateGrad"

    def __repr__(self):
        return "<AccumulateGrad>"


def _describe(array):
    if array is None:  # (packed by a saved-tensor hook)
        return "a packed value"
    return f"{getattr(array, 'dtype', type(array).__name__)} {list(np.shape(array))}"


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _stack():
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE_DIR)]
    return "".join(traceback.format_list(frames))


def record(prim, args, params):
    """Run `prim` on tensors; record a grad_fn node when an input requires grad.

    The hot path of the imperative face: the node is made by a bare class call and slot
    stores (Note [bare class calls] in ir/node.py), and the thread-local modes are read in
    place (a mode getter per op costs as much as the rest of the op's bookkeeping). One or
    two arguments, one output and no saved-tensor hooks, anomaly mode or view (the common
    case) take a short path without loops; everything else is `record_general`."""
    n = len(args)
    if n > 2 or not prim.simple or not grad_mode._state.enabled or prim.view is not None \
            or (saved_hooks.ever_used and saved_hooks._state.stack) \
            or (anomaly_mode.ever_enabled and anomaly_mode.active()):
        return record_general(prim, args, params)
    a = args[0]
    ta = isinstance(a, Tensor)
    ga = ta and a._requires_grad
    if n == 1:
        if not ga:
            return record_general(prim, args, params)
        pa = a.primal
        out = prim.impl(pa, **params) if params else prim.impl(pa)
        inputs = (edge_of(a),)  # (tuples, as the functional tape: the engine splats primals into rules)
        primals = (pa if prim.keeps is KEEPS_VALUES else unread(pa, out, prim),)
    else:
        b = args[1]
        tb = isinstance(b, Tensor)
        gb = tb and b._requires_grad
        if not (ga or gb) or (not ta and isinstance(a, Tracer)) or (not tb and isinstance(b, Tracer)):
            return record_general(prim, args, params)
        pa = a.primal if ta else a
        pb = b.primal if tb else b
        out = prim.impl(pa, pb, **params) if params else prim.impl(pa, pb)
        inputs = (edge_of(a) if ga else None, edge_of(b) if gb else None)
        if prim.keeps is KEEPS_VALUES:
            primals = (pa, pb)
        else:
            primals = (unread(pa, out, prim) if ta else pa, unread(pb, out, prim) if tb else pb)
    meta = new_meta(node_name(prim, primals))
    node = Node()
    node.prim, node.params, node.inputs, node.primals, node.meta = prim, params, inputs, primals, meta
    node.out = out if prim.saves_output else None
    result = Tensor._wrap(out, node, 0)
    if prim.keeps is KEEPS_VALUES or prim.saves_output:
        meta.saved = saved_versions(prim, args, inputs, result)
        if not (ta and (n == 1 or tb)):
            hold_arrays(node, args)
    return result


def record_general(prim, args, params):
    """record for any op: any number of arguments and outputs, views, saved-tensor hooks."""
    primals = list(args)
    needs_grad = traced = False
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            p = primals[i] = a.primal
            if a._requires_grad:
                needs_grad = True
            elif p.__class__ is not np.ndarray and isinstance(p, Tracer):
                traced = True
        elif isinstance(a, Tracer):
            raise escaped_tracer_error(prim, a)
    if traced:  # Note [tensors of traced values]
        out = prim(*primals, **params)
    else:
        out = prim.impl(*primals, **params) if params else prim.impl(*primals)
        if anomaly_mode.nan_full:
            nan_check.check_op(prim, primals, out)
    if not needs_grad or prim.nondiff or not grad_mode._state.enabled:
        return _outputs(prim, out, None, args, params)
    meta = new_meta(node_name(prim, primals))
    inputs = []
    for a in args:
        inputs.append(edge_of(a) if isinstance(a, Tensor) and a._requires_grad else None)
    # As the functional tape: keep only the residuals the rules read (Primitive.saves_*); an
    # input they do not read leaves at most its shape and dtype, for fitting its cotangent.
    saves_inputs = prim.keeps is KEEPS_VALUES
    if not saves_inputs:
        primals = [unread(p, out, prim) if isinstance(a, Tensor) else p for a, p in zip(args, primals)]
    node = new_node(prim, params, inputs, primals, out if prim.saves_output or prim.multiple_results else None, meta)
    results = _outputs(prim, out, node, args, params)
    if saves_inputs or prim.saves_output:  # guard exactly the values the rules read
        meta.saved = saved_versions(prim, args, inputs, results)
        if saves_inputs:
            hold_arrays(node, args)
        if saved_hooks._state.stack:
            _pack_saved(node, args, results)
    return results


def _pack_saved(node, args, results):
    """Under saved_tensors_hooks, the node keeps what the pack hook makes of each value its rules
    read, inputs and outputs alike (as PyTorch's SavedVariable: exp saves its result), instead
    of the value; NodeMeta.residuals unpacks them in backward. A multiple-result node keeps a
    placeholder per output (the engine counts a node's outputs by its `out`)."""
    packed = node.meta.packed = {}
    for pos, _, _ in node.meta.saved:
        if pos >= 0:
            packed[pos] = saved_hooks.pack(args[pos])
            node.primals[pos] = None
    if node.prim.saves_output:
        if node.prim.multiple_results:
            for i, r in enumerate(results):
                packed[-1 - i] = saved_hooks.pack(r)
            node.out = (None,) * len(results)
        else:
            packed[-1] = saved_hooks.pack(results)
            node.out = None


def hold_arrays(node, args):
    """The arrays among a node's inputs that are not tensors (tensors have versions) stay
    read-only until its backward has run or it dies (Note [what fgrad keeps is read-only]);
    the node keeps a copy of a CuPy array instead."""
    meta, primals = node.meta, node.primals
    kept = list(primals)
    for i, (a, p) in enumerate(zip(args, primals)):
        if not isinstance(a, Tensor) and hasattr(p, "shape"):
            if meta.held is None:
                meta.held = Held()
            kept[i] = meta.held.keep(p)
    if any(k is not p for k, p in zip(kept, primals)):
        node.primals = kept


def saved_versions(prim, args, inputs, results):
    """The (position, counter, version) of each tensor whose value the rules read
    (Note [saved values are guarded]); position -1 is the output."""
    saved = []
    if prim.keeps is KEEPS_VALUES:
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and _value_needed(prim, inputs, i):
                counter = a._version_counter
                saved.append((i, counter, counter.value))
    if prim.saves_output and not prim.multiple_results:
        saved.append((-1, results._version_counter, 0))
    return saved


def node_name(prim, primals):
    """The PyTorch-style name of `prim`'s node (MulBackward0): as its declaration says, a name
    or a function of the primals (matmul's: Mm, Mv, Dot)."""
    name = prim.node_name
    return name if name.__class__ is str else name(primals)


def new_meta(name):
    """A NodeMeta; in anomaly mode it remembers the user's forward traceback."""
    meta = NodeMeta(name)
    if anomaly_mode.ever_enabled and anomaly_mode.active():
        meta.stack = _stack()
    return meta


def edge_of(tensor):
    """The edge a node records for an input tensor: the leaf's AccumulateGrad, or its grad_fn
    (an Edge for any output of a multiple-result node, as Note [edges] in ir/node.py says).
    Fixed at record time: a later in-place op gives the tensor a new history, but this node
    must keep the old one."""
    grad_fn = tensor._grad_fn
    if grad_fn is None:
        return tensor.node
    return grad_fn if tensor.index == 0 and not grad_fn.prim.multiple_results else Edge(grad_fn, tensor.index)


def _value_needed(prim, inputs, i):
    """Does a rule read input i's value? Where both partials are OTHER (multiply's), only the
    other input's rule does, so only if that input carries gradient."""
    partials = prim.partials
    if partials is not None and len(partials) == 2 and partials[0] is OTHER and partials[1] is OTHER:
        return inputs[1 - i] is not None
    return True


def register_view(view, base):
    """Record `view` (made by a view primitive from `base`) among the views of the tensor
    that owns their memory, in creation order (Note [views follow their base] in tensor.py)."""
    root = base
    while root._view is not None:
        root = root._view[0]
    views = root._views
    if views is None:
        root._views = [weakref.ref(view)]
        return
    if len(views) >= 8 and len(views) & (len(views) - 1) == 0:  # now and then, forget the dead ones
        views[:] = [r for r in views if r() is not None]
    views.append(weakref.ref(view))


def _outputs(prim, out, node, args, params):
    if prim.multiple_results:
        return tuple(Tensor._wrap(o, node, i) for i, o in enumerate(out))
    result = Tensor._wrap(out, node, 0)
    if prim.view is not None and isinstance(args[0], Tensor) and getattr(result.primal, "base", None) is not None:
        result._version_counter = args[0]._version_counter
        result._view = (args[0], prim, params)
        register_view(result, args[0])
    return result


primitive.record_tensor_op = record  # the bottom trace hands ops on tensors to the tape

