"""fgrad.nn.Module and Parameter, with torch.nn.Module's API: registration (parameters, buffers,
child modules), traversal, state dicts, dtype and device moves, and forward and backward hooks.

A module keeps what it registers in three ordered dicts (_parameters, _buffers, _modules) and,
as plain attributes too, so `self.weight` is an ordinary attribute read. __setattr__ keeps the
two in step, as torch's does: what parameters() yields is what forward uses.

Note [moving a module]: to(dtype), double(), cuda() ... change each parameter in place
(`param.data = ...`, and its .grad), so an optimizer built before the move still holds the
parameters the module uses; buffers are replaced. A dtype applies to floating and complex
tensors only (integer buffers keep theirs), as in torch.

Note [backward hooks]: register_full_backward_hook wraps a call's tensor inputs and outputs in
two identity Functions. Backward reaches the outputs' one first, which keeps grad_output (and
runs the backward pre-hooks on it); then the inputs' one, whose gradients are grad_input: the
hooks see both there and may replace grad_input. With no input requiring grad the hooks run
at the outputs' one, with grad_input all None, as torch's.
"""
import collections
import warnings
from collections.abc import Mapping
from typing import TypeVar

import numpy as np

from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from ..backend import Device
from ..backend import device as to_device
from ..typing import Any, ArrayLike, Callable, DTypeLike, Iterator
from .meta import MetaArray, is_meta

__all__ = ["Module", "Parameter"]

_M = TypeVar("_M", bound="Module")  # (what train(), to(), ... return: self, of its own class)


def _typename(value):
    """How torch.typename names a value in Module's messages: fgrad.Tensor, or the class."""
    if isinstance(value, Tensor):
        return "fgrad.Tensor"
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


class Parameter(Tensor):
    """A leaf tensor that a Module registers as a parameter (requires grad by default).

    Examples
    --------
    >>> p = fgrad.nn.Parameter(fgrad.ones(2))
    >>> p.requires_grad, isinstance(p, fgrad.Tensor)
    (True, True)
    """

    __slots__ = ()

    def __init__(self, data: Tensor | ArrayLike | None = None, requires_grad: bool = True) -> None:
        data = np.empty(0) if data is None else data
        Tensor.__init__(self, data.primal if isinstance(data, Tensor) else data, requires_grad=requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it did not find, and those it did not use."""

    def __repr__(self):
        return "<All keys matched successfully>" if not self.missing_keys and not self.unexpected_keys else \
            super().__repr__()


def _check_name(kind, name, module):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in module._parameters and name not in module._buffers and \
            name not in module._modules:
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """Base class: assign Parameters, buffers (register_buffer) and Modules as attributes;
    implement forward().

    Examples
    --------
    >>> class Scale(fgrad.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.k = fgrad.nn.Parameter(fgrad.tensor(2.0))
    ...     def forward(self, x):
    ...         return self.k * x
    >>> m = Scale(); m(fgrad.tensor([1.0, 3.0])).sum().backward()
    >>> [name for name, _ in m.named_parameters()], m.k.grad
    (['k'], tensor(4.))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments {args!r} {kwargs!r}")
        for name in ("_parameters", "_buffers", "_modules", "_forward_pre_hooks", "_forward_hooks",
                     "_backward_pre_hooks", "_backward_hooks"):
            object.__setattr__(self, name, collections.OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_next_hook", 0)  # (an int, not a counter object: modules pickle)
        object.__setattr__(self, "training", True)

    # ---- registration ----------------------------------------------------------------------------
    def __setattr__(self, name, value):
        # As torch's Module: a Parameter is registered (and leaves the modules); a name that is a
        # parameter takes only a Parameter or None, so the optimizer never trains a tensor the
        # module no longer uses; a name that is a child module takes only a Module or None, and a
        # buffer's name only a Tensor or None.
        params = self.__dict__.get("_parameters")
        if params is None:
            if isinstance(value, (Parameter, Module)):
                raise AttributeError(f"cannot assign {'parameters' if isinstance(value, Parameter) else 'module'} "
                                     f"before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Parameter):
            self._modules.pop(name, None)
            self._buffers.pop(name, None)
            params[name] = value
        elif name in params:
            if value is not None:
                advice = "; to train it, wrap it: fgrad.nn.Parameter(value)" if hasattr(value, "shape") else ""
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (fgrad.nn.Parameter or "
                                f"None expected){advice}")
            params[name] = None
        elif isinstance(value, Module):
            params.pop(name, None)
            self._buffers.pop(name, None)
            self._modules[name] = value
        elif name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (fgrad.nn.Module or "
                                f"None expected)")
            self._modules[name] = None
        elif name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (fgrad.Tensor or None "
                                f"expected)")
            self._buffers[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for registry in ("_parameters", "_buffers", "_modules"):
            self.__dict__.get(registry, {}).pop(name, None)
        self._non_persistent_buffers.discard(name)
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add `param` (a Parameter, or None for a parameter slot left empty) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' (fgrad.nn.Parameter "
                            f"or None required)")
        self._register("_parameters", name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (BatchNorm's running mean): moved by
        to(), saved in state_dict unless persistent=False."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (fgrad.Tensor or None "
                            f"required)")
        self._register("_buffers", name, tensor)
        (self._non_persistent_buffers.discard if persistent else self._non_persistent_buffers.add)(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add a child module (or None) under `name`."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_name("module", name, self)
        self._register("_modules", name, module)

    register_module = add_module

    def _register(self, registry, name, value):
        """`value` under `name` in one registry (and as the attribute), out of the other two."""
        for other in ("_parameters", "_buffers", "_modules"):
            getattr(self, other).pop(name, None)
        getattr(self, registry)[name] = value
        object.__setattr__(self, name, value)

    def get_submodule(self, target: str) -> "Module":
        """The module at the dotted path `target` ("" is self)."""
        module = self
        for i, part in enumerate(target.split(".") if target else ()):
            child = module._modules.get(part)
            if child is None:
                where = ".".join(target.split(".")[:i]) or type(self).__name__
                raise AttributeError(f"{where} has no attribute `{part}`")
            module = child
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path `target` ('encoder.0.weight'). Raises AttributeError naming the
        missing part when a module on the path or the parameter does not exist.
        """
        return self._registered(target, "_parameters", "parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path `target` ('bn.running_mean'). Raises AttributeError naming the missing
        part when a module on the path or the buffer does not exist.
        """
        return self._registered(target, "_buffers", "buffer")

    def _registered(self, target, registry, kind):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if name not in getattr(module, registry):
            raise AttributeError(f"`{name}` is not a {kind} of {type(module).__name__}")
        return getattr(module, registry)[name]

    # ---- traversal -------------------------------------------------------------------------------
    def named_modules(self, memo: set[int] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> "Iterator[tuple[str, Module]]":
        """(dotted name, module) for self and every descendant, each module once."""
        memo = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:  # (depth first, children in order: the order of torch's recursion)
            name, module = stack.pop()
            if remove_duplicate:
                if id(module) in memo:
                    continue
                memo.add(id(module))
            yield name, module
            stack.extend(reversed([(f"{name}.{k}" if name else k, m) for k, m in module._modules.items()
                                   if m is not None]))

    def modules(self) -> "Iterator[Module]":
        """An iterator over self and every descendant module, each once, depth first in registration order."""
        return (m for _, m in self.named_modules())

    def named_children(self) -> "Iterator[tuple[str, Module]]":
        """An iterator of (name, module) over the direct submodules, each once, in registration order."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> "Iterator[Module]":
        """An iterator over the direct submodules, each once, in registration order."""
        return (m for _, m in self.named_children())

    def _named_members(self, registry, prefix, recurse, remove_duplicate):
        """(dotted name, value) of one registry (parameters or buffers) of self and, with
        recurse, every descendant; each value once with remove_duplicate (tied weights)."""
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """An iterator of (dotted name, Parameter) over this module's parameters and, with `recurse`, its
        descendants'; `prefix` goes in front of every name; a shared (tied) parameter comes once unless
        `remove_duplicate` is False.
        """
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """An iterator over the parameters of this module and, with `recurse`, of its descendants, each
        once (what an optimizer takes).
        """
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """An iterator of (dotted name, buffer) over this module's buffers and, with `recurse`, its
        descendants' (running statistics and other non-trainable state); `prefix` as in named_parameters.
        """
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """An iterator over the buffers of this module and, with `recurse`, of its descendants, each once."""
        return (b for _, b in self.named_buffers(recurse=recurse))

    def apply(self: _M, fn: "Callable[[Module], object]") -> _M:
        """fn(module) on every child (recursively), then on self; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients ---------------------------------------------------------------------
    def train(self: _M, mode: bool = True) -> _M:
        """Set training mode (`mode` True) or evaluation mode on this module and every descendant: it changes
        what Dropout and BatchNorm do. Returns self; raises ValueError when mode is not a bool.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():
            m.train(mode)
        return self

    def eval(self: _M) -> _M:
        """Set evaluation mode on this module and every descendant (train(False)). Returns self."""
        return self.train(False)

    def requires_grad_(self: _M, requires_grad: bool = True) -> _M:
        """Set requires_grad on every parameter (False freezes them). Returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (`set_to_none`, the default, as torch's), or to
        zeros in place where one exists.
        """
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    # ---- dtype and device (Note [moving a module]) ----------------------------------------------
    def _apply(self, fn):
        """fn(array) -> array on every parameter (in place, its .grad too) and buffer."""
        for module in self.modules():
            for p in module._parameters.values():
                if p is not None:
                    with no_grad():
                        p.data = fn(p.detach().primal)
                        if p.grad is not None:
                            p.grad = Tensor(fn(p.grad.detach().primal))
            for name, b in module._buffers.items():
                if b is not None:
                    moved = Tensor(fn(b.detach().primal), requires_grad=b.requires_grad)
                    module._buffers[name] = moved
                    object.__setattr__(module, name, moved)
        return self

    def to(self: _M, *args: str | Device | DTypeLike | Tensor, **kwargs: Any) -> _M:
        """to(device), to(dtype), to(device, dtype), to(tensor), or the keywords device=, dtype=,
        non_blocking=; a dtype must be floating or complex and applies to those tensors only.
        to("meta") keeps the structure only (fgrad/nn/meta.py), for functional_call."""
        device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)  # (transfers are synchronous)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        for a in args:
            if isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, str) or type(a).__name__ == "Device":
                device = a
            else:
                dtype = a
        if dtype is not None:
            dtype = np.dtype(dtype)
            if dtype.kind not in "fc":
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                f"dtype={dtype}")
        if device is not None and is_meta(device):
            return self._to_meta(dtype)
        target = None if device is None else to_device(device)

        def move(array):
            if dtype is not None and array.dtype.kind in "fc" and array.dtype != dtype:
                # (complex tensors keep complex: a float dtype picks the complex of its precision)
                array = array.astype(dtype if array.dtype.kind == dtype.kind or dtype.kind == "c" else
                                     np.result_type(dtype, np.complex64))
            return array if target is None else target.send(array)
        return self._apply(move)

    def _to_meta(self, dtype):
        """Every parameter and buffer replaced by one of the same shape, dtype (or `dtype`, for the
        floating ones) and requires_grad on the meta device (fgrad/nn/meta.py): no values."""
        def meta(t):
            wanted = dtype if dtype is not None and np.dtype(t.dtype).kind in "fc" else t.dtype
            m = Tensor._wrap(MetaArray(t.shape, wanted), None, 0)
            m.__class__ = t.__class__  # (a Parameter stays a Parameter)
            m._requires_grad = t.requires_grad
            return m
        return self._replace_tensors(meta)

    def to_empty(self: _M, *, device: str | Device | None = None, recurse: bool = True) -> _M:
        """New, uninitialized storage for every parameter and buffer on `device` (their values are
        not copied: a module off the meta device gets its structure's shapes and dtypes)."""
        target = to_device("cpu" if device is None else device)

        def empty(t):
            fresh = Tensor._wrap(target.send(np.empty(tuple(t.shape), t.dtype)), None, 0)
            fresh.__class__ = t.__class__
            return fresh.requires_grad_(t.requires_grad) if t.requires_grad else fresh
        return self._replace_tensors(empty, recurse)

    def _replace_tensors(self, make, recurse=True):
        for module in self.modules() if recurse else [self]:
            for store in (module._parameters, module._buffers):
                for name, t in store.items():
                    if t is not None:
                        store[name] = new = make(t)
                        object.__setattr__(module, name, new)
        return self

    def cpu(self: _M) -> _M:
        """Move every parameter and buffer to the CPU, in place (parameters stay the same objects).
        Returns self.
        """
        return self.to("cpu")

    def cuda(self: _M, device: int | None = None) -> _M:
        """Move every parameter and buffer to GPU `device` (an index; default the current one), in place.
        Returns self; needs CuPy.
        """
        return self.to("cuda" if device is None else f"cuda:{device}")

    def float(self: _M) -> _M:
        """Convert every floating-point parameter and buffer to float32, in place. Returns self."""
        return self.to(np.float32)

    def double(self: _M) -> _M:
        """Convert every floating-point parameter and buffer to float64, in place. Returns self."""
        return self.to(np.float64)

    def half(self: _M) -> _M:
        """Convert every floating-point parameter and buffer to float16, in place. Returns self."""
        return self.to(np.float16)

    # ---- state dicts -----------------------------------------------------------------------------
    def state_dict(self, *args: Any, destination: dict[str, Tensor] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Tensor]:
        """An ordered dict of every parameter and persistent buffer by dotted name, detached
        (sharing memory) unless keep_vars."""
        if args:  # (torch's old positional order: destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        out = collections.OrderedDict() if destination is None else destination
        for module_prefix, module in self.named_modules(prefix=prefix.rstrip("."), remove_duplicate=False):
            dot = f"{module_prefix}." if module_prefix else ""
            for name, p in module._parameters.items():
                if p is not None:
                    out[dot + name] = p if keep_vars else p.detach()
            for name, b in module._buffers.items():
                if b is not None and name not in module._non_persistent_buffers:
                    out[dot + name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict: Mapping[str, Tensor | ArrayLike], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy the values of `state_dict` into the parameters and persistent buffers (in place,
        in each one's own dtype); with assign=True the module takes the given tensors instead.
        Returns (missing_keys, unexpected_keys); with strict, either raises, as torch's."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        expected = self.state_dict(keep_vars=True)
        missing = [k for k in expected if k not in state_dict]
        unexpected = [k for k in state_dict if k not in expected]
        errors = []
        for key, target in expected.items():
            if key in state_dict:
                error = self._load_one(key, target, state_dict[key], assign)
                if error:
                    errors.append(error)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _load_one(self, key, target, value, assign):
        """Load one entry; the error message, or None."""
        array = value.detach().primal if isinstance(value, Tensor) else np.asarray(value)
        if tuple(array.shape) != tuple(target.shape):
            return (f"size mismatch for {key}: copying a param with shape {tuple(array.shape)} from checkpoint, "
                    f"the shape in current model is {tuple(target.shape)}.")
        path, _, name = key.rpartition(".")
        owner = self.get_submodule(path)
        if assign:
            if name in owner._parameters:
                owner.register_parameter(name, value if isinstance(value, Parameter) else
                                         Parameter(array, requires_grad=target.requires_grad))
            else:
                setattr(owner, name, value if isinstance(value, Tensor) else Tensor(array))
            return None
        with no_grad():
            target.data = array.astype(target.dtype, copy=True)  # (a copy: the module never aliases the dict)
        return None

    # ---- calls and hooks (Note [backward hooks]) --------------------------------------------------
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The module's computation: override it in a subclass, and call the module (`m(x)`), not forward,
        so that hooks run. The base class's raises NotImplementedError.
        """
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def _hook(self, registry, hook, prepend, **flags):
        key = self._next_hook
        object.__setattr__(self, "_next_hook", key + 1)
        registry[key] = (hook, flags)
        if prepend:
            registry.move_to_end(key, last=False)
        return _ModuleHookHandle(registry, key)

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> "_ModuleHookHandle":
        """hook(module, args) (with_kwargs: hook(module, args, kwargs)) before forward; it may
        return new args (a tuple, or one value), or (args, kwargs) with_kwargs."""
        return self._hook(self._forward_pre_hooks, hook, prepend, with_kwargs=with_kwargs)

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> "_ModuleHookHandle":
        """hook(module, args, output) (with_kwargs: hook(module, args, kwargs, output)) after
        forward; it may return a new output. always_call: also when forward raised."""
        return self._hook(self._forward_hooks, hook, prepend, with_kwargs=with_kwargs, always_call=always_call)

    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> "_ModuleHookHandle":
        """hook(module, grad_output) when the gradients of the outputs are known; it may return
        new ones."""
        return self._hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False) -> "_ModuleHookHandle":
        """hook(module, grad_input, grad_output) once the gradients of the positional tensor
        inputs are computed; it may return new grad_input."""
        return self._hook(self._backward_hooks, hook, prepend)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        for hook, flags in list(self._forward_pre_hooks.values()):
            if flags["with_kwargs"]:
                result = hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward = _BackwardHooks(self) if self._backward_hooks or self._backward_pre_hooks else None
        if backward is not None:
            args = backward.wrap_inputs(args)
        try:
            output = self.forward(*args, **kwargs)
        except BaseException:
            for hook, flags in list(self._forward_hooks.values()):
                if flags["always_call"]:
                    hook(self, args, kwargs, None) if flags["with_kwargs"] else hook(self, args, None)
            raise
        for hook, flags in list(self._forward_hooks.values()):
            result = hook(self, args, kwargs, output) if flags["with_kwargs"] else hook(self, args, output)
            if result is not None:
                output = result
        return output if backward is None else backward.wrap_outputs(output)

    def __repr__(self):
        inner = "".join(f"\n  ({k}): " + repr(m).replace("\n", "\n  ") for k, m in self._modules.items()
                        if m is not None)
        return f"{type(self).__name__}({self.extra_repr()}{inner}{chr(10) if inner else ''})"

    def extra_repr(self) -> str:
        """The extra text inside this module's repr, after its name (the layer's sizes and options);
        override it to show a module's settings. The base class's is empty.
        """
        return ""


class _ModuleHookHandle:
    """What register_*_hook returns: .remove() unregisters the hook (twice is harmless)."""

    __slots__ = ("_registry", "_key")

    def __init__(self, registry, key):
        self._registry, self._key = registry, key

    def remove(self) -> None:
        self._registry.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _BackwardHooks:
    """One call's backward hooks (Note [backward hooks])."""

    def __init__(self, module):
        self.module, self.grad_output, self.n_inputs, self.input_positions = module, None, 0, ()

    def wrap_inputs(self, args):
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        self.n_inputs, self.input_positions = len(args), positions
        if not positions:
            return args
        wrapped = _Identity.apply(self.inputs_done, *[args[i] for i in positions])
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        args = list(args)
        for i, w in zip(positions, wrapped):
            args[i] = w
        return tuple(args)

    def wrap_outputs(self, output):
        outputs = output if isinstance(output, tuple) else (output,)
        positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor) and o.requires_grad]
        if not positions:
            return output
        self.n_outputs, self.output_positions = len(outputs), positions
        wrapped = _Identity.apply(self.outputs_done, *[outputs[i] for i in positions])
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        outputs = list(outputs)
        for i, w in zip(positions, wrapped):
            outputs[i] = w
        return tuple(outputs) if isinstance(output, tuple) else outputs[0]

    def _spread(self, grads, n, positions):
        full = [None] * n
        for i, g in zip(positions, grads):
            full[i] = g
        return full

    def outputs_done(self, grads):
        grad_output = tuple(self._spread(grads, self.n_outputs, self.output_positions))
        for hook, _ in list(self.module._backward_pre_hooks.values()):
            result = hook(self.module, grad_output)
            if result is not None:
                grad_output = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        self.grad_output = grad_output
        if not self.input_positions and self.module._backward_hooks:  # (the hooks run now, grad_input None)
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients.", UserWarning, stacklevel=2)
            self._run_hooks((None,) * self.n_inputs)
        return tuple(grad_output[i] for i in self.output_positions)

    def inputs_done(self, grads):
        grad_input = self._run_hooks(tuple(self._spread(grads, self.n_inputs, self.input_positions)))
        return tuple(grad_input[i] for i in self.input_positions)

    def _run_hooks(self, grad_input):
        for hook, _ in list(self.module._backward_hooks.values()):
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
                if len(result) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got "
                                       f"{len(result)}, but expected {len(grad_input)}")
                grad_input = result
        return grad_input


class _Identity(Function):
    """The tensors unchanged; backward hands their gradients to `done`, which may replace them."""

    @staticmethod
    def forward(ctx, done, *tensors):
        ctx.done = done
        outs = tuple(t.detach() for t in tensors)  # (new tensors: the hooks' node is theirs)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.done(grads))
