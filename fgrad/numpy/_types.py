"""NumPy's dtypes, scalar types and type queries, under fgrad.numpy's names.

They describe values rather than compute them, so fgrad.numpy hands out NumPy's own
objects; the queries that take arrays read a traced value's dtype (`peek`: metadata).
"""
import numpy as np

from ..ir.value import peek

__all__ = ["bool", "bool_", "broadcast_shapes", "can_cast", "cdouble", "character", "complex64", "complex128",
           "complexfloating", "csingle", "double", "dtype", "finfo", "flexible", "float16", "float32", "float64",
           "floating", "generic", "iinfo", "inexact", "int8", "int16", "int32", "int64", "int_", "integer",
           "iscomplexobj", "isdtype", "isrealobj", "isscalar", "issubdtype", "iterable", "ndarray", "number",
           "object_", "promote_types", "result_type", "signedinteger", "single", "ufunc", "uint", "uint8", "uint16",
           "uint32", "uint64", "unsignedinteger"]

# The scalar types and dtype classes (fgrad.numpy.float32 is numpy.float32).
bool = np.bool_
(int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, int_, float16, float32, float64, double, single,
 complex64, complex128, cdouble, csingle, bool_, object_) = (
    np.int8, np.int16, np.int32, np.int64, np.uint, np.uint8, np.uint16, np.uint32, np.uint64, np.int_, np.float16,
    np.float32, np.float64, np.double, np.single, np.complex64, np.complex128, np.cdouble, np.csingle, np.bool_,
    np.object_)
(generic, number, integer, signedinteger, unsignedinteger, inexact, floating, complexfloating, character,
 flexible) = (np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.floating,
              np.complexfloating, np.character, np.flexible)
dtype, finfo, iinfo, ufunc, ndarray = np.dtype, np.finfo, np.iinfo, np.ufunc, np.ndarray
issubdtype, isdtype, promote_types, broadcast_shapes, iterable = (
    np.issubdtype, np.isdtype, np.promote_types, np.broadcast_shapes, np.iterable)


def can_cast(from_, to, casting="safe"):
    """np.can_cast; a traced value is asked by its dtype."""
    return np.can_cast(from_.dtype if hasattr(from_, "dtype") and not isinstance(from_, np.dtype) else from_, to,
                       casting=casting)


def result_type(*arrays_and_dtypes):
    return np.result_type(*[peek(a) for a in arrays_and_dtypes])


def isscalar(element):
    return np.isscalar(peek(element))


def iscomplexobj(x):
    return np.iscomplexobj(peek(x))


def isrealobj(x):
    return not iscomplexobj(x)

