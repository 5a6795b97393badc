"""fgrad.autograd.Function: user-defined forward and backward, PyTorch style.

`MyOp.apply(*args)` on tensors runs `forward(ctx, *args)` without recording, then
records one node whose rule calls `backward(ctx, *grads)`: an ordinary tape node, so
the engine, hooks, retain_graph and create_graph treat it like any primitive. Under a
functional transform (fgrad.grad of a function calling MyOp.apply) the Function acts
as a custom_vjp (and uses its `jvp` staticmethod, if defined, for forward mode). Under vmap
its `vmap` staticmethod, if defined, batches it, as torch's; else vmap batches forward and
backward themselves (torch's generate_vmap_rule=True, which fgrad needs not be told).

Note [a Function's saved outputs]: forward runs without recording, so an output it saves
(Exp's `ctx.save_for_backward(result)`) has no history when it is saved. As PyTorch's
SavedVariable does, apply remembers which saved tensors are outputs; under create_graph
`saved_tensors` gives them as the recorded outputs, with the Function's node as their
history, so a double backward differentiates through them (else Exp's second derivative
would be 0). Each output shares its version counter with the tensor forward returned, so an
in-place change of the output after apply is caught. Under saved_tensors_hooks every saved
tensor goes through the pack hook at apply and the unpack hook in backward, and an unpacked
output or input keeps that history (tape.with_history).
"""
import collections
import functools
from typing import TypeVar

import numpy as np

from ..ir.node import new_node
from ..ir.value import BatchTracer, Tracer, peek
from ..ops import primitive
from ..ops.primitive import EVAL, Primitive, current_trace
from ..ops.zeros import materialize
from ..transforms import faces, trees
from ..transforms.batching import BatchTrace
from ..transforms.custom import custom_vjp
from ..transforms.forward import dual
from ..transforms.reverse import vjp
from ..typing import Any, Callable, Iterable
from . import forward_ad, saved_hooks
from .forward_ad import DualLevel
from .grad_mode import is_grad_enabled, no_grad
from .tape import edge_of, flipped, new_meta, with_history
from .tensor import Tensor

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The `ctx` of forward/backward: saved tensors and flags.

    Examples
    --------
    >>> class Scale(fgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x, k):
    ...         ctx.k = k  # anything not a Tensor is kept on ctx
    ...         return x * k
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         return g * ctx.k, None
    >>> x = fgrad.tensor([1.0], requires_grad=True)
    >>> Scale.apply(x, 3.0).sum().backward(); x.grad
    tensor([3.])
    """

    def __init__(self, needs_input_grad: Iterable[bool] = ()) -> None:
        self.needs_input_grad = tuple(needs_input_grad)
        self._saved = ()
        self._kept = None       # per saved value (output index, input index, packed, unpack), set by apply
        self._residuals = None  # (primals, outputs) while backward runs
        self._non_differentiable = set()
        self._constants = ()  # positions of forward's outputs that are not arrays (Python numbers, None)
        self.materialize_grads = True

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward; an in-place change to one of them afterwards is an error."""
        self._saved = tuple((t, t._version_counter.value) if isinstance(t, Tensor) else (t, None) for t in tensors)

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The tensors given to save_for_backward, in order (unpacked by saved-tensor hooks where set).

        Raises RuntimeError when one was changed in place after it was saved.
        """
        out = []
        for i, (t, version) in enumerate(self._saved):
            if version is not None and t._version_counter.value != version:
                raise RuntimeError(f"one of the variables needed for gradient computation has been modified by an "
                                   f"inplace operation: saved tensor {i} of shape {tuple(t.shape)} is at version "
                                   f"{t._version_counter.value}; expected version {version} instead.")
            out.append(t if self._kept is None else _unpacked(self, i, t))
        return tuple(out)

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Declare outputs of forward that have no gradient (indices, masks): they do not require grad,
        and backward gets no gradient of theirs to pass on (zeros, or None without materialize_grads).
        """
        self._non_differentiable.update(id(o) for o in outputs)

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward receives None (not zeros) for the gradient of an output that got none;
        the default is True, as torch's.
        """
        self.materialize_grads = bool(value)

    def mark_dirty(self, *tensors: Any) -> None:
        """Declare inputs forward modified in place. Accepted for torch's API; fgrad's version counters
        already record the change, so it does nothing.
        """
        pass  # in-place outputs: version counters already record the change


def _raw(value):
    return value.primal if isinstance(value, Tensor) else value


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grad_outputs); call MyOp.apply.

    Examples
    --------
    >>> class Exp(fgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         y = x.exp(); ctx.save_for_backward(y)
    ...         return y
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (y,) = ctx.saved_tensors
    ...         return g * y
    >>> x = fgrad.tensor([0.0, 1.0], requires_grad=True)
    >>> Exp.apply(x).sum().backward(); x.grad
    tensor([1.        , 2.71828183])
    """

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        """Override (a staticmethod): forward(ctx, *args) computes the outputs from the inputs, with
        Tensors' values, not recorded; save what backward needs with ctx.save_for_backward. In torch 2's
        style (setup_context defined) it is forward(*args). Raises NotImplementedError when not overridden.
        """
        raise NotImplementedError("Function subclasses must implement the static method forward(ctx, *args)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        """Override (a staticmethod): backward(ctx, *grad_outputs), one gradient per output of forward,
        returns one gradient per input of forward (None for inputs without one). Raises
        NotImplementedError when not overridden.
        """
        raise NotImplementedError("Function subclasses must implement the static method backward(ctx, *grads)")

    @classmethod
    def _primitive(cls):
        prim = cls.__dict__.get("_fgrad_prim")
        if prim is None:
            prim = Primitive(cls.__name__, None, multiple_results=True, register=False)
            prim.defvjp_all(lambda g, ans, primals, needs, ctx: _call_backward(
                cls, ctx, _output_grads(ctx, g, ans), primals, ans))
            cls._fgrad_prim = prim
        return prim

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple[Any, ...], output: Any) -> Any:
        """torch 2's style: define it (static, setup_context(ctx, inputs, output)) and write
        forward(*args) without ctx; forward then runs first and setup_context fills ctx."""
        raise NotImplementedError("setup_context is not overridden: forward takes ctx")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run the Function on `args`: forward, recorded as one node whose backward is the subclass's
        backward. Works on Tensors, and inside fgrad's transforms (grad, vjp, vmap with a `vmap`
        staticmethod, forward_ad with a `jvp` one). Returns forward's outputs as Tensors.
        """
        trace = current_trace()
        if trace.__class__ is DualLevel:  # (forward_ad: the primals are Tensors; Note [dual tensors])
            return _apply_dual(cls, trace, args)
        if trace.__class__ is BatchTrace and getattr(cls, "vmap", None) is not None:
            return _apply_vmap_rule(cls, trace, args)
        if trace is not EVAL or any(isinstance(a, Tracer) and not isinstance(a, Tensor) for a in args):
            return _apply_traced(cls, args)
        return _apply_on_tensors(cls, args)


def _forward(cls, ctx, args):
    """Run the user's forward: forward(ctx, *args), or in torch 2's style (setup_context defined)
    forward(*args), then setup_context(ctx, args, output), as torch runs them (in no_grad mode)."""
    if cls.setup_context is Function.setup_context:
        return cls.forward(ctx, *args)
    output = cls.forward(*args)
    cls.setup_context(ctx, tuple(args), output)
    return output


def _output_grads(ctx, g, outs):
    """The output gradients backward gets: None for an output that is not an array (a Python
    number forward returned is a constant, as in torch), zeros for a zero one unless
    ctx.set_materialize_grads(False)."""
    g = materialize(g, outs) if ctx.materialize_grads else g
    return tuple(None if i in ctx._constants else x for i, x in enumerate(g)) if ctx._constants else g


def _is_constant(output):
    """Is a forward output a constant (not a Tensor or an array: a Python number, None), which
    apply returns as it is, as torch does?"""
    return not isinstance(output, Tensor) and not hasattr(output, "shape")


def _apply_dual(cls, level, args):
    """Function.apply under forward_ad's dual level, as torch runs a Function in forward mode:
    forward runs once on the primals (recording the node for backward, as on Tensors), and the
    Function's jvp(ctx, *tangents), with the same ctx, gives the outputs' tangents."""
    unpacked = [forward_ad.unpack_dual(a) if isinstance(a, Tensor) else (a, None) for a in args]
    if all(t is None for _, t in unpacked):
        return _apply_on_tensors(cls, args)
    if getattr(cls, "jvp", None) is None:  # (defined on the class or inherited from a base Function)
        raise NotImplementedError(f"{cls.__name__}: forward-mode AD (a dual Tensor of forward_ad among its "
                                  f"inputs) needs the Function's jvp staticmethod, jvp(ctx, *tangents), one "
                                  f"tangent per input, returning one per output")
    primals = [p for p, _ in unpacked]
    ctx = FunctionCtx(tuple(isinstance(p, Tensor) and p.requires_grad for p in primals))
    result = _apply_on_tensors(cls, primals, ctx)
    zeros = [Tensor._wrap(np.zeros_like(p.primal), None, 0) if t is None and isinstance(p, Tensor) else t
             for p, t in unpacked]
    with no_grad():
        t_out = cls.jvp(ctx, *zeros)
    outs, t_outs = (result, t_out) if isinstance(result, tuple) else ((result,), (t_out,))
    if len(t_outs) != len(outs):
        raise RuntimeError(f"{cls.__name__}.jvp returned {len(t_outs)} tangents for {len(outs)} outputs")
    duals = []
    for i, (o, t) in enumerate(zip(outs, t_outs)):
        if t is None or not isinstance(o, Tensor) or id(o) in ctx._non_differentiable:
            duals.append(o)
            continue
        t = t if isinstance(t, Tensor) else Tensor._wrap(np.asarray(t), None, 0)
        if tuple(t.shape) != tuple(o.shape) or t.dtype != o.dtype:
            raise RuntimeError(f"{cls.__name__}.jvp returned a tangent of shape {tuple(t.shape)} and dtype {t.dtype} "
                               f"for output {i}, of shape {tuple(o.shape)} and dtype {o.dtype}")
        duals.append(level.tensor(dual(level, o, t)))
    return tuple(duals) if isinstance(result, tuple) else duals[0]


VmapInfo = collections.namedtuple("VmapInfo", ["batch_size", "randomness"])


def _apply_vmap_rule(cls, trace, args):
    """Function.apply under vmap of a Function with a vmap staticmethod, as torch's: the rule,
    vmap(info, in_dims, *args), gets every example at once (a batched argument as its stacked
    Tensor, its batch dimension in in_dims, None for the others) and returns the outputs with
    their batch dimensions (an int or None each, or one for all)."""
    values = [faces.unfaced(a) for a in args]
    in_dims = tuple(v.bdim if v.__class__ is BatchTracer and v._trace is trace else None for v in values)
    if all(d is None for d in in_dims):
        return _apply_traced(cls, args)
    stacked = [v if d is None else v.primal if isinstance(v.primal, Tracer) else Tensor._wrap(v.primal, None, 0)
               for v, d in zip(values, in_dims)]
    state = primitive._state  # (the rule runs beneath this vmap, as a batching rule does)
    prev, state.trace = state.trace, trace.parent
    try:
        result = cls.vmap(VmapInfo(trace.size, "error"), in_dims, *stacked)
    finally:
        state.trace = prev
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{cls.__name__}.vmap must return (outputs, out_dims), got {type(result).__name__}")
    out, out_dims = result
    outs = out if isinstance(out, tuple) else (out,)
    dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(outs)
    if len(dims) != len(outs):
        raise RuntimeError(f"{cls.__name__}.vmap returned {len(dims)} out_dims for {len(outs)} outputs")
    faced = any(v is not a for v, a in zip(values, args))
    wrapped = [trace.wrap(o, d if d is None else d % o.ndim) for o, d in zip(outs, dims)]
    wrapped = [faces.tensor_face(w) if faced and w.__class__ is BatchTracer else w for w in wrapped]
    return tuple(wrapped) if isinstance(out, tuple) else wrapped[0]


def _apply_traced(cls, args):
    """Under a transform: the Function as a custom_vjp of the traced values. A Tensor of a traced
    value (what vmap or grad of a Tensor function passes: Note [tensors of traced values] in
    tape.py) gives its value, and then the traced results are Tensors again."""
    values = [faces.unfaced(a) for a in args]
    out = _as_custom_vjp(cls)(*values)
    faced = any(v is not a for v, a in zip(values, args))

    def result(o):  # (a Python number forward returned is a constant: returned as it is, as on Tensors)
        if isinstance(o, Tracer) and _is_constant(peek(o)):
            return peek(o)
        return faces.tensor_face(o) if faced and isinstance(o, Tracer) and not isinstance(o, Tensor) else o
    return tuple(result(o) for o in out) if isinstance(out, tuple) else result(out)


def _apply_on_tensors(cls, args, ctx=None):
    needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    ctx = FunctionCtx(needs) if ctx is None else ctx
    with no_grad():
        result = _forward(cls, ctx, args)
    multi = isinstance(result, tuple)
    outs = result if multi else (result,)
    raw = tuple(np.asarray(_raw(o)) if not hasattr(_raw(o), "shape") else _raw(o) for o in outs)
    ctx._constants = frozenset(i for i, o in enumerate(outs) if _is_constant(o))
    if not (any(needs) and is_grad_enabled()):
        wrapped = tuple(o if isinstance(o, Tensor) or _is_constant(o) else Tensor._wrap(o, None, 0) for o in outs)
        return wrapped if multi else wrapped[0]
    inputs = [edge_of(a) if need else None for a, need in zip(args, needs)]
    primals = [_raw(a) for a in args]
    node = new_node(cls._primitive(), {"ctx": ctx}, inputs, primals, raw, new_meta(f"{cls.__name__}Backward"))
    wrapped = tuple(Tensor._wrap(r, None if id(o) in ctx._non_differentiable else node, i)
                    for i, (o, r) in enumerate(zip(outs, raw)))
    for o, w in zip(outs, wrapped):
        if isinstance(o, Tensor) and o.primal is w.primal:  # (one array: one version counter)
            w._version_counter = o._version_counter
    _keep_saved(ctx, args, outs, wrapped)
    if ctx._saved:  # (a backward releases it: Note [what a backward releases] in engine/backward.py)
        node.meta.saved = node.meta.saved or []
    if ctx._constants:  # (returned as they are, as torch does: no gradient flows through a number)
        wrapped = tuple(o if i in ctx._constants else w for i, (o, w) in enumerate(zip(outs, wrapped)))
    return wrapped if multi else wrapped[0]


def _keep_saved(ctx, args, outs, wrapped):
    """Note [a Function's saved outputs]: mark the saved tensors that are recorded outputs or
    inputs, and under saved_tensors_hooks pack every saved tensor (the pack hook gets the
    recorded output) and keep only what the hook made of it."""
    hooks = saved_hooks.ever_used and saved_hooks.current() is not None
    kept, saved = [], list(ctx._saved)
    for k, (t, version) in enumerate(saved):
        out = inp = packed = unpack = None
        if isinstance(t, Tensor):
            out = next((i for i, o in enumerate(outs) if o is t and wrapped[i]._grad_fn is not None), None)
            inp = next((i for i, a in enumerate(args) if a is t), None)
            if hooks:
                packed, unpack = saved_hooks.pack(t if out is None else wrapped[out])
                saved[k] = (_Released(t), version)
        kept.append((out, inp, packed, unpack))
    if hooks or any(entry[0] is not None for entry in kept):
        ctx._saved, ctx._kept = tuple(saved), kept


class _Released:
    """What a Function keeps of a saved tensor that a pack hook took: its version, for the guard."""

    __slots__ = ("_version_counter", "shape")

    def __init__(self, t):
        self._version_counter, self.shape = t._version_counter, t.shape


def _unpacked(ctx, k, t):
    """Saved tensor k of a recorded Function, as backward sees it (Note [a Function's saved
    outputs]): unpacked if a hook packed it; under create_graph (grad mode on in backward), with
    the history of the output or input it is."""
    out, inp, packed, unpack = ctx._kept[k]
    primals, outs = ctx._residuals or ((), ())
    if packed is not None:
        value = unpack(packed)
        array = value.primal if isinstance(value, Tensor) else value
        t = Tensor._wrap(array, None, 0)
    if is_grad_enabled():  # create_graph
        like = outs[out] if out is not None and out < len(outs) else primals[inp] if inp is not None else None
        if isinstance(like, Tensor):
            return with_history(t.primal, like)
    return t


_Backward = TypeVar("_Backward", bound=Callable[..., Any])  # (once_differentiable keeps backward's type)


def once_differentiable(backward: _Backward) -> _Backward:
    """Decorate a Function's backward that is not differentiable itself: it runs without
    recording, and differentiating its results again (after create_graph=True) raises, as
    torch's, instead of silently giving zero.

    Examples
    --------
    >>> class Square(fgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @fgrad.autograd.once_differentiable
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = fgrad.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).sum().backward(); x.grad
    tensor([6.])
    """
    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with no_grad():
            result = backward(ctx, *grads)
        if not is_grad_enabled() or not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
            return result
        marked = _second_refused(_as_tuple(result), _TWICE)  # (leaves that require grad: _Twice records)
        return marked if isinstance(result, tuple) else marked[0]
    return wrapper


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


class _Twice(Function):
    """The value unchanged; its backward raises `message`: a derivative that was not recorded
    must not count as zero in a second one."""

    @staticmethod
    def forward(ctx, x, message):
        ctx.message = message
        return x.detach().clone()

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError(ctx.message)


def _second_refused(values, message):
    """values (a tuple) as aliases that require grad, whose backward raises `message`."""
    return tuple(_Twice.apply(v.detach().requires_grad_(True), message) if isinstance(v, Tensor) else v
                 for v in values)


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


def _call_backward(cls, ctx, g, primals, outs):
    """Run the user's backward, in PyTorch's convention for complex gradients (given the
    conjugates of the cotangents, its results conjugated back: Note [the Tensor face's complex
    gradients] in tape.py); check the number and shapes of its gradients."""
    name = f"{cls.__name__}Backward"
    tensor_mode = any(isinstance(x, Tensor) for x in g)
    ctx._residuals = (primals, outs)  # (for saved_tensors: Note [a Function's saved outputs])
    try:
        grads = cls.backward(ctx, *[x if isinstance(x, Tensor) or not hasattr(x, "shape") or isinstance(x, Tracer)
                                    else Tensor._wrap(x, None, 0) for x in _torch_grads(g)])
    finally:
        ctx._residuals = None
    grads = _torch_grads(_as_gradients(cls, grads, len(primals)))
    out = []
    for i, (gi, p) in enumerate(zip(grads, primals)):
        if gi is None:
            out.append(None)
            continue
        if np.shape(peek(gi)) != np.shape(peek(p)):
            raise RuntimeError(f"function {name} returned an invalid gradient at index {i} - got "
                               f"{list(np.shape(peek(gi)))} but expected shape compatible with "
                               f"{list(np.shape(peek(p)))}")
        out.append(gi if tensor_mode or not isinstance(gi, Tensor) else gi.primal)
    return tuple(out)


def _torch_grads(gs):
    """Cotangents as PyTorch's gradients, or back (the conjugates of complex ones)."""
    return tuple(flipped(x) if hasattr(x, "dtype") else x for x in gs)


def _as_gradients(cls, grads, n_inputs):
    """backward's result as a tuple, one gradient per input of forward (PyTorch's count check:
    trailing extra gradients may be None, for forward's defaulted arguments not passed)."""
    grads = grads if isinstance(grads, tuple) else (grads,)
    if len(grads) > n_inputs and all(g is None for g in grads[n_inputs:]):
        grads = grads[:n_inputs]
    if len(grads) != n_inputs:
        raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                           f"(expected {n_inputs}, got {len(grads)})")
    return grads


def _as_custom_vjp(cls):
    """The Function as a custom_vjp, for use under functional transforms."""
    custom = cls.__dict__.get("_fgrad_custom")
    if custom is not None:
        return custom

    def run_forward(*args):
        ctx = FunctionCtx(tuple(True for _ in args))
        with no_grad():
            result = _forward(cls, ctx, [_tensor_view(a) for a in args])
        ctx._constants = frozenset(i for i, o in enumerate(result if isinstance(result, tuple) else (result,))
                                   if _is_constant(o))
        return _unwrap_out(result), ctx

    def fun(*args):
        return run_forward(*args)[0]
    fun.__name__ = fun.__qualname__ = cls.__name__  # (errors about its rules name the Function)

    def fwd(*args):  # (the saved values are residuals of their own, so that vmap batches them)
        out, ctx = run_forward(*args)
        return out, (ctx, tuple(_raw(t) for t, _ in ctx._saved), args)

    def bwd(res, g):
        ctx, saved, args = res
        ctx._saved = tuple((_tensor_view(s), None) for s in saved)
        gs = g if isinstance(g, tuple) else (g,)
        gs = [None if i in ctx._constants else _tensor_view(x) for i, x in enumerate(_torch_grads(gs))]
        grads = _torch_grads(_as_gradients(cls, cls.backward(ctx, *gs), len(args)))
        return tuple(np.zeros_like(peek(a)) if x is None else _raw(x) for x, a in zip(grads, args))

    custom = custom_vjp(fun)
    custom.defvjp(fwd, bwd)
    custom.checks_output = False  # (fwd's output is forward's, as fun's: forward runs once per call)
    if getattr(cls, "jvp", None) is not None:  # forward mode through the user's jvp(ctx, *tangents)
        custom.jvp_from_residuals = lambda res, tangents: _unwrap_out(
            cls.jvp(res[0], *[_tensor_view(t) for t in tangents]))
    cls._fgrad_custom = custom
    return custom


def _tensor_view(x):
    """Arrays and traced values become (non-recording) tensors, so forward and backward can use
    Tensor methods under every transform (Note [tensors of traced values] in tape.py)."""
    return Tensor._wrap(x, None, 0) if hasattr(x, "shape") and not isinstance(x, Tensor) else x


def _unwrap_out(result):
    if isinstance(result, tuple):
        return tuple(_raw(r) for r in result)
    return _raw(result)


# ---- custom_vjp and custom_jvp called on Tensors ----------------------------------------------
class _ByRule(Function):
    """A custom function called on Tensors that record: forward is the functional face's vjp of
    the call, so its rule runs (custom_vjp's fwd; custom_jvp's rule, linearized), and backward
    is that vjp's pullback (by PyTorch's convention for complex values, as every Function's)."""

    @staticmethod
    def forward(ctx, call, out_tree, *tensors):
        ctx.name = call.__name__
        # (copies: the functional tape holds what it keeps read-only, and these arrays are the
        # Tensors' own, which the caller may change in place after the call)
        out, ctx.pull = vjp(call, *[t.primal.copy() for t in tensors])
        leaves, ctx.out_tree = trees.flatten(out)
        out_tree.append(ctx.out_tree)  # (for the caller, to rebuild out from the Tensors)
        return tuple(leaves)

    @staticmethod
    def backward(ctx, *grads):
        cts = ctx.pull(trees.unflatten(ctx.out_tree, [flipped(g) for g in grads]))
        cts = tuple(flipped(c) for c in cts)
        if is_grad_enabled():  # (create_graph: the rule's pullback ran on arrays, unrecorded)
            cts = _second_refused(cts, f"fgrad: a second derivative through {ctx.name} called on Tensors is not "
                                       f"recorded by the Tensor face; take it with the functional transforms "
                                       f"(fgrad.hessian, or fgrad.grad of fgrad.grad), which differentiate the rule")
        return (None, None, *cts)


def _custom_on_tensors(custom, args):
    """custom(*args) on the bottom trace, as one node for the call where Tensors among the
    arguments record (else evaluated as it is)."""
    leaves = trees.flatten(args)[0]
    if not is_grad_enabled() or not any(isinstance(a, Tensor) and a.requires_grad for a in leaves):
        return custom.process_eval(EVAL, args)
    positions = [i for i, a in enumerate(leaves) if isinstance(a, Tensor) and a.requires_grad]
    tree = trees.flatten(args)[1]
    fixed = [a.primal if isinstance(a, Tensor) else a for a in leaves]

    def call(*xs):
        values = list(fixed)
        for i, x in zip(positions, xs):
            values[i] = x
        return custom(*trees.unflatten(tree, values))
    call.__name__ = f"{type(custom).__name__} {custom.__name__}"
    out_tree = []
    outs = _ByRule.apply(call, out_tree, *[leaves[i] for i in positions])
    outs = outs if isinstance(outs, tuple) else (outs,)
    return trees.unflatten(out_tree[0], list(outs))


primitive.record_tensor_custom = _custom_on_tensors  # (as tape.py sets record_tensor_op)
