"""`fgrad.numpy.linalg` and the matrix and vector products of `fgrad.numpy` (dot, tensordot,
einsum, vecdot, matvec, ...).

NumPy 2's signatures and semantics: stacks of matrices (..., M, N) everywhere, solve's
b is a vector only when 1-D, the decompositions return NumPy's named tuples. The
primitives live in fgrad/ops/linalg.py and fgrad/ops/einsum.py; norm, matrix_power and
the like are composites here.
"""
import operator as _operator
from collections import namedtuple as _namedtuple

import numpy as np

from ..backend import array_module as _array_module
from ..ir.value import Tracer as _Tracer
from ..ir.value import decided as _decided
from ..ir.value import peek as _peek
from ..ops import einsum as _es
from ..ops import linalg as la
from ..ops.reductions import decision as _decision
from ._arguments import _as_operand, _check_out, _ndim, _shape
from ._arguments import normalize_axis as _normalize_axis
from ._elementwise import abs2 as _abs2
from ._elementwise import astype as _astype
from ._elementwise import multiply as _multiply
from ._elementwise import sqrt as _sqrt
from ._indexing import diagonal as _diagonal
from ._math import conj as _conj
from ._math import cross as _cross
from ._reductions import amax as _amax
from ._reductions import amin as _amin
from ._reductions import sum as _sum
from ._reductions import trace as _trace
from ._shaping import expand_dims as _expand_dims
from ._shaping import matrix_transpose
from ._shaping import moveaxis as _moveaxis
from ._shaping import ravel as _ravel
from ._shaping import reshape as _reshape
from ._shaping import squeeze as _squeeze
from ._shaping import swapaxes as _swapaxes
from ._shaping import transpose as _transpose

# fgrad.numpy.linalg: NumPy's numpy.linalg, its result types, and the products fgrad.numpy
# exports from here (dot, einsum, inner, kron, matvec, vdot, vecmat).
__all__ = ["EigResult", "EighResult", "LinAlgError", "LstsqResult", "QRResult", "SVDResult", "SlogdetResult",
           "cholesky", "cond", "cross", "det", "diagonal", "dot", "eig", "eigh", "eigvals", "eigvalsh", "einsum",
           "inner", "inv", "kron", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose",
           "matvec", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot",
           "tensorinv", "tensorsolve", "trace", "vdot", "vecdot", "vecmat", "vector_norm"]

LinAlgError = np.linalg.LinAlgError
SlogdetResult = _namedtuple("SlogdetResult", ["sign", "logabsdet"])
EighResult = _namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = _namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
LstsqResult = _namedtuple("LstsqResult", ["solution", "residuals", "rank", "singular_values"])
QRResult = _namedtuple("QRResult", ["Q", "R"])
SVDResult = _namedtuple("SVDResult", ["U", "S", "Vh"])
# (numpy.linalg's result types, by the names NumPy gives them, documented as NumPy documents them)
SlogdetResult.__doc__ = """slogdet's result (sign, logabsdet): det = sign * exp(logabsdet), as numpy.linalg's.

Examples
--------
>>> sign, logabsdet = fnp.linalg.slogdet(np.array([[-2.0, 0.0], [0.0, 3.0]]))
>>> float(sign), round(float(logabsdet), 4)  # det = -6
(-1.0, 1.7918)
"""
EighResult.__doc__ = """eigh's result (eigenvalues ascending, eigenvectors as columns), as numpy.linalg's.

Examples
--------
>>> w, V = fnp.linalg.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
>>> w
array([1., 3.])
"""
EigResult.__doc__ = """eig's result (eigenvalues, eigenvectors as columns), as numpy.linalg's.

Examples
--------
>>> w, V = fnp.linalg.eig(np.array([[2.0, 0.0], [0.0, 3.0]]))
>>> w
array([2., 3.])
"""
LstsqResult.__doc__ = """lstsq's result (solution, residuals, rank, singular_values), as numpy.linalg's.

Examples
--------
>>> x, residuals, rank, s = fnp.linalg.lstsq(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), np.array([1.0, 2.0, 3.0]))
>>> np.allclose(x, [1.0, 1.0]), int(rank)
(True, 2)
"""
QRResult.__doc__ = """qr's result (Q with orthonormal columns, R upper triangular), as numpy.linalg's.

Examples
--------
>>> A = np.array([[3.0, 1.0], [4.0, 2.0]])
>>> Q, R = fnp.linalg.qr(A)
>>> bool(np.allclose(Q @ R, A))
True
"""
SVDResult.__doc__ = """svd's result (U, S the singular values descending, Vh): a = U @ diag(S) @ Vh, as numpy.linalg's.

Examples
--------
>>> U, S, Vh = fnp.linalg.svd(np.array([[3.0, 0.0], [0.0, -2.0]]))
>>> S
array([3., 2.])
"""


def matmul(x1, x2):
    x1, x2 = _as_operand(x1), _as_operand(x2)
    s1, s2 = x1.shape, x2.shape
    if not s1 or not s2:
        raise ValueError("fgrad.numpy.matmul: input operand does not have enough dimensions (use multiply for scalars)")
    n2 = s2[-2] if len(s2) > 1 else s2[0]
    if s1[-1] != n2:
        raise ValueError(f"fgrad.numpy.matmul: shapes {tuple(s1)} and {tuple(s2)} are not aligned: "
                         f"{s1[-1]} (dim {len(s1) - 1}) != {n2}")
    return la.matmul(x1, x2)


def dot(a, b):
    a, b = _as_operand(a), _as_operand(b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(a, b)
    if b.ndim <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of vectors along `axis` (broadcast over the others), conjugating x1 as
    NumPy does; also fgrad.numpy.linalg.vecdot."""
    return _sum(_multiply(_conj(x1), x2), axis=axis)


def matvec(x1, x2, /):
    """Matrix (..., m, n) times vector (..., n)."""
    return matmul(x1, _expand_dims(x2, -1))[..., 0]


def vecmat(x1, x2, /):
    """Vector (..., m) times matrix (..., m, n), conjugating the vector as NumPy does."""
    return matmul(_expand_dims(_conj(x1), -2), x2)[..., 0, :]


def tensordot(a, b, axes=2):
    a, b = _as_operand(a), _as_operand(b)
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        axes_a, axes_b = [np.atleast_1d(ax).tolist() for ax in axes]
    axes_a = list(_normalize_axis(axes_a, a.ndim, "tensordot", ordered=True))
    axes_b = list(_normalize_axis(axes_b, b.ndim, "tensordot", ordered=True))
    sa, sb = _shape(a), _shape(b)
    if len(axes_a) != len(axes_b):
        raise ValueError(f"fgrad.numpy.tensordot: shape-mismatch for sum: {len(axes_a)} axes of a, {len(axes_b)} of b")
    for i, j in zip(axes_a, axes_b):
        if sa[i] != sb[j]:
            raise ValueError(f"fgrad.numpy.tensordot: shape mismatch for sum: {sa} axis {i} vs {sb} axis {j}")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [j for j in range(b.ndim) if j not in axes_b]
    k = int(np.prod([sa[i] for i in axes_a], dtype=np.int64))
    a2 = _reshape(_transpose(a, free_a + axes_a), (-1, k))
    b2 = _reshape(_transpose(b, axes_b + free_b), (k, -1))
    return _reshape(matmul(a2, b2), tuple(sa[i] for i in free_a) + tuple(sb[j] for j in free_b))


def inner(a, b):
    a, b = _as_operand(a), _as_operand(b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(a, b)
    if a.ndim == 1 and b.ndim == 1:
        return _sum(_multiply(a, b))  # a scalar, as NumPy returns
    return tensordot(a, b, axes=([-1], [-1]))


def outer(a, b, out=None):
    return _multiply(_reshape(a, (-1, 1)), _reshape(b, (1, -1)))


def vdot(a, b):
    """np.vdot: the dot product of the flattened arrays, the first one conjugated."""
    return _sum(_multiply(_ravel(_conj(a)), _ravel(b)))


def kron(a, b):
    a, b = _as_operand(a), _as_operand(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + _shape(a)
    sb = (1,) * (nd - b.ndim) + _shape(b)
    a = _reshape(a, tuple(v for s in sa for v in (s, 1)))
    b = _reshape(b, tuple(v for s in sb for v in (1, s)))
    return _reshape(_multiply(a, b), tuple(x * y for x, y in zip(sa, sb)))


def einsum(*operands, out=None, optimize=False, dtype=None, casting="safe", order="K"):
    """np.einsum, in the subscripts form or the interleaved (sublist) form; `optimize` is ignored."""
    _check_out("einsum", out)
    if not operands:
        raise TypeError("fgrad.numpy.einsum: no subscripts given")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], operands[1:]
    else:
        subscripts, arrays = _es.from_sublists(operands)
    arrays = [_as_operand(a) for a in arrays]
    if dtype is not None:
        arrays = [_astype(a, dtype) for a in arrays]
    spec = _es.normalize(subscripts, [_shape(a) for a in arrays])
    return _es.einsum(*arrays, subscripts=spec)


# ---- numpy.linalg --------------------------------------------------------------------------
def _matrix(fn, a, square=True):
    """`a` as an operand, checked to be a (stack of) matrix (square when `square`)."""
    a = _as_operand(a)
    shape = _shape(a)
    if len(shape) < 2:
        raise LinAlgError(f"fgrad.numpy.linalg.{fn}: {len(shape)}-dimensional array given (shape {shape}); "
                          f"array must be at least two-dimensional")
    if square and shape[-1] != shape[-2]:
        raise LinAlgError(f"fgrad.numpy.linalg.{fn}: last 2 dimensions of the array must be square, got shape {shape}")
    return _inexact(a)


def _inexact(x):
    """x, or x in float64 when it is an integer or boolean array (as NumPy's linalg does)."""
    return x if np.issubdtype(x.dtype, np.inexact) else _astype(x, np.float64)


def solve(a, b):
    """np.linalg.solve: a (..., M, M), b (M,) (a vector) or (..., M, K)."""
    a, b = _matrix("solve", a), _as_operand(b)
    sa, sb = _shape(a), _shape(b)
    vector = len(sb) == 1
    rows = sb[0] if vector else sb[-2] if len(sb) >= 2 else None
    if rows != sa[-1]:
        raise ValueError(f"fgrad.numpy.linalg.solve: a has shape {sa} and b has shape {sb}; b must be an "
                         f"({sa[-1]},) vector or an (..., {sa[-1]}, K) stack of matrices")
    try:
        np.broadcast_shapes(sa[:-2], () if vector else sb[:-2])
    except ValueError:
        raise ValueError(f"fgrad.numpy.linalg.solve: the stack shapes of a {sa} and b {sb} do not broadcast") from None
    if vector:
        return _squeeze(la.solve(a, _expand_dims(b, -1)), axis=-1)
    return la.solve(a, b)


def inv(a):
    return la.inv(_matrix("inv", a))


def det(a):
    return la.det(_matrix("det", a))


def slogdet(a):
    """np.linalg.slogdet: (sign, logabsdet); only logabsdet has a nonzero derivative."""
    return SlogdetResult(*la.slogdet(_matrix("slogdet", a)))


def cholesky(a, /, *, upper=False):
    """np.linalg.cholesky. Like NumPy it reads one triangle of `a` (the lower one, or the
    upper one when upper=True); its derivative, as JAX's and PyTorch's, is that of the
    function on symmetric matrices, so gradients are symmetric (Note [symmetric gradients]
    in fgrad/ops/linalg.py)."""
    a = _matrix("cholesky", a)
    if upper:  # U = L(a^T)^T reads a's upper triangle
        return _swapaxes(la.cholesky(_swapaxes(a, -1, -2)), -1, -2)
    return la.cholesky(a)


def _uplo(fn, UPLO):
    uplo = str(UPLO).upper()
    if uplo not in ("L", "U"):
        raise ValueError(f"fgrad.numpy.linalg.{fn}: UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return uplo


def eigh(a, UPLO="L"):
    """np.linalg.eigh: (eigenvalues, eigenvectors) of a symmetric matrix, read from one triangle
    as NumPy does; gradients are symmetric, as JAX's and PyTorch's (Note [symmetric gradients]
    in fgrad/ops/linalg.py). Eigenvector derivatives assume distinct eigenvalues."""
    return EighResult(*la.eigh(_matrix("eigh", a), UPLO=_uplo("eigh", UPLO)))


def eigvalsh(a, UPLO="L"):
    return eigh(a, UPLO)[0]


def eig(a):
    """np.linalg.eig, differentiable where the eigenvalues are distinct: real arrays for a real
    matrix with real eigenvalues, else complex ones, as NumPy's (a real matrix with complex
    eigenvalues is cast to complex first)."""
    if not isinstance(a, _Tracer):
        return EigResult(*_array_module(a).linalg.eig(a))
    a = _matrix("eig", a)
    if a.dtype.kind != "c" and _decision(la.complex_spectrum, a):
        a = _astype(a, np.result_type(a.dtype, np.complex64))
    return EigResult(*la.eig(a))


def eigvals(a):
    return _array_module(a).linalg.eigvals(a) if not isinstance(a, _Tracer) else eig(a)[0]


def qr(a, mode="reduced"):
    """np.linalg.qr with mode 'reduced', 'complete' or 'r'. Differentiable except
    mode='complete' with M > N, where the extra columns of Q are not unique."""
    a = _matrix("qr", a, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"fgrad.numpy.linalg.qr: mode {mode!r} is not supported; use 'reduced', 'complete' or 'r'")
    q, r = la.qr(a, complete=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """np.linalg.svd -> (U, S, Vh), or S when compute_uv=False.

    To differentiate U and Vh of a non-square matrix pass full_matrices=False: with full
    matrices the extra singular vectors are arbitrary and have no derivative (TypeError).
    hermitian=True is accepted and computed by the general SVD (same S; U and Vh may
    differ from NumPy's by column signs).
    """
    a = _matrix("svd", a, square=False)
    if not compute_uv:
        return la.svd(a, full_matrices=False, compute_uv=False)[0]
    return SVDResult(*la.svd(a, full_matrices=bool(full_matrices), compute_uv=True))


_NO_VALUE = object()


def pinv(a, rcond=None, hermitian=False, *, rtol=_NO_VALUE):
    """np.linalg.pinv; its derivative assumes the rank is constant near `a`."""
    a = _matrix("pinv", a, square=False)
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(_shape(a)[-2:]) * np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NO_VALUE:
        raise ValueError("fgrad.numpy.linalg.pinv: `rtol` and `rcond` can't be both set")
    return la.pinv(a, rcond=rcond, hermitian=bool(hermitian))


def lstsq(a, b, rcond=None):
    """(solution, residuals, rank, singular values), as NumPy; the solution is pinv(a) @ b
    (differentiable where the rank is constant), the rank a decision on the values."""
    a = _matrix("lstsq", a, square=False)
    b = _inexact(_as_operand(b))
    m, n = _shape(a)
    s = svdvals(a)
    cutoff = (np.finfo(a.dtype).eps * max(m, n)) if rcond is None else rcond
    rank = int(_sum(s > cutoff * _amax(s)))  # (a decision on the rank alone: guarded as such)
    x = pinv(a, rcond=cutoff) @ b
    if rank == n and m > n:
        r = b - a @ x
        residuals = _sum(_abs2(r), axis=0)  # (real, for complex values too)
        residuals = _reshape(residuals, (1,)) if _ndim(residuals) == 0 else residuals
    else:
        residuals = _array_module(_peek(a)).zeros((0,), dtype=np.finfo(a.dtype).dtype)
    return LstsqResult(x, residuals, rank, s)


def multi_dot(arrays, *, out=None):
    """The product of the matrices, left to right (NumPy picks the cheapest order; the result
    agrees to rounding)."""
    _check_out("multi_dot", out)
    result = _as_operand(arrays[0])
    for a in arrays[1:]:
        result = matmul(result, a)
    return result


def cond(x, p=None):
    """The condition number: the ratio of extreme singular values (p None, 2, -2), else
    norm(x, p) * norm(inv(x), p)."""
    x = _matrix("cond", x, square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = svdvals(x)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """An integer (no derivative): NumPy's, on the values."""
    return np.linalg.matrix_rank(np.asarray(_decided(A, "fgrad.numpy.linalg.matrix_rank")), tol=tol,
                                 hermitian=hermitian, rtol=rtol)


def tensorsolve(a, b, axes=None):
    a, b = _as_operand(a), _as_operand(b)
    if axes is not None:
        rest = [k for k in range(a.ndim) if k not in axes]
        a = _transpose(a, rest + list(axes))
    x_shape = _shape(a)[-(a.ndim - b.ndim):]
    n = int(np.prod(x_shape, dtype=np.int64))
    return _reshape(solve(_reshape(a, (-1, n)), _ravel(b)), x_shape)


def tensorinv(a, ind=2):
    a = _as_operand(a)
    if ind <= 0:
        raise ValueError("fgrad.numpy.linalg.tensorinv: ind must be a positive integer")
    old, new = _shape(a)[:ind], _shape(a)[ind:]
    n = int(np.prod(old, dtype=np.int64))
    return _reshape(inv(_reshape(a, (n, -1))), new + old)


def diagonal(x, /, *, offset=0):
    """The diagonals of the last two axes (the array API's linalg.diagonal)."""
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along `axis` (fgrad.numpy.cross's, the array API's signature)."""
    return _cross(x1, x2, axis=axis)


def svdvals(x, /):
    """np.linalg.svdvals (NumPy 2): the singular values, descending."""
    return svd(x, compute_uv=False)


def matrix_power(a, n):
    """np.linalg.matrix_power by repeated squaring; negative n inverts first. Integer matrices keep
    their dtype for n >= 0, as NumPy's (exact products: float64 rounds past 2**53)."""
    exact, n_given = _as_operand(a), n
    a = _matrix("matrix_power", exact)
    try:  # (operator.index: a Python int that fgrad.compile traces becomes a guard on its value)
        n = None if isinstance(n, bool) else _operator.index(n)
    except TypeError:
        n = None
    if n is None:
        raise TypeError(f"fgrad.numpy.linalg.matrix_power: exponent must be an integer, got {n_given!r}")
    if n == 0:  # a constant, on a's device
        xp = _array_module(_peek(exact))
        return xp.broadcast_to(xp.eye(_shape(exact)[-1], dtype=exact.dtype), _shape(exact)).copy()
    if n < 0:
        a, n = inv(a), -n
    else:
        a = exact
    result = None
    while n:
        if n & 1:
            result = a if result is None else matmul(result, a)
        n >>= 1
        if n:
            a = matmul(a, a)
    return result


def trace(x, /, *, offset=0, dtype=None):
    """np.linalg.trace (NumPy 2): the trace of each matrix of the stack (last two axes)."""
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def _real_dtype(x):
    """The real dtype of x's precision (norms are real)."""
    return np.finfo(x.dtype).dtype


def _vector_norm(x, ord, axis, keepdims):
    ax = abs(x) if ord not in (None, 2, 0) else None
    if ord is None or ord == 2:
        return _sqrt(_sum(_abs2(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return _amax(ax, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _amin(ax, axis=axis, keepdims=keepdims)
    if ord == 0:  # the number of nonzeros: piecewise constant, zero derivative
        return _sum(_astype(x != 0, _real_dtype(x)), axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(ax, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"fgrad.numpy.linalg.norm: invalid norm order {ord!r} for vectors")
    return _sum(ax ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _matrix_norm(x, ord, row, col, keepdims):
    if ord in (2, -2, "nuc"):
        s = svd(_moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        ret = _amax(s, axis=-1) if ord == 2 else _amin(s, axis=-1) if ord == -2 else _sum(s, axis=-1)
    elif ord in (1, -1, np.inf, -np.inf):
        summed, other = (row, col) if ord in (1, -1) else (col, row)  # 1: max column sum; inf: max row sum
        sums = _sum(abs(x), axis=summed)
        other = other - 1 if other > summed else other
        ret = _amax(sums, axis=other) if ord > 0 else _amin(sums, axis=other)
    elif ord in (None, "fro", "f"):
        ret = _sqrt(_sum(_abs2(x), axis=(row, col)))
    else:
        raise ValueError(f"fgrad.numpy.linalg.norm: invalid norm order {ord!r} for matrices")
    if keepdims:
        shape = list(_shape(x))
        shape[row] = shape[col] = 1
        ret = _reshape(ret, tuple(shape))
    return ret


def norm(x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm: vector norms over one axis, matrix norms over two (NumPy's rules for axis=None)."""
    x = _inexact(_as_operand(x))
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            ret = _sqrt(_sum(_abs2(x)))
            return _reshape(ret, (1,) * nd) if keepdims else ret
        if nd not in (1, 2):
            raise ValueError(f"fgrad.numpy.linalg.norm: improper number of dimensions to norm: ord={ord!r} "
                             f"needs a 1-D or 2-D array (or axis=), got shape {_shape(x)}")
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (int(axis),)
    if len(axis) == 1:
        return _vector_norm(x, ord, _normalize_axis(axis, nd, "linalg.norm"), keepdims)
    if len(axis) == 2:
        row, col = (_normalize_axis(a, nd, "linalg.norm")[0] for a in axis)
        if row == col:
            raise ValueError(f"fgrad.numpy.linalg.norm: duplicate axes given: {axis}")
        return _matrix_norm(x, ord, row, col, keepdims)
    raise ValueError(f"fgrad.numpy.linalg.norm: improper number of dimensions to norm: axis={axis}")


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """np.linalg.vector_norm (NumPy 2): a vector norm over `axis` (all axes when None), any ndim."""
    x = _inexact(_as_operand(x))
    axis = tuple(range(x.ndim)) if axis is None else _normalize_axis(axis, x.ndim, "linalg.vector_norm")
    return _vector_norm(x, ord, axis, keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """np.linalg.matrix_norm (NumPy 2): a matrix norm of each matrix of the stack (last two axes)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)
