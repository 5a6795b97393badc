"""Pytrees in and out of the transforms (optree), and the checks on what users pass.

Every message names the transform, the argument and the shapes/dtypes involved.
"""
import functools

import numpy as np
import optree

from ..backend import array_module
from ..ir.value import Tracer, peek
from ..ops.primitive import EVAL
from ..ops.zeros import zeros_like_value

__all__ = ["flatten", "unflatten"]


def flatten(tree):
    """Leaves and structure; None is an empty subtree, as in JAX."""
    return optree.tree_flatten(tree, none_is_leaf=False)


def unflatten(treedef, leaves):
    return optree.tree_unflatten(treedef, list(leaves))


def _is_leaf(x):
    """Is `x` certainly a leaf (an array, a NumPy scalar or a traced value)? Then optree need not be asked."""
    return x.__class__ is np.ndarray or isinstance(x, (Tracer, np.generic))


is_leaf = _is_leaf  # (public: custom.py tells the common cases apart too)


def flatten_args(args, nums):
    """flatten for the arguments `args[i]` for i in `nums`; when each is an array or a traced
    value (the common case) they are their own leaves, with structure None."""
    leaves = []
    for i in nums:
        a = args[i]
        if not _is_leaf(a):
            return flatten([args[i] for i in nums])
        leaves.append(a)
    return leaves, None


_ONE, _TUPLE = "one leaf", "a tuple of leaves"  # flatten_out's structures of the common outputs


def flatten_out(out):
    """flatten for what a function returns: one array, or a tuple of arrays (the common cases),
    is flattened without optree; unflatten_out undoes either."""
    if _is_leaf(out):
        return [out], _ONE
    if out.__class__ is tuple:
        for o in out:
            if not _is_leaf(o):
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
        path = (self.index,) if self.treedef is None else self.treedef.paths()[self.index]
        head, rest = (path[0], path[1:]) if path else (0, ())
        if self.nums is not None:
            head = self.nums[head]
        return f"{self.name}[{head}]" + "".join(f"[{p!r}]" for p in rest)

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


def _is_float_dtype(dtype):
    return dtype.kind == "f"


def _unsupported_array(x):
    """Why fgrad refuses `x`, an ndarray subclass whose operators and reductions mean other
    things than ndarray's (Note [masked arrays and matrices are refused]), or None."""
    if isinstance(x, np.ma.MaskedArray):
        return ("a numpy.ma.MaskedArray: fgrad computes on all its entries, the masked ones included, "
                "where numpy.ma skips them, so the value and the derivative would disagree with the mask; "
                "pass np.ma.filled(x, v) (masked entries read as v) or x.compressed() (the unmasked ones), "
                "or keep the mask as a boolean array and select with fnp.where")
    if isinstance(x, np.matrix):
        return ("a numpy.matrix, whose * is a matrix product and whose results all stay 2-d; fgrad follows "
                "ndarray's semantics, so it refuses it: pass np.asarray(x) (and write @ for a matrix product)")
    return None


def check_plain_array(x, label, transform):
    """Raise a TypeError naming `label` when `x` is an np.ma.MaskedArray or an np.matrix.

    Note [masked arrays and matrices are refused]: both subclass ndarray, so NumPy's kernels
    accept them and return them, but with their own meaning: a MaskedArray's mask is kept by
    some kernels and ignored by others (value_and_grad summed the masked entries into the
    value and then masked the gradient), and a matrix turns * into a matrix product and keeps
    every result 2-d (a sum is a (1, 1) matrix). fgrad refuses them where they enter a
    transform (the differentiated inputs, tangents and cotangents, vmap's and compile's
    arguments) and where one met a traced value (a gradient's value, a returned derivative),
    all off the common path: a plain ndarray is told apart by its class first."""
    if x.__class__ is not np.ndarray and isinstance(x, np.ndarray):
        why = _unsupported_array(x)
        if why is not None:
            raise TypeError(f"{transform}: {label} is {why}")
    return x


def float_input(x, label, transform):
    """`x` as a floating-point array or scalar, or a TypeError naming it."""
    if x.__class__ is np.ndarray and x.dtype.kind == "f":  # the common case, first
        return x
    if isinstance(x, Tracer):
        dtype = x.dtype
    elif isinstance(x, bool) or isinstance(x, (int, np.integer, np.bool_)):
        raise TypeError(f"{transform}: can only differentiate with respect to floating-point inputs, "
                        f"but {label} is the {type(x).__name__} {x!r}; pass a float (e.g. {float(x)!r})")
    elif isinstance(x, float):
        return np.float64(x)
    elif hasattr(x, "dtype") and hasattr(x, "shape"):
        check_plain_array(x, label, transform)
        dtype = x.dtype
    else:
        raise TypeError(f"{transform}: {label} is of type {type(x).__name__}, which is not an array, a "
                        f"Python float or a pytree of them")
    if not _is_float_dtype(dtype):
        raise TypeError(f"{transform}: can only differentiate with respect to floating-point inputs, but "
                        f"{label} has dtype {dtype} and shape {tuple(x.shape)}; cast it, e.g. x.astype(float)")
    return x


def primal_of(value, trace):
    """Unwrap `value` if it belongs to `trace`."""
    return value.primal if isinstance(value, Tracer) and value._trace is trace else value


def split_aux(result, has_aux, transform):
    if not has_aux:
        return result, None
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError(f"{transform}(..., has_aux=True): the function must return a pair (output, aux), "
                        f"got {type(result).__name__}")
    return result[0], result[1]


def strip_aux(aux, trace):
    """aux comes back without this transform's tracing (as in JAX)."""
    leaves, treedef = flatten(aux)
    return unflatten(treedef, [primal_of(a, trace) for a in leaves])


_SEEDS = {}  # dtype -> its 1 (NumPy scalars are immutable: one serves every call)


def scalar_seed(out, transform, fun):
    """The cotangent that starts a gradient: 1 in the dtype of `out`, which must be a
    floating-point scalar (else a TypeError naming what `fun` returned)."""
    # The common case first: a 0-d float array or NumPy scalar, or a traced value of one (a
    # traced value's shape and dtype are its primal's, read in C).
    if out.__class__ is not float and getattr(out, "shape", None) == ():
        dtype = out.dtype
        if dtype.kind == "f":
            one = _SEEDS.get(dtype)
            if one is None:
                one = _SEEDS[dtype] = dtype.type(1)
            value = peek(out)
            if value.__class__ is np.ndarray or isinstance(value, np.generic):
                return one
            _check_output_array(value, transform, fun)
            return array_module(value).ones((), dtype)  # (on out's device: a CUDA or a second device)
    name = getattr(fun, "__name__", "the function")
    _check_output_array(peek(out), transform, fun)
    if isinstance(out, float) and not hasattr(out, "shape"):
        return 1.0  # a constant float: its derivative is zero (as JAX)
    if isinstance(out, int):  # (bool too) an int has no derivative, and 0 would be a guess (as JAX)
        raise TypeError(f"{transform} requires a floating-point output, but {name} returned the "
                        f"{type(out).__name__} {out!r}; return a float or an array of floating dtype")
    shape = getattr(out, "shape", None)
    dtype = getattr(out, "dtype", None)
    if shape is None or dtype is None:
        if isinstance(out, (tuple, list)) and out:  # (value, aux) without has_aux=True, mostly
            raise TypeError(f"{transform}: {name} returned a {type(out).__name__} of {len(out)} items, where a "
                            f"scalar output was expected; if it returns (output, auxiliary data), pass "
                            f"has_aux=True to {transform}, else return a scalar array or float")
        raise TypeError(f"{transform}: {name} must return a scalar array or float, got {type(out).__name__}")
    if shape != ():
        raise TypeError(f"{transform} requires a scalar output, but {name} returned shape {tuple(shape)} "
                        f"(dtype {dtype}); use jacrev/jacfwd or vjp for non-scalar outputs, or reduce it (e.g. .sum())")
    if not _is_float_dtype(dtype):
        raise TypeError(f"{transform} requires a floating-point output, but {name} returned dtype {dtype}")
    return dtype.type(1)


def _check_output_array(value, transform, fun):
    """A masked array or matrix as what `fun` returned: one of the function's constants (a
    non-differentiated argument, a closed-over array) met a traced value."""
    name = getattr(fun, "__name__", "the function")
    check_plain_array(value, f"what {name} returned (a constant of that type, such as a non-differentiated "
                             f"argument or a closed-over array, met a traced value)", transform)


def check_argnums(argnums, nargs, transform):
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(nums, (tuple, list)) or not all(isinstance(n, int) and not isinstance(n, bool) for n in nums):
        raise TypeError(f"{transform}: argnums must be an int or a tuple of ints, got {argnums!r}")
    if not nums:
        raise ValueError(f"{transform}: argnums must not be empty")
    for n in nums:
        if not -nargs <= n < nargs:
            raise ValueError(f"{transform}: argnums={argnums!r} names argument {n}, but the function was called "
                             f"with {nargs} positional argument(s)")
    if len(set(n % nargs for n in nums)) != len(nums):
        raise ValueError(f"{transform}: argnums={argnums!r} names the same argument twice")
    return tuple(n % nargs for n in nums)


class ArgnumsCache:
    """check_argnums for one transformed function: the normalized argnums of the last
    argument count are kept, so repeated calls check nothing."""

    __slots__ = ("argnums", "transform", "last")

    def __init__(self, argnums, transform):
        self.argnums, self.transform, self.last = argnums, transform, (None, None)

    def __call__(self, nargs):
        last = self.last  # (nargs, nums), replaced whole: safe across threads
        if nargs != last[0]:
            last = self.last = (nargs, check_argnums(self.argnums, nargs, self.transform))
        return last[1]


def _describe(x):
    return (f"shape {tuple(np.shape(x)) if not hasattr(x, 'shape') else tuple(x.shape)} "
            f"and dtype {getattr(x, 'dtype', type(x).__name__)}")


def check_cotangent(cotangent, out_tree, out_primals, transform, what="cotangent"):
    """Flattened `cotangent` (or tangent), checked against the outputs' (or primals')
    structure, shapes and dtypes."""
    against = "primal" if what == "tangent" else "output"
    leaves, tree = flatten(cotangent)
    if tree != out_tree:
        raise TypeError(f"{transform}: the {what} has structure {tree} but the {against}s have "
                        f"structure {out_tree}")
    out = []
    for i, (ct, primal) in enumerate(zip(leaves, out_primals)):
        if ct.__class__ is np.ndarray and primal.__class__ is np.ndarray and ct.shape == primal.shape \
                and ct.dtype == primal.dtype:  # the common case
            out.append(ct)
            continue
        check_plain_array(ct, f"{what} {i}", transform)
        if isinstance(ct, (float, int)) and not isinstance(ct, bool):
            ct = np.asarray(ct, dtype=getattr(primal, "dtype", np.float64))
        shape_ct = tuple(getattr(ct, "shape", ()))
        shape_p = tuple(np.shape(primal)) if not hasattr(primal, "shape") else tuple(primal.shape)
        dtype_p = getattr(primal, "dtype", np.dtype(np.float64))
        if shape_ct != shape_p or not hasattr(ct, "dtype") or ct.dtype != dtype_p:
            raise TypeError(f"{transform}: {what} {i} has {_describe(ct)}, but {against} {i} has "
                            f"shape {shape_p} and dtype {dtype_p}; they must match")
        out.append(ct)
    return out


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


def is_tensor(x):
    """Is `x` an fgrad.Tensor (a traced value of the bottom trace: the imperative face's)?"""
    return isinstance(x, Tracer) and x._trace is EVAL


# Set by fgrad.autograd: a Tensor wrapping a traced value (Note [tensors of traced values] in
# fgrad/autograd/tape.py), or None when the imperative face is not loaded.
tensor_face = None


def faced(tracers, leaves):
    """The traced inputs as the function sees them: where the caller passed a Tensor, a Tensor
    wrapping its traced value, so a PyTorch-style function keeps its Tensor methods."""
    for x in leaves:
        if isinstance(x, Tracer) and x._trace is EVAL and tensor_face is not None:
            return [tensor_face(t) if is_tensor(x) else t for t, x in zip(tracers, leaves)]
    return tracers


def unfaced(value):
    """What a function given Tensors returned: the traced value inside a Tensor of one."""
    if isinstance(value, Tracer) and value._trace is EVAL and isinstance(value.primal, Tracer):
        return value.primal
    return value


def _tensor_array(v, callers):
    """The array of `v`, a traced value, when it is a Tensor and no caller's argument is one
    (transforms of arrays return arrays), else None."""
    if v._trace is EVAL and not any(is_tensor(c) for c in callers):
        return v.primal
    return None


def plain_values(values, callers):
    """`values` with each Tensor replaced by its array when no caller's argument is a Tensor:
    functional transforms of arrays return arrays, also when an nn module (whose parameters
    are Tensors) ran inside. (The list is changed in place.)"""
    i = -1
    for v in values:
        i += 1
        if isinstance(v, Tracer) and (a := _tensor_array(v, callers)) is not None:
            values[i] = a
    return values


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
    returned as it is. A Tensor becomes its array when no caller's argument is a Tensor
    (see plain_values)."""
    seen = None
    i = -1
    for v in values:
        i += 1
        if v.__class__ is not np.ndarray:
            if isinstance(v, _SCALARS):
                continue
            if isinstance(v, Tracer):  # an outer level's value (its transform owns it), or a Tensor
                v = _tensor_array(v, callers)
                if v is None:
                    continue
                values[i] = v
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
    return values


_SCALARS = (np.generic, float, int, complex)


def wraps(wrapper, fun, transform):
    try:
        functools.update_wrapper(wrapper, fun)
    except AttributeError:
        pass
    wrapper.__name__ = f"{transform}({getattr(fun, '__name__', 'fun')})"
    wrapper.__qualname__ = wrapper.__name__
    return wrapper
