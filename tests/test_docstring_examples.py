"""Every public name has an example that runs (issue 34, item 3).

The public names are tests/test_docstrings.py's (its MODULES, objects whose `__module__` is
fgrad's; a class is one name). Each name's `>>>` examples run with doctest, one case per name;
and a name without one fails. fgrad.numpy's and fgrad.scipy.special's functions carry NumPy's or
SciPy's docstring under fgrad's note (fgrad.numpy.bridge marks them `_documented`, the note kept
as `_fgrad_doc`): only the note's examples are fgrad's to run (NumPy's are written for `np.`),
and NumPy's or SciPy's own examples count as the name's example.
"""
import doctest
import importlib
import inspect

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from tests.test_docstrings import MODULES, _fgrads, _names

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def public_names():
    """{qualified name: object}: each public object once, under the first name MODULES give it."""
    seen, names = set(), {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in _names(module):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not _fgrads(obj) or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            names[f"{module_name}.{name}"] = obj
    return names


def _own_doc(obj):
    """The docstring fgrad wrote for `obj`: fgrad's note alone where NumPy's or SciPy's is below it; a
    class's own (not one it inherits, whose example is its base's)."""
    if getattr(obj, "_documented", False):
        return obj._fgrad_doc
    return obj.__doc__ or ""


def has_example(obj):
    return ">>>" in _own_doc(obj) or (getattr(obj, "_documented", False) and ">>>" in obj.__doc__)


def _globs():
    return {"fgrad": fgrad, "np": np, "fnp": fnp}


def doctests(name, obj):
    """The doctests of `obj`'s own docstring (a class's: its own members' too)."""
    if getattr(obj, "_documented", False):
        return [doctest.DocTestParser().get_doctest(obj._fgrad_doc, _globs(), name, None, 0)]
    finder = doctest.DocTestFinder(recurse=inspect.isclass(obj), exclude_empty=True)
    return finder.find(obj, name, module=False, globs=_globs())


NAMES = public_names()
WITH_EXAMPLES = sorted(name for name, obj in NAMES.items() if ">>>" in _own_doc(obj))


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_examples_run(name):
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = doctests(name, NAMES[name])
    assert tests, f"{name}: no doctest found, though its docstring has >>>"
    failures = []
    for test in tests:
        out = []
        result = runner.run(test, out=out.append, clear_globs=True)
        if result.failed:
            failures.append("".join(out))
    assert not failures, "\n".join(failures)


def test_every_public_name_has_an_example():
    missing = sorted(name for name, obj in NAMES.items() if not has_example(obj))
    assert not missing, f"{len(missing)} public names without an example (>>> in the docstring):\n  " + \
        "\n  ".join(missing)


def test_an_alias_carries_the_docstring_of_its_own_name():
    """fgrad.numpy.max is also amax: it carries numpy.max's docstring (with its examples), not amax's alias one."""
    assert "numpy.max's docstring" in fnp.max.__doc__ and "numpy.round's docstring" in fnp.round.__doc__
