"""fgrad.func: the functional transforms under torch.func's names and signatures.

For PyTorch users: per-example gradients of an `fgrad.nn` model read as in the torch.func
tutorial (`vmap(grad(loss), in_dims=(None, 0, 0))` with `functional_call`). Each name is
fgrad's own transform; only the spelling follows torch.func (`in_dims`, `grad_and_value`).
"""
import numpy as np

from .autograd.tensor import Tensor
from .nn.module import Module
from .transforms.batching import vmap as _vmap
from .transforms.forward import jvp, linearize
from .transforms.jacobians import hessian, jacfwd, jacrev
from .transforms.reverse import grad, value_and_grad, vjp
from .typing import Any, Callable, PyTree, Sequence

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "linearize",
           "stack_module_state", "vjp", "vmap"]


def vmap(func: Callable[..., PyTree], in_dims: Any = 0, out_dims: Any = 0, *,
         chunk_size: int | None = None) -> Callable[..., PyTree]:
    """torch.func.vmap: fgrad.vmap with `in_dims`/`out_dims` for in_axes/out_axes.

    Examples
    --------
    >>> fgrad.func.vmap(fgrad.dot)(fgrad.ones(3, 2), fgrad.arange(6.0).reshape(3, 2))
    tensor([1., 5., 9.])
    """
    return _vmap(func, in_axes=in_dims, out_axes=out_dims, chunk_size=chunk_size)


def grad_and_value(func: Callable[..., PyTree], argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable[..., tuple[PyTree, PyTree]]:
    """torch.func.grad_and_value: `(gradient, value)`, or `(gradient, (value, aux))` with has_aux.

    Examples
    --------
    >>> g, value = fgrad.func.grad_and_value(lambda x: (x ** 2).sum())(fgrad.tensor([1.0, 2.0]))
    >>> g, value
    (tensor([2., 4.]), tensor(5.))
    """
    value_and_grad_fun = value_and_grad(func, argnums, has_aux)

    def grad_and_value_fun(*args, **kwargs):
        value, g = value_and_grad_fun(*args, **kwargs)
        return g, value
    grad_and_value_fun.__name__ = f"grad_and_value({getattr(func, '__name__', 'func')})"
    return grad_and_value_fun


def functional_call(module: Module, parameter_and_buffer_dicts: dict[str, Any] | tuple[dict[str, Any], ...],
                    args: Any = (), kwargs: dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """Call `module` with the values of `parameter_and_buffer_dicts` (names as in
    `named_parameters()` and `named_buffers()`, "0.weight") in place of its parameters and buffers;
    the module is unchanged after. `args` is one argument or a tuple of them. With tie_weights a
    value given for one name of a tied parameter (one tensor under several names) replaces it under
    all of them; with strict every parameter and buffer must be given, and nothing else.

    Examples
    --------
    >>> m = fgrad.nn.Linear(2, 1)
    >>> params = {"weight": fgrad.tensor([[1.0, 2.0]]), "bias": fgrad.tensor([0.5])}
    >>> fgrad.func.functional_call(m, params, (fgrad.tensor([[1.0, 1.0]]),))  # m run with these parameters
    tensor([[3.5]])
    """
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, tuple) else \
        (parameter_and_buffer_dicts,)
    values = {}
    for d in dicts:
        for name in d:
            if name in values:
                raise ValueError(f"functional_call: {name!r} is given in more than one dict")
        values.update(d)
    names = [n for n, _ in module.named_parameters(remove_duplicate=False)] + \
        [n for n, _ in module.named_buffers(remove_duplicate=False)]
    if strict:
        _check_strict(module, names, values)
    if tie_weights:
        values = _tied(module, values)
    saved = []
    try:
        for name, value in values.items():
            owner, attr = _owner(module, name)
            saved.append((owner, attr, owner.__dict__[attr]))
            object.__setattr__(owner, attr, value)
        return module(*(args if isinstance(args, tuple) else (args,)), **(kwargs or {}))
    finally:
        for owner, attr, old in reversed(saved):
            object.__setattr__(owner, attr, old)


def _check_strict(module, names, values):
    missing = [n for n in names if n not in values]
    unexpected = [n for n in values if n not in names]
    if missing or unexpected:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                           + (f"Missing key(s): {', '.join(repr(n) for n in missing)}. " if missing else "")
                           + (f"Unexpected key(s): {', '.join(repr(n) for n in unexpected)}." if unexpected else ""))


def _tied(module, values):
    """values with a given tied tensor's value under each of its names (one tensor, several names)."""
    names_of = {}
    for name, t in [*module.named_parameters(remove_duplicate=False), *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(t), []).append(name)
    out = dict(values)
    for group in names_of.values():
        given = [n for n in group if n in values]
        if not given:
            continue
        for other in given[1:]:
            if values[other] is not values[given[0]]:
                raise ValueError(f"functional_call got multiple values for keys {given}, which are tied. Consider "
                                 f"using tie_weights=False")
        for n in group:
            out.setdefault(n, values[given[0]])
    return out


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Any], dict[str, Any]]:
    """torch.func.stack_module_state: (parameters, buffers) of models of one structure, each name's
    tensors stacked along a new first axis (for vmap over an ensemble with functional_call); the
    stacked parameters are new leaves that require grad where the models' do.

    Examples
    --------
    >>> models = [fgrad.nn.Linear(2, 1) for _ in range(3)]
    >>> params, buffers = fgrad.func.stack_module_state(models)
    >>> params["weight"].shape  # one leading axis over the models, for vmap
    (3, 1, 2)
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {name: _stacked([dict(m.named_parameters())[name] for m in models], p.requires_grad)
              for name, p in models[0].named_parameters()}
    buffers = {name: _stacked([dict(m.named_buffers())[name] for m in models], False)
               for name, _ in models[0].named_buffers()}
    return params, buffers


def _stacked(tensors, requires_grad):
    out = Tensor(np.stack([t.detach().numpy() for t in tensors]))
    return out.requires_grad_(True) if requires_grad else out


def _owner(module, name):
    """The submodule holding the parameter `name` ("0.weight"), and its attribute name."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        sub = owner._modules.get(part)
        if sub is None:
            raise KeyError(f"functional_call: {type(module).__name__} has no submodule {part!r} (in {name!r})")
        owner = sub
    if attr not in owner._parameters and attr not in owner._buffers:
        raise KeyError(f"functional_call: {type(owner).__name__} has no parameter or buffer {attr!r} (in {name!r}); "
                       f"its parameters are {list(owner._parameters)}, its buffers {list(owner._buffers)}")
    return owner, attr
