"""fgrad.linalg: torch.linalg's functions on Tensors, by torch's names, signatures and defaults.

Each is written on fgrad.numpy.linalg's functions (or the ops they bind: triangular_solve,
expm), so each is differentiable by the rules those already have; nothing here adds a
derivative. Where torch differs from NumPy it follows torch: `dim`/`keepdim`, eig and eigvals
always complex, solve's batched-vector rule and `left=`, matrix_norm's `dim`, diagonal's
dim1=-2, dim2=-1, pinv's `atol`/`rtol`, and torch's named tuples (eigh's (eigenvalues,
eigenvectors), svd's (U, S, Vh), qr's (Q, R), slogdet's (sign, logabsdet), ...).
"""
import collections

import numpy as np

from .. import numpy as fnp
from ..numpy import linalg as fla
from ..ops.linalg import triangular_solve as _triangular_solve
from ..ops.scipy_linalg import expm as _expm
from ..typing import ArrayLike, DTypeLike, Sequence
from .dims import wrap_dim, wrap_dims, wrap_pair
from .tensor import Tensor

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
    "eigvalsh", "inv", "inv_ex", "lstsq", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank",
    "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals",
    "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm",
]

LinAlgError = np.linalg.LinAlgError

_eigh = collections.namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
_eig = collections.namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])
_svd = collections.namedtuple("linalg_svd", ["U", "S", "Vh"])
_qr = collections.namedtuple("linalg_qr", ["Q", "R"])
_slogdet = collections.namedtuple("linalg_slogdet", ["sign", "logabsdet"])
_lstsq = collections.namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_cholesky_ex = collections.namedtuple("linalg_cholesky_ex", ["L", "info"])
_inv_ex = collections.namedtuple("linalg_inv_ex", ["inverse", "info"])
_solve_ex = collections.namedtuple("linalg_solve_ex", ["result", "info"])


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _cast(x, dtype):
    return x if dtype is None else fnp.astype(x, dtype)


def _info(A):
    return Tensor(np.zeros(tuple(A.shape[:-2]), dtype=np.int32))


def _complex(x):
    """x as complex (torch's eig and eigvals are complex even where NumPy's come out real)."""
    if x.dtype.kind == "c":
        return x
    return fnp.astype(x, np.complex64 if x.dtype == np.float32 else np.complex128)


# ---- norms ------------------------------------------------------------------------------------
def vector_norm(x: Tensor | ArrayLike, ord: float = 2, dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
                dtype: DTypeLike | None = None) -> Tensor:
    """The `ord`-norm of x's entries along `dim` (an int or a tuple; None: all entries, any ndim), as
    torch.linalg.vector_norm: ord a real number, inf, -inf or 0 (the count of nonzeros); `keepdim`
    keeps the reduced axes with size 1. Differentiable; returns a real Tensor.

    Examples
    --------
    >>> x = fgrad.tensor([3.0, 4.0], requires_grad=True)
    >>> n = fgrad.linalg.vector_norm(x); n.backward()
    >>> n, x.grad  # d|x|/dx = x / |x|
    (tensor(5., grad_fn=<...>), tensor([0.6, 0.8]))
    """
    dim = wrap_dims(dim, np.ndim(x), "linalg.vector_norm")
    return _t(fla.vector_norm(_cast(x, dtype), axis=dim, keepdims=keepdim, ord=ord))


def matrix_norm(A: Tensor | ArrayLike, ord: float | str = "fro", dim: int | Sequence[int] = (-2, -1),
                keepdim: bool = False, *, dtype: DTypeLike | None = None) -> Tensor:
    """The matrix norm of A over the two axes `dim` (torch.linalg.matrix_norm): ord 'fro', 'nuc', inf,
    -inf, 1, -1, 2 or -2 (the largest or smallest singular value). Differentiable; returns a Tensor.

    Examples
    --------
    >>> A = fgrad.tensor([[3.0, 0.0], [0.0, 4.0]], requires_grad=True)
    >>> n = fgrad.linalg.matrix_norm(A); n.backward()  # Frobenius
    >>> n, A.grad
    (tensor(5., grad_fn=<...>), tensor([[0.6, 0. ], [0. , 0.8]]))
    """
    return _t(fla.norm(_cast(A, dtype), ord, wrap_dims(tuple(dim), np.ndim(A), "linalg.matrix_norm"), keepdim))


def norm(A: Tensor | ArrayLike, ord: float | str | None = None, dim: int | Sequence[int] | None = None,
         keepdim: bool = False, *, dtype: DTypeLike | None = None) -> Tensor:
    """torch.linalg.norm: a vector norm when `dim` is an int (or A is 1-D), a matrix norm when `dim` is a
    pair (or A is 2-D and ord is given); ord=None and dim=None: the 2-norm of all entries, any ndim.
    Differentiable; returns a Tensor.

    Examples
    --------
    >>> fgrad.linalg.norm(fgrad.tensor([3.0, 4.0])), fgrad.linalg.norm(fgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
    (tensor(5.), tensor(5.))
    """
    A = _cast(A, dtype)
    if dim is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    if isinstance(dim, (list, tuple)) and len(dim) == 1:
        dim = dim[0]
    if isinstance(dim, int) or (dim is None and ord is not None and A.ndim == 1):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim)
    return _t(fla.norm(A, ord, wrap_dims(dim, A.ndim, "linalg.norm"), keepdim))


def cond(A: Tensor | ArrayLike, p: float | str | None = None) -> Tensor:
    """The condition number of A in the norm `p` (torch.linalg.cond; None: the 2-norm, the ratio of the
    extreme singular values). Differentiable; returns a Tensor.

    Examples
    --------
    >>> fgrad.linalg.cond(fgrad.tensor([[2.0, 0.0], [0.0, 0.5]]))  # largest / smallest singular value
    tensor(4.)
    """
    return _t(fla.cond(A, p))


# ---- determinants, inverses, solves -----------------------------------------------------------
def det(A: Tensor | ArrayLike) -> Tensor:
    """The determinant of a square matrix or of each in a stack (torch.linalg.det). Differentiable.

    Examples
    --------
    >>> A = fgrad.tensor([[4.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> d = fgrad.linalg.det(A); d.backward()
    >>> d, A.grad  # d det(A) / dA = det(A) inv(A).T
    (tensor(11., grad_fn=<...>), tensor([[ 3., -1.], [-1.,  4.]]))
    """
    return _t(fla.det(A))


def slogdet(A: Tensor | ArrayLike) -> _slogdet:
    """(sign, logabsdet) of a square matrix or a stack, det = sign * exp(logabsdet) (torch.linalg.slogdet,
    a named tuple); logabsdet is differentiable.

    Examples
    --------
    >>> sign, logabsdet = fgrad.linalg.slogdet(fgrad.tensor([[-2.0, 0.0], [0.0, 3.0]]))
    >>> sign, round(float(logabsdet), 4)  # det = sign * exp(logabsdet) = -6
    (tensor(-1.), 1.7918)
    """
    sign, logabsdet = fla.slogdet(A)
    return _slogdet(_t(sign), _t(logabsdet))


def inv(A: Tensor | ArrayLike) -> Tensor:
    """The inverse of a square matrix or of each in a stack (torch.linalg.inv). Differentiable; a singular
    matrix raises LinAlgError.

    Examples
    --------
    >>> A = fgrad.tensor([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
    >>> fgrad.linalg.inv(A).sum().backward()
    >>> fgrad.linalg.inv(A), A.grad  # d inv(A) = -inv(A) dA inv(A)
    (tensor([[0.5 , 0.  ], [0.  , 0.25]], grad_fn=<...>), tensor([[-0.25  , -0.125 ], [-0.125 , -0.0625]]))
    """
    return _t(fla.inv(A))


def inv_ex(A: Tensor | ArrayLike, *, check_errors: bool = False) -> _inv_ex:
    """(inverse, info) as torch.linalg.inv_ex; info is zeros (a singular matrix raises LinAlgError here).

    Examples
    --------
    >>> inverse, info = fgrad.linalg.inv_ex(fgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> inverse, info
    (tensor([[0.5 , 0.  ], [0.  , 0.25]]), tensor(0, dtype=fgrad.int32))
    """
    return _inv_ex(inv(A), _info(A))


def _is_vector_rhs(A, B):
    """torch's rule: B is a (batch of) vector(s) when 1-D or when B.shape == A.shape[:-1]."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A: Tensor | ArrayLike, B: Tensor | ArrayLike, *, left: bool = True) -> Tensor:
    """X with A X = B (left=False: X A = B), as torch.linalg.solve: A a square matrix or a stack; B a
    matrix, a stack, or a (batch of) vector(s) when B is 1-D or B.shape == A.shape[:-1]; batches
    broadcast. Differentiable in A and B; a singular A raises LinAlgError.

    Examples
    --------
    >>> A = fgrad.tensor([[2.0, 1.0], [1.0, 3.0]])
    >>> b = fgrad.tensor([3.0, 5.0], requires_grad=True)
    >>> x = fgrad.linalg.solve(A, b); x.sum().backward()
    >>> x, b.grad  # b.grad = inv(A).T @ ones
    (tensor([0.8, 1.4], grad_fn=<...>), tensor([0.4, 0.2]))
    """
    if not left:
        return _t(fla.matrix_transpose(solve(fla.matrix_transpose(A), fla.matrix_transpose(B))))
    if _is_vector_rhs(A, B):
        return _t(fla.solve(A, B[..., None])[..., 0])
    return _t(fla.solve(A, B))


def solve_ex(A: Tensor | ArrayLike, B: Tensor | ArrayLike, *, left: bool = True,
             check_errors: bool = False) -> _solve_ex:
    """(result, info) as torch.linalg.solve_ex; info is zeros (a singular A raises LinAlgError here).

    Examples
    --------
    >>> result, info = fgrad.linalg.solve_ex(fgrad.tensor([[2.0, 1.0], [1.0, 3.0]]), fgrad.tensor([3.0, 5.0]))
    >>> result, info
    (tensor([0.8, 1.4]), tensor(0, dtype=fgrad.int32))
    """
    return _solve_ex(solve(A, B, left=left), _info(A))


def solve_triangular(A: Tensor | ArrayLike, B: Tensor | ArrayLike, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """X with A X = B (left=False: X A = B) for triangular A (upper or lower; its other triangle is not
    read; `unitriangular` takes its diagonal as ones), as torch.linalg.solve_triangular. B is a matrix
    or a stack. Differentiable in A's triangle and B.

    Examples
    --------
    >>> L = fgrad.tensor([[2.0, 0.0], [1.0, 1.0]], requires_grad=True)
    >>> X = fgrad.linalg.solve_triangular(L, fgrad.tensor([[2.0], [3.0]]), upper=False)
    >>> X
    tensor([[1.], [2.]], grad_fn=<...>)
    >>> fgrad.gradcheck(lambda L: fgrad.linalg.solve_triangular(L, fgrad.ones(2, 1), upper=False), (L,))
    True
    """
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return _t(fla.matrix_transpose(solve_triangular(fla.matrix_transpose(A), fla.matrix_transpose(B),
                                                        upper=not upper, unitriangular=unitriangular)))
    shape = np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
    A = fnp.broadcast_to(A, shape + tuple(A.shape[-2:]))
    B = fnp.broadcast_to(B, shape + tuple(B.shape[-2:]))
    return _t(_triangular_solve(A, B, lower=not upper, trans=0, unit_diagonal=bool(unitriangular)))


def pinv(A: Tensor | ArrayLike, *, atol: float | Tensor | None = None, rtol: float | Tensor | None = None,
         hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse (torch.linalg.pinv): singular values at most max(atol, rtol *
    the largest) are dropped; both None: rtol = eps * max(m, n). Differentiable (where the rank does
    not change).

    Examples
    --------
    >>> fgrad.linalg.pinv(fgrad.tensor([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]))
    tensor([[1. , 0. , 0. ], [0. , 0.5, 0. ]])
    """
    if atol is None:
        return _t(fla.pinv(A, hermitian=hermitian) if rtol is None else fla.pinv(A, rtol=rtol, hermitian=hermitian))
    rtol = 0.0 if rtol is None else rtol
    U, S, Vh = fla.svd(A, full_matrices=False)
    cutoff = fnp.maximum(atol, rtol * fnp.max(S, axis=-1, keepdims=True))
    keep = S > cutoff
    S_inv = fnp.where(keep, 1.0 / fnp.where(keep, S, 1.0), 0.0)
    return _t(fnp.matmul(fla.matrix_transpose(fnp.conj(Vh)) * S_inv[..., None, :], fla.matrix_transpose(fnp.conj(U))))


def lstsq(A: Tensor | ArrayLike, B: Tensor | ArrayLike, rcond: float | None = None, *,
          driver: str | None = None) -> _lstsq:
    """The least-squares solution of A X = B (torch.linalg.lstsq, a named tuple (solution, residuals, rank,
    singular_values)); A (m, n) or a stack, B (m, k) or a stack. The solution is differentiable. As torch's
    CPU drivers: residuals (the squared residual norms) when m > n, A has full rank and driver is not
    'gelsy' (the default); rank unless driver='gels'; singular_values for 'gelsd' and 'gelss'; else empty.

    Examples
    --------
    >>> A = fgrad.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> fgrad.linalg.lstsq(A, fgrad.tensor([[1.0], [2.0], [3.0]])).solution  # the line 1 + x
    tensor([[1.], [1.]])
    """
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), "
                           f"got {driver}")
    m, n = A.shape[-2:]
    if A.ndim == 2 and B.ndim <= 2:
        X = _t(fla.lstsq(A, B, rcond=rcond)[0])
    else:  # (NumPy's lstsq takes one matrix: a stack is solved by the pseudo-inverse)
        X = _t(fnp.matmul(pinv(A), B))
    values = np.asarray(A.detach().numpy() if isinstance(A, Tensor) else A)
    real = np.zeros((), dtype=values.dtype).real.dtype
    empty = Tensor(np.zeros((0,), dtype=real))
    rank = matrix_rank(values) if driver != "gels" else Tensor(np.zeros((0,), dtype=np.int64))
    full = bool(np.all(matrix_rank(values).numpy() == n))
    residuals = _t(fnp.sum(fnp.abs(fnp.matmul(A, X) - B) ** 2, axis=-2)) if m > n and full and \
        driver != "gelsy" else empty
    singular_values = Tensor(np.linalg.svd(values, compute_uv=False)) if driver in ("gelsd", "gelss") else empty
    return _lstsq(X, residuals, rank, singular_values)


def matrix_power(A: Tensor | ArrayLike, n: int) -> Tensor:
    """A @ A @ ... (n times) for an integer n (negative: of inv(A); 0: the identity), as
    torch.linalg.matrix_power. Differentiable.

    Examples
    --------
    >>> A = fgrad.tensor([[1.0, 1.0], [0.0, 1.0]], requires_grad=True)
    >>> P = fgrad.linalg.matrix_power(A, 3); P.sum().backward()
    >>> P, A.grad
    (tensor([[1., 3.], [0., 1.]], grad_fn=<...>), tensor([[ 6.,  3.], [10.,  6.]]))
    """
    return _t(fla.matrix_power(A, n))


def matrix_exp(A: Tensor | ArrayLike) -> Tensor:
    """The matrix exponential of a square matrix or of each in a stack (torch.linalg.matrix_exp).
    Differentiable (the Frechet derivative).

    Examples
    --------
    >>> A = fgrad.tensor([[0.0, 1.0], [0.0, 0.0]], requires_grad=True)
    >>> fgrad.linalg.matrix_exp(A)  # I + A, A nilpotent
    tensor([[1., 1.], [0., 1.]], grad_fn=<...>)
    >>> fgrad.gradcheck(fgrad.linalg.matrix_exp, (A,))
    True
    """
    return _t(_expm(A))


def matrix_rank(A: Tensor | ArrayLike, *, atol: float | Tensor | None = None, rtol: float | Tensor | None = None,
                hermitian: bool = False) -> Tensor:
    """The number of singular values above max(atol, rtol * the largest) (torch.linalg.matrix_rank; both
    None: rtol = eps * max(m, n)). An integer Tensor, not differentiable.

    Examples
    --------
    >>> fgrad.linalg.matrix_rank(fgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    S = fla.svdvals(np.asarray(A.detach().numpy() if isinstance(A, Tensor) else A))
    m, n = A.shape[-2:]
    if atol is None and rtol is None:
        rtol = np.finfo(S.dtype).eps * max(m, n)
    tol = np.maximum(0.0 if atol is None else atol, (0.0 if rtol is None else rtol) * S.max(axis=-1, initial=0.0))
    return Tensor(np.sum(S > np.asarray(tol)[..., None], axis=-1).astype(np.int64))


# ---- decompositions ---------------------------------------------------------------------------
def cholesky(A: Tensor | ArrayLike, *, upper: bool = False) -> Tensor:
    """The Cholesky factor L of a Hermitian positive-definite matrix (A = L L^H; upper=True: U = L^H with
    A = U^H U), as torch.linalg.cholesky; only A's lower triangle is read. Differentiable.

    Examples
    --------
    >>> A = fgrad.tensor([[4.0, 2.0], [2.0, 2.0]], requires_grad=True)
    >>> fgrad.linalg.cholesky(A)  # L with L @ L.T = A
    tensor([[2., 0.], [1., 1.]], grad_fn=<...>)
    >>> fgrad.gradcheck(lambda A: fgrad.linalg.cholesky((A + A.T) / 2), (A,))
    True
    """
    return _t(fla.cholesky(A, upper=upper))


def cholesky_ex(A: Tensor | ArrayLike, *, upper: bool = False, check_errors: bool = False) -> _cholesky_ex:
    """(L, info) as torch.linalg.cholesky_ex; info is zeros (a matrix that is not positive-definite raises
    LinAlgError here).

    Examples
    --------
    >>> L, info = fgrad.linalg.cholesky_ex(fgrad.tensor([[4.0, 2.0], [2.0, 2.0]]))
    >>> L, info
    (tensor([[2., 0.], [1., 1.]]), tensor(0, dtype=fgrad.int32))
    """
    return _cholesky_ex(cholesky(A, upper=upper), _info(A))


def qr(A: Tensor | ArrayLike, mode: str = "reduced") -> _qr:
    """(Q, R) with A = Q R, Q with orthonormal columns and R upper triangular (torch.linalg.qr): mode
    'reduced' (k = min(m, n) columns), 'complete' or 'r' (Q empty). Differentiable.

    Examples
    --------
    >>> A = fgrad.tensor([[3.0, 1.0], [4.0, 2.0]])
    >>> Q, R = fgrad.linalg.qr(A)
    >>> bool(fgrad.allclose(Q @ R, A)), bool(fgrad.allclose(Q.T @ Q, fgrad.eye(2)))
    (True, True)
    """
    if mode == "r":
        return _qr(Tensor(np.zeros((0,), dtype=A.dtype)), _t(fla.qr(A, mode="r")))
    Q, R = fla.qr(A, mode=mode)
    return _qr(_t(Q), _t(R))


def eigh(A: Tensor | ArrayLike, UPLO: str = "L") -> _eigh:
    """(eigenvalues, eigenvectors) of a Hermitian matrix or stack, eigenvalues ascending (real), the
    eigenvectors as columns; only the UPLO ('L' or 'U') triangle is read (torch.linalg.eigh).
    Differentiable (for gauge-invariant losses, as torch's).

    Examples
    --------
    >>> A = fgrad.tensor([[2.0, 1.0], [1.0, 2.0]], requires_grad=True)
    >>> w, V = fgrad.linalg.eigh(A); w.sum().backward()
    >>> w, bool(fgrad.allclose(A.grad, fgrad.eye(2)))  # the sum of the eigenvalues is the trace
    (tensor([1., 3.], grad_fn=<...>), True)
    """
    w, V = fla.eigh(A, UPLO=UPLO)
    return _eigh(_t(w), _t(V))


def eigvalsh(A: Tensor | ArrayLike, UPLO: str = "L") -> Tensor:
    """The eigenvalues of a Hermitian matrix or stack, ascending (torch.linalg.eigvalsh). Differentiable.

    Examples
    --------
    >>> fgrad.linalg.eigvalsh(fgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))
    tensor([1., 3.])
    """
    return eigh(A, UPLO).eigenvalues


def eig(A: Tensor | ArrayLike) -> _eig:
    """(eigenvalues, eigenvectors) of a square matrix or stack, both complex as torch.linalg.eig's (even
    where all are real); eigenvectors of unit norm as columns. Differentiable (for gauge-invariant losses).

    Examples
    --------
    >>> w, V = fgrad.linalg.eig(fgrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
    >>> w  # complex, as torch's
    tensor([2.+0.j, 3.+0.j])
    """
    w, V = fla.eig(A)
    return _eig(_t(_complex(w)), _t(_complex(V)))


def eigvals(A: Tensor | ArrayLike) -> Tensor:
    """The eigenvalues of a square matrix or stack, complex (torch.linalg.eigvals). Differentiable.

    Examples
    --------
    >>> fgrad.linalg.eigvals(fgrad.tensor([[1.0, 2.0], [0.0, 3.0]]))  # complex, as torch's
    tensor([1.+0.j, 3.+0.j])
    """
    return _t(_complex(fla.eigvals(A)))


def svd(A: Tensor | ArrayLike, full_matrices: bool = True, *, driver: str | None = None) -> _svd:
    """(U, S, Vh) with A = U diag(S) Vh, S descending (torch.linalg.svd; full_matrices=True by default, as
    torch's). Differentiable for gauge-invariant losses; with full_matrices=True torch refuses the
    gradient when m != n, and so would the extra columns' undefined derivative here.

    Examples
    --------
    >>> A = fgrad.tensor([[3.0, 0.0], [0.0, -2.0]])
    >>> U, S, Vh = fgrad.linalg.svd(A)
    >>> S, bool(fgrad.allclose(U @ fgrad.diag(S) @ Vh, A))
    (tensor([3., 2.]), True)
    """
    U, S, Vh = fla.svd(A, full_matrices=full_matrices)
    return _svd(_t(U), _t(S), _t(Vh))


def svdvals(A: Tensor | ArrayLike, *, driver: str | None = None) -> Tensor:
    """The singular values of a matrix or stack, descending (torch.linalg.svdvals). Differentiable.

    Examples
    --------
    >>> A = fgrad.tensor([[3.0, 0.0], [0.0, -2.0]], requires_grad=True)
    >>> S = fgrad.linalg.svdvals(A); S.sum().backward()
    >>> S, A.grad  # the nuclear norm's gradient U @ Vh
    (tensor([3., 2.], grad_fn=<...>), tensor([[ 1.,  0.], [ 0., -1.]]))
    """
    return _t(fla.svdvals(A))


# ---- products and the rest --------------------------------------------------------------------
def matmul(input: Tensor | ArrayLike, other: Tensor | ArrayLike) -> Tensor:
    """The matrix product with NumPy's/torch's broadcasting rules (torch.linalg.matmul). Differentiable.

    Examples
    --------
    >>> fgrad.linalg.matmul(fgrad.tensor([[1.0, 2.0]]), fgrad.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """
    return _t(fnp.matmul(input, other))


def cross(input: Tensor | ArrayLike, other: Tensor | ArrayLike, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along `dim` (torch.linalg.cross: dim=-1), batches broadcasting.
    Differentiable in both.

    Examples
    --------
    >>> fgrad.linalg.cross(fgrad.tensor([1.0, 0.0, 0.0]), fgrad.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    return _t(fnp.cross(input, other, axis=wrap_dim(dim, np.ndim(input), "linalg.cross")))


def vecdot(x: Tensor | ArrayLike, y: Tensor | ArrayLike, *, dim: int = -1) -> Tensor:
    """sum(conj(x) * y) along `dim`, broadcasting (torch.linalg.vecdot). Differentiable in both.

    Examples
    --------
    >>> x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> d = fgrad.linalg.vecdot(x, fgrad.tensor([1.0, -1.0])); d.sum().backward()
    >>> d, x.grad
    (tensor([-1., -1.], grad_fn=<...>), tensor([[ 1., -1.], [ 1., -1.]]))
    """
    return _t(fnp.sum(fnp.conj(x) * y, axis=wrap_dim(dim, np.ndim(x), "linalg.vecdot")))


def multi_dot(tensors: Sequence[Tensor | ArrayLike]) -> Tensor:
    """The product of a chain of matrices (the first and last may be 1-D), in the cheapest order
    (torch.linalg.multi_dot). Differentiable in each.

    Examples
    --------
    >>> A, B, C = fgrad.ones(1, 2), fgrad.ones(2, 3), fgrad.ones(3, 1)
    >>> fgrad.linalg.multi_dot([A, B, C])
    tensor([[6.]])
    """
    return _t(fla.multi_dot(list(tensors)))


def diagonal(A: Tensor | ArrayLike, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal `offset` of A over the axes dim1 and dim2 (torch.linalg.diagonal: the last two axes),
    that axis pair removed and the diagonal appended last. Differentiable.

    Examples
    --------
    >>> fgrad.linalg.diagonal(fgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 4.])
    """
    return _t(fnp.diagonal(A, offset, *wrap_pair(dim1, dim2, np.ndim(A), "linalg.diagonal")))


def vander(x: Tensor | ArrayLike, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of x's last axis with increasing powers x**0, ..., x**(N-1) (torch.linalg.vander;
    N=None: len(x)). Differentiable.

    Examples
    --------
    >>> fgrad.linalg.vander(fgrad.tensor([1.0, 2.0, 3.0]))  # increasing powers, as torch's
    tensor([[1., 1., 1.], [1., 2., 4.], [1., 3., 9.]])
    """
    N = x.shape[-1] if N is None else N
    return _t(fnp.stack([x ** k if k else fnp.ones_like(x) for k in range(N)], axis=-1))


def tensorinv(A: Tensor | ArrayLike, ind: int = 2) -> Tensor:
    """The inverse of A as a tensor with respect to tensordot over its first `ind` axes
    (torch.linalg.tensorinv). Differentiable.

    Examples
    --------
    >>> A = fgrad.eye(4).reshape(4, 2, 2) * 2
    >>> fgrad.linalg.tensorinv(A, ind=1).shape
    (2, 2, 4)
    """
    return _t(fla.tensorinv(A, ind))


def tensorsolve(A: Tensor | ArrayLike, B: Tensor | ArrayLike, dims: Sequence[int] | None = None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B (torch.linalg.tensorsolve; `dims`: A's axes moved to the end
    first). Differentiable.

    Examples
    --------
    >>> A = fgrad.eye(6).reshape(2, 3, 6) * 2
    >>> fgrad.linalg.tensorsolve(A, fgrad.ones(2, 3)).shape
    (6,)
    """
    return _t(fla.tensorsolve(A, B, dims))
