"""fgrad.scipy.linalg: scipy.linalg's names and signatures, differentiable (as jax.scipy.linalg).

Primitives (fgrad/ops/scipy_linalg.py): expm (its derivative is the Frechet derivative,
expm_frechet), solve_triangular, solve_banded, solve_sylvester, sqrtm (derivative: a Sylvester
equation), and the LU factorization behind lu, lu_factor and lu_solve. Composites here: expm_frechet (one expm of
a block matrix), cho_factor and cho_solve (cholesky and two triangular solves), lu_solve
(a permutation and two triangular solves), block_diag (padding), toeplitz (indexing). inv,
det, solve, cholesky, eigh, qr and svd take SciPy's signatures and call fgrad.numpy.linalg.

Stacks of matrices (..., M, N) work wherever SciPy >= 1.14 takes them. Options fgrad cannot
honour (a generalized eigenproblem, pivoted QR, ...) raise an error naming the option;
overwrite_* and check_finite are accepted and ignored (fgrad never writes into its inputs).
"""
import operator

import numpy as _np

from .. import numpy as _fnp
from ..backend import array_module as _array_module
from ..ir.value import peek as _peek
from ..numpy import linalg as _la
from ..numpy._arguments import _as_operand
from ..ops import scipy_linalg as _ops

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm", "expm_frechet", "inv", "lu",
           "lu_factor", "lu_solve", "qr", "solve", "solve_banded", "solve_sylvester", "solve_triangular", "sqrtm",
           "svd", "toeplitz"]

LinAlgError = _np.linalg.LinAlgError


def _unsupported(fn, option, value, why):
    raise NotImplementedError(f"fgrad.scipy.linalg.{fn}: {option}={value!r} is not supported ({why})")


def _square(fn, a):
    return _la._matrix(fn, a)


# ---- expm ------------------------------------------------------------------------------------
def expm(A):
    """scipy.linalg.expm of a (stack of) square matrix; its derivative is the Frechet derivative.

    Examples
    --------
    >>> A = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> fgrad.scipy.linalg.expm(A), fgrad.grad(lambda t: fgrad.scipy.linalg.expm(t * A)[0, 1])(1.0)
    (array([[1., 1.], [0., 1.]]), np.float64(1.0))
    """
    return _ops.expm(_square("expm", A))


def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    """scipy.linalg.expm_frechet: (expm(A), L(A, E)), or L(A, E) alone without compute_expm.

    Both come from one expm of [[A, E], [0, A]] (SciPy's method='blockEnlarge'); method='SPS'
    is accepted and computed the same way (the results agree to rounding).

    Examples
    --------
    >>> A, E = np.zeros((2, 2)), np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> expA, dexpA = fgrad.scipy.linalg.expm_frechet(A, E)  # the derivative of expm at A along E
    >>> expA, dexpA
    (array([[1., 0.], [0., 1.]]), array([[0., 1.], [0., 0.]]))
    """
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError(f"fgrad.scipy.linalg.expm_frechet: unknown method {method!r}")
    A, E = _square("expm_frechet", A), _square("expm_frechet", E)
    if _fnp.shape(A)[-1] != _fnp.shape(E)[-1]:
        raise ValueError(f"fgrad.scipy.linalg.expm_frechet: A {_fnp.shape(A)} and E {_fnp.shape(E)} must have "
                         f"the same matrix shape")
    A, E = _fnp.broadcast_arrays(A, E)
    expm_a, frechet = _ops.expm_frechet(A, E)
    return (expm_a, frechet) if compute_expm else frechet


def sqrtm(A, disp=True, blocksize=64):
    """scipy.linalg.sqrtm, the principal square root; its derivative X solves sqrtm(A) X + X sqrtm(A) = dA.
    (A matrix with negative real eigenvalues has a complex root, which fgrad returns but does not
    differentiate.) blocksize is ignored.

    Examples
    --------
    >>> fgrad.scipy.linalg.sqrtm(np.array([[4.0, 0.0], [0.0, 9.0]]))
    array([[2., 0.], [0., 3.]])
    >>> round(float(fgrad.grad(lambda a: fgrad.scipy.linalg.sqrtm(a * np.eye(2))[0, 0])(4.0)), 4)  # 1 / (2 sqrt(a))
    0.25
    """
    if disp is not True:
        _unsupported("sqrtm", "disp", disp, "SciPy deprecates it; compute the residual with fgrad.numpy")
    return _ops.sqrtm(_square("sqrtm", A))


# ---- triangular and Cholesky solves ------------------------------------------------------------
_TRANS = {0: 0, 1: 1, 2: 1, "N": 0, "T": 1, "C": 1}  # (2 and "C", the conjugate transpose: _CONJUGATE)
_CONJUGATE = (2, "C")


def _rhs(fn, a, b):
    """b as a (..., n, k) stack, and whether it was a vector (SciPy: a 1-D b is one)."""
    b = _as_operand(b)
    n = _fnp.shape(a)[-1]
    vector = b.ndim == 1
    rows = _fnp.shape(b)[0] if vector else _fnp.shape(b)[-2] if b.ndim >= 2 else None
    if rows != n:
        raise ValueError(f"fgrad.scipy.linalg.{fn}: shapes of a {_fnp.shape(a)} and b {_fnp.shape(b)} are "
                         f"incompatible; b must be ({n},) or (..., {n}, K)")
    b = _la._inexact(b)
    return (_fnp.expand_dims(b, -1) if vector else b), vector


def _out(x, vector):
    return _fnp.squeeze(x, axis=-1) if vector else x


def _triangular(a, b, lower, trans, unit_diagonal, conjugate=False):
    """x with op(a) x = b; op(a) = a^H when `conjugate` (and trans 1): conj(x) solves a^T conj(x) = conj(b)."""
    if conjugate and a.dtype.kind == "c":
        return _fnp.conj(_ops.triangular_solve(a, _fnp.conj(b), lower=bool(lower), trans=trans,
                                               unit_diagonal=bool(unit_diagonal)))
    return _ops.triangular_solve(a, b, lower=bool(lower), trans=trans, unit_diagonal=bool(unit_diagonal))


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    """scipy.linalg.solve_triangular: x with op(a) x = b, reading one triangle of a (its diagonal
    taken as ones with unit_diagonal); differentiable in a (that triangle) and b.

    Examples
    --------
    >>> L = np.array([[2.0, 0.0], [1.0, 1.0]])
    >>> fgrad.scipy.linalg.solve_triangular(L, np.array([2.0, 3.0]), lower=True)
    array([1., 2.])
    """
    if trans not in _TRANS:
        raise ValueError(f"fgrad.scipy.linalg.solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    a = _square("solve_triangular", a)
    b, vector = _rhs("solve_triangular", a, b)
    return _out(_triangular(a, b, lower, _TRANS[trans], unit_diagonal, trans in _CONJUGATE), vector)


def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """scipy.linalg.solve_banded: x with A x = b, A given by its l subdiagonals and u superdiagonals in
    diagonal-ordered form, ab[u + i - j, j] = A[i, j] (shape (l + u + 1, n)); differentiable in the entries
    of ab it reads and in b.

    Examples
    --------
    >>> ab = np.array([[0.0, 1.0], [2.0, 2.0], [1.0, 0.0]])  # the tridiagonal [[2, 1], [1, 2]]
    >>> fgrad.scipy.linalg.solve_banded((1, 1), ab, np.array([3.0, 3.0]))
    array([1., 1.])
    """
    try:
        lower, upper = (operator.index(w) for w in l_and_u)
    except TypeError:
        raise TypeError(f"fgrad.scipy.linalg.solve_banded: l_and_u must be a pair of integers (l, u), got "
                        f"{l_and_u!r}") from None
    ab = _la._inexact(_as_operand(ab))
    if lower < 0 or upper < 0 or ab.ndim != 2 or _fnp.shape(ab)[0] != lower + upper + 1:
        raise ValueError(f"fgrad.scipy.linalg.solve_banded: ab must have shape (l + u + 1, n) = ({lower + upper + 1}, "
                         f"n) for (l, u) = ({lower}, {upper}) (both >= 0), got shape {_fnp.shape(ab)}")
    b, vector = _rhs("solve_banded", ab, b)
    ab, b = _common(ab, b)
    return _out(_ops.banded_solve(ab, b, lower=lower, upper=upper), vector)


def solve_sylvester(a, b, q):
    """scipy.linalg.solve_sylvester: x with a x + x b = q, a (M, M), b (N, N), q (M, N); differentiable
    in a, b and q (dx solves a dx + dx b = dq - da x - x db).

    Examples
    --------
    >>> X = fgrad.scipy.linalg.solve_sylvester(np.eye(2), np.eye(2), 2 * np.ones((2, 2)))  # A X + X B = Q
    >>> X
    array([[1., 1.], [1., 1.]])
    """
    a, b = _square("solve_sylvester", a), _square("solve_sylvester", b)
    q = _la._inexact(_as_operand(q))
    if _fnp.shape(q)[-2:] != (_fnp.shape(a)[-1], _fnp.shape(b)[-1]):
        raise ValueError(f"fgrad.scipy.linalg.solve_sylvester: q must be (M, N) = ({_fnp.shape(a)[-1]}, "
                         f"{_fnp.shape(b)[-1]}) for a {_fnp.shape(a)} and b {_fnp.shape(b)}, got {_fnp.shape(q)}")
    return _ops.sylvester(*_common(a, b, q))


def _common(*arrays):
    """arrays in their common dtype (the rules' cotangents then fit each of them)."""
    dtype = _np.result_type(*[x.dtype for x in arrays])
    return tuple(x if x.dtype == dtype else _fnp.astype(x, dtype) for x in arrays)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy.linalg.cho_factor -> (c, lower), c holding the Cholesky factor in its lower (upper)
    triangle. The other triangle, which SciPy documents as arbitrary, is zero here (as in JAX).
    Its derivative is that of the function on symmetric matrices (Note [symmetric gradients] in
    fgrad/ops/linalg.py).

    Examples
    --------
    >>> c, lower = fgrad.scipy.linalg.cho_factor(np.array([[4.0, 2.0], [2.0, 2.0]]), lower=True)
    >>> fnp.tril(c), lower
    (array([[2., 0.], [1., 1.]]), True)
    """
    return _la.cholesky(a, upper=not lower), bool(lower)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """scipy.linalg.cho_solve: x with A x = b, A = c c^H (lower) or c^H c; only c's triangle is read.
    Two triangular solves, differentiable in c and b.

    Examples
    --------
    >>> A = np.array([[4.0, 2.0], [2.0, 2.0]])
    >>> f = lambda b: fgrad.scipy.linalg.cho_solve(fgrad.scipy.linalg.cho_factor(A), b)
    >>> f(np.array([2.0, 0.0])), fgrad.grad(lambda b: fnp.sum(f(b)))(np.array([2.0, 0.0]))  # inv(A).T @ ones
    (array([ 1., -1.]), array([0. , 0.5]))
    """
    c, lower = c_and_lower
    c = _square("cho_solve", c)
    b, vector = _rhs("cho_solve", c, b)
    if lower:  # L L^H x = b
        x = _triangular(c, _triangular(c, b, True, 0, False), True, 1, False, conjugate=True)
    else:  # U^H U x = b
        x = _triangular(c, _triangular(c, b, False, 1, False, conjugate=True), False, 0, False)
    return _out(x, vector)


# ---- LU ----------------------------------------------------------------------------------------
def _permutation_matrix(perm, dtype):
    """P (a = P L U) from the permutation perm (a[perm] = L U)."""
    return _fnp.swapaxes(_ops.permutation_matrix(perm, dtype), -1, -2)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """scipy.linalg.lu -> (p, l, u) with a = p @ l @ u; (p @ l, u) with permute_l; p as row indices
    (a = l[p] @ u) with p_indices. l and u carry the LU derivative (JAX's rule); p is constant.

    Examples
    --------
    >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> P, L, U = fgrad.scipy.linalg.lu(A)
    >>> bool(np.allclose(P @ L @ U, A)), L[1, 0]
    (True, np.float64(0.3333333333333333))
    """
    a = _la._matrix("lu", a, square=False)
    packed, _, perm = _ops.lu(a)
    m, n = _fnp.shape(a)[-2:]
    k = min(m, n)
    xp = _array_module(_peek(a))
    l_ = _fnp.tril(packed[..., :, :k], -1) + xp.eye(m, k, dtype=a.dtype)
    u = _fnp.triu(packed[..., :k, :])
    if permute_l:
        return _la.matmul(_permutation_matrix(perm, a.dtype), l_), u
    p = _fnp.astype(_fnp.argsort(perm, axis=-1), _np.int32) if p_indices else \
        _permutation_matrix(perm, _np.finfo(a.dtype).dtype)  # (real for complex a, as SciPy's)
    return p, l_, u


def lu_factor(a, overwrite_a=False, check_finite=True):
    """scipy.linalg.lu_factor -> (lu, piv): L (unit diagonal, strictly below) and U packed, and
    LAPACK's 0-based row interchanges; lu carries the LU derivative.

    Examples
    --------
    >>> lu, piv = fgrad.scipy.linalg.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv  # row 0 swapped with row 1
    array([1, 1], dtype=int32)
    """
    packed, piv, _ = _ops.lu(_la._matrix("lu_factor", a, square=False))
    return packed, piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """scipy.linalg.lu_solve: x with op(A) x = b for A = P L U given by lu_factor; differentiable in
    lu and b (as a solve with the matrix lu_factor's factors make).

    Examples
    --------
    >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> fgrad.scipy.linalg.lu_solve(fgrad.scipy.linalg.lu_factor(A), np.array([5.0, 11.0]))
    array([1., 2.])
    """
    packed, piv = lu_and_piv
    if trans not in (0, 1, 2):
        raise ValueError(f"fgrad.scipy.linalg.lu_solve: trans must be 0, 1 or 2, got {trans!r}")
    packed = _square("lu_solve", packed)
    b, vector = _rhs("lu_solve", packed, b)
    perm = _ops.lu_pivots_to_permutation(piv, m=_fnp.shape(packed)[-1])
    if _TRANS[trans] == 0:  # L U x = P^T b = b[perm]
        pb = _rows(_fnp.broadcast_to(b, _stack(packed, b)), perm)
        x = _triangular(packed, _triangular(packed, pb, True, 0, True), False, 0, False)
    else:  # U^T L^T (P^T x) = b, so x = P z: x[perm] = z
        z = _triangular(packed, _triangular(packed, b, False, 1, False), True, 1, True)
        x = _rows(z, _fnp.argsort(perm, axis=-1))
    return _out(x, vector)


def _rows(x, order):
    """x[..., order, :] for each matrix of the stack x (order: one index per row, per stack entry)."""
    index = _fnp.expand_dims(order, -1)
    index = _fnp.reshape(index, (1,) * (x.ndim - index.ndim) + _fnp.shape(index))
    return _fnp.take_along_axis(x, index, axis=-2)


def _stack(a, b):
    """b's (..., n, k) shape broadcast to a's stack."""
    sa, sb = _fnp.shape(a), _fnp.shape(b)
    return _np.broadcast_shapes(sa[:-2], sb[:-2]) + sb[-2:]


# ---- constructors --------------------------------------------------------------------------------
def block_diag(*arrs):
    """scipy.linalg.block_diag: the arrays (0-D and 1-D ones as rows) on the diagonal of a 2-D array.

    Examples
    --------
    >>> fgrad.scipy.linalg.block_diag(np.eye(1), 2 * np.eye(2))
    array([[1., 0., 0.], [0., 2., 0.], [0., 0., 2.]])
    """
    if not arrs:
        return _np.empty((1, 0))
    arrs = [_as_operand(a) for a in arrs]
    for i, a in enumerate(arrs):
        if a.ndim > 2:
            raise ValueError(f"fgrad.scipy.linalg.block_diag: arguments in the following positions have dimension "
                             f"greater than 2: [{i}]")
    arrs = [_fnp.reshape(a, (1, -1)) if a.ndim < 2 else a for a in arrs]
    dtype = _np.result_type(*[a.dtype for a in arrs])
    width = sum(_fnp.shape(a)[1] for a in arrs)
    rows, left = [], 0
    for a in arrs:
        c = _fnp.shape(a)[1]
        rows.append(_fnp.pad(_fnp.astype(a, dtype), ((0, 0), (left, width - left - c))))
        left += c
    return _fnp.concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """scipy.linalg.toeplitz: first column c, first row r (conj(c) when None, Hermitian as SciPy's;
    r[0] is ignored); N-D inputs are stacks of 1-D ones, as in SciPy >= 1.17.

    Examples
    --------
    >>> fgrad.scipy.linalg.toeplitz(np.array([1.0, 2.0, 3.0]))
    array([[1., 2., 3.], [2., 1., 2.], [3., 2., 1.]])
    """
    c = _as_operand(c)
    r = _fnp.conj(c) if r is None else _as_operand(r)
    if c.ndim == 0:
        c = _fnp.reshape(c, (1,))
    if r.ndim == 0:
        r = _fnp.reshape(r, (1,))
    m, n = _fnp.shape(c)[-1], _fnp.shape(r)[-1]
    batch = _np.broadcast_shapes(_fnp.shape(c)[:-1], _fnp.shape(r)[:-1])
    c = _fnp.broadcast_to(c, batch + (m,))
    r = _fnp.broadcast_to(r, batch + (n,))
    vals = _fnp.concatenate([_fnp.flip(c, -1), r[..., 1:]], axis=-1)  # vals[m - 1 - i + j] is entry (i, j)
    index = (m - 1) - _np.arange(m)[:, None] + _np.arange(n)[None, :]
    return vals[..., index]


# ---- scipy.linalg's names for fgrad.numpy.linalg's ---------------------------------------------
def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """scipy.linalg.inv (assume_a is a hint: every structure gets the general inverse).

    Examples
    --------
    >>> fgrad.scipy.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ], [0.  , 0.25]])
    """
    return _la.inv(a)


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of a square matrix (or of each in a stack), as scipy.linalg.det; overwrite_a
    and check_finite are accepted and ignored. Differentiable (fgrad.numpy.linalg.det's rule).

    Examples
    --------
    >>> fgrad.grad(fgrad.scipy.linalg.det)(np.array([[2.0, 0.0], [0.0, 3.0]]))  # det(A) inv(A).T
    array([[3., 0.], [0., 2.]])
    """
    return _la.det(a)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
          transposed=False):
    """scipy.linalg.solve: a 1-D b is a vector, else (..., N, K). assume_a is a hint: every structure
    gets the general solve (the same answer for a matrix that has the structure).

    Examples
    --------
    >>> A = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> f = lambda b: fgrad.scipy.linalg.solve(A, b)
    >>> f(np.array([3.0, 5.0])), fgrad.grad(lambda b: fnp.sum(f(b)))(np.ones(2))  # inv(A).T @ ones
    (array([0.8, 1.4]), array([0.4, 0.2]))
    """
    a = _square("solve", a)
    if transposed:
        if a.dtype.kind == "c":
            raise NotImplementedError("fgrad.scipy.linalg.solve: transposed=True of a complex matrix is not "
                                      "supported (as SciPy's)")
        a = _fnp.swapaxes(a, -1, -2)
    b, vector = _rhs("solve", a, b)
    return _out(_la.solve(a, b), vector)


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """scipy.linalg.cholesky: the upper factor U (a = U^T U) unless lower=True.

    Examples
    --------
    >>> fgrad.scipy.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 2.0]]))  # upper by default, as SciPy's
    array([[2., 1.], [0., 1.]])
    """
    return _la.cholesky(a, upper=not lower)


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """scipy.linalg.eigh of a symmetric matrix: (w, v), or w with eigvals_only; subset_by_index
    slices them. The generalized problem (b) and subset_by_value are not supported.

    Examples
    --------
    >>> A = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> w, V = fgrad.scipy.linalg.eigh(A)
    >>> w, bool(np.allclose(fgrad.grad(lambda A: fgrad.scipy.linalg.eigh(A)[0][1])(A), 0.5))  # v v.T
    (array([1., 3.]), True)
    """
    if b is not None:
        _unsupported("eigh", "b", "<array>", "the generalized eigenproblem is not implemented")
    if subset_by_value is not None:
        _unsupported("eigh", "subset_by_value", subset_by_value, "the number of eigenvalues would depend on the "
                     "values; use subset_by_index")
    w, v = _la.eigh(a, UPLO="L" if lower else "U")
    if subset_by_index is not None:
        lo, hi = subset_by_index
        w, v = w[..., lo:hi + 1], v[..., lo:hi + 1]
    return w if eigvals_only else (w, v)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """scipy.linalg.qr: mode 'full' (Q is M x M), 'economic', or 'r' (a tuple (R,), as SciPy's).

    Examples
    --------
    >>> A = np.array([[3.0, 1.0], [4.0, 2.0]])
    >>> Q, R = fgrad.scipy.linalg.qr(A)
    >>> bool(np.allclose(Q @ R, A)), bool(np.allclose(Q.T @ Q, np.eye(2)))
    (True, True)
    """
    if pivoting:
        _unsupported("qr", "pivoting", pivoting, "the column permutation is not differentiable")
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"fgrad.scipy.linalg.qr: mode {mode!r} is not supported; use 'full', 'economic' or 'r'")
    if mode == "r":  # R of the full factorization: the economic one's, with zero rows below (M > N)
        a = _la._matrix("qr", a, square=False)
        m, n = _fnp.shape(a)[-2:]
        r = _la.qr(a, mode="r")
        return (_fnp.pad(r, ((0, 0),) * (r.ndim - 2) + ((0, m - n), (0, 0))) if m > n else r,)
    return tuple(_la.qr(a, mode="reduced" if mode == "economic" else "complete"))


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    """scipy.linalg.svd -> (U, s, Vh), or s when compute_uv=False (either lapack_driver: the same s,
    and U, Vh up to the signs of their columns).

    Examples
    --------
    >>> U, s, Vh = fgrad.scipy.linalg.svd(np.array([[3.0, 0.0], [0.0, -2.0]]))
    >>> s
    array([3., 2.])
    """
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f"fgrad.scipy.linalg.svd: lapack_driver must be 'gesdd' or 'gesvd', got {lapack_driver!r}")
    out = _la.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out
