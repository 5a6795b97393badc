"""The layers point one way (issue 18): an import graph of fgrad/, read from the source with
ast (module-level and function-local imports alike), has no cycle between folders, follows
the layer order, and has no cycle among the modules of any folder (issue 28: ops/, numpy/,
autograd/, ..., and fgrad/ itself, which holds them all); an import made inside a function
says why on its line."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "fgrad"

# Each folder may import only folders of a lower rank (and its own); errors.py, the public
# error classes every layer raises, config.py, the switches every layer reads, and tree_util.py,
# the pytrees every layer flattens, sit beneath them all.
RANK = {"errors": -1, "config": -1, "tree_util": -1, "backend": 0, "ir": 1, "ops": 2, "engine": 3, "transforms": 4,
        "compile": 5, "numpy": 6, "lax": 6.5, "scipy": 7, "distributed": 7.5, "autograd": 8, "nn": 9, "optim": 10,
        "utils": 10, "testing": 11}


def _module_name(path):
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports():
    """(importer, imported module, line, is it inside a function, source line) for every fgrad import."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        source = path.read_text()
        lines = source.splitlines()
        tree = ast.parse(source)
        local = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(f)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                targets = [target]
                for alias in node.names:  # `from . import x` imports the module x
                    sub = f"{target}.{alias.name}"
                    if (ROOT.parent / pathlib.Path(*sub.split("."))).with_suffix(".py").exists() or \
                            (ROOT.parent / pathlib.Path(*sub.split(".")) / "__init__.py").exists():
                        targets.append(sub)
                if len(targets) > 1 and not node.module:
                    targets = targets[1:]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                if t == "fgrad" or t.startswith("fgrad."):
                    found.append((name, t, node.lineno, id(node) in local, lines[node.lineno - 1]))
    return found


def _folder(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and ((ROOT / parts[1]).is_dir() or parts[1] in RANK) else None


IMPORTS = _imports()


def test_folders_import_only_lower_layers():
    wrong = [(a, b, line) for a, b, line, _, _ in IMPORTS
             if _folder(a) and _folder(b) and _folder(a) != _folder(b) and RANK[_folder(b)] > RANK[_folder(a)]]
    assert not wrong, f"imports pointing up the layers: {wrong}"


def _cycle(edges):
    """A cycle in the graph {node: {successors}}, or None (depth-first, with an explicit stack)."""
    state = {}
    for start in edges:
        if state.get(start):
            continue
        stack, path = [(start, iter(sorted(edges.get(start, ()))))], [start]
        state[start] = 1
        while stack:
            node, succ = stack[-1]
            nxt = next(succ, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(sorted(edges.get(nxt, ())))))
                path.append(nxt)
    return None


def test_no_cycle_between_folders():
    edges = {}
    for a, b, _, _, _ in IMPORTS:
        fa, fb = _folder(a), _folder(b)
        if fa and fb and fa != fb:
            edges.setdefault(fa, set()).add(fb)
    assert _cycle(edges) is None, f"a cycle between folders: {_cycle(edges)}"


def test_the_tensor_face_does_not_stand_on_scipy():
    """The imperative face's softmax, log_softmax and sigmoid are fgrad.numpy-level (numpy/_softmax.py)
    and ops-level (ops/special.py's expit): fgrad.scipy may be left out of its import graph."""
    wrong = [(a, b, line) for a, b, line, _, _ in IMPORTS
             if _folder(a) in ("autograd", "nn", "optim") and _folder(b) == "scipy"]
    assert not wrong, f"the Tensor face imports fgrad.scipy: {wrong}"


FOLDERS = sorted({path.parent for path in ROOT.rglob("*.py")})


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: str(folder.relative_to(ROOT.parent)))
def test_no_cycle_among_the_modules_of_a_folder(folder):
    """Among the modules of `folder` and of its subfolders (its package's own module too)."""
    package = _module_name(folder / "__init__.py")
    inside = lambda module: module == package or module.startswith(package + ".")  # noqa: E731
    edges = {}
    for a, b, _, _, _ in IMPORTS:
        if a != b and inside(a) and inside(b):
            edges.setdefault(a, set()).add(b)
    assert _cycle(edges) is None, f"a cycle among the modules of {package}: {_cycle(edges)}"


@pytest.mark.parametrize("importer,imported,line,source", [(a, b, n, s) for a, b, n, local, s in IMPORTS if local])
def test_a_function_local_import_says_why(importer, imported, line, source):
    assert "#" in source, f"{importer}:{line} imports {imported} inside a function without saying why"


def test_the_cycle_finder_finds_cycles():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
