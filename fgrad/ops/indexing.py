"""Indexing: `x[index]` and its transpose, a scatter-add into zeros.

The index is a static parameter, normalized once: a tuple whose entries are ints,
slices, None, Ellipsis or integer arrays (boolean masks become their nonzero() arrays,
which index the same elements). Repeated integer indices accumulate in the scatter.

An integer array that vmap batches differs between examples, so it cannot be a static
parameter: `gather` and `scatter_add_at` take such index arrays as operands, and their
`template` is the index with a `Slot` where each operand goes.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import Tracer, decided, is_batched, is_staged
from . import primitive
from .axes import moveaxis, transpose
from .batching import batch_size, first, front, same_rank
from .primitive import Primitive

__all__ = ["Scattered", "Slot", "dense", "gather", "getitem", "normalize_index", "scatter_add", "scatter_add_at",
           "split_dynamic"]


def normalize_index(index, dynamic=False):
    """A canonical tuple index; traced or list entries become concrete arrays. With `dynamic`,
    an integer array batched by vmap, or one fgrad.compile traces (whose values the program
    must not fix), stays as it is (for gather); otherwise it is an error."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if isinstance(item, Tracer):
            if dynamic and item.dtype.kind in "iu" and (is_batched(item) or is_staged(item)):
                out.append(item)
                continue
            item = decided(item, "an index")
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
            item = item.copy()  # (a parameter of the node: the caller may write into its index array later)
        out.append(item)
    return tuple(out)


def _is_advanced(index):
    return any(hasattr(i, "ndim") for i in index)


class Slot:
    """The place of index operand `k` in a gather or scatter_add_at `template`."""

    __slots__ = ("k", "ndim")

    def __init__(self, k, ndim):
        self.k, self.ndim = k, ndim  # (ndim: an index array's, so that the template reads as an index)

    def __repr__(self):
        return f"Slot({self.k})"


def split_dynamic(index):
    """(template, operands): the traced entries of `index` taken out as operands."""
    for i in index:
        if isinstance(i, Tracer):
            break
    else:  # (the common case: a static index)
        return index, ()
    operands = [i for i in index if isinstance(i, Tracer)]
    k = iter(range(len(operands)))
    return tuple(Slot(next(k), i.ndim) if isinstance(i, Tracer) else i for i in index), operands


def _fill(template, idx):
    return tuple(idx[i.k] if i.__class__ is Slot else i for i in template)


def _scatter_add(g, index, shape):
    xp = array_module(g)
    advanced = _is_advanced(index)
    if advanced and xp is not np and g.dtype.kind == "c" and not getattr(xp, "numpy_backed", False):
        # CuPy's add.at takes real dtypes only: a complex sum is two real ones, put together
        parts = [xp.zeros(shape, dtype=g.real.dtype) for _ in range(2)]
        xp.add.at(parts[0], index, xp.real(g))
        xp.add.at(parts[1], index, xp.imag(g))
        return parts[0] + 1j * parts[1]
    out = xp.zeros(shape, dtype=g.dtype)
    if advanced:
        xp.add.at(out, index, g)
    else:
        out[index] = g  # basic indexing never repeats an element
    return out


def _scatter_sum(*gs, indices, shape):
    """zeros(shape) with each gs[i] added at indices[i] (basic indices): the sum of the pieces'
    scatter_adds, one buffer for all (compile/optimize.py makes it: Note [scattered cotangents])."""
    out = array_module(*gs).zeros(shape, dtype=gs[0].dtype)
    for g, index in zip(gs, indices):
        out[index] += g
    return out


# (made only by compile's optimizer from a sum of scatter_adds, after differentiation: no rules)
scatter_sum = Primitive("scatter_sum", _scatter_sum, register=False)


class Scattered:
    """Note [scattered cotangents]: the cotangent of x from `x[index]` is zeros with g at
    index. Made dense by each getitem, n slices of one array would cost n arrays of x's size
    and n adds of them: n^2 (concatenating 100,000 slices of x took 40 s). In a plain backward
    pass (concrete cotangents, no transform above it) getitem's rule returns this instead: its
    pieces, which the engine adds up as a list, made dense once, by the first arithmetic that
    is not a sum of cotangents (the partial of x's node: `d * g`, `-g`, the NumPy call of a
    rule) or where a hook, a captured value or an answer would see it (engine/backward.py).
    So the engine's walk reads no class per node. Basic indices only: each piece writes an
    element once.

    A sum is a new Scattered, yet costs no copy of the pieces: the pieces of a Scattered are
    the first `n` entries of its list, and a sum extends the list in place when it is still
    exactly this one's (else it copies the prefix). The engine may pass one cotangent to two
    inputs (the partials of `a + b`), so a sum must leave its operands as they were."""

    __slots__ = ("shape", "dtype", "pieces", "n")
    __array_priority__ = 10000  # (ndarray + Scattered: NumPy leaves it to __radd__)

    def __init__(self, g, index, shape):
        self.shape, self.dtype, self.pieces, self.n = tuple(shape), g.dtype, [(index, g)], 1

    def __add__(self, other):
        if other.__class__ is Scattered:
            right = other.pieces if len(other.pieces) == other.n else other.pieces[:other.n]
            pieces = self.pieces if len(self.pieces) == self.n else self.pieces[:self.n]
            pieces += right  # (right may be this very list: += of a list with itself doubles it)
            total = Scattered.__new__(Scattered)
            total.shape, total.dtype, total.pieces, total.n = self.shape, self.dtype, pieces, len(pieces)
            return total
        if other.__class__ is np.ndarray:
            return self.onto(other.astype(np.result_type(other, self.dtype)))  # (a copy: other is not ours)
        return self.dense() + other  # (a traced value or a Tensor: its own addition)

    __radd__ = __add__

    def __mul__(self, other):  # (a partial times the cotangent, in the engine's inline step)
        return self.dense() * other

    def __rmul__(self, other):
        return other * self.dense()

    def __neg__(self):
        return -self.dense()

    def __array__(self, dtype=None, copy=None):  # (a kernel given one, as np.add(t, s) in a Tensor's op)
        out = self.dense()
        return out if dtype is None else out.astype(dtype)

    def dense(self):
        return self.onto(array_module(self.pieces[0][1]).zeros(self.shape, self.dtype))

    def onto(self, out):
        pieces = self.pieces
        for i in range(self.n):
            index, g = pieces[i]
            out[index] += g
        return out


def _scatters_lazily(g, x, index):
    """Whether getitem's cotangent may be a Scattered (Note [scattered cotangents])."""
    return (g.__class__ is np.ndarray and primitive._state.trace is primitive.EVAL and g.dtype == x.dtype
            and len(x.shape) > 0 and not _is_advanced(index))


def dense(g):
    """`g`, a Scattered made dense (anything else as it is)."""
    return g.dense() if g.__class__ is Scattered else g


def _write_back(base, view_value, index):
    """`base` with the elements `index` selects replaced by `view_value` (getitem's view inverse)."""
    return base + scatter_add(view_value - getitem(base, index=index), index=index, shape=tuple(base.shape))


# ---- batching: where NumPy's advanced indexing puts the axes --------------------------------
def _picks(item):
    """Is this index entry advanced (an array, or an int beside one)?"""
    return hasattr(item, "ndim") or isinstance(item, (int, np.integer))


def _lead(index, ndim):
    """How many result axes come before the advanced entries' axes when they stay in place:
    one per slice or None before the first advanced entry, and an Ellipsis's axes (for an
    operand of `ndim` axes)."""
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    n = 0
    for i in index:
        if _picks(i):
            return n
        n += ndim - used if i is Ellipsis else 1
    return n


def _advanced_first(index):
    """Does NumPy put the axes of the advanced entries of `index` first in the result? It does
    when they are not next to each other (an int counts as advanced when an array is present;
    a slice, None or Ellipsis between them separates them)."""
    if not _is_advanced(index):
        return False
    places = [i for i, item in enumerate(index) if _picks(item)]
    return places[-1] - places[0] + 1 != len(places)


def _batch_axis_of(index):
    """Where the batch axis lands in x[(slice(None),) + index] with x's batch axis first: first,
    unless NumPy puts the advanced entries' axes in front of it."""
    if not _advanced_first(index):
        return 0
    return len(np.broadcast_shapes(*[np.shape(i) for i in index if _picks(i)]))


# getitem and scatter_add batch as gather and scatter_add_at (below) with no index operands.
getitem = Primitive("getitem", lambda x, index: x[index], saves="nothing", torch_name="Index", view=_write_back,
                    batch=lambda args, dims, index: _gather_batch(args, dims, index))
scatter_add = Primitive("scatter_add", _scatter_add, saves="nothing", torch_name="IndexPut",
                        batch=lambda args, dims, index, shape: _scatter_at_batch(args, dims, index, shape))


# ---- indices that vmap batches: gather and its transpose ----------------------------------
def _adv_ndim(template, idx, dims):
    """The rank of the advanced entries' broadcast shape, per example."""
    return max([np.ndim(i) - (d is not None) for i, d in zip(idx, dims)]
               + [np.ndim(i) for i in template if hasattr(i, "ndim") and i.__class__ is not Slot], default=0)


def _lined(x_ndim, template, idx, dims, size):
    """The stacked index of a batched gather or scatter, and the permutation of its result
    that restores each example's axis order (None when none is needed): an arange picks each
    example's slice of the (stacked) operand, beside the batched index arrays, each lined up
    batch axis first; NumPy then puts the advanced axes, the batch axis first among them, in
    front of the axes of slices before them (_lead), which the permutation moves back."""
    nd = _adv_ndim(template, idx, dims)
    idx = [i if d is None else same_rank(i, d, nd) for i, d in zip(idx, dims)]
    ar = np.arange(size).reshape((size,) + (1,) * nd)
    lead = 0 if _advanced_first(_fill(template, idx)) else _lead(template, x_ndim)
    perm = (0, *range(1 + nd, 1 + nd + lead), *range(1, 1 + nd)) if lead else None
    return (ar, *template), idx, perm


def _gather_batch(args, dims, template):
    x, idx, dx, didx = args[0], args[1:], dims[0], dims[1:]
    if all(d is None for d in didx):  # only x is batched: a slice(None) takes its batch axis
        t = (slice(None), *template)
        return gather(front(x, dx), *idx, template=t), _batch_axis_of(_fill(t, idx))
    size = batch_size(args, dims)
    x = first(x, dx, size)
    t, idx, perm = _lined(x.ndim - 1, template, idx, didx, size)
    out = gather(x, *idx, template=t)
    if perm is not None:
        out = transpose(out, axes=perm + tuple(range(len(perm), out.ndim)))
    return out, 0


def _scatter_at_batch(args, dims, template, shape):
    g, idx, dg, didx = args[0], args[1:], dims[0], dims[1:]
    if all(d is None for d in didx):  # only g is batched (laid out as _gather_batch's result)
        t = (slice(None), *template)
        at = _batch_axis_of(_fill(t, idx))
        g = moveaxis(g, dg, at)
        return scatter_add_at(g, *idx, template=t, shape=(g.shape[at], *shape)), 0
    size = batch_size(args, dims)
    g = first(g, dg, size)
    t, idx, perm = _lined(len(shape), template, idx, didx, size)
    if perm is not None:  # g in the layout of the stacked gather's result (perm undone)
        g = transpose(g, axes=tuple(np.argsort(perm + tuple(range(len(perm), g.ndim)))))
    return scatter_add_at(g, *idx, template=t, shape=(size, *shape)), 0


gather = Primitive("gather", lambda x, *idx, template: x[_fill(template, idx)], saves="nothing", torch_name="Index",
                   batch=_gather_batch)
scatter_add_at = Primitive("scatter_add_at", lambda g, *idx, template, shape: _scatter_add(g, _fill(template, idx),
                                                                                              shape),
                           saves="nothing", torch_name="IndexPut", batch=_scatter_at_batch)
gather.defvjp_all(lambda g, ans, primals, needs, template: (
    scatter_add_at(g, *primals[1:], template=template, shape=tuple(primals[0].shape)) if needs[0] else None,
    *(None,) * (len(primals) - 1)))
gather.defjvp_full(lambda primals, tangents, ans, template: None if tangents[0] is None else gather(
    tangents[0], *primals[1:], template=template))
scatter_add_at.defvjp_all(lambda g, ans, primals, needs, template, shape: (
    gather(g, *primals[1:], template=template) if needs[0] else None, *(None,) * (len(primals) - 1)))
scatter_add_at.defjvp_full(lambda primals, tangents, ans, template, shape: None if tangents[0] is None else
                           scatter_add_at(tangents[0], *primals[1:], template=template, shape=shape))
getitem.defvjp(lambda g, ans, x, index: Scattered(g, index, x.shape) if _scatters_lazily(g, x, index) else
               scatter_add(g, index=index, shape=x.shape)).defjvp(
    lambda t, ans, x, index: getitem(t, index=index))
scatter_add.defvjp(lambda g, ans, x, index, shape: getitem(g, index=index)).defjvp(
    lambda t, ans, x, index, shape: scatter_add(t, index=index, shape=shape))
