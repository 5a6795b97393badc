"""Operators and NumPy-style methods of traced values (attached to `Tracer`).

Operators are the primitives' entry functions themselves (ops/entries.py: no call in
between on the hot path); methods reuse the NumPy-compatible functions of this package.
"""
from ..ir.value import Tracer, conversion_error
from ..ops import conversion as cv
from ..ops import elementwise as ew
from . import _elementwise, _indexing, _reductions, _shaping
from ._creation import zeros_like
from ._indexing import at, getitem
from ._shaping import ravel, reshape, swapaxes, transpose
from .linalg import dot, matmul

__all__ = ["install"]


def _binary(entry):
    """(operator, reflected operator): `self op other` is the entry itself."""
    return entry, lambda self, other: entry(other, self)


def install(cls=Tracer):
    """Attach operators and methods to `cls`."""
    for name, entry in [("add", ew.add), ("sub", ew.subtract), ("mul", ew.multiply), ("truediv", ew.divide),
                        ("pow", ew.power), ("mod", ew.remainder), ("floordiv", ew.floor_divide)]:
        op, rop = _binary(entry)
        setattr(cls, f"__{name}__", op)
        setattr(cls, f"__r{name}__", rop)
    for name, entry in [("eq", ew.equal), ("ne", ew.not_equal), ("lt", ew.less), ("le", ew.less_equal),
                        ("gt", ew.greater), ("ge", ew.greater_equal)]:
        setattr(cls, f"__{name}__", entry)
    for name, entry, symbol in [("and", ew.logical_and, "&"), ("or", ew.logical_or, "|"),
                                ("xor", ew.logical_xor, "^")]:
        op = _boolean(entry, symbol)
        setattr(cls, f"__{name}__", op)
        setattr(cls, f"__r{name}__", lambda self, other, op=op: op(other, self))
    cls.__invert__ = _boolean(ew.logical_not, "~")
    cls.__neg__ = ew.negative
    cls.__abs__ = ew.absolute
    cls.__pos__ = lambda self: self
    cls.__matmul__ = lambda self, other: matmul(self, other)
    cls.__rmatmul__ = lambda self, other: matmul(other, self)
    cls.__getitem__ = getitem
    cls.__setitem__ = _setitem
    cls.at = property(at, doc="Functional updates: x.at[i].set(v), .add(v), .get() (fgrad.numpy.at).")
    cls.T = property(lambda self: transpose(self))
    cls.mT = property(lambda self: swapaxes(self, -1, -2))
    cls.real = property(_real)
    cls.imag = property(_imag)
    for module, names in [(_reductions, ("sum", "mean", "var", "std", "prod", "max", "min", "ptp", "cumsum",
                                          "cumprod", "argmax", "argmin", "argsort", "trace", "any", "all")),
                          (_shaping, ("ravel", "transpose", "swapaxes", "squeeze", "repeat")),
                          (_indexing, ("diagonal", "take")),
                          (_elementwise, ("clip", "round", "nonzero", "astype", "copy"))]:
        for name in names:
            setattr(cls, name, getattr(module, name))
    cls.reshape = lambda self, *shape, **kw: reshape(self, shape[0] if len(shape) == 1 else shape, **kw)
    cls.flatten = lambda self, order="C": ravel(self, order)
    cls.dot = lambda self, other: dot(self, other)
    cls.conj = cls.conjugate = _conj
    cls.item = _item
    cls.tolist = _tolist
    cls.sort = lambda self, axis=-1: _immutable("sort")
    cls.fill = lambda self, value: _immutable("fill")
    for name in ("iadd", "isub", "imul", "itruediv", "ipow"):
        setattr(cls, f"__{name}__", _inplace_binary(name))


def _boolean(entry, symbol):
    """`a & b` (| ^ ~) of boolean values: the logical op (masks batched by vmap meet these)."""
    def op(*args):
        for a in args:
            dtype = getattr(a, "dtype", None)
            if not (isinstance(a, bool) or (dtype is not None and dtype.kind == "b")):
                raise TypeError(f"fgrad: `{symbol}` of a traced value needs boolean operands (masks); got "
                                f"{dtype or type(a).__name__}; use fnp.logical_and/or/xor/not for masks")
        return entry(*args)
    return op


def _real(self):
    """x.real: the real part (x itself for a real x)."""
    return cv.real(self) if self.dtype.kind == "c" else self


def _imag(self):
    """x.imag: the imaginary part (zeros, a constant, for a real x)."""
    return cv.imag(self) if self.dtype.kind == "c" else zeros_like(self)


def _conj(self):
    """x.conj(): the complex conjugate (x itself for a real x)."""
    return cv.conj(self) if self.dtype.kind == "c" else self


def _item(self, *args):
    raise conversion_error(self, ".item()", "keep it an array: index it (x[i] is traced) and use fgrad.numpy's "
                                            "functions on it")


def _tolist(self):
    raise conversion_error(self, ".tolist()", "keep it an array: iterate over it (`for v in x` gives traced "
                                              "values) or index it, and build arrays with fnp.stack")


def _immutable(what):
    raise TypeError(f"fgrad: traced values are immutable, so .{what}() is not supported; "
                    f"use the functional form (e.g. fnp.sort(x)) instead")


def _setitem(self, index, value):
    raise TypeError("fgrad: traced values are immutable; instead of x[i] = v, build a new array, e.g. with "
                    "fnp.where(mask, v, x) or fnp.concatenate")


def _inplace_binary(name):
    # x += y on an immutable value rebinds the name to a new traced value, as for Python numbers.
    return lambda self, other: getattr(self, f"__{name[1:]}__")(other)


install()
