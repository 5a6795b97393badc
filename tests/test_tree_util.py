"""fgrad.tree_util and fgrad.tree (jax.tree_util's names on optree), fgrad.flatten_util.ravel_pytree:
registered classes are pytrees to every transform, paths print as Python indexes them."""
import collections
import dataclasses
import re

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import tree_util as tu
from fgrad.flatten_util import ravel_pytree


@tu.register_dataclass
@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray
    act: str = dataclasses.field(default="tanh", metadata={"static": True})


@tu.register_pytree_node_class
class Affine:
    def __init__(self, scale, shift):
        self.scale, self.shift = scale, shift

    def tree_flatten(self):
        return (self.scale, self.shift), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


Pair = collections.namedtuple("Pair", "first second")


def _loss(p, x):
    layer, affine = p
    h = getattr(fnp, layer.act)(layer.w @ x + layer.b)
    return fnp.sum((affine.scale * h + affine.shift) ** 2)


RNG = np.random.default_rng(0)
PARAMS = (Layer(RNG.standard_normal((2, 3)), RNG.standard_normal(2)), Affine(RNG.standard_normal(2), np.float64(0.5)))
X = RNG.standard_normal(3)


def _flat(p):
    return np.concatenate([np.ravel(v) for v in tu.tree_leaves(p)])


@pytest.mark.parametrize("transform", ["grad", "compile-grad", "vmap-grad", "jacrev", "custom_vjp"])
def test_registered_classes_through_the_transforms(transform):
    expected = np.concatenate([np.ravel(a) for a in fgrad.grad(lambda *leaves: _loss(
        tu.tree_unflatten(tu.tree_structure(PARAMS), leaves), X), argnums=(0, 1, 2, 3))(*tu.tree_leaves(PARAMS))])
    if transform == "grad":
        g = fgrad.grad(_loss)(PARAMS, X)
    elif transform == "compile-grad":
        g = fgrad.compile(fgrad.grad(_loss))(PARAMS, X)
    elif transform == "vmap-grad":
        g = fgrad.vmap(fgrad.grad(_loss), in_axes=(None, 0))(PARAMS, np.stack([X, X]))
        g = tu.tree_map(lambda v: v[1], g)
    elif transform == "jacrev":
        g = fgrad.jacrev(_loss)(PARAMS, X)
    else:
        loss = fgrad.custom_vjp(_loss)
        loss.defvjp(lambda p, x: (_loss(p, x), (p, x)),
                    lambda res, ct: (tu.tree_map(lambda v: ct * v, fgrad.grad(_loss)(*res)), None))
        g = fgrad.grad(loss)(PARAMS, X)
    assert isinstance(g[0], Layer) and isinstance(g[1], Affine) and g[0].act == "tanh"
    np.testing.assert_allclose(_flat(g), expected, rtol=1e-12)


def test_static_fields_are_structure():
    a, b = Layer(np.ones(2), np.ones(2), "tanh"), Layer(np.ones(2), np.ones(2), "sin")
    assert tu.tree_structure(a) != tu.tree_structure(b)
    compiled = fgrad.compile(lambda p: getattr(fnp, p.act)(p.w).sum())
    np.testing.assert_allclose([compiled(a), compiled(b)], [np.tanh(1.0) * 2, np.sin(1.0) * 2])
    assert compiled.cache_info().misses == 2  # (a static field keys the program, as a static argument does)


def test_paths_print_as_python_indexes_them():
    tree = {"a": [np.ones(1), (np.ones(1), Pair(np.ones(1), None))], "layer": PARAMS[0]}
    assert [tu.keystr(p) for p, _ in tu.tree_leaves_with_path(tree)] == \
        ["['a'][0]", "['a'][1][0]", "['a'][1][1].first", "['layer'].w", "['layer'].b"]
    doubled = tu.tree_map_with_path(lambda p, v: tu.keystr(p), tree)
    assert doubled["layer"].b == "['layer'].b" and doubled["a"][1][1].second is None


def test_a_wrong_leaf_names_its_path():
    with pytest.raises(TypeError, match=re.escape("args[0][0].b")):
        fgrad.grad(_loss)((Layer(np.ones((2, 3)), "oops"), PARAMS[1]), X)


def test_partial_is_a_pytree():
    f = tu.Partial(lambda a, x: a * fnp.sin(x), np.array(3.0))
    assert fgrad.grad(lambda f, x: f(x), argnums=1)(f, 2.0) == pytest.approx(3.0 * np.cos(2.0))
    g = fgrad.grad(lambda f: f(2.0))(f)
    assert isinstance(g, tu.Partial) and g.args[0] == pytest.approx(np.sin(2.0))
    np.testing.assert_allclose(fgrad.vmap(lambda f, x: f(x), in_axes=(None, 0))(f, np.arange(3.0)),
                               3 * np.sin(np.arange(3.0)))
    assert tu.Partial(tu.Partial(max, 1), 2).func is max  # (nested partials flatten into one)


def test_static_classes_and_reductions():
    @tu.register_static
    class Config:
        def __init__(self, k):
            self.k = k

        def __eq__(self, other):
            return isinstance(other, Config) and other.k == self.k

        def __hash__(self):
            return hash(self.k)
    assert tu.tree_leaves([Config(1), np.ones(1)])[0].shape == (1,)
    assert fgrad.grad(lambda x, c: c.k * x)(1.0, Config(3)) == 3.0
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6 and tu.tree_reduce(max, [], 0) == 0
    assert tu.tree_all([True, (1, np.True_)]) and not tu.tree_all([True, 0])
    outer, inner = tu.tree_structure([0, 0, 0]), tu.tree_structure({"x": 0, "y": 0})
    assert tu.tree_transpose(outer, inner, [{"x": i, "y": -i} for i in range(3)]) == {"x": [0, 1, 2], "y": [0, -1, -2]}
    assert fgrad.tree.map(lambda v: v + 1, {"a": 1}) == {"a": 2} and fgrad.tree.leaves([None, 1]) == [1]


def test_register_dataclass_refuses_what_it_cannot_split():
    class Plain:
        pass
    with pytest.raises(TypeError, match="not a dataclass"):
        tu.register_dataclass(Plain)

    @dataclasses.dataclass
    class Both:
        x: float
    with pytest.raises(ValueError, match="both data and meta"):
        tu.register_dataclass(Both, data_fields=["x"], meta_fields=["x"])


def test_ravel_pytree_round_trip_and_derivatives():
    tree = {"w": RNG.standard_normal((2, 2)), "b": np.arange(3, dtype=np.float32), "n": None}
    flat, unravel = ravel_pytree(tree)
    assert flat.shape == (7,) and flat.dtype == np.float64  # (the leaves' common dtype, as JAX's)
    back = unravel(flat)
    assert back["b"].dtype == np.float32 and back["n"] is None
    np.testing.assert_array_equal(back["w"], tree["w"])
    g = fgrad.grad(lambda v: fnp.sum(unravel(v)["w"] ** 2) + fnp.sum(unravel(v)["b"]))(flat)
    np.testing.assert_allclose(g, np.concatenate([np.ones(3), 2 * tree["w"].ravel()]))  # (leaf order: b, n, w)
    np.testing.assert_allclose(fgrad.grad(lambda t: fnp.sum(ravel_pytree(t)[0] ** 2))(tree)["w"], 2 * tree["w"])
    with pytest.raises(ValueError, match=r"expected a vector of shape \(7,\)"):
        unravel(np.ones(6))


def test_ravel_pytree_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    from jax.flatten_util import ravel_pytree as jax_ravel
    tree = {"w": RNG.standard_normal((2, 2)), "b": [np.arange(3.0), (np.ones(1),)]}
    np.testing.assert_array_equal(ravel_pytree(tree)[0], np.asarray(jax_ravel(jax.tree.map(jax.numpy.asarray,
                                                                                             tree))[0]))


# ---- dict key order, as JAX's -----------------------------------------------------------------
TREES = {
    "dict": lambda: {"b": 1, "a": 2, "c": (3, {"z": 4, "y": 5})},
    "OrderedDict": lambda: collections.OrderedDict([("b", 1), ("a", 2)]),
    "defaultdict": lambda: collections.defaultdict(list, {"b": 1, "a": 2}),
    "nested": lambda: [collections.OrderedDict([("z", {"q": 1, "p": 2}), ("y", 3)]), None],
}


def _items(tree):
    """The tree with every mapping as (type, its default_factory, its items in iteration order)."""
    if isinstance(tree, dict):
        return type(tree), getattr(tree, "default_factory", None), [(k, _items(v)) for k, v in tree.items()]
    if isinstance(tree, (list, tuple)):
        return type(tree), [_items(v) for v in tree]
    return tree


@pytest.mark.parametrize("name", list(TREES))
def test_dict_order_as_jax(name):
    jtu = pytest.importorskip("jax").tree_util
    tree = TREES[name]()
    n = len(jtu.tree_leaves(tree))
    assert tu.tree_leaves(tree) == jtu.tree_leaves(tree)
    results = [lambda m: m.tree_map(lambda x: x * 10, tree),
               lambda m: m.tree_map_with_path(lambda p, x: x + 1, tree),
               lambda m: m.tree_map(lambda x, y: x + y, tree, tree)]
    for result in results:
        assert _items(result(tu)) == _items(result(jtu))
    assert _items(fgrad.tree.map(lambda x: x, tree)) == _items(jtu.tree_map(lambda x: x, tree))
    rebuilt = tu.tree_unflatten(tu.tree_structure(tree), range(100, 100 + n))  # (the values at their keys)
    assert rebuilt == jtu.tree_unflatten(jtu.tree_structure(tree), range(100, 100 + n))


def test_unflatten_and_grad_keep_insertion_order_as_torch_func():
    """The transforms rebuild with tree_unflatten: a dict of gradients in its parameters' order, as
    torch.func's (code zips grads.values() with the parameters)."""
    g = fgrad.grad(lambda p: p["w"] * p["b"])({"w": 2.0, "b": 3.0})
    assert list(g) == ["w", "b"] and g == {"w": 3.0, "b": 2.0}
