"""Zeros: None is fgrad's one symbolic zero derivative; these make concrete ones where an
array is needed.

A rule skips a None cotangent or tangent, so an unused branch costs nothing. A rule that
needs arrays gets them here: `zeros_like_value` for one value, `materialize` for the
outputs of a multiple-result primitive that nothing used (Note [symbolic zero outputs]
in engine/backward.py).
"""
import numpy as np

from ..backend import array_module
from ..ir.value import peek

__all__ = ["materialize", "zeros_like_value"]


def zeros_like_value(value):
    """A concrete zero of `value`'s shape and dtype: a scalar for a scalar (a Python float's
    gradient is a float), an array for an array."""
    c = peek(value)
    if isinstance(c, (float, np.generic)):
        return np.asarray(c).dtype.type(0)
    return array_module(c).zeros(np.shape(value), dtype=getattr(value, "dtype", np.float64))  # (vmap: one example's)


def materialize(cts, outs):
    """The cotangents of a multiple-result primitive's outputs `outs`, symbolic zeros (None)
    made concrete zeros, for rules that need arrays (users' bwd, Function.backward). The
    engine hands those rules None for an output nothing used (Note [symbolic zero outputs])."""
    return tuple(zeros_like_value(o) if c is None else c for o, c in zip(outs, cts))
