"""Every bare class call of a per-op class stores every slot (Note [bare class calls] in
fgrad/ir/node.py): Node, Leaf and the traced values have no __init__, so a construction site
that forgot a slot would leave it unset, and the first read of it, maybe in a backward pass
much later, would raise AttributeError far from the cause. Read from the source with ast."""
import ast
import pathlib

import pytest

from fgrad.ir import node as node_module
from fgrad.ir import value as value_module

ROOT = pathlib.Path(__file__).resolve().parents[2] / "fgrad"


def _slots(cls):
    """Every slot of `cls` and its bases, but __weakref__."""
    return {s for c in cls.__mro__ for s in getattr(c, "__slots__", ()) if s != "__weakref__"}


CLASSES = {cls.__name__: _slots(cls) for cls in (
    node_module.Node, node_module.Leaf, value_module.VJPTracer, value_module.JVPTracer,
    value_module.BatchTracer, value_module.StageTracer)}


def _stores(function, name):
    """The attributes of `name` that `function` assigns (`name.a = ...`, `name.a, name.b = ...`)."""
    stored = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == name:
                        stored.add(t.attr)
    return stored


def _construction_sites():
    """(file:line, class, variable, the innermost function it is in) for each `variable = Class()`."""
    sites = {}
    for path in sorted(ROOT.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                        and isinstance(node.value.func, ast.Name) and node.value.func.id in CLASSES \
                        and not node.value.args and not node.value.keywords \
                        and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    where = f"{path.relative_to(ROOT.parent)}:{node.lineno}"
                    # (a nested function is walked after the one around it: the innermost wins)
                    sites[where] = (where, node.value.func.id, node.targets[0].id, function)
    return list(sites.values())


SITES = _construction_sites()


def test_the_sites_are_found():
    found = {cls for _, cls, _, _ in SITES}
    assert {"Node", "VJPTracer", "JVPTracer", "Leaf"} <= found, found
    assert len(SITES) >= 12


@pytest.mark.parametrize("where, cls, var, function", SITES, ids=[s[0] for s in SITES])
def test_a_bare_class_call_stores_every_slot(where, cls, var, function):
    missing = CLASSES[cls] - _stores(function, var)
    assert not missing, f"{where}: {var} = {cls}() never stores {sorted(missing)}"
