"""What the primitives' batching rules share (vmap, transforms/batching.py).

A rule gets the stacked values and, for each, its batch axis (None: the value is the same
for every example) and returns the stacked result and its batch axis. These helpers move a
batch axis, line values up for NumPy's broadcasting, and make the common rules: elementwise
ops broadcast, and ops that act on trailing axes (linalg) take the batch axis in front.
"""

from .axes import logical_axis, reshape, transpose
from .broadcasting import broadcast_to

__all__ = ["batch_size", "elementwise", "first", "front", "leading", "logical_axis", "same_rank", "stacked"]


def front(x, d):
    """`x` with its batch axis (now at d) first."""
    return transpose(x, axes=(d, *range(d), *range(d + 1, x.ndim))) if d else x


def _ndim(a):
    return getattr(a, "ndim", 0)  # (a Python number has none: 0)


def batch_size(args, dims):
    for a, d in zip(args, dims):
        if d is not None:
            return a.shape[d]
    raise ValueError("fgrad: a batching rule was called with no batched argument")


def same_rank(x, d, ndim):
    """`x` (batched along d) with its batch axis first and 1s after it up to `ndim` per-example
    axes: NumPy's broadcasting, which aligns axes from the right, then lines up the examples."""
    x = front(x, d)
    missing = ndim - (x.ndim - 1)
    return reshape(x, shape=(x.shape[0],) + (1,) * missing + tuple(x.shape[1:])) if missing > 0 else x


def elementwise(prim):
    """The rule of a broadcasting op: when every batched argument has its batch axis at the same
    place and rank, and no unbatched one reaches that axis, the op runs as it is (the common
    case, no moves); otherwise batch axes go first and ranks are lined up (same_rank)."""
    def rule(args, dims, **params):
        d = n = None
        simple = True
        for a, ad in zip(args, dims):
            if ad is not None:
                if d is None:
                    d, n = ad, a.ndim
                elif ad != d or a.ndim != n:
                    simple = False
                    break
        if simple:
            reach = n - 1 - d  # axes after the batch axis: an unbatched argument may cover only those
            for a, ad in zip(args, dims):
                if ad is None and _ndim(a) > reach:
                    simple = False
                    break
            else:
                return prim(*args, **params), d
        nd = max(_ndim(a) - (ad is not None) for a, ad in zip(args, dims))
        lined = [a if ad is None else same_rank(a, ad, nd) for a, ad in zip(args, dims)]
        return prim(*lined, **params), 0
    return rule


def leading(prim):
    """The rule of an op on its argument's trailing axes that stacks over leading ones (NumPy's
    linalg: inv, det, cholesky, eigh, qr, svd, ...): the batch axis goes first, and so is the
    result's (each output's, for several)."""
    def rule(args, dims, **params):
        return prim(front(args[0], dims[0]), **params), 0
    return rule


def stacked(prim, core):
    """The rule of an op whose arguments have `core[i]` trailing axes each and broadcast over
    the leading (stack) ones (NumPy's solve): batch axes go first, and each batched argument
    gets 1s after it up to the largest stack rank, so the stacks line up from the right."""
    def rule(args, dims, **params):
        stack = max(_ndim(a) - (d is not None) - c for a, d, c in zip(args, dims, core))
        lined = [a if d is None else same_rank(a, d, stack + c) for a, d, c in zip(args, dims, core)]
        return prim(*lined, **params), 0
    return rule


def first(x, d, size):
    """`x` with its batch axis first; an unbatched `x` (d None) repeated along a new first axis
    of `size` (for ops that do not broadcast, such as concatenate)."""
    if d is not None:
        return front(x, d)
    return broadcast_to(reshape(x, shape=(1, *x.shape)), shape=(size, *x.shape))
