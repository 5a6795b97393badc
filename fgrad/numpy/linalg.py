"""`fgrad.numpy.linalg` and the matrix products of `fgrad.numpy`."""
import numpy as np

from ..ops import linalg as la
from . import _core as fnp


def matmul(x1, x2):
    x1, x2 = fnp._as_operand(x1), fnp._as_operand(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("fgrad.numpy.matmul: input operand does not have enough dimensions (use multiply for scalars)")
    n1 = fnp._shape(x1)[-1]
    n2 = fnp._shape(x2)[-2] if x2.ndim > 1 else fnp._shape(x2)[0]
    if n1 != n2:
        raise ValueError(f"fgrad.numpy.matmul: shapes {fnp._shape(x1)} and {fnp._shape(x2)} are not aligned: "
                         f"{n1} (dim {x1.ndim - 1}) != {n2}")
    return la.matmul(x1, x2)


def dot(a, b):
    a, b = fnp._as_operand(a), fnp._as_operand(b)
    if a.ndim == 0 or b.ndim == 0:
        return fnp.multiply(a, b)
    if b.ndim <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def tensordot(a, b, axes=2):
    a, b = fnp._as_operand(a), fnp._as_operand(b)
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        axes_a, axes_b = [np.atleast_1d(ax).tolist() for ax in axes]
    axes_a = [x % a.ndim for x in axes_a]
    axes_b = [x % b.ndim for x in axes_b]
    sa, sb = fnp._shape(a), fnp._shape(b)
    for i, j in zip(axes_a, axes_b):
        if sa[i] != sb[j]:
            raise ValueError(f"fgrad.numpy.tensordot: shape mismatch for sum: {sa} axis {i} vs {sb} axis {j}")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [j for j in range(b.ndim) if j not in axes_b]
    k = int(np.prod([sa[i] for i in axes_a], dtype=np.int64))
    a2 = fnp.reshape(fnp.transpose(a, free_a + axes_a), (-1, k))
    b2 = fnp.reshape(fnp.transpose(b, axes_b + free_b), (k, -1))
    return fnp.reshape(matmul(a2, b2), tuple(sa[i] for i in free_a) + tuple(sb[j] for j in free_b))


def inner(a, b):
    a, b = fnp._as_operand(a), fnp._as_operand(b)
    if a.ndim == 0 or b.ndim == 0:
        return fnp.multiply(a, b)
    return tensordot(a, b, axes=([-1], [-1]))


def outer(a, b, out=None):
    return fnp.multiply(fnp.reshape(a, (-1, 1)), fnp.reshape(b, (1, -1)))


def vdot(a, b):
    return fnp.sum(fnp.multiply(fnp.ravel(a), fnp.ravel(b)))


def kron(a, b):
    a, b = fnp._as_operand(a), fnp._as_operand(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + fnp._shape(a)
    sb = (1,) * (nd - b.ndim) + fnp._shape(b)
    a = fnp.reshape(a, tuple(v for s in sa for v in (s, 1)))
    b = fnp.reshape(b, tuple(v for s in sb for v in (1, s)))
    return fnp.reshape(fnp.multiply(a, b), tuple(x * y for x, y in zip(sa, sb)))
