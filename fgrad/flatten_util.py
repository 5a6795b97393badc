"""fgrad.flatten_util: ravel_pytree, a pytree of arrays as one flat vector and back, as jax.flatten_util's."""
import numpy as np

from . import numpy as fnp
from .tree_util import tree_flatten, tree_unflatten
from .typing import Array, Callable, PyTree

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree: PyTree) -> tuple[Array, Callable[[Array], PyTree]]:
    """(a 1-d array of every leaf of `pytree`, raveled and concatenated in leaf order, in their
    common dtype; `unravel`, the function that turns such a vector back into the pytree, each
    leaf in its own shape and dtype). Both are differentiable: grad through ravel_pytree and
    unravel is grad of the leaves."""
    leaves, treedef = tree_flatten(pytree)
    shapes = [tuple(np.shape(x)) for x in leaves]
    dtypes = [fnp.result_type(x) for x in leaves]
    sizes = [int(np.prod(s)) for s in shapes]
    dtype = np.result_type(*dtypes) if dtypes else np.dtype(np.float64)
    flat = fnp.concatenate([fnp.ravel(fnp.astype(x, dtype)) for x in leaves]) if leaves else np.zeros(0, dtype)
    ends = np.cumsum(sizes)

    def unravel(vector):
        if tuple(np.shape(vector)) != (int(ends[-1]) if sizes else 0,):
            raise ValueError(f"ravel_pytree's unravel: expected a vector of shape ({sum(sizes)},), got shape "
                             f"{tuple(np.shape(vector))}")
        pieces = [fnp.reshape(vector[end - size:end], shape) for end, size, shape in zip(ends, sizes, shapes)]
        return tree_unflatten(treedef, [fnp.astype(p, d) if fnp.result_type(p) != d else p
                                        for p, d in zip(pieces, dtypes)])
    return flat, unravel
