"""Type aliases of fgrad's public signatures.

The bottom of the layers: this module imports nothing from fgrad. The aliases are made
once, at import; an annotation costs nothing per call.
"""
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ParamSpec, TypeAlias, TypeVar

from numpy.typing import ArrayLike, DTypeLike

__all__ = ["Any", "ArrayLike", "Callable", "DTypeLike", "Iterable", "Iterator", "P", "PyTree", "R", "Sequence"]

# Arrays, traced values and Python numbers, alone or nested in tuples, lists, dicts, None and
# other registered containers (fgrad/transforms/trees.py).
PyTree: TypeAlias = Any

# A decorator that keeps a function's signature takes a Callable[P, R] and returns one.
P = ParamSpec("P")
R = TypeVar("R")
