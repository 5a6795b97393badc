"""NumPy's override protocols: `np.sin(x)`, `np.sum(x, axis=0)`, `np.linalg.solve(A, b)`
on traced values run fgrad's differentiable versions, so unmodified NumPy code is
differentiated. A NumPy function fgrad does not cover raises a TypeError naming it, and
so does code that converts a traced value to an ndarray (`__array__`): the message says
who converted it and what to call instead.
"""
import importlib
import inspect
import linecache
import os
import sys
import sysconfig

import numpy as np

from ..ir.value import Tracer, conversion_error, decided

__all__ = ["array_conversion", "array_function", "array_ufunc", "cover", "covered", "covering", "qualified_name"]

_SOURCES = []  # (fgrad module, the library module it mirrors, prefix, ufuncs only): see cover()


def cover(ours, theirs, prefix, ufuncs_only=False):
    """Dispatch `theirs`'s functions (NumPy's, or a library's) on traced values to `ours`'s of the
    same name. fgrad.numpy covers NumPy here; fgrad.scipy.special covers scipy.special when it
    loads (this module sits below it and never imports it). The one home of fgrad.numpy's and
    fgrad.scipy.special's docstrings too: each function of `ours` gets the library's (_document)."""
    global _TABLE
    _SOURCES.append((ours, theirs, prefix, ufuncs_only))
    _TABLE = None
    _document(ours, theirs, prefix)


def _document(ours, theirs, prefix):
    """Each fgrad function of `ours` gets the docstring of `theirs`'s function of the same name, under
    fgrad's note: its own docstring where it has one, else what fgrad differentiates (kept as `_fgrad_doc`). Functions
    already documented from another library module keep theirs (fgrad.numpy's i0 in scipy.special)."""
    names = sorted(vars(ours).items(), key=lambda item: getattr(item[1], "__name__", None) != item[0])
    for name, fn in names:  # (a function's own name first: np.max's docstring for max, not np.amax's alias one)
        if name.startswith("_") or getattr(fn, "_documented", False) or not callable(fn) or isinstance(fn, type) \
                or not (getattr(fn, "__module__", None) or "").startswith("fgrad"):
            continue
        their_doc = getattr(getattr(theirs, name, None), "__doc__", None)
        if not their_doc:
            continue
        note = inspect.cleandoc(fn.__doc__) if fn.__doc__ else (
            f"The differentiable version of `{prefix}{name}`: on arrays it returns what {prefix}{name} returns; on "
            f"traced values (under grad, vjp, jvp, vmap, compile, or a Tensor's backward) it is traced, and "
            f"differentiated in its floating-point and complex arguments (integer, boolean and index results "
            f"carry no gradient).")
        body = their_doc.lstrip("\n")
        indent = body[:len(body) - len(body.lstrip(" "))]  # (theirs as it is, cheaply: our lines take its margin)
        try:
            fn.__doc__ = (f"{indent}{note.replace(chr(10), chr(10) + indent)}\n\n{indent}fgrad takes the arguments of "
                          f"its own signature; an option of {prefix}{name} it does not take raises a TypeError. "
                          f"{prefix}{name}'s docstring:\n\n{body}")
            fn._documented = True
            fn._fgrad_doc = note  # (fgrad's own part: its examples are fgrad's, tests/test_docstring_examples.py)
        except (AttributeError, TypeError):  # (a builtin or a ufunc: NumPy's own object, documented there)
            pass


def _table():
    """qualified NumPy/SciPy name -> fgrad function (built on first use).

    A name is covered when fgrad's module has it and the library's module has it too. Of
    SciPy, only ufuncs: its Python-level functions (logsumexp, softmax) convert their
    arguments with np.asarray and never reach fgrad, so fgrad.scipy.special has to be called.
    """
    table = {}
    for ours, theirs, prefix, ufuncs_only in _SOURCES:
        for name in dir(ours):
            fn = getattr(ours, name)
            if not name.startswith("_") and hasattr(theirs, name) and callable(fn) and not isinstance(fn, type) \
                    and getattr(theirs, name) is not fn \
                    and (not ufuncs_only or isinstance(getattr(theirs, name), np.ufunc)):
                table.setdefault(prefix + name, fn)
    return table


_TABLE = None


def covered():
    """Sorted names of the NumPy and SciPy functions fgrad covers (numpy.x, numpy.linalg.x, scipy.special.x)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _table()
    return sorted(_TABLE)


def _lookup(qualname):
    if _TABLE is None:
        covered()
    return _TABLE.get(qualname)


def _unsupported(what):
    return TypeError(f"fgrad: {what} is not supported on traced values (fgrad cannot differentiate it); "
                     f"see fgrad.numpy.bridge.covered() for the NumPy functions fgrad supports")


_BY_UFUNC = {}  # ufunc -> fgrad function, filled on first use of each ufunc


def _ufunc_name(ufunc):
    """numpy.sin, or scipy.special.erf for SciPy's ufuncs: the covered module that has it."""
    for _, theirs, prefix, _ in _SOURCES:
        if getattr(theirs, ufunc.__name__, None) is ufunc:
            return prefix + ufunc.__name__
    return ufunc.__name__


def _for_ufunc(ufunc):
    """fgrad's function for `ufunc` (looked up once), or a TypeError naming the ufunc."""
    fn = _BY_UFUNC.get(ufunc)
    if fn is None:
        fn = _lookup(_ufunc_name(ufunc))
        if fn is None:
            raise _unsupported(f"the ufunc {_ufunc_name(ufunc)}")
        _BY_UFUNC[ufunc] = fn
    return fn


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__" and not kwargs:  # the common case: ndarray (op) traced value
        return _for_ufunc(ufunc)(*inputs)
    if kwargs.get("out") is not None:
        raise TypeError(f"fgrad: numpy.{ufunc.__name__}(..., out=...) cannot write into a traced value")
    if method == "__call__":
        if kwargs.pop("where", True) is not True or kwargs.pop("dtype", None) is not None:
            raise _unsupported(f"numpy.{ufunc.__name__} with where= or dtype=")
        kwargs.pop("out", None)
        if kwargs:  # casting=, order=, subok=, signature=: options of NumPy's kernels only
            raise _unsupported(f"numpy.{ufunc.__name__} with {', '.join(f'{k}=' for k in kwargs)}")
        return _for_ufunc(ufunc)(*inputs)
    # np.add.reduce is fgrad.numpy.sum, and so on: each entry declares its own (ops/elementwise.py)
    name = getattr(_for_ufunc(ufunc), "numpy_methods", {}).get(method)
    if name is None:
        raise _unsupported(f"numpy.{ufunc.__name__}.{method}")
    kwargs.pop("out", None)
    kwargs.setdefault("axis", 0)  # NumPy's default for ufunc.reduce and .accumulate
    return _lookup(f"numpy.{name}")(*inputs, **kwargs)


def qualified_name(func):
    """`numpy.save` for np.save: the name a NumPy (or SciPy) function is covered under."""
    return f"{getattr(func, '__module__', None) or 'numpy'}.{func.__name__}"


def covering(func):
    """fgrad's function for the NumPy function `func`, or None when fgrad does not cover it."""
    return _lookup(qualified_name(func))


def array_function(self, func, types, args, kwargs):
    qualname = qualified_name(func)
    fn = _lookup(qualname)
    if fn is None:
        raise _unsupported(qualname)
    try:
        return fn(*args, **kwargs)
    except TypeError as exc:  # e.g. np.sum(x, where=...): an option fgrad does not support
        if "unexpected keyword argument" in str(exc):
            raise TypeError(f"fgrad: {qualname} on traced values does not support this call: {exc}") from None
        raise


Tracer.__array_ufunc__ = array_ufunc
Tracer.__array_function__ = array_function


# ---- conversions to ndarray: who did it, and what to call instead ---------------------------
_LIBRARY_DIRS = tuple({os.path.normpath(p) + os.sep for p in (sysconfig.get_paths()["stdlib"],
                                                           sysconfig.get_paths()["purelib"],
                                                           sysconfig.get_paths()["platlib"])})


def _is_library(filename):
    return filename.startswith(_LIBRARY_DIRS) or "site-packages" in filename or "dist-packages" in filename


def _public_name(frame):
    """`scipy.special.logsumexp` for a frame of scipy/special/_logsumexp.py's logsumexp: the
    function under its public module (the module path up to its first private part)."""
    module = frame.f_globals.get("__name__", "?")
    name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)  # (Python 3.11+: with the class)
    parts = module.split(".")
    public = ".".join(parts[:next((i for i, p in enumerate(parts) if p.startswith("_")), len(parts))])
    head = name.split(".")[0]  # (a method's class is what user code called: np.vectorize(f)(x))
    while public:  # (numpy.lib._function_base_impl's vectorize is numpy's: the shortest module that has it wins)
        outer = public.rpartition(".")[0]
        try:
            if not (outer and hasattr(importlib.import_module(outer), head)) and \
                    hasattr(importlib.import_module(public), head):
                return public, head
        except ImportError:
            break
        public = outer
    return module, name


def _diagnose(frame):
    """(who converted the value, what to write instead), from the Python frames above __array__."""
    library = None
    while frame is not None and _is_library(frame.f_code.co_filename):
        library, frame = frame, frame.f_back  # the outermost library frame is what user code called
    if library is not None:
        module, name = _public_name(library)
        ours = next((o for o, theirs, _, _ in _SOURCES if theirs.__name__ == module), None)
        if ours is not None and hasattr(ours, name):
            return f"{module}.{name}", f"call {ours.__name__}.{name}, which differentiates it"
        return f"{module}.{name}", (f"{module}.{name} is not differentiable by fgrad: write it with fgrad.numpy's "
                                    f"functions, or give it a custom_vjp")
    where = ""
    if frame is not None:
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
        where = f" (in `{line}`, {os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno})" if line else ""
    return f"NumPy{where}", _NUMPY_CONVERTS


_NUMPY_CONVERTS = (
    "call fgrad.numpy's version of what converted it. NumPy converts this way in np.asarray and np.array "
    "(of a list holding traced values too: use fnp.array or fnp.stack), in ndarray methods such as "
    "A.dot(x) (write A @ x or fnp.dot(A, x)), and in np.random with a traced parameter (draw with plain "
    "ones and transform: loc + scale * np.random.normal(size=n))")


def array_conversion(self, dtype=None, copy=None):
    """Tracer.__array__: refuse, naming what converted the value and what to call instead. A
    conversion to integers or booleans (`np.int64(x)`, np.asarray(x, dtype=int)) is a value with
    no derivative, as int() is (piecewise constant: nothing to drop); it is made, as in JAX."""
    if dtype is not None and np.dtype(dtype).kind in "biu":
        return np.asarray(decided(self, f"converting it to {np.dtype(dtype)}"), dtype=dtype)
    who, instead = _diagnose(sys._getframe(1))
    raise conversion_error(self, f"{who}, converting its argument to a NumPy array,", instead)


Tracer.__array__ = array_conversion
