"""Every public name has a real docstring (issue 34, item 3): what it computes, its arguments,
what it returns. A name fails when its docstring is missing, is one line of under 40
characters, or is a leftover (an entry function's "the entry function of primitive ...",
or the docstring of the object's type, as a functools.partial's).

The public names of a module are its `__all__`, else its names not starting with "_"; of a
class of fgrad's own, also the public methods and properties it defines (an override with no
docstring of its own inherits its base's, as inspect.getdoc reads it). Names that are NumPy's
or Python's own objects re-exported (np.float32, np.errstate, pi) are NumPy's to document:
only objects whose `__module__` is fgrad's are checked.
"""
import importlib
import inspect

import pytest

MODULES = [
    "fgrad", "fgrad.numpy", "fgrad.numpy.linalg", "fgrad.numpy.fft",
    "fgrad.scipy", "fgrad.scipy.special", "fgrad.scipy.stats", "fgrad.scipy.linalg", "fgrad.scipy.signal",
    "fgrad.scipy.integrate", "fgrad.scipy.fft",
    "fgrad.nn", "fgrad.nn.functional", "fgrad.nn.init", "fgrad.nn.utils",
    "fgrad.optim", "fgrad.optim.lr_scheduler",
    "fgrad.autograd", "fgrad.autograd.functional", "fgrad.autograd.forward_ad", "fgrad.autograd.graph",
    "fgrad.func", "fgrad.lax", "fgrad.tree_util", "fgrad.utils.data", "fgrad.linalg", "fgrad.fft", "fgrad.special",
]
MIN_ONE_LINE = 40
LEFTOVERS = ("the entry function of primitive",)


def _fgrads(obj):
    return (getattr(obj, "__module__", None) or "").partition(".")[0] == "fgrad"


def _problem(obj, doc):
    """Why `doc` is not a real docstring of `obj`, or None when it is one."""
    if not doc or not doc.strip():
        return "no docstring"
    if not inspect.isclass(obj) and doc == getattr(type(obj), "__doc__", None) and not isinstance(obj, property):
        return "its type's docstring"
    if any(leftover in doc for leftover in LEFTOVERS):
        return "a leftover"
    lines = doc.strip().splitlines()
    if len(lines) == 1 and len(lines[0]) < MIN_ONE_LINE:
        return "one short line"
    return None


def _names(module):
    names = getattr(module, "__all__", None)
    return sorted(names if names is not None else (n for n in vars(module) if not n.startswith("_")))


def _members(cls):
    """The public methods and properties `cls` defines itself."""
    for name, attr in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if inspect.isfunction(attr) or isinstance(attr, property):
            yield name, attr


def _doc(owner, name, attr):
    if isinstance(attr, property):
        return attr.__doc__
    return inspect.getdoc(getattr(owner, name)) if owner is not None else inspect.getdoc(attr)


def undocumented(module_name):
    """[(qualified name, why)] for the public names of `module_name` without a real docstring."""
    module = importlib.import_module(module_name)
    seen, bad = set(), []
    for name in _names(module):
        obj = getattr(module, name)
        if inspect.ismodule(obj) or not _fgrads(obj) or not (callable(obj) or isinstance(obj, property)):
            continue  # (a submodule is walked as its own entry; NumPy's and Python's objects are theirs)
        why = _problem(obj, inspect.getdoc(obj) if inspect.isclass(obj) else obj.__doc__)
        if why:
            bad.append((f"{module_name}.{name}", why))
        if inspect.isclass(obj) and obj not in seen:
            seen.add(obj)
            for member, attr in _members(obj):
                why = _problem(attr, _doc(obj, member, attr))
                if why:
                    bad.append((f"{module_name}.{name}.{member}", why))
    return bad


@pytest.mark.parametrize("module_name", MODULES)
def test_public_names_have_docstrings(module_name):
    bad = undocumented(module_name)
    assert not bad, f"{len(bad)} public names of {module_name} without a real docstring:\n" + "\n".join(
        f"  {name}: {why}" for name, why in bad)


if __name__ == "__main__":  # python -m tests.test_docstrings: the count per namespace
    total = 0
    for m in MODULES:
        n = len(undocumented(m))
        total += n
        print(f"{m:32} {n}")
    print(f"{'total':32} {total}")
