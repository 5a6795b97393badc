"""A griffe extension for the API reference: fgrad.numpy's names are made at import time.

Many of fgrad.numpy's functions are made in loops (the primitives' entry functions, which live in
fgrad.ops.entries under NumPy's names) and their docstrings are written at import (NumPy's, with
fgrad's note on top), so reading the source finds neither. For fgrad.numpy, its linalg and fft,
and fgrad.scipy.special, this extension documents what importing them gives instead (griffe's
inspection), each function under the module that exports it. NumPy's own objects re-exported there
(dtypes, constants, errstate) are NumPy's and are left to NumPy's documentation.
"""
import importlib
import inspect

import griffe

RUNTIME = ("fgrad.numpy", "fgrad.numpy.linalg", "fgrad.numpy.fft", "fgrad.scipy.special")
QUIET = dict(warn_unknown_params=False, warn_missing_types=False, warnings=False)  # NumPy's own docstrings


def _inspected(path, parser):
    """griffe's inspection of `path`, its functions counted as defined there (for the time of it)."""
    module = importlib.import_module(path)
    moved = {}
    for name in dir(module):
        obj = getattr(module, name)
        if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ != path:
            moved.setdefault(id(obj), (obj, obj.__module__))
            obj.__module__ = path
    try:
        return griffe.inspect(path, docstring_parser=parser, docstring_options=QUIET)
    finally:
        for obj, original in moved.values():
            obj.__module__ = original


class RuntimeMembers(griffe.Extension):
    def on_package(self, *, pkg, loader, **kwargs):
        if pkg.name != "fgrad":
            return
        for path in RUNTIME:
            inspected = _inspected(path, loader.docstring_parser)
            static = pkg[path.removeprefix("fgrad.")]
            for name, sub in static.members.items():  # keep the submodules read from source
                if not sub.is_alias and sub.is_module and name not in inspected.members:
                    inspected.set_member(name, sub)
            inspected.name = path.rsplit(".", 1)[1]  # griffe.inspect names it by its full path
            static.parent.set_member(inspected.name, inspected)
