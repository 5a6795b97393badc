"""torch's dtype names, as NumPy dtypes (`t.dtype == fgrad.float32` holds; `dtype=fgrad.long`
works wherever a dtype is taken), and torch.Size. (NumPy has no bfloat16, so neither has fgrad.)"""
import builtins

import numpy as np

from ..typing import Any, DTypeLike

__all__ = [
    "Size",
    "bool",
    "cdouble",
    "cfloat",
    "complex64",
    "complex128",
    "double",
    "float",
    "float16",
    "float32",
    "float64",
    "get_default_dtype",
    "half",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "long",
    "set_default_dtype",
    "short",
    "uint8",
]

# (torch's names shadow builtins here: this module's code uses builtins.<name>)
float16 = half = np.dtype(np.float16)
float32 = float = np.dtype(np.float32)
float64 = double = np.dtype(np.float64)
complex64 = cfloat = np.dtype(np.complex64)
complex128 = cdouble = np.dtype(np.complex128)
int8, uint8 = np.dtype(np.int8), np.dtype(np.uint8)
int16 = short = np.dtype(np.int16)
int32 = int = np.dtype(np.int32)
int64 = long = np.dtype(np.int64)
bool = np.dtype(np.bool_)


_default = [float64]  # (fgrad's default is NumPy's, float64; torch's is float32)


def get_default_dtype() -> np.dtype[Any]:
    """The dtype of floating tensors made from Python numbers or by the factories without dtype=.

    Examples
    --------
    >>> fgrad.get_default_dtype()
    dtype('float64')
    """
    return _default[0]


def set_default_dtype(d: DTypeLike) -> None:
    """Set get_default_dtype() (float16, float32 or float64); complex values from Python numbers get the
    complex dtype of its precision.

    Examples
    --------
    >>> fgrad.set_default_dtype(fgrad.float32)
    >>> fgrad.tensor([1.0]).dtype
    dtype('float32')
    >>> fgrad.set_default_dtype(fgrad.float64)
    """
    d = np.dtype(d)
    if d.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


_NAMES = {np.dtype(d): f"fgrad.{np.dtype(d).name}" for d in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, np.float32, np.float64, np.complex64,
    np.complex128)}


def name(dtype: DTypeLike) -> builtins.str:
    """A dtype as the Tensor face writes it in reprs and error messages: as torch writes torch.float32,
    fgrad.float32 (the name a user passes as dtype=); NumPy's name, as numpy.<name>, for a dtype fgrad
    has no name for (uint16, object, ...)."""
    d = np.dtype(dtype)
    return _NAMES.get(d) or f"numpy.{d.name}"


def inferred(array):
    """An array NumPy made from Python numbers, in the dtype torch infers for them: floats in the
    default dtype, complex numbers in its complex dtype (integers and booleans as they are)."""
    if array.dtype.kind == "f" and array.dtype != _default[0]:
        return array.astype(_default[0])
    if array.dtype.kind == "c" and array.dtype != np.result_type(_default[0], np.complex64):
        return array.astype(np.result_type(_default[0], np.complex64))
    return array


class Size(tuple):
    """torch.Size: a tuple of dimensions, with numel().

    Examples
    --------
    >>> s = fgrad.Size([2, 3])
    >>> s, s.numel()
    (fgrad.Size([2, 3]), 6)
    """

    def numel(self) -> builtins.int:
        """The number of entries a tensor of this shape has: the product of the sizes (1 for ())."""
        return builtins.int(np.prod(self, dtype=np.int64))

    def __repr__(self):
        return f"fgrad.Size({list(self)})"
