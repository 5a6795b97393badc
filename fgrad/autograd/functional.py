"""backward() and grad(): the imperative face's entry points into the engine; and on them
torch.autograd.functional's vjp, jvp, jacobian, hessian, vhp and hvp.

Both run the one backward engine (fgrad/engine) over the grad_fn graph. backward()
accumulates into the leaves' .grad (running tensor hooks, then post-accumulate hooks);
grad() returns the gradients of the given inputs and touches no .grad. Gradients of complex
values are PyTorch's, the conjugates of the engine's cotangents, converted here where they
come in and go out (Note [the Tensor face's complex gradients] in tape.py).
"""
import threading

import numpy as np

from ..backend import array_module
from ..config import config
from ..engine.backward import backward as run_backward
from ..engine.gc_pause import gc_paused
from ..ops.indexing import dense
from ..typing import Any, ArrayLike, Callable, Sequence
from . import nan_check
from . import tensor as _tensor
from .callbacks import final_callbacks
from .dtypes import name as _dtype_name
from .grad_mode import enable_grad, no_grad
from .tape import _call_hook, flipped
from .tensor import Tensor
from .torch_functions import movedim, stack

__all__ = ["backward", "grad", "hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _roots(outputs, grad_outputs, create_graph, where):
    roots = []
    grad_outputs = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"{where}: got {len(outputs)} outputs but {len(grad_outputs)} gradients")
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise TypeError(f"{where}: output {i} is a {type(out).__name__}, not a Tensor")
        if not out.requires_grad:
            raise RuntimeError(f"{where}: element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if out.primal.size != 1:
                raise RuntimeError(f"{where}: grad can be implicitly created only for scalar outputs, but output {i} "
                                   f"has shape {tuple(out.shape)}; pass gradient= (a tensor of that shape)")
            if out.primal.dtype.kind == "c":
                raise RuntimeError(f"{where}: grad can be implicitly created only for real scalar outputs but got "
                                   f"{_dtype_name(out.primal.dtype)} (output {i}); pass gradient= (a complex tensor "
                                   f"of its shape)")
            g = array_module(out.primal).ones(out.primal.shape, out.primal.dtype)  # (on the output's device)
        elif isinstance(g, Tensor):
            if tuple(g.shape) != tuple(out.shape):
                raise RuntimeError(f"{where}: Mismatch in shape: grad_output[{i}] has a shape of {tuple(g.shape)} and "
                                   f"output[{i}] has a shape of {tuple(out.shape)}")
            g = g if create_graph else g.primal
        else:
            g = array_module(out.primal).asarray(g, dtype=out.primal.dtype)
            if g.shape != out.primal.shape:
                raise RuntimeError(f"{where}: Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                                   f"output[{i}] has a shape of {tuple(out.shape)}")
        if create_graph and not isinstance(g, Tensor):
            g = Tensor._wrap(g, None, 0)
        roots.append((out.node, out.index, flipped(g)))  # (PyTorch's gradient: the cotangent's conjugate)
    return roots


def _run(roots, retain_graph, create_graph, capture=None, on_leaf=None):
    retain_graph = create_graph if retain_graph is None else retain_graph
    with gc_paused(), enable_grad() if create_graph else no_grad():
        return run_backward(roots, retain_graph=retain_graph, create_graph=create_graph, capture=capture,
                            on_leaf=on_leaf)


def _leaf_grad(tensor, g):
    """Run a leaf's tensor hooks and its AccumulateGrad node's pre-hooks on `g`, the leaf's
    gradient as PyTorch gives it (for a complex leaf, the conjugate of the engine's cotangent)."""
    for hook in list(tensor._leaf_hooks or ()):
        g = _call_hook(hook, g)
    acc = tensor.node
    if acc.hooks is not None and acc.hooks.pre_hooks:
        g = acc.hooks._run_pre_hooks(g, False)
    return g


def _check_differentiable(inputs, where):
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not t.requires_grad:
            raise RuntimeError(f"{where}: input {i} does not require grad (only tensors with requires_grad=True "
                               f"can be differentiated with respect to)")


_grad_lock = threading.Lock()  # .grad += g from several threads' backward passes adds every g


def _accumulate_grad(tensor, g, create_graph, taken):
    """tensor.grad += g. Without create_graph a first .grad owns its array: it takes the
    cotangent's own array when nothing else can hold it, else a copy. The engine passes a
    cotangent through an add or a reshape unchanged, so two leaves could get one array (or
    views of it), or the user's gradient itself. `taken`: ids of the arrays that are spoken
    for (the user's, a hook's, those already made a .grad in this backward)."""
    if not create_graph:
        a = g.primal if isinstance(g, Tensor) else g
        if tensor.grad is None:
            if id(a) in taken or getattr(a, "base", None) is not None:
                a = a.copy()  # (a copy, not always: a fresh 1.6 MB array is page faults, W2's Tensor row)
            taken.add(id(a))
        g = Tensor._wrap(a, None, 0)
    elif not isinstance(g, Tensor):
        g = Tensor._wrap(g, None, 0)
    with _grad_lock:  # (the engine's g has the leaf's shape and dtype: no setter check)
        tensor._grad = g if tensor._grad is None else tensor._grad + g


def backward(tensors: Tensor | Sequence[Tensor],
             grad_tensors: Tensor | ArrayLike | Sequence[Tensor | ArrayLike | None] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             inputs: Tensor | Sequence[Tensor] | None = None) -> None:
    """Compute d(tensors)/d(leaves) and accumulate it into each leaf's .grad; with `inputs`,
    only into theirs (non-leaf tensors included, as in PyTorch).

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> fgrad.autograd.backward(x * x, grad_tensors=fgrad.tensor([1.0, 0.5])); x.grad  # 2 x * v
    tensor([2., 2.])
    """
    tensors = _as_tuple(tensors)
    roots = _roots(tensors, grad_tensors, create_graph, "backward")
    wanted = capture = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        _check_differentiable(inputs, "backward(inputs=...)")
        wanted = {id(t) for t in inputs}
        capture = {t.grad_fn: None for t in inputs if t.grad_fn is not None} or None
    taken = {id(g.primal if isinstance(g, Tensor) else g) for _, _, g in roots}
    checked = config.debug_nans and not create_graph  # (the graph keeps its values: Note [NaN provenance])
    bad = []

    def finish(acc, g):  # a leaf whose cotangent is complete, during the walk (Note [leaves as they complete])
        g = dense(g)
        if checked:
            _check_leaf(acc, g, bad)
        _finish_leaf(acc, g, wanted, create_graph, taken)
    with final_callbacks():  # (what hooks queued runs once every .grad is in: callbacks.py)
        leaves = _run(roots, True if checked else retain_graph, create_graph, capture, finish)
        if checked:
            for acc, g in leaves.items():
                _check_leaf(acc, g, bad)
            try:
                if bad:
                    nan_check.raise_for(roots, *bad[0])
            finally:
                if not retain_graph:
                    nan_check.release(roots)
        for t in inputs if capture is not None else ():
            if t.grad_fn is not None:
                g = capture.get(t.grad_fn)
                g = g[t.index] if isinstance(g, list) else g
                if g is not None:
                    with enable_grad() if create_graph else no_grad():
                        _accumulate_grad(t, flipped(g), create_graph, taken)
        for acc, g in leaves.items():
            _finish_leaf(acc, g, wanted, create_graph, taken)


def _check_leaf(acc, g, bad):
    """Note `acc`'s leaf in `bad` when its gradient g holds a NaN or inf its value does not."""
    tensor = acc.variable() if hasattr(acc, "variable") else None
    kind = None if g is None or tensor is None else nan_check.non_finite(g)
    if kind and not nan_check.non_finite(tensor.primal):
        bad.append((tensor, kind))


def _finish_leaf(acc, g, wanted, create_graph, taken):
    """Accumulate `g` into the .grad of the leaf of AccumulateGrad node `acc` (its tensor hooks
    first), then run its post-accumulate-grad hooks and the node's post-hooks."""
    tensor = acc.variable()
    if tensor is None or g is None or (wanted is not None and id(tensor) not in wanted):
        return
    with enable_grad() if create_graph else no_grad():
        g = flipped(g)  # (PyTorch's gradient: Note [the Tensor face's complex gradients] in tape.py)
        hooked = _leaf_grad(tensor, g)
        if hooked is not g:  # a hook's result: the hook may keep it
            taken.add(id(hooked.primal if isinstance(hooked, Tensor) else hooked))
        _accumulate_grad(tensor, hooked, create_graph, taken)
    for hook in list(tensor._post_acc_hooks or ()):
        hook(tensor)
    if acc.hooks is not None:
        for hook in list(acc.hooks.post_hooks):
            hook((), (tensor.grad,))


def grad(outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor],
         grad_outputs: Tensor | ArrayLike | Sequence[Tensor | ArrayLike | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False, allow_unused: bool | None = None,
         materialize_grads: bool = False) -> tuple[Tensor | None, ...]:
    """The gradients of `outputs` with respect to `inputs` (a tuple, one per input).

    Examples
    --------
    >>> x = fgrad.tensor(3.0, requires_grad=True)
    >>> (g,) = fgrad.autograd.grad(x ** 3, x, create_graph=True); g  # 3 x ** 2
    tensor(27., grad_fn=<...>)
    >>> fgrad.autograd.grad(g, x)  # and again: 6 x
    (tensor(18.),)
    """
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    _check_differentiable(inputs, "grad")
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    roots = _roots(outputs, grad_outputs, create_graph, "grad")
    capture = {t.grad_fn: None for t in inputs if t.grad_fn is not None}
    leaves = _run(roots, retain_graph, create_graph, capture)
    results = []
    for i, t in enumerate(inputs):
        if t.grad_fn is None:
            g = leaves.get(t.node)
            if g is not None:
                with enable_grad() if create_graph else no_grad():
                    g = _leaf_grad(t, flipped(g))
        else:
            g = capture.get(t.grad_fn)
            if isinstance(g, list):
                g = g[t.index]
            if g is not None:
                with enable_grad() if create_graph else no_grad():
                    g = flipped(g)
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"grad: one of the differentiated Tensors (input {i}, shape {tuple(t.shape)}) "
                                   f"appears to not have been used in the graph. Set allow_unused=True if this is "
                                   f"the desired behavior.")
            results.append(Tensor._wrap(np.zeros_like(t.primal), None, 0) if materialize_grads else None)
            continue
        results.append(g if isinstance(g, Tensor) else Tensor._wrap(g, None, 0))
    return tuple(results)


_tensor.autograd_backward = backward  # Tensor.backward runs it (tensor.py cannot import this module)


# ---- torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp --------------------------
# As torch's, each runs func on fresh leaves (views of the inputs under create_graph, so the
# result stays differentiable in them) and takes gradients with grad() above; jvp is the
# double-backward trick (the vjp is linear in its cotangent u: differentiate it in u).
def _tensors(xs, says):
    """(whether xs was a tuple, xs as a tuple); TypeError(says(i, x)) where one is not a Tensor."""
    is_tuple = isinstance(xs, (tuple, list))
    xs = _as_tuple(xs)
    for i, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise TypeError(says(i, type(x).__name__))
    return is_tuple, xs


def _inputs(inputs, create_graph):
    is_tuple, inputs = _tensors(inputs, lambda i, kind: f"The inputs given to the function must be Tensors, but "
                                                        f"input {i} is a {kind}")
    with enable_grad():
        fresh = tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(True)
                      for t in inputs)
    return is_tuple, fresh


def _outputs(out, what):
    return _tensors(out, lambda i, kind: f"The outputs of the user-provided function given to {what} must be "
                                         f"Tensors, but output {i} is a {kind}")


def _v(v, like, what, name):
    if v is None:
        if any(t.numel() != 1 for t in like):
            raise RuntimeError(f"The vector v can only be None if the {name} of the user-provided function is a single "
                               f"Tensor with a single element.")
        return tuple(_tensor.Tensor._wrap(np.ones_like(t.primal), None, 0) for t in like)
    v = _as_tuple(v)
    if len(v) != len(like) or any(tuple(a.shape) != tuple(b.shape) for a, b in zip(v, like)):
        raise RuntimeError(f"{what}: v has shapes {[tuple(a.shape) for a in v]} where the {name} has shapes "
                           f"{[tuple(b.shape) for b in like]}")
    return v


def _grads(outputs, inputs, grad_outputs, create_graph, strict, what):
    """grad() with zeros (or, strict, an error) for inputs the outputs do not depend on."""
    gs = grad(outputs, inputs, grad_outputs, retain_graph=True, create_graph=create_graph, allow_unused=True)
    out = []
    for i, (g, t) in enumerate(zip(gs, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                                   f"not allowed in strict mode.")
            g = _tensor.Tensor._wrap(np.zeros_like(t.primal), None, 0)
        out.append(g if create_graph else g.detach())
    return tuple(out)


def _result(values, is_tuple, create_graph):
    values = tuple(v if create_graph else v.detach() for v in values)
    return values if is_tuple else values[0]


def vjp(func: Callable[..., Any], inputs: Tensor | tuple[Tensor, ...], v: Tensor | tuple[Tensor, ...] | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Any, Any]:
    """torch.autograd.functional.vjp: (func(inputs), v^T J).

    Examples
    --------
    >>> out, vjp = fgrad.autograd.functional.vjp(lambda x: x ** 2, fgrad.tensor([1.0, 2.0]), fgrad.tensor([1.0, 1.0]))
    >>> out, vjp  # v @ J
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    in_tuple, inputs = _inputs(inputs, create_graph)
    with enable_grad():
        out_tuple, outputs = _outputs(func(*inputs), "vjp")
        gs = _grads(outputs, inputs, _v(v, outputs, "vjp", "output"), create_graph, strict, "vjp")
    return _result(outputs, out_tuple, create_graph), _result(gs, in_tuple, create_graph)


def jvp(func: Callable[..., Any], inputs: Tensor | tuple[Tensor, ...], v: Tensor | tuple[Tensor, ...] | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Any, Any]:
    """torch.autograd.functional.jvp: (func(inputs), J v), by the double-backward trick.

    Examples
    --------
    >>> out, jvp = fgrad.autograd.functional.jvp(lambda x: x ** 2, fgrad.tensor([1.0, 2.0]), fgrad.tensor([1.0, 0.0]))
    >>> out, jvp  # J @ v
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    _, inputs = _inputs(inputs, create_graph)
    v = _v(v, inputs, "jvp", "input")
    with enable_grad():
        out_tuple, outputs = _outputs(func(*inputs), "jvp")
        us = tuple(_tensor.Tensor._wrap(np.zeros_like(o.primal), None, 0).requires_grad_(True) for o in outputs)
        gs = _grads(outputs, inputs, us, True, strict, "jvp")
        js = grad(gs, us, v, retain_graph=True, create_graph=create_graph, allow_unused=True)
        js = tuple(j if j is not None else _tensor.Tensor._wrap(np.zeros_like(u.primal), None, 0)
                   for j, u in zip(js, us))
    return _result(outputs, out_tuple, create_graph), _result(js, out_tuple, create_graph)


def jacobian(func: Callable[..., Any], inputs: Tensor | tuple[Tensor, ...], create_graph: bool = False,
             strict: bool = False, vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """torch.autograd.functional.jacobian: d output / d input, of shape output.shape + input.shape,
    nested (outputs, then inputs) where func returns or takes a tuple. vectorize is accepted and
    gives the same numbers; strategy "forward-mode" takes a jvp per input entry.

    Examples
    --------
    >>> fgrad.autograd.functional.jacobian(lambda x: x ** 2, fgrad.tensor([1.0, 2.0]))
    tensor([[2., 0.], [0., 4.]])
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    in_tuple, inputs = _inputs(inputs, create_graph)
    with enable_grad():
        out_tuple, outputs = _outputs(func(*inputs), "jacobian")
        if strategy == "forward-mode":
            blocks = _jacobian_forward(func, inputs, outputs, create_graph, strict)
        else:
            blocks = _jacobian_reverse(outputs, inputs, create_graph, strict)
    rows = [tuple(b if create_graph else b.detach() for b in row) for row in blocks]
    rows = [row if in_tuple else row[0] for row in rows]
    return tuple(rows) if out_tuple else rows[0]


def _jacobian_reverse(outputs, inputs, create_graph, strict):
    """[[d out_i / d in_j]]: one grad() per entry of each output."""
    blocks = []
    for o in outputs:
        flat = o.reshape(-1)
        per_entry = [_grads((flat[k],), inputs, None, create_graph, strict, "jacobian") for k in range(flat.shape[0])]
        blocks.append(tuple(
            (stack([row[j] for row in per_entry]) if per_entry else
             _tensor.Tensor._wrap(np.zeros((0,) + tuple(t.shape), t.dtype), None, 0)).reshape(tuple(o.shape) +
                                                                                                tuple(t.shape))
            for j, t in enumerate(inputs)))
    return blocks


def _jacobian_forward(func, inputs, outputs, create_graph, strict):
    """[[d out_i / d in_j]]: one jvp per entry of each input (columns), moved to the back."""
    columns = [[[] for _ in inputs] for _ in outputs]
    for j, t in enumerate(inputs):
        for k in range(t.numel()):
            basis = [_tensor.Tensor._wrap(np.zeros_like(s.primal), None, 0) for s in inputs]
            basis[j].primal.reshape(-1)[k] = 1.0
            _, js = jvp(func, inputs, tuple(basis), create_graph=create_graph, strict=strict)
            for i, col in enumerate(_as_tuple(js)):
                columns[i][j].append(col)
    return [tuple(movedim(stack(columns[i][j]), 0, -1).reshape(tuple(o.shape) + tuple(t.shape))
                  for j, t in enumerate(inputs)) for i, o in enumerate(outputs)]


def hessian(func: Callable[..., Any], inputs: Tensor | tuple[Tensor, ...], create_graph: bool = False,
            strict: bool = False, vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """torch.autograd.functional.hessian of a function with one single-entry output: a Tensor
    input.shape * 2, or a tuple of tuples for a tuple of inputs.

    Examples
    --------
    >>> fgrad.autograd.functional.hessian(lambda x: (x[0] ** 2 * x[1]), fgrad.tensor([1.0, 3.0]))
    tensor([[6., 2.], [2., 0.]])
    """
    in_tuple = isinstance(inputs, (tuple, list))

    def scalar(*args):
        out = func(*args)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element")
        return out.reshape(())

    def gradient(*args):
        g = jacobian(scalar, args, create_graph=True, strict=strict)
        return g if in_tuple else g[0]

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy)


def vhp(func: Callable[..., Any], inputs: Tensor | tuple[Tensor, ...], v: Tensor | tuple[Tensor, ...] | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Any, Any]:
    """torch.autograd.functional.vhp: (func(inputs), v^T H) of a single-entry output.

    Examples
    --------
    >>> f = lambda x: (x ** 3).sum()
    >>> fgrad.autograd.functional.vhp(f, fgrad.tensor([1.0, 2.0]), fgrad.tensor([1.0, 1.0]))  # v @ H
    (tensor(9.), tensor([ 6., 12.]))
    """
    in_tuple, inputs = _inputs(inputs, create_graph)
    with enable_grad():
        _, outputs = _outputs(func(*inputs), "vhp")
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The function given to vhp should return a single Tensor with a single element")
        gs = _grads(outputs, inputs, None, True, strict, "vhp")
        hs = _grads(gs, inputs, _v(v, inputs, "vhp", "input"), create_graph, strict, "vhp")
    return _result(outputs, False, create_graph), _result(hs, in_tuple, create_graph)


def hvp(func: Callable[..., Any], inputs: Tensor | tuple[Tensor, ...], v: Tensor | tuple[Tensor, ...] | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Any, Any]:
    """torch.autograd.functional.hvp: (func(inputs), H v); the Hessian of a twice continuously
    differentiable function is symmetric, so this is vhp's product (torch's equals it to rounding).

    Examples
    --------
    >>> f = lambda x: (x ** 3).sum()
    >>> fgrad.autograd.functional.hvp(f, fgrad.tensor([1.0, 2.0]), fgrad.tensor([1.0, 1.0]))  # H = diag(6 x)
    (tensor(9.), tensor([ 6., 12.]))
    """
    return vhp(func, inputs, v, create_graph, strict)
