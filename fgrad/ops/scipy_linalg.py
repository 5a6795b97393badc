"""Primitives of fgrad.scipy.linalg: expm, banded_solve, lu, sqrtm, sylvester and the permutation
of LU pivots; triangular_solve is declared in ops/linalg.py, whose cholesky rules solve with it,
and re-exported here. Composites (cho_solve, lu_solve, block_diag, ...) live in fgrad.scipy.linalg.

Each kernel is scipy.linalg's on NumPy arrays, cupyx.scipy.linalg's on CuPy arrays, or
SciPy's on the host where cupyx has none, called once per matrix of a stack
(backend.scipy_over_stacks). The rules are written in fgrad ops, so they differentiate again:
  - expm: the jvp is the Frechet derivative L(A, T) and the vjp its adjoint L(A^T, G), both
    read off expm([[A, E], [0, A]]) = [[expm A, L(A, E)], [0, expm A]];
  - sqrtm: the jvp solves the Sylvester equation S X + X S = T (S = sqrtm A), the vjp its
    adjoint S^T X + X S^T = G;
  - banded_solve and sylvester: implicit differentiation, as solve's (the
    band's cotangent is y x^T read in the band's own layout, y solving the transposed system);
  - lu: JAX's jvp rule (L^-1 P^T dA U^-1 split into its strictly lower and upper parts),
    transposed for the vjp.
"""
import numpy as np

from ..backend import array_module, over_stacks, scipy_function, scipy_over_stacks, to_host
from ..ir.value import peek
from . import indexing
from .batching import leading, stacked
from .broadcasting import reduce_sum
from .conversion import convert
from .elementwise import equal
from .linalg import _mT, _triangle, matmul, triangular_solve
from .primitive import Primitive
from .shape import concatenate, expand_dims, pad_constant
from .transpose import vjp_from_jvp
from .zeros import zeros_like_value

__all__ = ["banded_solve", "expm", "expm_frechet", "lu", "lu_pivots_to_permutation", "permutation_matrix", "sqrtm",
           "sylvester", "triangular_solve"]


# ---- helpers for the rules (fgrad ops) -----------------------------------------------------
def _xp(x):
    return array_module(peek(x))


def _blocks(a, b, c, d):
    """[[a, b], [c, d]] of (..., n, n) stacks; None is a zero block."""
    zero = zeros_like_value(a if a is not None else d)
    a, b, c, d = (zero if x is None else x for x in (a, b, c, d))
    nd = a.ndim
    return concatenate(concatenate(a, b, axis=nd - 1), concatenate(c, d, axis=nd - 1), axis=nd - 2)


def _block(x, n, row, col):
    """Block (row, col) of size n of a (..., 2n, 2n) stack."""
    return indexing.getitem(x, index=(Ellipsis, slice(row * n, (row + 1) * n), slice(col * n, (col + 1) * n)))


# ---- expm and its Frechet derivative ---------------------------------------------------------
def expm_frechet(a, e):
    """(expm(a), L(a, e)), the Frechet derivative of expm at a in direction e, from one expm of
    the block matrix [[a, e], [0, a]] (exact: the block identity, no finite differences).
    a and e have the same shape."""
    n = a.shape[-1]
    x = expm(_blocks(a, e, None, a))
    return _block(x, n, 0, 0), _block(x, n, 0, 1)


expm = Primitive("expm", lambda a: scipy_over_stacks("expm", a), saves="inputs")
expm.defbatch(leading(expm)).defjvp(lambda t, ans, a: expm_frechet(a, t)[1]).defvjp(
    lambda g, ans, a: expm_frechet(_mT(a), g)[1])  # L(A, .)^T = L(A^T, .)


# ---- Sylvester equations and sqrtm -----------------------------------------------------------
def _sylvester_vjp(g, x, primals, needs):
    a, b, _ = primals
    y = sylvester(_mT(a), _mT(b), g)  # the adjoint equation: a^T y + y b^T = g
    return (-matmul(y, _mT(x)) if needs[0] else None), (-matmul(_mT(x), y) if needs[1] else None), y


# x with a x + x b = q (scipy.linalg.solve_sylvester); dx solves a dx + dx b = dq - da x - x db.
sylvester = Primitive("sylvester", lambda a, b, q: scipy_over_stacks("solve_sylvester", a, b, q))
sylvester.defbatch(stacked(sylvester, (2, 2, 2))).defvjp_all(_sylvester_vjp).defjvp(
    lambda t, x, a, b, q: -sylvester(a, b, matmul(t, x)),
    lambda t, x, a, b, q: -sylvester(a, b, matmul(x, t)),
    lambda t, x, a, b, q: sylvester(a, b, t))

# ---- banded solves ---------------------------------------------------------------------------
# A banded matrix in scipy.linalg.solve_banded's diagonal-ordered form: ab[..., u + i - j, j] = A[i, j]
# for the l subdiagonals and u superdiagonals (the other entries of ab are never read).
def _shift(v, s, axis):
    """v[..., i + s, ...] along (negative) `axis`: zero where i + s is out of range."""
    n = v.shape[axis]
    s = max(-n, min(n, s))
    if s == 0:
        return v
    index = (Ellipsis, slice(s, n) if s > 0 else slice(0, n + s)) + (slice(None),) * (-1 - axis)
    widths = [(0, 0)] * v.ndim
    widths[v.ndim + axis] = (0, s) if s > 0 else (-s, 0)
    return pad_constant(indexing.getitem(v, index=index), pad_width=tuple(widths), constant=0)


def _rows(ab):
    return [indexing.getitem(ab, index=(Ellipsis, k, slice(None))) for k in range(ab.shape[-2])]


def _banded_matmul(ab, x, lower, upper):
    """A x for A in diagonal-ordered form: row k of ab is the diagonal j - i = upper - k."""
    out = None
    for k, row in enumerate(_rows(ab)):
        term = _shift(expand_dims(row, axis=row.ndim) * x, upper - k, axis=-2)
        out = term if out is None else out + term
    return out


def _banded_transpose(ab, lower, upper):
    """A^T's diagonal-ordered form (it has `upper` subdiagonals and `lower` superdiagonals):
    abT[k, j] = ab[lower + upper - k, j + k - lower]."""
    rows = _rows(ab)[::-1]
    return concatenate(*[expand_dims(_shift(r, k - lower, axis=-1), axis=r.ndim - 1) for k, r in enumerate(rows)],
                       axis=ab.ndim - 2)


def _banded_outer(y, x, lower, upper):
    """The diagonal-ordered form of y x^T's band (summed over the columns of x, y): entry
    (k, j) is y[j + k - upper] . x[j]."""
    rows = [reduce_sum(_shift(y, k - upper, axis=-2) * x, axis=(x.ndim - 1,), keepdims=True)
            for k in range(lower + upper + 1)]
    return _mT(concatenate(*rows, axis=x.ndim - 1))


def _banded_solve_vjp(g, x, primals, needs, lower, upper):
    ab, _ = primals
    y = banded_solve(_banded_transpose(ab, lower, upper), g, lower=upper, upper=lower)  # A^T y = g
    return (-_banded_outer(y, x, lower, upper) if needs[0] else None), y


def _banded_kernel(ab, b, lower, upper):
    solve = scipy_function(array_module(ab, b), "linalg", "solve_banded")
    return over_stacks(array_module(ab, b), lambda a, c: solve((lower, upper), a, c), (ab, b))


# x with A x = b, A given by its band ab (..., lower + upper + 1, n), b (..., n, k) (scipy.linalg.solve_banded);
# dx solves A dx = db - dA x.
banded_solve = Primitive("banded_solve", _banded_kernel)
banded_solve.defbatch(stacked(banded_solve, (2, 2))).defvjp_all(_banded_solve_vjp).defjvp(
    lambda t, x, ab, b, lower, upper: -banded_solve(ab, _banded_matmul(t, x, lower, upper), lower=lower,
                                                    upper=upper),
    lambda t, x, ab, b, lower, upper: banded_solve(ab, t, lower=lower, upper=upper))

sqrtm = Primitive("sqrtm", lambda a: scipy_over_stacks("sqrtm", a), saves="output")
sqrtm.defbatch(leading(sqrtm)).defjvp(lambda t, s, a: sylvester(s, s, t)).defvjp(
    lambda g, s, a: sylvester(_mT(s), _mT(s), g))


# ---- LU ----------------------------------------------------------------------------------------
def _permutation(piv, m):
    """perm with a[perm] = L U from LAPACK's row interchanges piv (row i swapped with piv[i])."""
    xp = array_module(piv)
    host = to_host(piv).reshape(-1, piv.shape[-1])
    perm = np.tile(np.arange(m), (host.shape[0], 1))
    rows = np.arange(host.shape[0])
    for i in range(host.shape[1]):
        j = host[:, i]
        perm[rows, i], perm[rows, j] = perm[rows, j], perm[rows, i].copy()
    return xp.asarray(perm.reshape(piv.shape[:-1] + (m,)))


def _lu(a):
    lu_, piv = scipy_over_stacks("lu_factor", a)
    return lu_, piv, _permutation(piv, a.shape[-2])


def permutation_matrix(perm, dtype):
    """P^T as a matrix of `dtype`, one per stack entry: P^T[i, j] = (j == perm[i]), so P^T x = x[perm]."""
    m = perm.shape[-1]
    return convert(equal(expand_dims(perm, -1), _xp(perm).arange(m)), dtype=dtype)


def _lu_jvp(primals, tangents, ans):
    # JAX's lu_jvp_rule: with L (m x m) and U (n x n) padded by identities, F = L^-1 P^T dA U^-1,
    # dL = L tril(F, -1) and dU = triu(F) U; the packed result is their sum.
    (a,), (da,), (lu_, _, perm) = primals, tangents, ans
    m, n = a.shape[-2:]
    k = min(m, n)
    xp = _xp(a)
    stack = ((0, 0),) * (a.ndim - 2)
    strict = _triangle(indexing.getitem(lu_, index=(Ellipsis, slice(None), slice(0, k))), True, -1)
    lower = pad_constant(strict, pad_width=stack + ((0, 0), (0, m - k)), constant=0.0) + xp.eye(m, dtype=a.dtype)
    upper = _triangle(indexing.getitem(lu_, index=(Ellipsis, slice(0, k), slice(None))), False)
    tail = xp.diag((xp.arange(n) >= k).astype(a.dtype))  # U's identity block below its k rows
    upper = pad_constant(upper, pad_width=stack + ((0, n - k), (0, 0)), constant=0.0) + tail
    x = matmul(permutation_matrix(perm, a.dtype), da)
    la = triangular_solve(lower, x, lower=True, trans=0, unit_diagonal=True)
    lau = _mT(triangular_solve(upper, _mT(la), lower=False, trans=1, unit_diagonal=False))
    return matmul(lower, _triangle(lau, True, -1)) + matmul(_triangle(lau, False), upper), None, None


# (lu, piv, perm): scipy.linalg.lu_factor's packed factors and pivots, and the permutation
# with a[perm] = L U. Only lu carries a derivative.
lu = Primitive("lu", _lu, multiple_results=True, saves="inputs and output")
lu.defjvp_full(_lu_jvp)
vjp_from_jvp(lu)
lu.defbatch(leading(lu))

# The permutation of the pivots piv (..., k) of m rows (no derivative: integers).
lu_pivots_to_permutation = Primitive("lu_pivots_to_permutation", lambda piv, m: _permutation(piv, m))
lu_pivots_to_permutation.defbatch(leading(lu_pivots_to_permutation))
