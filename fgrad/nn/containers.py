"""fgrad.nn's containers, as torch.nn's: Sequential, ModuleList, ModuleDict, ParameterList and
ParameterDict. Each registers what it holds under its position ("0", "1", ...) or key, so
parameters(), state_dict() and to() see through it."""
import collections
import operator
from collections.abc import ItemsView, KeysView, Mapping, ValuesView
from typing import TypeVar

from ..autograd.dtypes import name as dtype_name
from ..typing import Any, ArrayLike, Iterable, Iterator
from .module import Module, Parameter

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]

# (the lists and dicts hold modules or parameters, by subclass: their items are Any in the bases)
_L = TypeVar("_L", bound="_Indexed")  # (append and extend return the list itself)


class _Indexed(Module):
    """Modules or parameters registered under "0", "1", ... (the base of the lists)."""

    def _items(self):
        raise NotImplementedError

    def _put(self, name, value):
        raise NotImplementedError

    def _index(self, i):
        n = len(self)
        i = operator.index(i)
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range")
        return str(i % n)

    def __len__(self) -> int:
        return len(self._items())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items().values())

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return type(self)(list(self._items().values())[i])
        return self._items()[self._index(i)]

    def __setitem__(self, i: int, value: Any) -> None:
        self._put(self._index(i), value)

    def __delitem__(self, i: int | slice) -> None:
        keys = list(self._items())
        for k in (keys[i] if isinstance(i, slice) else [self._index(i)]):
            delattr(self, k)
        values = list(self._items().values())  # (renumbered, as torch's)
        for k in list(self._items()):
            delattr(self, k)
        for j, v in enumerate(values):
            self._put(str(j), v)

    def append(self: _L, value: Any) -> _L:
        self._put(str(len(self)), value)
        return self

    def extend(self: _L, values: Iterable[Any]) -> _L:
        for v in values:
            self.append(v)
        return self

    def __iadd__(self: _L, values: Iterable[Any]) -> _L:
        return self.extend(values)


class Sequential(_Indexed):
    """Modules applied in order; Sequential(OrderedDict) names them.

    Examples
    --------
    >>> m = fgrad.nn.Sequential(fgrad.nn.Linear(2, 4), fgrad.nn.ReLU(), fgrad.nn.Linear(4, 1))
    >>> m(fgrad.ones(3, 2)).shape, len(m), type(m[1]).__name__
    ((3, 1), 3, 'ReLU')
    """

    def __init__(self, *modules: "Module | collections.OrderedDict[str, Module]") -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], collections.OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def _items(self):
        return self._modules

    def _put(self, name, value):
        self.add_module(name, value)

    def __getitem__(self, i: int | slice) -> Module:
        if isinstance(i, slice):
            return Sequential(collections.OrderedDict(list(self._modules.items())[i]))
        return list(self._modules.values())[operator.index(i)]

    def forward(self, input: Any) -> Any:  # (each module's output is the next one's input)
        for m in self._modules.values():
            input = m(input)
        return input


class ModuleList(_Indexed):
    """A list of modules, registered (no forward of its own).

    Examples
    --------
    >>> layers = fgrad.nn.ModuleList([fgrad.nn.Linear(2, 2) for _ in range(3)])
    >>> len(layers), len(list(layers.parameters()))  # each layer's weight and bias registered
    (3, 6)
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        self.extend(modules or ())

    def _items(self):
        return self._modules

    def _put(self, name, value):
        self.add_module(name, value)

    def insert(self, index: int, module: Module) -> None:
        """Insert `module` before position `index` (list.insert's rules); the modules after it are
        renumbered.
        """
        modules = list(self._modules.values())
        modules.insert(index, module)
        for k in list(self._modules):
            delattr(self, k)
        self.extend(modules)


class ParameterList(_Indexed):
    """A list of parameters, registered (a tensor given is made a Parameter, as torch's).

    Examples
    --------
    >>> ps = fgrad.nn.ParameterList([fgrad.nn.Parameter(fgrad.ones(2)) for _ in range(2)])
    >>> len(list(ps.parameters()))
    2
    """

    def __init__(self, values: Iterable[Parameter | ArrayLike] | None = None) -> None:
        super().__init__()
        self.extend(values or ())

    def _items(self):
        return self._parameters

    def _put(self, name, value):
        self.register_parameter(name, value if isinstance(value, Parameter) or value is None else Parameter(value))

    def extra_repr(self) -> str:
        return "\n".join(f"  ({k}): Parameter containing: [{dtype_name(p.dtype)} of size "
                         f"{'x'.join(map(str, p.shape))}]"  # (torch's: [torch.float32 of size 2x3])
                         for k, p in self._parameters.items())


class _Keyed(Module):
    """Modules or parameters by string key (the base of the dicts)."""

    def __init__(self, values: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None) -> None:
        super().__init__()
        if values is not None:
            self.update(values)

    def __getitem__(self, key: str) -> Any:
        return self._items()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._put(key, value)

    def __delitem__(self, key: str) -> None:
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._items())

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __contains__(self, key: object) -> bool:
        return key in self._items()

    def keys(self) -> KeysView[str]:
        return self._items().keys()

    def items(self) -> ItemsView[str, Any]:
        return self._items().items()

    def values(self) -> ValuesView[Any]:
        return self._items().values()

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        for k in list(self._items()):
            del self[k]

    def update(self, values: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        for k, v in (values.items() if hasattr(values, "items") else values):
            self[k] = v


class ModuleDict(_Keyed):
    """Modules by name, registered (no forward of its own).

    Examples
    --------
    >>> heads = fgrad.nn.ModuleDict({"a": fgrad.nn.Linear(2, 1), "b": fgrad.nn.Linear(2, 3)})
    >>> heads["b"](fgrad.ones(1, 2)).shape, sorted(heads.keys())
    ((1, 3), ['a', 'b'])
    """

    def _items(self):
        return self._modules

    def _put(self, key, value):
        self.add_module(key, value)


class ParameterDict(_Keyed):
    """Parameters by name, registered (a tensor given is made a Parameter).

    Examples
    --------
    >>> pd = fgrad.nn.ParameterDict({"scale": fgrad.nn.Parameter(fgrad.ones(1))})
    >>> [name for name, _ in pd.named_parameters()]
    ['scale']
    """

    def _items(self):
        return self._parameters

    def _put(self, key, value):
        self.register_parameter(key, value if isinstance(value, Parameter) or value is None else Parameter(value))
