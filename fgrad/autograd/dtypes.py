"""torch's dtype names, as NumPy dtypes (`t.dtype == fgrad.float32` holds; `dtype=fgrad.long`
works wherever a dtype is taken), and torch.Size. (NumPy has no bfloat16, so neither has fgrad.)"""
import builtins

import numpy as np

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
    "half",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "long",
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


class Size(tuple):
    """torch.Size: a tuple of dimensions, with numel()."""

    def numel(self):
        return builtins.int(np.prod(self, dtype=np.int64))

    def __repr__(self):
        return f"fgrad.Size({list(self)})"
