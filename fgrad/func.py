"""fgrad.func: the functional transforms under torch.func's names and signatures.

For PyTorch users: per-example gradients of an `fgrad.nn` model read as in the torch.func
tutorial (`vmap(grad(loss), in_dims=(None, 0, 0))` with `functional_call`). Each name is
fgrad's own transform; only the spelling follows torch.func (`in_dims`, `grad_and_value`).
"""
from .nn.module import Module
from .transforms.batching import vmap as _vmap
from .transforms.forward import jvp
from .transforms.jacobians import hessian, jacfwd, jacrev
from .transforms.reverse import grad, value_and_grad, vjp
from .typing import Any, Callable, PyTree

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]


def vmap(func: Callable[..., PyTree], in_dims: Any = 0, out_dims: Any = 0, *,
         chunk_size: int | None = None) -> Callable[..., PyTree]:
    """torch.func.vmap: fgrad.vmap with `in_dims`/`out_dims` for in_axes/out_axes."""
    return _vmap(func, in_axes=in_dims, out_axes=out_dims, chunk_size=chunk_size)


def grad_and_value(func: Callable[..., PyTree], argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable[..., tuple[PyTree, PyTree]]:
    """torch.func.grad_and_value: `(gradient, value)`, or `(gradient, (value, aux))` with has_aux."""
    value_and_grad_fun = value_and_grad(func, argnums, has_aux)

    def grad_and_value_fun(*args, **kwargs):
        value, g = value_and_grad_fun(*args, **kwargs)
        return g, value
    grad_and_value_fun.__name__ = f"grad_and_value({getattr(func, '__name__', 'func')})"
    return grad_and_value_fun


def functional_call(module: Module, parameter_and_buffer_dicts: dict[str, Any] | tuple[dict[str, Any], ...],
                    args: Any = (), kwargs: dict[str, Any] | None = None) -> Any:
    """Call `module` with the values of `parameter_and_buffer_dicts` (names as in
    `named_parameters()` and `named_buffers()`, "0.weight") in place of its parameters and buffers;
    the module is unchanged after.
    `args` is one argument or a tuple of them."""
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, tuple) else \
        (parameter_and_buffer_dicts,)
    values = {}
    for d in dicts:
        for name in d:
            if name in values:
                raise ValueError(f"functional_call: {name!r} is given in more than one dict")
        values.update(d)
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
