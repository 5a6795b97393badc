"""What the constructs share: the types of their carries and branch outputs, checked as JAX
checks them, and the truth of a predicate that vmap may batch.

A loop's carry keeps one type (structure, and each leaf's shape and dtype) from init to
every body output; the branches of a cond or switch return one type. A Python number in
an initial carry is a 0-d array of NumPy's dtype for it (JAX's x64 dtypes: int64, float64);
one that a body or branch returns takes its partner's dtype, as JAX's weak types do.
"""
import numpy as np

from .. import numpy as fnp
from ..ir.value import BatchTracer, StageTracer, Tracer
from ..ops.primitive import run_under
from ..transforms import trees

__all__ = ["any_true", "as_arrays", "as_carry", "check_same", "leaf_type", "path", "same_types"]

_NUMBERS = (bool, int, float, complex)
_SCALARS = (*_NUMBERS, np.generic)  # (NumPy's arithmetic on 0-d arrays gives NumPy scalars)


def leaf_type(x):
    """(shape, dtype) of an array, a traced value or a number."""
    if hasattr(x, "dtype") and hasattr(x, "shape"):
        return tuple(x.shape), np.dtype(x.dtype)
    if isinstance(x, _NUMBERS):
        return (), np.result_type(x)
    raise TypeError(f"a {type(x).__name__} ({x!r:.40}) is not an array")


def as_carry(tree, what, name):
    """(leaves, structure) of `tree` with each Python number a 0-d array; a TypeError naming
    the leaf that is not an array."""
    leaves, tree_def = trees.flatten(tree)
    out = []
    for i, x in enumerate(leaves):
        if isinstance(x, _NUMBERS):
            x = np.asarray(x)
        elif not (hasattr(x, "dtype") and hasattr(x, "shape")):
            raise TypeError(f"fgrad.lax.{name}: {what}{path(tree_def, i)} is a {type(x).__name__} ({x!r:.40}); "
                            f"the values a loop carries and a branch returns are arrays, numbers, or pytrees of them")
        out.append(x)
    return out, tree_def


def as_arrays(tree):
    """`tree` with each Python number or NumPy scalar leaf a 0-d array: what a construct returns
    is arrays, as JAX's are (a body's `a * 2` on a 0-d array is a NumPy scalar); traced values
    are left as they are. `tree` itself where no leaf is a scalar."""
    leaves, tree_def = trees.flatten(tree)
    if not any(isinstance(x, _SCALARS) for x in leaves):
        return tree
    return trees.unflatten(tree_def, [np.asarray(x) if isinstance(x, _SCALARS) else x for x in leaves])


_KINDS = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _weak_fits(x, partner):
    """Does the Python number `x` take the type `partner` (a 0-d one of its kind or above), as
    a JAX weak type does: an int a float's, a float a float32's; never a bool's."""
    if not isinstance(x, _NUMBERS) or isinstance(x, bool) or partner[0] != ():
        return False
    return _KINDS[np.result_type(x).kind] <= _KINDS.get(partner[1].kind, -1) and partner[1].kind != "b"


def path(tree_def, i):
    """Where leaf i sits in `tree_def`, as indexing reads: `[1]['w']`, or '' for a lone leaf."""
    return "".join(f"[{p!r}]" for p in tree_def.paths()[i])


def _describe(t):
    return f"shape {t[0]} and dtype {t[1]}"


def check_same(name, got, got_what, expected, expected_what):
    """`got` (leaves, structure), checked to be of the type of `expected`; its leaves returned,
    a Python number cast to its partner's dtype. The TypeError names both sides, as JAX's."""
    leaves, tree_def = got
    e_leaves, e_tree = expected
    if tree_def != e_tree:
        raise TypeError(f"fgrad.lax.{name}: {got_what} and {expected_what} must have identical types, but "
                        f"{got_what} has structure {tree_def} and {expected_what} has structure {e_tree}")
    out = []
    for i, (x, e) in enumerate(zip(leaves, e_leaves)):
        te = leaf_type(e)
        if _weak_fits(x, te):
            x = np.asarray(x, dtype=te[1])  # (a weakly typed number takes its partner's dtype)
        try:
            t = leaf_type(x)
        except TypeError as exc:
            raise TypeError(f"fgrad.lax.{name}: {got_what}{path(tree_def, i)}: {exc}") from None
        if t != te:
            where = path(e_tree, i)
            raise TypeError(f"fgrad.lax.{name}: {got_what} and {expected_what} must have identical types, but "
                            f"{got_what}{where} has {_describe(t)} while {expected_what}{where} has {_describe(te)}")
        out.append(x)
    return out


def same_types(a, b):
    """Do the leaf lists `a` and `b` hold leaves of the same shapes and dtypes?"""
    return all(leaf_type(x) == leaf_type(y) for x, y in zip(a, b))


def any_true(p):
    """Is the predicate `p` true for any example of every vmap that batches it? Python reads
    the answer, as a loop over a batch runs while any example still runs (JAX's batching of
    while_loop); under fgrad.compile the read is guarded."""
    while isinstance(p, Tracer):
        if p.__class__ is BatchTracer:
            p = run_under(p._trace.parent, _any, p.primal)
        else:
            if p.__class__ is StageTracer:
                p._trace.read_value(p)
            p = p.primal
    return bool(p)


def _any(x):
    return fnp.any(x)
