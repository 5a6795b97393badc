"""torch's `dim` arguments checked and made nonnegative, before fgrad.numpy sees them.

fgrad.numpy takes NumPy's axes (and raises NumPy's AxisError, or wraps silently where NumPy
does); the Tensor face raises torch's IndexError, with torch's message and the function's name,
and lets a 0-D tensor take dim 0 or -1, as torch does (its "dims" are [-1, 0]).
"""
import operator

from ..typing import Sequence

__all__ = ["shape_index", "wrap_dim", "wrap_dims", "wrap_pair"]


def wrap_dim(dim: int, ndim: int, who: str) -> int:
    """`dim` as an axis in [0, max(ndim, 1)), as torch's maybe_wrap_dim; IndexError outside
    [-max(ndim, 1), max(ndim, 1) - 1] (a 0-D tensor takes -1 and 0, both become 0).

    Parameters
    ----------
    dim : int
        The axis, negative counting from the end.
    ndim : int
        The number of axes it indexes (ndim + 1 where an axis is inserted, as unsqueeze's).
    who : str
        The function's name, for the message.

    Returns
    -------
    int
        The nonnegative axis.

    Raises
    ------
    IndexError
        `dim` is out of range.

    Examples
    --------
    >>> from fgrad.autograd.dims import wrap_dim
    >>> wrap_dim(-1, 3, "sum"), wrap_dim(0, 0, "sum")
    (2, 0)
    >>> wrap_dim(5, 2, "unsqueeze")
    Traceback (most recent call last):
    IndexError: unsqueeze(): Dimension out of range (expected to be in range of [-2, 1], but got 5)
    """
    n, dim = max(ndim, 1), operator.index(dim)  # (a float or a str is a TypeError, as torch's)
    if not -n <= dim < n:
        raise IndexError(f"{who}(): Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def wrap_dims(dims: int | Sequence[int] | None, ndim: int, who: str) -> int | tuple[int, ...] | None:
    """`dims` (None, an int or a sequence of ints) made nonnegative by wrap_dim, a sequence as a
    tuple, and None for a 0-D tensor (its one "dim" is all of it: NumPy's axis=None); RuntimeError
    where a sequence names an axis twice (as torch's reductions, permute, flip and movedim).

    Parameters
    ----------
    dims : int, sequence of int or None
        The axes; None (all axes) is returned as it is.
    ndim : int
        The number of axes of the tensor.
    who : str
        The function's name, for the messages.

    Returns
    -------
    int, tuple of int or None
        The nonnegative axes, of the kind given; None where `ndim` is 0.

    Raises
    ------
    IndexError
        An axis is out of range.
    RuntimeError
        An axis appears twice.

    Examples
    --------
    >>> from fgrad.autograd.dims import wrap_dims
    >>> wrap_dims([0, -1], 3, "sum"), wrap_dims(-2, 3, "sum"), wrap_dims(None, 3, "sum")
    ((0, 2), 1, None)
    >>> wrap_dims(-1, 0, "sum") is None
    True
    >>> wrap_dims((0, -3), 3, "sum")
    Traceback (most recent call last):
    RuntimeError: sum(): dim 0 appears multiple times in the list of dims
    """
    if dims is None:
        return None
    if isinstance(dims, (list, tuple)):
        wrapped = tuple(wrap_dim(d, ndim, who) for d in dims)
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:
                raise RuntimeError(f"{who}(): dim {d} appears multiple times in the list of dims")
    else:
        wrapped = wrap_dim(dims, ndim, who)
    return wrapped if ndim else None


def shape_index(dim: int, ndim: int, who: str) -> int:
    """`dim` as an index into a shape (size(dim), stride(dim)): wrap_dim's, except that a 0-D
    tensor has no entry to give, as torch says.

    Parameters
    ----------
    dim : int
        The axis, negative counting from the end.
    ndim : int
        The length of the shape.
    who : str
        The function's name, for the message.

    Returns
    -------
    int
        The nonnegative index.

    Raises
    ------
    IndexError
        `dim` is out of range, or the shape is empty.

    Examples
    --------
    >>> from fgrad.autograd.dims import shape_index
    >>> shape_index(-1, 2, "size")
    1
    >>> shape_index(0, 0, "size")
    Traceback (most recent call last):
    IndexError: size(): dimension specified as 0 but tensor has no dimensions
    """
    if not ndim:
        raise IndexError(f"{who}(): dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim, who)


def wrap_pair(dim1: int, dim2: int, ndim: int, who: str) -> tuple[int, int]:
    """Two distinct axes (diagonal's dim1 and dim2), each made nonnegative by wrap_dim.

    Parameters
    ----------
    dim1, dim2 : int
        The axes, negative counting from the end.
    ndim, who
        As wrap_dim's: the tensor's number of axes, the function's name.

    Returns
    -------
    tuple of int
        The nonnegative axes.

    Raises
    ------
    IndexError
        An axis is out of range (wrap_dim).
    RuntimeError
        They are the same axis, as torch's diagonal says.

    Examples
    --------
    >>> from fgrad.autograd.dims import wrap_pair
    >>> wrap_pair(-2, -1, 3, "diagonal")
    (1, 2)
    """
    dim1, dim2 = wrap_dim(dim1, ndim, who), wrap_dim(dim2, ndim, who)
    if dim1 == dim2:
        raise RuntimeError(f"{who}(): diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dim1, dim2
