"""lax.associative_scan: every prefix of an associative operation, in O(log n) rounds.

JAX's algorithm (Blelloch's, as in jax/_src/lax/control_flow/loops.py): combine the
elements pairwise, scan the half-length sequence of pairs recursively, and fill in the
even positions from it; each round is a few whole-array calls of `fn`, so the work is
vectorized and every transform sees ordinary array ops.
"""
from .. import numpy as fnp
from ..transforms import trees
from ..typing import Callable, PyTree
from .carries import leaf_type, path

__all__ = ["associative_scan"]


def associative_scan(fn: Callable[[PyTree, PyTree], PyTree], elems: PyTree, reverse: bool = False,
                     axis: int = 0) -> PyTree:
    """The inclusive scan of `elems` along `axis` with the associative `fn`, as
    jax.lax.associative_scan: result[i] = fn(... fn(elems[0], elems[1]) ..., elems[i]).

    fn takes two pytrees of elems' structure whose leaves are slices along `axis` (any
    length) and returns one such pytree, elementwise along `axis`; reverse scans from the
    end. associative_scan(fnp.add, x) is fnp.cumsum(x, axis=0).

    Examples
    --------
    >>> fgrad.lax.associative_scan(fnp.add, np.array([1.0, 2.0, 3.0, 4.0]))  # the prefix sums
    array([ 1.,  3.,  6., 10.])
    """
    leaves, tree = trees.flatten(elems)
    if not leaves:
        raise ValueError("fgrad.lax.associative_scan: elems has no arrays")
    ndim = len(leaf_type(leaves[0])[0])
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"fgrad.lax.associative_scan: axis {axis} is out of range for elems of {ndim} dimensions")
    axis %= max(ndim, 1)
    lengths = [leaf_type(x)[0][axis] if len(leaf_type(x)[0]) > axis else None for x in leaves]
    if len(set(lengths)) != 1 or lengths[0] is None:
        raise ValueError("fgrad.lax.associative_scan: every leaf of elems needs one length along axis "
                         f"{axis}, got " + ", ".join(f"elems{path(tree, i)} {n}" for i, n in enumerate(lengths)))

    def cut(x, start, stop=None, step=1):
        return x[(slice(None),) * axis + (slice(start, stop, step),)]

    def combine(a, b):
        out_leaves, out_tree = trees.flatten(fn(trees.unflatten(tree, a), trees.unflatten(tree, b)))
        if out_tree != tree:
            raise TypeError(f"fgrad.lax.associative_scan: fn returned structure {out_tree}, but elems has {tree}")
        return out_leaves

    def interleave(even, odd):  # even[0], odd[0], even[1], odd[1], ... (even one longer, or as long)
        n = odd.shape[axis]
        pairs = fnp.stack([cut(even, 0, n), odd], axis=axis + 1)
        merged = fnp.reshape(pairs, (*odd.shape[:axis], 2 * n, *odd.shape[axis + 1:]))
        return merged if even.shape[axis] == n else fnp.concatenate([merged, cut(even, n)], axis=axis)

    def scan(xs):
        n = xs[0].shape[axis]
        if n < 2:
            return xs
        odd = scan(combine([cut(x, 0, -1, 2) for x in xs], [cut(x, 1, None, 2) for x in xs]))
        evens = [cut(x, 2, None, 2) for x in xs]
        even = combine([cut(o, 0, -1) for o in odd] if n % 2 == 0 else odd, evens)
        even = [fnp.concatenate([cut(x, 0, 1), e], axis=axis) for x, e in zip(xs, even)]
        return [interleave(e, o) for e, o in zip(even, odd)]

    leaves = [fnp.asarray(x) for x in leaves]
    if reverse:
        leaves = [fnp.flip(x, axis=axis) for x in leaves]
    out = scan(leaves)
    if reverse:
        out = [fnp.flip(x, axis=axis) for x in out]
    return trees.unflatten(tree, out)
