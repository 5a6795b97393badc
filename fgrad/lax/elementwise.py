"""lax.select and lax.stop_gradient: the array functions that control flow is built from."""
from .. import numpy as fnp
from ..ops.stop_gradient import stop_gradient as _stop_gradient
from ..typing import Any, PyTree
from .carries import leaf_type

__all__ = ["select", "stop_gradient"]


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """`on_true` where `pred`, else `on_false`, elementwise, as jax.lax.select: pred is
    boolean, a scalar or of the cases' shape; the cases have one shape and one dtype (lax,
    unlike numpy.where, neither broadcasts nor promotes).

    Examples
    --------
    >>> x = np.array([-1.0, 2.0])
    >>> fgrad.lax.select(x > 0, x, -x), fgrad.grad(lambda x: fnp.sum(fgrad.lax.select(x > 0, x, 3 * x)))(x)
    (array([1., 2.]), array([3., 1.]))
    """
    p_shape, p_dtype = leaf_type(pred)
    t, f = leaf_type(on_true), leaf_type(on_false)
    if p_dtype.kind != "b":
        raise TypeError(f"fgrad.lax.select: pred must be boolean, got dtype {p_dtype}")
    if t[0] != f[0]:
        raise TypeError(f"fgrad.lax.select: the cases must have the same shapes, got {t[0]} and {f[0]}")
    if t[1] != f[1]:
        raise TypeError(f"fgrad.lax.select: the cases must have the same dtypes, got {t[1]} and {f[1]}")
    if p_shape not in ((), t[0]):
        raise TypeError(f"fgrad.lax.select: pred must be a scalar or have the cases' shape {t[0]}, got {p_shape}")
    return fnp.where(pred, on_true, on_false)


def stop_gradient(x: PyTree) -> PyTree:
    """`x` (any pytree of arrays) with its derivative cut off for every enclosing transform, as
    jax.lax.stop_gradient: its value passes, its tangents and cotangents are zero.

    Examples
    --------
    >>> fgrad.grad(lambda x: x * fgrad.lax.stop_gradient(x))(3.0)  # the second factor is a constant
    np.float64(3.0)
    """
    return _stop_gradient(x)
