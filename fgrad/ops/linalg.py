"""Linear-algebra primitives: matmul (with NumPy's 1-D and batch rules) and friends."""
from ..backend import array_module
from .primitive import Primitive
from .shape import expand_dims, transpose


def _mT(x):
    nd = x.ndim
    return transpose(x, axes=tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _matmul_vjp_a(g, ans, a, b):
    if b.ndim == 1:
        return g * b if a.ndim == 1 else expand_dims(g, -1) * b
    if a.ndim == 1:
        return matmul(b, expand_dims(g, -1))[..., 0]
    return matmul(g, _mT(b))


def _matmul_vjp_b(g, ans, a, b):
    if a.ndim == 1:
        return a * g if b.ndim == 1 else expand_dims(a, -1) * expand_dims(g, -2)
    if b.ndim == 1:
        return matmul(expand_dims(g, -2), a)[..., 0, :]
    return matmul(_mT(a), g)


matmul = Primitive("matmul", lambda a, b: array_module(a, b).matmul(a, b)).defvjp(
    _matmul_vjp_a, _matmul_vjp_b).defjvp(
    lambda t, ans, a, b: matmul(t, b), lambda t, ans, a, b: matmul(a, t))
