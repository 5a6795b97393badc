"""Type aliases of fgrad's public signatures.

The bottom of the layers: this module imports nothing from fgrad. The aliases are made
once, at import; an annotation costs nothing per call.

`Array` is the public array type, as `jax.Array` is JAX's: statically a NumPy array
(`numpy.typing.NDArray[Any]`), what every fgrad.numpy function returns on plain arrays.
Under a transform the function receives and returns traced values, which behave as arrays
(operators, methods, NumPy's functions), so a program annotated with `Array` type-checks
for both; fgrad.numpy's signatures are in its stubs (`fgrad/numpy/__init__.pyi`, made by
tools/make_stubs.py, which tests/test_types.py keeps in step with the runtime names).
"""
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeAlias, TypeVar

from numpy.typing import ArrayLike, DTypeLike, NDArray

__all__ = ["TYPE_CHECKING", "Any", "Array", "ArrayLike", "Callable", "DTypeLike", "Generic", "Iterable", "Iterator",
           "P", "PyTree", "R", "Sequence"]

# The public array type: a NumPy array statically (traced values behave as arrays; see above).
Array: TypeAlias = NDArray[Any]

# Arrays, traced values and Python numbers, alone or nested in tuples, lists, dicts, None and
# other registered containers (fgrad/transforms/trees.py).
PyTree: TypeAlias = Any

# A decorator that keeps a function's signature takes a Callable[P, R] and returns one.
P = ParamSpec("P")
R = TypeVar("R")
