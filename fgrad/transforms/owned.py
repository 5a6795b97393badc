"""What a transform hands back is the caller's own: symbolic zeros filled, derivatives as
writable arrays sharing memory with nothing else the caller holds (Note [returned
derivatives are owned]).
"""
import numpy as np

from ..ir.value import Tracer
from ..ops.primitive import EVAL
from ..ops.zeros import zeros_like_value
from .checks import check_plain_array
from .faces import given_tensors, plain_values

__all__ = ["fill_zeros", "own_arrays"]


def fill_zeros(values, like):
    """Symbolic zeros (None) become zeros shaped like the matching primal, and an array
    input gets an array back (NumPy's kernels turn 0-d results into scalars)."""
    out = []
    for v, t in zip(values, like):
        if v is None:
            v = zeros_like_value(t)
        if v.__class__ is not np.ndarray and isinstance(v, np.generic) and isinstance(t.primal, np.ndarray):
            v = np.asarray(v)
        out.append(v)
    return out


def _root(a):
    """The array that owns `a`'s memory: `a`, or the last base of its chain of views."""
    base = a.base
    while base is not None:
        a = base
        base = getattr(a, "base", None)
    return a


def _is_buffer(x):
    """Is `x` a mutable array (not a NumPy scalar, a Python number or a traced value)?"""
    return x.__class__ is np.ndarray or (not isinstance(x, (Tracer, *_SCALARS)) and hasattr(x, "base"))


def own_arrays(values, callers):
    """`values`, a transform's derivatives, as arrays the caller owns: each writable, and
    sharing memory neither with another of them nor with one of `callers` (the caller's
    arguments and cotangents). The list is changed in place.

    Note [returned derivatives are owned]: the engine passes a cotangent through linear
    rules unchanged (add, reshape, the identity), so without this two gradients could be
    one array, or views of the caller's cotangent, and broadcasting leaves read-only views
    of a scalar: writing into one would change another, or raise. So a view is copied, and
    so is an array that is one of the callers' (or owns the memory of one of their views) or
    already among the values; an array that owns its memory otherwise, the common case, is
    returned as it is. They come in the face of the callers (faces.plain_values): arrays for
    arrays, Tensors for Tensors."""
    seen = None
    tensors = given_tensors(callers)
    i = -1
    for v in values:
        i += 1
        if v.__class__ is not np.ndarray:
            if isinstance(v, _SCALARS):
                continue
            if isinstance(v, Tracer):  # an outer level's value (its transform owns it), or a Tensor
                if tensors or v._trace is not EVAL:
                    continue
                v = values[i] = v.primal
            if not _is_buffer(v):
                continue
            check_plain_array(v, "a derivative (a constant of that type, such as a non-differentiated argument "
                                 "or a closed-over array, met a traced value)", "fgrad")
        if v.base is not None:  # a view: of a caller's array, of another value, or read-only
            values[i] = v.copy()
            continue
        if seen is None:
            seen = set()
            for c in callers:
                if _is_buffer(c):
                    seen.add(id(c if c.base is None else _root(c)))
        if id(v) in seen:
            v = values[i] = v.copy()
        seen.add(id(v))
    return plain_values(values, callers) if tensors else values


_SCALARS = (np.generic, float, int, complex)
