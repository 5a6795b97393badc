"""fgrad.tree_util: pytrees (nested tuples, lists, dicts, namedtuples, None and the classes you
register), jax.tree_util's names on optree.

Every transform flattens its arguments and results with these functions, so a class
registered here (a dataclass of parameters, say) is a pytree to grad, vmap, compile, custom
rules and optimizers alike:

```python
import dataclasses
import numpy as np
import fgrad
from fgrad import tree_util

@tree_util.register_dataclass
@dataclasses.dataclass
class Linear:
    w: np.ndarray
    b: np.ndarray
    name: str = dataclasses.field(default="layer", metadata={"static": True})

p = Linear(np.ones((2, 3)), np.zeros(2))
g = fgrad.grad(lambda p, x: (p.w @ x + p.b).sum())(p, np.ones(3))
assert isinstance(g, Linear) and g.w.shape == (2, 3) and g.name == "layer"
assert tree_util.keystr(tree_util.tree_flatten_with_path(p)[0][0][0]) == ".w"
```

None is an empty subtree, as in JAX. A dict (and a defaultdict) is flattened in the order of its
sorted keys, and tree_map and tree_map_with_path build it with its keys in that order, as JAX's
(`_sorted_keys`; an OrderedDict keeps its order). tree_unflatten, which the transforms rebuild
their results with, restores the order the keys were inserted in (optree's): fgrad.grad of a dict
of parameters gives its gradients in the parameters' order, as torch.func's, where code zips
`grads.values()` with `model.parameters()`; jax.tree_util.tree_unflatten would sort them.

A path is a tuple of optree's entries (MappingEntry, SequenceEntry, GetAttrEntry, ...); `keystr`
writes one as `['a'][0].w`. This module sits beneath every layer (tests/test_layers.py): it
imports nothing of fgrad.
"""
import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias, TypeVar

import optree
from optree import PyTreeSpec

__all__ = ["NAMESPACE", "Partial", "keystr", "register_dataclass", "register_pytree_node",
           "register_pytree_node_class", "register_static", "tree_all", "tree_flatten", "tree_flatten_with_path",
           "tree_leaves", "tree_leaves_with_path", "tree_map", "tree_map_with_path", "tree_reduce", "tree_structure",
           "tree_transpose", "tree_unflatten"]

NAMESPACE = "fgrad"  # (optree's registry of the classes registered here; optree's built-in containers are in all)

_MISSING = object()
_T = TypeVar("_T")  # (a registered class: the decorators give it back)
KeyPath: TypeAlias = tuple[Any, ...]  # (the entries from the root to a leaf: keystr prints one)


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeSpec]:
    """(the leaves of `tree`, left to right, and its structure, a treedef).

    Examples
    --------
    >>> leaves, treedef = fgrad.tree_util.tree_flatten({"b": (1, 2), "a": [3]})
    >>> leaves  # dict keys sorted
    [3, 1, 2]
    """
    return optree.tree_flatten(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_unflatten(treedef: PyTreeSpec, leaves: Iterable[Any]) -> Any:
    """The pytree of structure `treedef` holding `leaves`.

    Examples
    --------
    >>> leaves, treedef = fgrad.tree_util.tree_flatten({"a": 1, "b": (2, 3)})
    >>> fgrad.tree_util.tree_unflatten(treedef, [10, 20, 30])
    {'a': 10, 'b': (20, 30)}
    >>> fgrad.tree_util.tree_unflatten(fgrad.tree_util.tree_structure({"b": 0, "a": 0}), [1, 2])  # (insertion order)
    {'b': 2, 'a': 1}
    """
    return optree.tree_unflatten(treedef, list(leaves))


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of `tree`, left to right, as a list (None is an empty subtree, not a leaf, as JAX's);
    `is_leaf(x)` True stops the descent at x.

    Examples
    --------
    >>> fgrad.tree_util.tree_leaves([1, (2, None), {"x": 3}])  # None is an empty node
    [1, 2, 3]
    """
    return optree.tree_leaves(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeSpec:
    """The structure (a treedef) of `tree`, its leaves left out: compare structures with ==, and
    rebuild a tree with tree_unflatten(treedef, leaves). `is_leaf` as in tree_leaves.

    Examples
    --------
    >>> fgrad.tree_util.tree_structure((1, [2, 3])) == fgrad.tree_util.tree_structure((0, [0, 0]))
    True
    """
    return optree.tree_structure(tree, is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`f` applied leafwise: to each leaf of `tree` and the leaves at the same place in each of
    `rest` (trees of `tree`'s structure, or with it as a prefix); a dict's keys come out sorted, as JAX's.

    Examples
    --------
    >>> fgrad.tree_util.tree_map(lambda x, y: x + y, {"b": (2, 3), "a": 1}, {"a": 10, "b": (20, 30)})
    {'a': 11, 'b': (22, 33)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return optree.tree_unflatten(_sorted_keys(treedef), list(map(f, leaves, *others)))


def tree_flatten_with_path(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeSpec]:
    """([(path, leaf), ...], treedef): each leaf with the path that reaches it (keystr prints one).

    Examples
    --------
    >>> paths_and_leaves, _ = fgrad.tree_util.tree_flatten_with_path({"a": [5, 6]})
    >>> [(fgrad.tree_util.keystr(path), leaf) for path, leaf in paths_and_leaves]
    [("['a'][0]", 5), ("['a'][1]", 6)]
    """
    accessors, leaves, treedef = optree.tree_flatten_with_accessor(tree, is_leaf, none_is_leaf=False,
                                                                   namespace=NAMESPACE)
    return [(tuple(a), leaf) for a, leaf in zip(accessors, leaves)], treedef


def tree_leaves_with_path(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[tuple[KeyPath, Any]]:
    """[(path, leaf), ...] for the leaves of `tree`, left to right: each path a tuple of keys that
    keystr prints as Python indexes it; `is_leaf` as in tree_leaves.

    Examples
    --------
    >>> [(fgrad.tree_util.keystr(p), x) for p, x in fgrad.tree_util.tree_leaves_with_path((7, {"k": 8}))]
    [('[0]', 7), ("[1]['k']", 8)]
    """
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`f(path, leaf, *leaves of rest)` for each leaf of `tree`; a dict's keys come out sorted, as JAX's.

    Examples
    --------
    >>> fgrad.tree_util.tree_map_with_path(lambda path, x: fgrad.tree_util.keystr(path), {"w": 1, "b": 2})
    {'b': "['b']", 'w': "['w']"}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return optree.tree_unflatten(_sorted_keys(treedef), [f(path, leaf, *(o[i] for o in others))
                                                         for i, (path, leaf) in enumerate(pairs)])


_SORTED: dict[PyTreeSpec, PyTreeSpec] = {}  # treedef -> its _sorted_keys (a dict: lru_cache's lookup cost twice)


def _sorted_keys(treedef: PyTreeSpec) -> PyTreeSpec:
    """`treedef` with its dicts' (and defaultdicts') keys in sorted order, so that a tree rebuilt
    from it has them in that order, as JAX's; optree's keeps the order they were inserted in.
    (Cached: optree's treedefs compare and hash alike whatever their dicts' insertion orders, and
    the sorted one is the same for all of those; equal aux data is interchangeable, as
    register_pytree_node says.)"""
    ordered = _SORTED.get(treedef)
    if ordered is None:
        if len(_SORTED) > 4096:
            _SORTED.clear()
        ordered = _SORTED[treedef] = treedef.transform(_sorted_node)
    return ordered


def _sorted_node(node: PyTreeSpec) -> PyTreeSpec:
    if node.kind not in (optree.PyTreeKind.DICT, optree.PyTreeKind.DEFAULTDICT):
        return node
    placeholder = node.unflatten(range(node.num_children))  # (its keys, its default_factory)
    ordered = placeholder.copy()
    ordered.clear()
    ordered.update((k, placeholder[k]) for k in node.entries())  # (entries: optree's sorted order)
    return optree.tree_structure(ordered, none_is_leaf=node.none_is_leaf, namespace=node.namespace)


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _MISSING,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """functools.reduce of `function` over the leaves of `tree` (starting at `initializer` if given).

    Examples
    --------
    >>> fgrad.tree_util.tree_reduce(lambda a, b: a + b, {"a": 1, "b": [2, 3]})
    6
    """
    leaves = tree_leaves(tree, is_leaf)
    return functools.reduce(function, leaves) if initializer is _MISSING else \
        functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True when every leaf of `tree` is true (bool of each; True for a tree with no leaves); `is_leaf`
    as in tree_leaves.

    Examples
    --------
    >>> fgrad.tree_util.tree_all([True, (True, 1)]), fgrad.tree_util.tree_all({"x": 0})
    (True, False)
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeSpec, inner_treedef: PyTreeSpec, pytree_to_transpose: Any) -> Any:
    """A tree of structure outer-of-inner turned into inner-of-outer (a list of dicts into a dict of lists).

    Examples
    --------
    >>> outer = fgrad.tree_util.tree_structure([0, 0])
    >>> inner = fgrad.tree_util.tree_structure((0, 0))
    >>> fgrad.tree_util.tree_transpose(outer, inner, [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    return optree.tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose)


def keystr(path: Sequence[Any]) -> str:
    """A path as Python would index it: `['w'][0].bias` (the root left out).

    Examples
    --------
    >>> path, _ = fgrad.tree_util.tree_flatten_with_path({"layer": [0, 1]})[0][1]
    >>> fgrad.tree_util.keystr(path)
    "['layer'][1]"
    """
    parts = []
    for entry in path:
        if isinstance(entry, optree.NamedTupleEntry):
            parts.append(f".{entry.field}")
        elif isinstance(entry, optree.MappingEntry):
            parts.append(f"[{entry.entry!r}]")
        elif isinstance(entry, optree.GetAttrEntry):  # (namedtuples' and dataclasses' fields)
            parts.append(f".{entry.name}")
        elif isinstance(entry, optree.SequenceEntry):
            parts.append(f"[{entry.entry}]")
        else:
            parts.append(f"[{entry.entry!r}]")
    return "".join(parts)


# ---- registering classes ------------------------------------------------------------------------
def register_pytree_node(nodetype: type[_T], flatten_func: Callable[[Any], tuple[Iterable[Any], Any]],
                         unflatten_func: Callable[[Any, Iterable[Any]], Any]) -> type[_T]:
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux_data)` (aux_data hashable
    and compared, as fgrad.compile keys programs by it) and `unflatten_func(aux_data, children) -> x`,
    as jax.tree_util's.

    Examples
    --------
    >>> class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    >>> _ = fgrad.tree_util.register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    >>> fgrad.grad(lambda p: p.a * p.b)(Pair(2.0, 3.0)).a  # d(ab)/da = b
    np.float64(3.0)
    """
    optree.register_pytree_node(nodetype, flatten_func, unflatten_func, namespace=NAMESPACE)
    return nodetype


def register_pytree_node_class(cls: type[_T]) -> type[_T]:
    """Class decorator: `cls.tree_flatten(self) -> (children, aux_data)` and the classmethod
    `cls.tree_unflatten(aux_data, children)` make it a pytree node.

    Examples
    --------
    >>> @fgrad.tree_util.register_pytree_node_class
    ... class Box:
    ...     def __init__(self, x):
    ...         self.x = x
    ...     def tree_flatten(self):
    ...         return (self.x,), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux, children):
    ...         return cls(*children)
    >>> fgrad.tree_util.tree_leaves(Box(5.0))
    [5.0]
    """
    return register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)


def register_dataclass(nodetype: type[_T], data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()) -> type[_T]:
    """Make a dataclass a pytree node: its `data_fields` are children (arrays, differentiated),
    its `meta_fields` part of the structure (static: hashable, compared). Without them, fields
    marked `field(metadata={"static": True})` are meta and the others data, as in JAX. A decorator too.

    Examples
    --------
    >>> import dataclasses
    >>> @dataclasses.dataclass
    ... class Params:
    ...     w: float
    ...     name: str
    >>> _ = fgrad.tree_util.register_dataclass(Params, data_fields=["w"], meta_fields=["name"])
    >>> fgrad.grad(lambda p: p.w ** 2)(Params(3.0, "layer")).w  # only w is a leaf
    np.float64(6.0)
    """
    if data_fields is None or meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"fgrad.tree_util.register_dataclass: {nodetype.__name__} is not a dataclass; "
                            f"give data_fields and meta_fields")
        fields = [f for f in dataclasses.fields(nodetype) if f.init and f.name not in drop_fields]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)] if meta_fields is None \
            else list(meta_fields)
        data_fields = [f.name for f in fields if f.name not in meta_fields] if data_fields is None \
            else list(data_fields)
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    overlap = set(data_fields) & set(meta_fields)
    if overlap:
        raise ValueError(f"fgrad.tree_util.register_dataclass: fields {sorted(overlap)} are both data and meta")

    def flatten(x):
        return (tuple(getattr(x, f) for f in data_fields), tuple(getattr(x, f) for f in meta_fields),
                data_fields)

    def unflatten(meta, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, meta)))
    optree.register_pytree_node(nodetype, flatten, unflatten, path_entry_type=optree.GetAttrEntry,
                                namespace=NAMESPACE)
    return nodetype


def register_static(cls: type[_T]) -> type[_T]:
    """Make `cls` a pytree node with no children: its instances are structure, never leaves
    (hashable, compared: fgrad.compile keys programs by them). A decorator too.

    Examples
    --------
    >>> class Config:
    ...     pass
    >>> _ = fgrad.tree_util.register_static(Config)
    >>> fgrad.tree_util.tree_leaves([1.0, Config()])  # a static value has no leaves
    [1.0]
    """
    return register_pytree_node(cls, lambda x: ((), x), lambda x, _: x)


class Partial(functools.partial):
    """functools.partial as a pytree: the bound arguments are its children, the function part of
    its structure, so a Partial passes through transforms (and compile) as an argument.

    Examples
    --------
    >>> add = fgrad.tree_util.Partial(lambda x, y: x + y, 1.0)
    >>> fgrad.tree_util.tree_leaves(add), add(2.0)  # its bound arguments are leaves
    ([1.0], 3.0)
    """

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):  # (flattened: the innermost function is the structure)
            args, kwargs, func = func.args + args, {**func.keywords, **kwargs}, func.func
        return super().__new__(cls, func, *args, **kwargs)


def _flatten_partial(p):
    keys = tuple(sorted(p.keywords))
    return (p.args, tuple(p.keywords[k] for k in keys)), (p.func, keys)


def _unflatten_partial(aux, children):
    func, keys = aux
    args, values = children
    return Partial(func, *args, **dict(zip(keys, values)))


register_pytree_node(Partial, _flatten_partial, _unflatten_partial)
