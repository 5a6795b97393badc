"""Indexing: `x[index]` and its transpose, a scatter-add into zeros.

The index is a static parameter, normalized once: a tuple whose entries are ints,
slices, None, Ellipsis or integer arrays (boolean masks become their nonzero() arrays,
which index the same elements). Repeated integer indices accumulate in the scatter.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import Tracer, concrete
from .primitive import Primitive

__all__ = ["getitem", "normalize_index", "scatter_add"]


def normalize_index(index):
    """A canonical tuple index; traced or list entries become concrete arrays."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if isinstance(item, Tracer):
            item = concrete(item)
        if isinstance(item, list):
            item = np.asarray(item)
        if isinstance(item, np.generic):
            item = item.item()
        elif hasattr(item, "dtype"):
            if item.dtype == bool:
                out.extend(item.nonzero())
                continue
            if not np.issubdtype(item.dtype, np.integer):
                raise IndexError(f"fgrad: only integer or boolean arrays are valid indices, got dtype {item.dtype}")
        out.append(item)
    return tuple(out)


def _is_advanced(index):
    return any(hasattr(i, "ndim") for i in index)


def _scatter_add(g, index, shape):
    xp = array_module(g)
    out = xp.zeros(shape, dtype=g.dtype)
    if _is_advanced(index):
        if xp is np:
            np.add.at(out, index, g)
        else:
            xp.add.at(out, index, g)
    else:
        out[index] = g  # basic indexing never repeats an element
    return out


def _write_back(base, view_value, index):
    """`base` with the elements `index` selects replaced by `view_value` (getitem's view inverse)."""
    return base + scatter_add(view_value - getitem(base, index=index), index=index, shape=tuple(base.shape))


getitem = Primitive("getitem", lambda x, index: x[index], saves="nothing", torch_name="Index", view=_write_back)
scatter_add = Primitive("scatter_add", _scatter_add, saves="nothing", torch_name="IndexPut")
getitem.defvjp(lambda g, ans, x, index: scatter_add(g, index=index, shape=x.shape)).defjvp(
    lambda t, ans, x, index: getitem(t, index=index))
scatter_add.defvjp(lambda g, ans, x, index, shape: getitem(g, index=index)).defjvp(
    lambda t, ans, x, index, shape: scatter_add(t, index=index, shape=shape))
