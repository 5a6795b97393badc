"""torch's type promotion on the Tensor face: result_type, promote_types, can_cast, and the
operators that cast their operands by them.

Note [the Tensor face promotes as torch]: fgrad.numpy on arrays keeps NumPy's rules (and
JAX's weak Python scalars); an op of the Tensor face computes in the dtype torch would.
The operands fall in three categories: tensors of one or more dimensions, zero-dim tensors,
and Python numbers (NumPy scalars count as the Python number of their kind). The result
is the promotion (`promote_types`) of the highest category present, unless a lower one is
of a higher kind (bool < integer < floating < complex): then that kind wins, as the dtype
of the zero-dim tensors, or for Python numbers the default dtype of the kind
(get_default_dtype() for a float, its complex counterpart for a complex, int64 for an int).
True division of integers gives the default float dtype. NumPy arrays meet a Tensor by
NumPy's rules, as in torch (which hands `tensor + ndarray` to NumPy); torch's functions
taking several tensors (where, cat, ...) count them as tensors of their dimensions.

Each operator (+ - * / // % ** and the comparisons) first tests for the common case: an
operand of self's dtype, a Python int or bool (NumPy's weak scalars then give torch's dtype),
a Python float or complex meeting a floating tensor, or a NumPy array; that case takes the
old path, the tape's `record`, unchanged. Only other combinations pay for `result_type` and
the casts, which are recorded (fnp.astype), so a gradient comes back in its input's dtype.
`@` does not promote: of two dtypes it raises, as torch's matmul. `& | ^ ~` are bitwise, of
integer and bool tensors only, in result_type. A Python int out of an integer dtype's range wraps
into it in the binary operators and as the base of int ** tensor, as torch's; a tensor ** int, and
the other ops taking an int (clamp, where, fill_, setitem, full, ...), refuse it with torch's
RuntimeError (`_in_range`, `fitted`), as does an integer tensor ** a negative int. `-` with a bool
tensor or a Python bool operand, and `-` of a bool tensor, raise torch's RuntimeError. Left as they
were: np.bool_ (a bool here; torch reads it as a float), and bool ** bool (NumPy's power has no
boolean loop: int8).
"""
import numbers

import numpy as np

from .. import numpy as fnp
from ..ir.value import Tracer
from ..numpy.bridge import _for_ufunc
from ..numpy.linalg import matmul
from ..ops import elementwise as ew
from ..ops.primitive import EVAL, NO_PARAMS, EvalTrace, _state, two_devices_check
from ..typing import Any, DTypeLike
from . import dtypes
from .tape import record

__all__ = ["can_cast", "promote_types", "result_type"]

_ndarray = np.ndarray
_eval_process = EvalTrace.process  # (profiler.profile replaces it, to time each op: then the entry's path)
_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # torch's kinds: bool < integer < floating < complex
_BOOL, _INT64, _UINT64 = np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.uint64)
_DIM, _ZERO, _NUMBER = 0, 1, 2  # the operand categories, highest first


def promote_types(type1: DTypeLike, type2: DTypeLike) -> np.dtype[Any]:
    """The smallest dtype both `type1` and `type2` convert to, by torch's table (torch.promote_types).

    Unlike NumPy's, a floating type absorbs any integer type (int64 and float32 give float32), and
    complex64 with float64 gives complex128.

    Parameters
    ----------
    type1, type2 : dtype
        NumPy dtypes or fgrad's names for them (fgrad.float32, fgrad.long, ...).

    Returns
    -------
    numpy.dtype

    Examples
    --------
    >>> fgrad.promote_types(fgrad.int64, fgrad.float32), fgrad.promote_types(fgrad.uint8, fgrad.int8)
    (dtype('float32'), dtype('int16'))
    """
    a, b = np.dtype(type1), np.dtype(type2)
    if a is b:
        return a
    ra, rb = _RANK[a.kind], _RANK[b.kind]
    if ra == rb or (ra + rb == 5):  # one kind, or complex with floating: NumPy's table agrees with torch's
        return np.promote_types(a, b)
    return a if ra > rb else b


def can_cast(from_: DTypeLike, to: DTypeLike) -> bool:
    """Whether torch's casting rules allow `from_` to `to` (torch.can_cast): no cast to a lower kind
    (complex to real, floating to integer, non-boolean to bool); any size within a kind.

    Examples
    --------
    >>> fgrad.can_cast(fgrad.float64, fgrad.float32), fgrad.can_cast(fgrad.float32, fgrad.int64)
    (True, False)
    """
    return _RANK[np.dtype(from_).kind] <= _RANK[np.dtype(to).kind]


def _number_dtype(x):
    """The dtype torch gives a Python number (or a NumPy scalar) in promotion, or None if x is not one."""
    if isinstance(x, (bool, np.bool_)):
        return _BOOL
    if isinstance(x, numbers.Integral):
        return _INT64
    if isinstance(x, numbers.Real):
        return dtypes._default[0]
    if isinstance(x, numbers.Complex):
        return np.result_type(dtypes._default[0], np.complex64)
    return None


def _combine(higher, lower):
    """torch's combine_categories: the dtype of a higher category, unless a lower one's kind is higher."""
    if higher is None:
        return lower
    if lower is None or higher.kind == "c":
        return higher
    if lower.kind == "c":
        return np.result_type(higher, np.complex64) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> np.dtype[Any]:
    """The dtype torch computes an op of these operands in (torch.result_type, of any number of operands).

    Tensors of one or more dimensions decide, unless a zero-dim tensor or a Python number (NumPy
    scalars count as Python numbers) is of a higher kind (bool < integer < floating < complex):
    then that kind wins, as the zero-dim tensor's dtype, or as the default dtype of the kind for a
    number (get_default_dtype() for a float, int64 for an int). NumPy arrays count as tensors.

    Parameters
    ----------
    *operands : Tensor, array or number

    Returns
    -------
    numpy.dtype

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], dtype=fgrad.float32)
    >>> fgrad.result_type(x, 2.5), fgrad.result_type(x, fgrad.tensor(1.0, dtype=fgrad.float64))
    (dtype('float32'), dtype('float32'))
    >>> fgrad.result_type(fgrad.tensor([1, 2], dtype=fgrad.int32), 2.5) == fgrad.get_default_dtype()
    True
    """
    found = [None, None, None]
    for x in operands:
        if isinstance(x, (Tracer, _ndarray)):
            d, category = x.dtype, _DIM if x.ndim else _ZERO
        else:
            d, category = _number_dtype(x), _NUMBER
            if d is _INT64 and not -2 ** 63 <= x < 2 ** 63:
                wrapped(x, _UINT64)  # (beyond uint64 too: torch's OverflowError)
                d = _UINT64  # (torch reads it as a uint64)
            elif d is None:  # (a list or another array-like: a tensor of the values torch.tensor infers)
                a = dtypes.inferred(np.asarray(x))
                d, category = a.dtype, _DIM if a.ndim else _ZERO
        if d.kind not in _RANK:
            raise TypeError(f"fgrad.result_type: an operand of dtype {d} ({type(x).__name__}) has no place in "
                            f"torch's promotion")
        seen = found[category]
        found[category] = d if seen is None else promote_types(seen, d)
    dim, zero, number = found
    out = _combine(dim, _combine(zero, number))
    if out is None:
        raise TypeError("fgrad.result_type: needs at least one operand")
    if out is _UINT64 and number is _UINT64 and dim is not _UINT64 and zero is not _UINT64:
        raise RuntimeError(f"fgrad.result_type: a Python int of 2**63 or more is a uint64 to torch, and torch does "
                           f"not promote uint64 with {dim or zero or 'another Python number'}")
    return out


_tensor_class = []  # [Tensor], set by install


def astype(x, dtype):
    """fnp.astype(x, dtype), a Tensor for a Tensor x (a cast to an integer or boolean dtype, which has
    no derivative, gives fnp.astype a plain array), recorded between floating and complex dtypes."""
    out = fnp.astype(x, dtype)
    if out.__class__ is _ndarray and isinstance(x, Tracer) and _tensor_class:
        out = _tensor_class[0]._wrap(out, None, 0)
    return out


def _cast(x, dtype):
    """x ready for an op computed in `dtype`: tensors and arrays converted (recorded), numbers as
    Python numbers (which NumPy's kernels take in the other operand's dtype)."""
    if isinstance(x, (Tracer, _ndarray)):
        return x if x.dtype == dtype else astype(x, dtype)
    if isinstance(x, np.generic):
        return bool(x) if x.dtype.kind == "b" else x.item()
    if _number_dtype(x) is None:
        return fnp.astype(np.asarray(x), dtype)
    return x


def promoted(*operands: Any, true_division: bool = False, wrap_ints: bool = False) -> tuple[Any, ...]:
    """The operands, cast to result_type(*operands) (the default float dtype for a true division of
    integers), for an op of the Tensor face to compute in torch's dtype; with `wrap_ints` (torch's
    binary operators), a Python int out of an integer result dtype's range wraps into it (`wrapped`)."""
    dtype = result_type(*operands)
    if true_division and dtype.kind in "biu":
        dtype = dtypes._default[0]
    return _cast_all(operands, dtype, wrap_ints)


def _cast_all(operands, dtype, wrap_ints):
    if dtype.kind in "iu":
        fit = wrapped if wrap_ints else _in_range
        return tuple(fit(x, dtype) if x.__class__ is int else _cast(x, dtype) for x in operands)
    return tuple(_cast(x, dtype) for x in operands)


def _in_range(x: int, dtype: np.dtype[Any]) -> int:
    """The Python int x for an op other than torch's binary operators (where, clamp, a tensor's ** int,
    ...), which refuse an int out of the integer dtype's range as torch does (NumPy's kernels would
    wrap some: where(c, int8, 300) gave 44; others raised OverflowError). torch's range check
    (c10::overflows) lets an unsigned dtype take -max..-1 too, wrapped (clamp(uint8, min=-1) is 255)."""
    lo, hi = _RANGE[dtype]
    if lo <= x <= hi:
        return x
    if not -2 ** 63 <= x < 2 ** 64:
        raise OverflowError(f"the Python int {x} meets a {dtypes.name(dtype)} tensor: int too big to convert (as "
                            f"torch's)")
    if dtype.kind == "u" and -hi <= x < 0:
        return x + hi + 1
    raise RuntimeError(f"value cannot be converted to type {dtypes.name(dtype)} without overflow (the Python int {x}; "
                       f"torch's error)")


def fitted(x: Any, dtype: DTypeLike | None) -> Any:
    """x to be written into a tensor of `dtype` (fill_, copy_, setitem, masked_fill, full, full_like): a
    Python int checked against an integer dtype's range as torch's (`_in_range`: RuntimeError where
    NumPy's OverflowError), anything else as it is."""
    if x.__class__ is int and dtype is not None and np.dtype(dtype).kind in "iu":
        return _in_range(x, np.dtype(dtype))
    return x


def wrapped(x: int, dtype: np.dtype[Any]) -> int:
    """The Python int x as torch's binary operators take it into an integer dtype: its low bits, in
    two's complement (int8: 300 is 44, uint8: -1 is 255; NumPy would raise). torch reads x as an
    int64 or a uint64 first: beyond both, OverflowError (torch's too)."""
    lo, hi = _RANGE[dtype]
    if lo <= x <= hi:
        return x
    if not -2 ** 63 <= x < 2 ** 64:
        why = "int too big to convert" if x > 0 else "can't convert negative int to unsigned"
        raise OverflowError(f"the Python int {x} meets a {dtypes.name(dtype)} tensor: {why} (torch reads an int as "
                            f"int64 or uint64)")
    bits = dtype.itemsize * 8
    x &= (1 << bits) - 1
    return x - (1 << bits) if dtype.kind == "i" and x >> (bits - 1) else x


_RANGE = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max)) for t in
          (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}


# ---- the operators ----------------------------------------------------------------------------
def nonzero_divisor(a, b):
    """Raise where an integer a // b or a % b (fmod, remainder, div's rounding modes) divides by
    zero, as torch's (RuntimeError: ZeroDivisionError), where NumPy's kernels give 0 and warn."""
    a, b = getattr(a, "primal", a), getattr(b, "primal", b)
    if _integer(a) and _integer(b) and not isinstance(b, Tracer) and not np.all(b):
        raise RuntimeError("ZeroDivisionError: an integer // or % (floor_divide, remainder, fmod, div with a "
                           "rounding_mode) by zero (torch's error; NumPy would give 0)")


def _integer(x):
    d = getattr(x, "dtype", None)
    return x.__class__ is int if d is None else d.kind in "iu"


_SUB_BOOL = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")
_SUB_BOOLS = "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` " \
             "operator instead."
_NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def _a_bool(x):
    """Does x count as a bool in torch's subtraction check: a bool tensor, or a Python bool (NumPy's
    arrays meet a Tensor by NumPy's rules, and torch reads np.bool_ as a float)."""
    return x.__class__ is bool or (isinstance(x, Tracer) and x.dtype == _BOOL)


def no_bool_subtraction(a, b):
    """Raise torch's RuntimeError where a - b has a bool operand (a bool tensor or a Python bool): torch
    refuses subtraction with a bool tensor (NumPy's kernels gave bool - int; bool - bool raised TypeError)."""
    for x in (a, b):
        if x.__class__ is int:  # (an int beyond int64 and uint64 first: torch's OverflowError, as elsewhere)
            wrapped(x, _INT64)
    a, b = _a_bool(a), _a_bool(b)
    if a or b:
        raise RuntimeError(_SUB_BOOLS if a and b else _SUB_BOOL)


def no_negative_power(base, exponent):
    """Raise torch's RuntimeError for an integer (or bool) tensor ** a negative Python int (NumPy's
    ValueError, or OverflowError for an int8 ** -300)."""
    if exponent.__class__ is int and exponent < 0 and isinstance(base, Tracer) and base.dtype.kind in "biu":
        wrapped(exponent, _INT64)  # (below -2**63: torch's OverflowError comes first)
        raise RuntimeError(_NEGATIVE_POWER)


def _operator(entry, name, reflected=False, true_division=False, wraps=True, compares=False):
    """Tensor's `__name__`: `entry` (the primitive's entry function) on operands cast by torch's rule.

    The first test is the common case, which takes the existing path unchanged: a Python float or
    complex meeting a floating tensor, a Python int or bool (NumPy's weak scalars give torch's dtype
    then), a NumPy array (NumPy's rules, as torch's), or an operand of self's dtype; for a true
    division self must be floating too (integers divide in the default float dtype). With no
    transform active (and no profiler timing the bottom trace), that path is the tape's `record`,
    called here: what the entry would reach through the bottom trace's `process`, two calls sooner.
    A Python int out of an integer tensor's range wraps into its dtype, as torch's (`wrapped`;
    not for a tensor ** int (`wraps` False), whose exponent torch checks: RuntimeError; an int ** tensor
    wraps its base): NumPy's OverflowError sends the arithmetic there, and a comparison (`compares`:
    NumPy compares exactly) tests the range first. `-` with a bool operand and an integer tensor ** a
    negative int raise torch's RuntimeError (no_bool_subtraction, no_negative_power)."""
    prim = entry.prim
    pname = prim.name
    divides = name in ("floordiv", "mod")  # (torch refuses an integer zero divisor: nonzero_divisor)
    subtracts = name == "sub"
    powers = name == "pow" and not reflected

    def promoted_call(self, other):
        try:
            a, b = promoted(other, self, true_division=true_division, wrap_ints=wraps) if reflected else \
                promoted(self, other, true_division=true_division, wrap_ints=wraps)
        except TypeError:  # (an operand promotion knows nothing of, e.g. None: the entry's own answer)
            a, b = (other, self) if reflected else (self, other)
        if divides:
            nonzero_divisor(a, b)
        return entry(a, b)

    # (the common case's test is written out here: a helper's call would cost a frame per op)
    def op(self, other):
        c = other.__class__
        if subtracts and c is not _ndarray and (c is bool or self.primal.dtype is _BOOL
                                                or getattr(other, "dtype", None) is _BOOL):
            no_bool_subtraction(other, self) if reflected else no_bool_subtraction(self, other)
        elif powers and c is int and other < 0:
            no_negative_power(self, other)
        if c is _ndarray:
            pass
        elif c is float or c is complex or true_division:  # (a floating self takes these; integers divide in floats)
            if self.primal.dtype.kind not in "fc" or not (c is float or c is complex or c is int or c is bool
                                                          or getattr(other, "dtype", None) is self.primal.dtype):
                return promoted_call(self, other)
        elif not (c is int or c is bool or getattr(other, "dtype", None) is self.primal.dtype):
            return promoted_call(self, other)
        elif compares and c is int and self.primal.dtype.kind in "iu" and not (
                _RANGE[self.primal.dtype][0] <= other <= _RANGE[self.primal.dtype][1]):
            return promoted_call(self, other)
        args = (other, self) if reflected else (self, other)
        if divides:
            nonzero_divisor(*args)
        try:
            if _state.trace is EVAL and EvalTrace.process is _eval_process:  # (not while profiling)
                try:
                    return record(prim, args, NO_PARAMS)
                except (TypeError, ValueError) as e:  # (as the entry: Note [devices named in errors])
                    two_devices_check(pname, args, e)
                    raise
            return entry(*args)
        except OverflowError:  # (a Python int out of an integer dtype's range: torch wraps it, or refuses: **)
            if c is not int:
                raise
            return promoted_call(self, other)
    op.__name__ = op.__qualname__ = f"__{'r' if reflected else ''}{name}__"
    op.__doc__ = f"Tensor.{op.__name__}: {entry.__name__} in the dtype torch's promotion gives (result_type)."
    return op


def bitwise(entry, a, b, where):
    """entry (ew.bitwise_and, _or, _xor) of a and b in torch's result dtype, a Python int wrapped into
    it (as torch's); of bool tensors the logical op. A floating or complex result dtype raises
    NotImplementedError, as torch's; `where` names the operator or function called."""
    dtype = result_type(a, b)
    if dtype.kind not in "biu":
        raise NotImplementedError(f"{where}: not implemented for {dtypes.name(dtype)} (torch's bitwise operations "
                                  f"take integer and bool tensors only; for masks compare first, e.g. "
                                  f"(x > 0) & (y > 0))")
    return entry(*_cast_all((a, b), dtype, True))


def _bitwise_operator(entry, symbol, reflected):
    def op(self, other):
        return bitwise(entry, other, self, symbol) if reflected else bitwise(entry, self, other, symbol)
    return op


def invert(x, where="~"):
    """~x of an integer or bool tensor (bitwise not; of bools the logical not), as torch's: other
    dtypes raise TypeError, as torch's `~` (torch.bitwise_not: NotImplementedError)."""
    if x.dtype.kind not in "biu":
        raise TypeError(f"{where} (operator.invert) is only implemented on integer and Boolean-type tensors, "
                        f"not {dtypes.name(x.dtype)}")
    return ew.bitwise_not(x)


def negative(x):
    """-x (Tensor.__neg__, neg, negative): torch's RuntimeError for a bool tensor (NumPy's: TypeError)."""
    if x.dtype == _BOOL:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    return ew.negative(x)


def _matmul(self, other):
    """self @ other; of two dtypes, torch's error (torch's matmul does not promote)."""
    d = getattr(other, "dtype", None)
    if d is not self.primal.dtype and d is not None and other.__class__ is not _ndarray:
        _same_dtype(self, other)
    return matmul(self, other)


def _rmatmul(self, other):
    d = getattr(other, "dtype", None)
    if d is not self.primal.dtype and d is not None and other.__class__ is not _ndarray:
        _same_dtype(other, self)
    return matmul(other, self)


def _same_dtype(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"matmul: expected both operands to have the same dtype, but got {dtypes.name(a.dtype)} "
                           f"and {dtypes.name(b.dtype)}")


ARITHMETIC = {"add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "pow": ew.power, "mod": ew.remainder,
              "floordiv": ew.floor_divide}
BITWISE = {"and": (ew.bitwise_and, "&"), "or": (ew.bitwise_or, "|"), "xor": (ew.bitwise_xor, "^")}
COMPARISONS = {"eq": ew.equal, "ne": ew.not_equal, "lt": ew.less, "le": ew.less_equal, "gt": ew.greater,
               "ge": ew.greater_equal}


def install(cls):
    """Give `cls` (Tensor) the operators of torch's promotion: + - * / // % ** @ & | ^ ~ and comparisons."""
    _tensor_class[:] = [cls]
    for name, entry in ARITHMETIC.items():
        setattr(cls, f"__{name}__", _operator(entry, name, wraps=name != "pow"))  # (x ** 300 refused, 300 ** x wraps)
        setattr(cls, f"__r{name}__", _operator(entry, name, reflected=True))
    cls.__truediv__ = _operator(ew.divide, "truediv", true_division=True)
    cls.__rtruediv__ = _operator(ew.divide, "truediv", reflected=True, true_division=True)
    for name, entry in COMPARISONS.items():
        setattr(cls, f"__{name}__", _operator(entry, name, compares=True))
    cls.__matmul__, cls.__rmatmul__ = _matmul, _rmatmul
    for name, (entry, symbol) in BITWISE.items():
        setattr(cls, f"__{name}__", _bitwise_operator(entry, symbol, False))
        setattr(cls, f"__r{name}__", _bitwise_operator(entry, symbol, True))
    cls.__invert__ = lambda self: invert(self)
    cls.__neg__ = negative
    reflected = {np.add: "__radd__", np.subtract: "__rsub__", np.multiply: "__rmul__", np.true_divide: "__rtruediv__",
                 np.floor_divide: "__rfloordiv__", np.remainder: "__rmod__", np.power: "__rpow__",
                 np.equal: "__eq__", np.not_equal: "__ne__", np.less: "__gt__", np.less_equal: "__ge__",
                 np.greater: "__lt__", np.greater_equal: "__le__", np.bitwise_and: "__rand__",
                 np.bitwise_or: "__ror__", np.bitwise_xor: "__rxor__"}
    by_ufunc = {ufunc: getattr(cls, name) for ufunc, name in reflected.items()}
    inherited = cls.__array_ufunc__

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # `np.float64(2.0) + t`: the NumPy scalar's operator hands the op to NumPy, which asks here; torch's
        # tensors take it as `t.__radd__(2.0)`, a Python number, and so does this. Any other call as
        # before: the common one (ndarray op tensor) is bridge.array_ufunc's first case, written out here
        if method == "__call__" and not kwargs:
            if inputs[0].__class__ is not _ndarray and len(inputs) == 2 and inputs[1] is self \
                    and isinstance(inputs[0], np.generic) and ufunc in by_ufunc:
                return by_ufunc[ufunc](self, inputs[0])
            return _for_ufunc(ufunc)(*inputs)
        return inherited(self, ufunc, method, *inputs, **kwargs)
    cls.__array_ufunc__ = __array_ufunc__


def accumulator(x, dtype=None):
    """The dtype torch's sum, prod, cumsum, cumprod and nansum compute `x` in: `dtype` if given, int64
    for any integer or bool tensor (NumPy's give uint64 for unsigned ones), else None (x's own)."""
    if dtype is not None:
        return dtype
    return _INT64 if getattr(x, "dtype", _INT64).kind in "bu" else None


def binary(fn, a, b, true_division=False, wrap_ints=False, divides=False):
    """fn(a, b) with a and b cast by torch's promotion (torch's functions of two operands; `wrap_ints`
    as promoted's, for those that take a Python int as the operators do; `divides`: fmod and
    remainder, which refuse an integer zero divisor: nonzero_divisor)."""
    a, b = promoted(a, b, true_division=true_division, wrap_ints=wrap_ints)
    if divides:
        nonzero_divisor(a, b)
    return fn(a, b)


def clamped(input, min, max):
    """fnp.clip(input, min, max) computed in result_type(input, min, max) (torch.clamp's promotion)."""
    dtype = getattr(input, "dtype", None)
    if dtype is None or any(b is not None and getattr(b, "dtype", None) is not dtype and not (
            b.__class__ in (int, bool) or (b.__class__ is float and dtype.kind in "fc")) for b in (min, max)):
        bounds = [b for b in (min, max) if b is not None]
        dtype = result_type(input, *bounds)
        input, min, max = (None if x is None else _cast(x, dtype) for x in (input, min, max))
    if dtype.kind in "iu":  # (a Python int bound out of range: torch's RuntimeError, where NumPy's OverflowError)
        min, max = (_in_range(b, dtype) if b.__class__ is int else b for b in (min, max))
    elif dtype.kind == "f":  # (a finite Python number beyond the float dtype's range: torch's RuntimeError)
        top = float(np.finfo(dtype).max)
        for b in (min, max):
            if b.__class__ in (int, float) and abs(float(b)) > top and b not in (float("inf"), float("-inf")):
                raise RuntimeError(f"value cannot be converted to type {dtypes.name(dtype)} without overflow (the "
                                   f"Python number {b}; torch's error)")
    return fnp.clip(input, min, max)


def power(base, exponent):
    """base ** exponent as torch.pow: in result_type; an integer tensor takes no negative Python int
    exponent, nor one out of its dtype's range (RuntimeError), and a Python int base wraps into the
    integer dtype (pow(300, int8) as 300 ** int8), as torch's."""
    no_negative_power(base, exponent)
    dtype = result_type(base, exponent)
    if dtype.kind in "iu":
        base = wrapped(base, dtype) if base.__class__ is int else _cast(base, dtype)
        exponent = _in_range(exponent, dtype) if exponent.__class__ is int else _cast(exponent, dtype)
        return fnp.power(base, exponent)
    return fnp.power(*_cast_all((base, exponent), dtype, False))


def joined(tensors):
    """Tensors for cat and stack, cast to their result_type (torch promotes across them)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        return tensors
    first = getattr(tensors[0], "dtype", None)
    if first is not None and all(getattr(t, "dtype", None) is first for t in tensors):
        return tensors
    dtype = result_type(*tensors)
    return [_cast(t, dtype) for t in tensors]

