"""Array modules: which module (numpy, cupy, a second NumPy device's) owns some values.

Op code is written once against the array module of its inputs (Chainer's `xp`),
never forked by device. CuPy is optional: without it only NumPy's arrays exist, and
`array_module` answers numpy at the cost of one truth test.
"""
import contextlib
import functools
import importlib
from typing import Any

import numpy as np

try:  # CuPy is an optional extra; its absence must cost nothing on the CPU path.
    import cupy
    CUPY_ARRAY = cupy.ndarray
except Exception:  # ImportError, or a CuPy without a usable CUDA runtime
    cupy = None     # (devices.py reads these two; CUPY_ARRAY is () without CuPy, so isinstance says no)
    CUPY_ARRAY = ()

__all__ = ["array_module", "cupy_available", "linalg_errors_raised", "over_stacks", "scipy_function",
           "scipy_over_stacks", "to_host"]


def cupy_available():
    """True when CuPy imports and sees at least one CUDA device."""
    if cupy is None:
        return False
    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


# array class -> its array module, for the classes that are not NumPy's ndarray (CuPy's, and
# each second NumPy device's, added by numpy_device.register_numpy_device)
ARRAY_MODULES = {}


def array_module(*values: Any) -> Any:  # (numpy, cupy or a test device's module)
    """The array module that owns `values` (cupy for CuPy arrays, numpy for NumPy arrays and
    Python scalars, a second NumPy device's module for its arrays)."""
    if not ARRAY_MODULES:  # (no CuPy, no second device: the common case)
        return np
    for v in values:
        m = ARRAY_MODULES.get(v.__class__)
        if m is not None:
            return m
    return np


if cupy is not None:
    ARRAY_MODULES[CUPY_ARRAY] = cupy


def linalg_errors_raised(xp):
    """A context in which xp's linalg raises NumPy's LinAlgError where NumPy's does (a singular
    matrix to inv or solve, one not positive definite to cholesky). CuPy's default is to return
    NaNs or unbounded values without a word, which would reach a derivative as a wrong number."""
    if cupy is not None and xp is cupy:
        import cupyx
        return cupyx.errstate(linalg="raise")
    return _NO_CONTEXT


_NO_CONTEXT = contextlib.nullcontext()  # (reusable: NumPy's path allocates nothing per call)


@functools.cache
def scipy_function(xp, module, name, on_device=True):
    """scipy.<module>.<name> ("special", "linalg", "signal") for arrays of the array module xp:
    SciPy's for NumPy (and a second NumPy device's), cupyx.scipy's for CuPy, or, where cupyx
    lacks it (or not `on_device`), SciPy's on host copies with the results copied back."""
    scipy_module = importlib.import_module(f"scipy.{module}")
    if xp is np:
        return getattr(scipy_module, name)
    if getattr(xp, "numpy_backed", False):  # (a second NumPy device, for tests: Note [a second NumPy device])
        return getattr(xp.over(scipy_module), name)
    fn = getattr(importlib.import_module(f"cupyx.scipy.{module}"), name, None) if on_device else None
    return fn if fn is not None else _on_host(xp, getattr(scipy_module, name))


def scipy_over_stacks(name, *arrays, **params):
    """scipy.linalg.<name>(*arrays, **params) on the arrays' device, one matrix at a time over
    their (broadcast) stacks: SciPy before 1.14 and cupyx take single matrices only."""
    xp = array_module(*arrays)
    fn = scipy_function(xp, "linalg", name)
    return over_stacks(xp, lambda *one: fn(*one, **params), arrays)


def over_stacks(xp, fn, arrays):
    """fn of single matrices, over the broadcast leading (stack) axes of `arrays`."""
    batch = np.broadcast_shapes(*[a.shape[:-2] for a in arrays])
    if not batch:
        return fn(*arrays)
    arrays = [xp.broadcast_to(a, batch + a.shape[-2:]) for a in arrays]
    if not all(batch):  # an empty stack: the shapes and dtypes of one result, from identities
        one = fn(*[xp.eye(*a.shape[-2:], dtype=a.dtype) for a in arrays])
        return tuple(xp.empty(batch + o.shape, o.dtype) for o in one) if isinstance(one, tuple) else \
            xp.empty(batch + one.shape, one.dtype)
    results = [fn(*[a[i] for a in arrays]) for i in np.ndindex(batch)]
    if isinstance(results[0], tuple):
        return tuple(xp.stack(r).reshape(batch + r[0].shape) for r in zip(*results))
    return xp.stack(results).reshape(batch + results[0].shape)


def to_host(x):
    """x as a NumPy array (a CuPy array copied to the host)."""
    if CUPY_ARRAY and isinstance(x, CUPY_ARRAY):
        return cupy.asnumpy(x)
    return np.asarray(x)  # (a second NumPy device's array comes back as a plain ndarray)


def _on_host(xp, fn):
    def run(*args, **params):
        out = fn(*[to_host(a) if isinstance(a, xp.ndarray) else a for a in args], **params)
        return tuple(xp.asarray(o) for o in out) if isinstance(out, tuple) else xp.asarray(out)
    return run
