"""Pytrees in and out of the transforms (fgrad.tree_util, on optree): flattening arguments and results, the
labels that name a leaf in messages (`args[1]`, `primals[0]['w']`), aux values, and the
wrapper a transform returns. The checks on what users pass live in checks.py, what a
transform hands back in owned.py, the Tensor face in faces.py.
"""
import functools

import numpy as np

from ..ir.value import Tracer
from ..tree_util import keystr, tree_flatten, tree_unflatten

__all__ = ["flatten", "flatten_args", "flatten_out", "is_leaf", "leaf_labels", "primal_of", "strip_aux", "unflatten",
           "unflatten_out", "wraps"]


def flatten(tree):
    """Leaves and structure; None is an empty subtree, as in JAX; the classes registered with
    fgrad.tree_util are nodes."""
    return tree_flatten(tree)


unflatten = tree_unflatten


def is_leaf(x):
    """Is `x` certainly a leaf (an array, a NumPy scalar or a traced value)? Then optree need not be asked."""
    return x.__class__ is np.ndarray or isinstance(x, (Tracer, np.generic))


def flatten_args(args, nums):
    """flatten for the arguments `args[i]` for i in `nums`; when each is an array or a traced
    value (the common case) they are their own leaves, with structure None."""
    leaves = []
    for i in nums:
        a = args[i]
        if not is_leaf(a):
            return flatten([args[i] for i in nums])
        leaves.append(a)
    return leaves, None


_ONE, _TUPLE = "one leaf", "a tuple of leaves"  # flatten_out's structures of the common outputs


def flatten_out(out):
    """flatten for what a function returns: one array, or a tuple of arrays (the common cases),
    is flattened without optree; unflatten_out undoes either."""
    if is_leaf(out):
        return [out], _ONE
    if out.__class__ is tuple:
        for o in out:
            if not is_leaf(o):
                return flatten(out)
        return list(out), _TUPLE
    return flatten(out)


def unflatten_out(treedef, leaves):
    if treedef is _ONE:
        return leaves[0]
    return tuple(leaves) if treedef is _TUPLE else unflatten(treedef, leaves)


class _Label:
    """The readable name of one leaf (`args[1]`, `primals[0]['w']`), made only when printed:
    labels appear in error messages and graphs, not on the hot path."""

    __slots__ = ("treedef", "name", "nums", "index")

    def __str__(self):
        if self.treedef is None:
            head, rest = self.index, ""
        else:  # (the first entry indexes the arguments' tuple; the rest as Python indexes them: ['w'][0].b)
            path = tuple(self.treedef.accessors()[self.index])
            head, rest = (path[0].entry, keystr(path[1:])) if path else (0, "")
        if self.nums is not None:
            head = self.nums[head]
        return f"{self.name}[{head}]{rest}"

    __repr__ = __format__ = lambda self, spec="": str(self)


_ARG_LABELS = {}  # (name, nums) -> leaf_labels(None, name, nums): labels are immutable, made once


def leaf_labels(treedef, name, nums=None):
    """Labels for the leaves of `treedef`: `args[1]`, `primals[0]['w']`, ... (made when printed).
    treedef None (plain arrays, from flatten_args) labels one leaf per entry of `nums`."""
    if treedef is None:
        labels = _ARG_LABELS.get((name, nums))
        if labels is None:
            labels = _ARG_LABELS[name, nums] = tuple(_labels(None, name, nums))
        return labels
    return _labels(treedef, name, nums)


def _labels(treedef, name, nums):
    labels = []
    for i in range(len(nums) if treedef is None else treedef.num_leaves):
        label = _Label()  # (a bare class call: pytree arguments make labels on every call)
        label.treedef, label.name, label.nums, label.index = treedef, name, nums, i
        labels.append(label)
    return labels


def primal_of(value, trace):
    """Unwrap `value` if it belongs to `trace`."""
    return value.primal if isinstance(value, Tracer) and value._trace is trace else value


def strip_aux(aux, trace):
    """aux comes back without this transform's tracing (as in JAX)."""
    leaves, treedef = flatten(aux)
    return unflatten(treedef, [primal_of(a, trace) for a in leaves])


def wraps(wrapper, fun, transform):
    try:
        functools.update_wrapper(wrapper, fun)
    except AttributeError:
        pass
    wrapper.__name__ = f"{transform}({getattr(fun, '__name__', 'fun')})"
    wrapper.__qualname__ = wrapper.__name__
    return wrapper
