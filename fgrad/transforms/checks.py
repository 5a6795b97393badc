"""The checks on what users pass to a transform and what their functions return: inputs
(floating point or complex, no masked arrays or matrices), argnums, has_aux pairs, a
gradient's scalar output (its seed), cotangents and tangents, and the dtypes `holomorphic`
asks for (as JAX's, with JAX's advice: Note [complex derivatives] in ops/conversion.py).
Every message names the transform, the argument and the shapes or dtypes involved.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import Tracer, peek
from ..ops import conversion, elementwise
from .trees import flatten

__all__ = [
    "ArgnumsCache",
    "check_argnums",
    "check_complex_inputs",
    "check_cotangent",
    "check_holomorphic_outputs",
    "check_plain_array",
    "check_real_inputs",
    "check_real_outputs",
    "float_input",
    "is_floating",
    "scalar_seed",
    "split_aux",
]


def _is_float_dtype(dtype):
    return dtype.kind == "f"


def _is_inexact_dtype(dtype):
    return dtype.kind == "f" or dtype.kind == "c"


def is_floating(x):
    """Is leaf `x` one a transform differentiates by default (make_graph, checkpoint): a Python
    float or complex, or an array, NumPy scalar or traced value of floating or complex dtype?"""
    dtype = getattr(x, "dtype", None)
    return isinstance(x, (float, complex)) if dtype is None else _is_inexact_dtype(dtype)


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
        if peek(x).__class__ in (float, complex):  # (a Python number compile traces: made float64 as below)
            return _strong(x)
    elif isinstance(x, bool) or isinstance(x, (int, np.integer, np.bool_)):
        raise TypeError(f"{transform}: can only differentiate with respect to floating-point inputs, "
                        f"but {label} is the {type(x).__name__} {x!r}; pass a float (e.g. {float(x)!r})")
    elif isinstance(x, float):
        return np.float64(x)
    elif isinstance(x, complex):
        return np.complex128(x)
    elif hasattr(x, "dtype") and hasattr(x, "shape"):
        check_plain_array(x, label, transform)
        dtype = x.dtype
    else:
        raise TypeError(f"{transform}: {label} is of type {type(x).__name__}, which is not an array, a "
                        f"Python float or complex, or a pytree of them")
    if not _is_inexact_dtype(dtype):
        raise TypeError(f"{transform}: can only differentiate with respect to floating-point (or complex) inputs, "
                        f"but {label} has dtype {dtype} and shape {tuple(x.shape)}; cast it, e.g. x.astype(float)")
    return x


def _strong(x):
    """A traced Python float or complex (compile's weak value: Note [weak values] in ir/value.py)
    as a NumPy scalar, as an untraced one becomes, so that grad's arithmetic promotes alike:
    x * 1.0 is exact for a float, conj(conj(z)) for a complex (z * 1.0 is not, at infinities)."""
    if peek(x).__class__ is float:
        return elementwise.multiply(x, 1.0)
    return conversion.conj(conversion.conj(x))


def _dtype_of(x):
    return x.dtype if hasattr(x, "dtype") else np.result_type(x)


def check_real_inputs(leaves, transform, jvp="fgrad.jvp"):
    """Forward-mode Jacobians without holomorphic=True take real inputs only (as JAX's jacfwd):
    the Jacobian of a function of complex input is not one complex matrix unless the function
    is holomorphic."""
    for x in leaves:
        dtype = _dtype_of(x)
        if dtype.kind == "c":
            raise TypeError(f"{transform} requires real-valued inputs (input dtype that is a sub-dtype of "
                            f"np.floating), but got {dtype}. For holomorphic differentiation, pass "
                            f"holomorphic=True. For differentiation of non-holomorphic functions involving complex "
                            f"inputs or integer inputs, use {jvp} directly.")


def check_real_outputs(leaves, transform):
    """Reverse-mode derivatives (grad, jacrev) without holomorphic=True take real outputs only
    (as JAX's)."""
    for o in leaves:
        dtype = _dtype_of(o)
        if dtype.kind == "c":
            raise TypeError(_complex_output_message(transform, dtype))


def _complex_output_message(transform, dtype):
    return (f"{transform} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got "
            f"{dtype}. For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            f"non-holomorphic functions involving complex outputs, use fgrad.vjp directly.")


def check_complex_inputs(leaves, transform):
    """With holomorphic=True, every differentiated input is complex (as JAX)."""
    for x in leaves:
        dtype = _dtype_of(x)
        if dtype.kind != "c":
            raise TypeError(f"{transform} with holomorphic=True requires inputs with complex dtype, but got {dtype}.")


def check_holomorphic_outputs(leaves, transform):
    """With holomorphic=True, every output is complex (as JAX)."""
    for o in leaves:
        dtype = _dtype_of(o)
        if dtype.kind != "c":
            raise TypeError(f"{transform} with holomorphic=True requires outputs with complex dtype, but got {dtype}.")


def split_aux(result, has_aux, transform):
    if not has_aux:
        return result, None
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TypeError(f"{transform}(..., has_aux=True): the function must return a pair (output, aux), "
                        f"got {type(result).__name__}")
    return result[0], result[1]


_SEEDS = {}  # dtype -> its 1 (NumPy scalars are immutable: one serves every call)


def scalar_seed(out, transform, fun, holomorphic=False):
    """The cotangent that starts a gradient: 1 in the dtype of `out`, which must be a
    floating-point scalar, or with `holomorphic` a complex one (else a TypeError naming what
    `fun` returned)."""
    # The common case first: a 0-d float array or NumPy scalar, or a traced value of one (a
    # traced value's shape and dtype are its primal's, read in C).
    if out.__class__ is not float and getattr(out, "shape", None) == ():
        dtype = out.dtype
        if dtype.kind == "f" and not holomorphic:
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
    if holomorphic:
        check_holomorphic_outputs([out], transform)
    elif dtype.kind == "c":
        raise TypeError(_complex_output_message(transform, dtype))
    elif not _is_float_dtype(dtype):
        raise TypeError(f"{transform} requires a floating-point output, but {name} returned dtype {dtype}")
    value = peek(out)
    if value.__class__ is np.ndarray or isinstance(value, np.generic) or not hasattr(value, "shape"):
        return dtype.type(1)
    return array_module(value).ones((), dtype)


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
