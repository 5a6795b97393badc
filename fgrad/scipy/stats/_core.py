"""scipy.stats's summaries that jax.scipy.stats has: sem (differentiable), rankdata and mode
(integer-valued: no derivative).

rankdata and mode compare every pair of elements along the axis (O(n^2) work and memory),
so they trace, batch under vmap and run on any device, like every other fgrad op.
"""
from typing import NamedTuple

import numpy as np

from ... import numpy as fnp
from ...backend import array_module
from ...ir.value import peek
from ...numpy._arguments import _as_operand, normalize_axis
from ._util import nan

__all__ = ["ModeResult", "mode", "rankdata", "sem"]


def _policy(fn, nan_policy, allowed):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"fgrad.scipy.stats.{fn}: nan_policy must be 'propagate', 'omit' or 'raise', got "
                         f"{nan_policy!r}")
    if nan_policy not in allowed:
        raise NotImplementedError(f"fgrad.scipy.stats.{fn}: nan_policy={nan_policy!r} is not supported (it would "
                                  f"decide on the values); use {' or '.join(map(repr, allowed))}")


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean, std(a, ddof) / sqrt(n), as scipy.stats.sem;
    differentiable in a. nan_policy='omit' leaves nans out (nanstd over their count).

    Examples
    --------
    >>> fgrad.scipy.stats.sem(np.array([1.0, 2.0, 3.0])), fgrad.grad(fgrad.scipy.stats.sem)(np.array([1.0, 2.0, 3.0]))
    (np.float64(0.5773502691896258), array([-0.28867513,  0.        ,  0.28867513]))
    """
    _policy("sem", nan_policy, ("propagate", "omit"))
    a = _as_operand(a)
    if a.dtype.kind in "biu":
        a = fnp.astype(a, np.float64)
    if axis is None:
        a, axis = fnp.ravel(a), 0
    if nan_policy == "omit":
        count = fnp.sum(~fnp.isnan(a), axis=axis, keepdims=keepdims)
        return fnp.nanstd(a, axis=axis, ddof=ddof, keepdims=keepdims) / fnp.sqrt(fnp.astype(count, a.dtype))
    n = int(np.prod([fnp.shape(a)[i] for i in normalize_axis(axis, fnp.ndim(a), "sem")]))
    return fnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / float(np.sqrt(n))


def _one_axis(axis, ndim, fn):
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"fgrad.scipy.stats.{fn}: axis must be an integer or None, got {axis!r}")
    return normalize_axis(axis, ndim, fn)[0]


def _pairs(x):
    """(x_j < x_i, x_j == x_i with nan equal to nan) over the last axis: shape (..., n, n)."""
    xi, xj = fnp.expand_dims(x, -1), fnp.expand_dims(x, -2)
    same = fnp.logical_or(xi == xj, fnp.logical_and(fnp.isnan(xi), fnp.isnan(xj)))
    return xj < xi, same


def _count(mask):
    return fnp.sum(mask, axis=-1)


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks of the elements of a (1 for the least), ties resolved by `method` ('average',
    'min', 'max', 'dense' or 'ordinal'), as scipy.stats.rankdata; all nan along the axis
    where that slice holds a nan. The ranks are float64 for every method (JAX's convention;
    SciPy's are integers for the methods other than 'average'). Not differentiable: ranks
    are piecewise constant.

    Examples
    --------
    >>> fgrad.scipy.stats.rankdata(np.array([3.0, 1.0, 3.0]))  # ties share their average rank
    array([2.5, 1. , 2.5])
    """
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f'unknown method "{method}"')
    _policy("rankdata", nan_policy, ("propagate",))
    a = _as_operand(a)
    if axis is None:
        a, axis = fnp.ravel(a), -1
    axis = _one_axis(axis, fnp.ndim(a), "rankdata")
    x = fnp.moveaxis(a, axis, -1)
    n = fnp.shape(x)[-1]
    less, same = _pairs(x)
    below = fnp.astype(_count(less), np.float64)
    ties = fnp.astype(_count(same), np.float64)
    if method == "average":
        ranks = below + (ties + 1.0) / 2.0
    elif method == "min":
        ranks = below + 1.0
    elif method == "max":
        ranks = below + ties
    elif method == "dense":  # each distinct smaller value counts once: 1 / its multiplicity per element
        weight = 1.0 / fnp.expand_dims(ties, -2)
        ranks = fnp.round(fnp.sum(fnp.where(less, weight, 0.0), axis=-1)) + 1.0
    else:  # ordinal: ties in order of position
        earlier = array_module(peek(x)).tri(n, n, -1, dtype=bool)
        ranks = below + fnp.astype(_count(fnp.logical_and(same, earlier)), np.float64) + 1.0
    ranks = fnp.where(fnp.any(fnp.isnan(x), axis=-1, keepdims=True), nan, ranks)
    return fnp.moveaxis(ranks, -1, axis)


class ModeResult(NamedTuple):
    """mode's result (mode, count): the most frequent value and how often it occurs, as scipy.stats's.

    Examples
    --------
    >>> res = fgrad.scipy.stats.mode(np.array([1, 2, 2, 3]))
    >>> int(res.mode), int(res.count)
    (2, 2)
    """

    mode: object
    count: object


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most frequent value along `axis` (the least of them where several are) and its
    count, as scipy.stats.mode: a ModeResult(mode, count), count as int64. nan counts as a
    value (chosen only when it is more frequent than every number). Not differentiable.

    Examples
    --------
    >>> fgrad.scipy.stats.mode(np.array([[1, 2], [1, 3], [0, 3]]))  # along axis 0
    ModeResult(mode=array([1, 3]), count=array([2, 2]))
    """
    _policy("mode", nan_policy, ("propagate",))
    a = _as_operand(a)
    if fnp.ndim(a) == 0:
        a = fnp.reshape(a, (1,))
    shape = fnp.shape(a)
    if axis is None:
        a, axis = fnp.ravel(a), 0
        kept = (1,) * len(shape)
    else:
        axis = _one_axis(axis, fnp.ndim(a), "mode")
        kept = shape[:axis] + (1,) + shape[axis + 1:]
    x = fnp.moveaxis(a, axis, -1)
    _, same = _pairs(x)
    counts = _count(same)
    top = fnp.max(counts, axis=-1, keepdims=True)
    numbers = fnp.logical_and(counts == top, ~fnp.isnan(x))
    value = fnp.min(fnp.where(numbers, x, np.inf), axis=-1)
    value = fnp.where(fnp.any(numbers, axis=-1), value, nan)
    if x.dtype.kind not in "fc":
        value = fnp.astype(value, x.dtype)
    count = fnp.squeeze(top, axis=-1)
    if keepdims:
        value, count = fnp.reshape(value, kept), fnp.reshape(count, kept)
    return ModeResult(value, count)
