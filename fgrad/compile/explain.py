"""Why a compiled function traced again, in the user's words (as JAX's explain-cache-misses).

A reason names the argument as the caller wrote it (`args[1]['lr']`, `kwargs['x']`) and
what changed: its shape, dtype or Python type, a static value, the arguments' structure,
or the value Python read while tracing, at the user's line (the guard that failed). The
reasons go to `cache_info()`, and into a RetraceWarning once a function has been traced
more than `fgrad.config.retrace_warning_after` times (once per function).
"""
import inspect
import linecache
import os
import warnings

import numpy as np

from ..errors import RetraceWarning
from .program import Eqn

__all__ = ["arg_labels", "describe_leaf", "guard_reason", "new_key_reason", "warn_retraces"]


def arg_labels(treedef, positions):
    """Each leaf's path as the caller wrote it, for leaves of the (args, kwargs) pair
    `treedef` flattens: `args[1]['lr']`, `kwargs['x']`. positions[j]: the index in the call of
    the j-th traced positional argument (static ones are left out of the tree)."""
    labels = []
    for path in treedef.paths():
        head = f"args[{positions[path[1]]}]" if path[0] == 0 else f"kwargs[{path[1]!r}]"
        labels.append(head + "".join(f"[{p!r}]" for p in path[2:]))
    return labels


def describe_leaf(leaf_key):
    """A leaf's key as words: `ndarray float32[3]`, `Python float`, `the value 'sum'`."""
    if leaf_key.__class__ is type:
        return f"Python {leaf_key.__name__}"
    if leaf_key[0] == "static":
        return f"the value {leaf_key[1][1]!r}"
    cls, shape, dtype = leaf_key[:3]
    return f"{cls.__name__} {dtype}{list(shape)}"


def _kind(leaf_key):
    return "number" if leaf_key.__class__ is type else "static" if leaf_key[0] == "static" else "array"


def _leaf_change(label, old, new):
    """What changed between two keys of one leaf."""
    kinds = _kind(old), _kind(new)
    if kinds == ("array", "array"):
        what = ("shape" if old[1] != new[1] else "dtype" if old[2] != new[2] else
                "array type" if old[0] != new[0] else "device")
    else:
        what = {("number", "number"): "Python type", ("static", "static"): "static value"}.get(kinds, "kind")
    return f"{label}: {what} changed ({describe_leaf(old)} -> {describe_leaf(new)})"


def new_key_reason(old, new, labels, static_labels):
    """Why key `new` found no program, against `old`, the cached key most like it.
    A key is (structure, leaf keys, static values, static keyword values, nan_safe_zeros)."""
    if old[0] != new[0]:
        return f"the arguments' structure changed: {old[0]} -> {new[0]}"
    if old[4] != new[4]:
        return f"fgrad.config's nan_safe_zeros changed: {old[4]} -> {new[4]}"
    static_old, static_new = old[2] + old[3], new[2] + new[3]
    for label, a, b in zip(static_labels, static_old, static_new):
        if a != b:
            return f"static argument {label} changed: {_static_text(a)} -> {_static_text(b)}"
    changes = [_leaf_change(labels[i], a, b) for i, (a, b) in enumerate(zip(old[1], new[1])) if a != b]
    if not changes:
        return "new arguments"
    return "; ".join(changes[:3]) + (f"; and {len(changes) - 3} more leaves" if len(changes) > 3 else "")


def _static_text(key):
    return "absent" if key is None else repr(key[1])


def guard_reason(program, index, value):
    """Why guard `index` of `program` failed: the inputs its value came from, the user's line
    that read it, and the values then and now."""
    guard = program.body[index]
    inputs = _inputs_reaching(program, index)
    source = "" if guard.where is None else f" at {_line_text(*guard.where)}"
    now = "" if value is None else f" -> {_value_text(value)}"
    return (f"{', '.join(inputs) or 'a value'}: the value Python read{source} changed "
            f"({program.step_text(guard)} failed: {_value_text(guard.value)}{now})")


def _inputs_reaching(program, index):
    """Labels of the inputs the value guarded by step `index` is computed from."""
    need = {program.body[index].var}
    for step in reversed(program.body[:index]):
        if step.__class__ is Eqn and any(o in need for o in step.outs):
            need.update(step.vars_read())
    return [str(label) for v, label in zip(program.invars, program.input_labels) if v in need]


def _line_text(filename, line):
    code = linecache.getline(filename, line).strip()
    return f"{os.path.basename(filename)}:{line}" + (f" (`{code}`)" if code else "")


def _value_text(value):
    if hasattr(value, "shape") and np.ndim(value) > 0:
        return f"{value.dtype}{list(value.shape)} array"
    return repr(value.item() if isinstance(value, np.generic) or hasattr(value, "shape") else value)


def _where_defined(fun):
    """`file.py:12` of the function, or "" where it has no code object (a builtin, a partial)."""
    code = getattr(inspect.unwrap(fun), "__code__", None)
    return "" if code is None else f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"


def warn_retraces(compiled, traces, reason):
    """The RetraceWarning, once per compiled function; stacklevel points at the user's call."""
    if "retrace" in compiled._warned:
        return
    compiled._warned.add("retrace")
    name = getattr(compiled.fun, "__qualname__", None) or getattr(compiled, "__name__", repr(compiled.fun))
    where = _where_defined(compiled.fun)
    warnings.warn(
        f"fgrad.compile: {name}{f' ({where})' if where else ''} has been traced {traces} times; the latest "
        f"because {reason}. Each trace runs the function in Python again. Keep shapes, dtypes and "
        f"structure steady; pass numbers that change as arguments (traced) rather than reading them in "
        f"Python (`if`, float(), range()); mark an argument static (static_argnums/static_argnames) "
        f"only when it takes few values. cache_info().reasons lists every retrace; "
        f"fgrad.config.update('retrace_warning_after', 0) silences this.", RetraceWarning, stacklevel=4)
