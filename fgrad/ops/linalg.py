"""Linear-algebra primitives: matmul, solve, triangular_solve, inv, det, slogdet and the decompositions.

Each primitive is one LAPACK-backed kernel of the array module (NumPy or CuPy), on
(..., M, N) stacks; triangular_solve is SciPy's (cupyx's) solve_triangular, declared here
because cholesky's rules solve with it. solve/triangular_solve/inv/det/slogdet have explicit
vjp and jvp rules (implicit differentiation for the solves); the
decompositions (cholesky, eigh, eig, qr, svd, pinv) have the published jvp rules, and
their vjps are those rules transposed (ops/transpose.py), so each derivative is written once.
The rules take complex matrices too (Note [complex derivatives] in ops/conversion.py): a
transpose of the real rule is a conjugate transpose there (_mH), and where a decomposition
fixes only a phase (eigenvectors, singular vectors) the backward pass checks that the loss
does not depend on it, as PyTorch does (Note [phase-invariant losses]). Composites (norm,
matrix_power) live in fgrad.numpy.linalg.
"""
import numpy as np

from ..backend import array_module, linalg_errors_raised, scipy_over_stacks, to_host
from ..config import config
from ..ir.value import Tracer, peek
from .batching import front, leading, stacked
from .broadcasting import reduce_sum
from .conversion import conj, imag, real
from .einsum import einsum
from .elementwise import absolute, less_equal, where
from .primitive import Primitive
from .reductions import reduce_max
from .shape import concatenate, diagonal, expand_dims, reshape, transpose
from .stop_gradient import stop_gradient
from .transpose import vjp_from_jvp


def _mT(x):
    nd = x.ndim
    return transpose(x, axes=tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _mH(x):
    """The conjugate transpose of each matrix of a stack (the transpose, for real ones)."""
    t = _mT(x)
    return conj(t) if x.dtype.kind == "c" else t


def _real_part(x):
    """Re x, the part a real output keeps (x itself when real: no node)."""
    return real(x) if x.dtype.kind == "c" else x


def _matmul_vjp_a(g, ans, a, b):
    if b.ndim == 1:  # (an outer product by einsum: under vmap, one C loop over the examples)
        return g * b if a.ndim == 1 else expand_dims(g, -1) * b if a.ndim > 2 else einsum(g, b, subscripts="i,j->ij")
    if a.ndim == 1:
        return matmul(b, g) if b.ndim == 2 else matmul(b, expand_dims(g, -1))[..., 0]
    return matmul(g, _mT(b))


def _matmul_vjp_b(g, ans, a, b):
    if a.ndim == 1:
        return a * g if b.ndim == 1 else einsum(a, g, subscripts="i,j->ij") if b.ndim == 2 else \
            expand_dims(a, -1) * expand_dims(g, -2)
    if b.ndim == 1:
        return matmul(g, a) if a.ndim == 2 else matmul(expand_dims(g, -2), a)[..., 0, :]
    return matmul(_mT(a), g)


def _matmul_name(primals):
    """PyTorch's name of a matmul node: by the operands' ranks, as torch.matmul dispatches."""
    nd = (np.ndim(primals[0]), np.ndim(primals[1]))
    return {(2, 2): "Mm", (2, 1): "Mv", (1, 1): "Dot"}.get(nd, "Matmul") + "Backward0"


def _matmul_batch(args, dims):
    """One matrix product for every example. Examples times a plain matrix fold into its rows
    (a batched vector is a row of a matrix; batched matrices are rows of a taller one), so
    BLAS runs one matrix-matrix product. Otherwise a batched vector becomes a matrix of one
    row (a) or column (b), removed after, and the stacks line up as for solve."""
    (a, b), (da, db) = args, dims
    if db is None and np.ndim(b) == 2 and a.ndim in (2, 3):  # examples @ plain matrix
        a = front(a, da)
        if a.ndim == 2:
            return matmul(a, b), 0
        n = a.shape[1]
        out = matmul(reshape(a, shape=(a.shape[0] * n, a.shape[2])), b)
        return reshape(out, shape=(a.shape[0], n, out.shape[-1])), 0
    if da is None and np.ndim(a) == 2 and b.ndim == 2:  # plain matrix @ batched vectors: (b_i a^T) rows
        return matmul(front(b, db), _mT(a)), 0
    row = da is not None and a.ndim == 2
    col = db is not None and b.ndim == 2
    if row:
        a, da = expand_dims(front(a, da), 1), 0
    if col:
        b, db = expand_dims(front(b, db), -1), 0
    drop = ([-1] if col else []) + ([-2 if np.ndim(b) >= 2 else -1] if row else [])  # (a plain vector b has no column)
    out, _ = _matmul_stacked((a, b), (da, db))
    if drop:
        shape = list(out.shape)
        for axis in sorted(drop):
            del shape[axis]
        out = reshape(out, shape=tuple(shape))
    return out, 0


matmul = Primitive("matmul", lambda a, b: array_module(a, b).matmul(a, b), saves="inputs",
                   torch_name=_matmul_name, batch=_matmul_batch, fresh=True).defvjp(
    _matmul_vjp_a, _matmul_vjp_b).defjvp(
    lambda t, ans, a, b: matmul(t, b), lambda t, ans, a, b: matmul(a, t))


def _matmul_pair(primals, tangents, params):
    """A constant matrix times a traced vector: value and tangent in one BLAS call.

    A matrix-vector product reads the whole matrix for little arithmetic, so stacking
    the vector with its tangent nearly halves the time of the two products (W4's HVP
    does two such pairs). Declines (None) in every other case.
    """
    (a, b), (ta, tb) = primals, tangents
    if ta is None and tb is not None and a.ndim == 2 and b.ndim == 1:
        vec, tvec = b, tb
    elif tb is None and ta is not None and b.ndim == 2 and a.ndim == 1:
        vec, tvec = a, ta
    else:
        return None
    if not (hasattr(tvec, "dtype") and tvec.dtype == vec.dtype and tvec.shape == vec.shape):
        return None
    xp = array_module(a, b, tvec)
    both = xp.empty((2,) + vec.shape, vec.dtype)
    both[0], both[1] = vec, tvec
    r = xp.matmul(a, both.T).T if vec is b else xp.matmul(both, b)  # the faster BLAS layouts
    return r[0], r[1]


matmul.jvp_pair = _matmul_pair
_matmul_stacked = stacked(matmul, (2, 2))  # (a 1-D operand that is not batched has no stack axes: 2 is safe)


# ---- helpers for the rules (all in fgrad ops, so the rules differentiate again) ------
def _xp(x):
    return array_module(peek(x))


def _eye(x, n):
    """The n-by-n identity in x's dtype, on x's device."""
    return _xp(x).eye(n, dtype=x.dtype)


def _diag_part(x):
    """The diagonal of each matrix of a (..., n, n) stack."""
    nd = x.ndim
    return diagonal(x, offset=0, axis1=nd - 2, axis2=nd - 1)


def _trace(x):
    """The trace of each matrix of a (..., n, n) stack."""
    return reduce_sum(_diag_part(x), axis=(x.ndim - 2,), keepdims=False)


def _matrices(x):
    """x broadcast as a (..., 1, 1) stack of scalars, one per matrix."""
    return reshape(x, shape=tuple(x.shape) + (1, 1))


def _tril(x, k=0):
    n, m = x.shape[-2:]
    return where(_xp(x).tri(n, m, k, dtype=bool), x, 0.0)


def _triangle(x, lower, k=0):
    """The lower (upper) triangle of each matrix of x from diagonal k up (down); zeros elsewhere."""
    n, m = x.shape[-2:]
    tri = _xp(x).tri(n, m, k if lower else k - 1, dtype=bool)
    return where(tri if lower else ~tri, x, 0.0)


def _symmetric_part(t):
    """(t + t^H) / 2: the tangent cholesky and eigh see.

    Note [symmetric gradients]: NumPy's cholesky and eigh read one triangle of their input
    and ignore the other, so the exact derivative of that read is triangular: a gradient
    step on a symmetric parameter would break its symmetry. As JAX and PyTorch, fgrad takes
    the input to be symmetric (Hermitian, if complex) and differentiates the function on
    such matrices: a tangent counts by its symmetric (Hermitian) part, and gradients come
    out symmetric (Hermitian). For such a perturbation both conventions agree."""
    return 0.5 * (t + _mH(t))


def _named_kernel(name, kernel):
    """`kernel` whose LinAlgError (singular, not positive definite) names the NumPy function;
    raised on CuPy arrays too (whose linalg would return NaNs: linalg_errors_raised)."""
    def impl(*args, **params):
        try:
            with linalg_errors_raised(array_module(*args)):
                return kernel(*args, **params)
        except np.linalg.LinAlgError as e:
            shapes = ", ".join(str(tuple(np.shape(a))) for a in args)
            raise np.linalg.LinAlgError(f"fgrad.numpy.linalg.{name}: {e} (input shapes {shapes})") from e
    return impl


# ---- solve, inv, det, slogdet: explicit rules -------------------------------------------
def _solve(a, b):
    xp = array_module(a, b)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])  # CuPy's solve does not broadcast stacks
    return xp.linalg.solve(xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:]))


def _solve_vjp(g, x, primals, needs):
    a, _ = primals
    gb = solve(_mT(a), g)  # shared by both cotangents
    return (-matmul(gb, _mT(x)) if needs[0] else None), gb


solve = Primitive("solve", _named_kernel("solve", _solve))
solve.defbatch(stacked(solve, (2, 2))).defvjp_all(_solve_vjp).defjvp(
    lambda t, x, a, b: -solve(a, matmul(t, x)),
    lambda t, x, a, b: solve(a, t))

inv = Primitive("inv", _named_kernel("inv", lambda a: array_module(a).linalg.inv(a)), saves="output").defvjp(
    lambda g, ans, a: -matmul(_mT(ans), matmul(g, _mT(ans)))).defjvp(
    lambda t, ans, a: -matmul(ans, matmul(t, ans)))


def _adjugate(a, det_a):
    """adj(a), the derivative of det at a (d det(a) = tr(adj(a) da)), for every a: det(a)
    inv(a) where a is invertible, else the `adjugate` primitive (JAX returns the adjugate
    at a singular matrix too)."""
    try:
        return _matrices(det_a) * inv(a)
    except np.linalg.LinAlgError:
        return adjugate(a)


def _adjugate_kernel(a):
    """adj(a) of a singular (stack of) a, which inv cannot give: from a = U diag(s) V^T,
    adj(a) = det(U) det(V) V diag(prod_{j != i} s_j) U^T, with no division."""
    xp = array_module(a)
    u, s, vh = xp.linalg.svd(a)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    n = s.shape[-1]
    ones = xp.ones(s.shape[:-1] + (1,), s.dtype)
    left = xp.cumprod(xp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)  # prod_{j < i} s_j
    right = xp.flip(xp.cumprod(xp.concatenate([ones, xp.flip(s, -1)[..., :n - 1]], axis=-1), axis=-1), -1)
    v_others = xp.swapaxes(vh, -1, -2) * (left * right)[..., None, :]
    return sign[..., None, None] * xp.matmul(v_others, xp.swapaxes(u, -1, -2))


def _no_derivative_at_singular(*args, **params):
    raise NotImplementedError(
        "fgrad: the second derivative of det at a singular matrix (the derivative of its adjugate) is not "
        "implemented; its first derivative is. (At an invertible matrix every order is.)")


# Reached only at a singular matrix. Its singular values are not differentiable where one
# is 0, so a derivative through them would be wrong: its rules raise instead.
adjugate = Primitive("adjugate", _adjugate_kernel).defvjp(_no_derivative_at_singular).defjvp(
    _no_derivative_at_singular)


def _inverse_for(name, a):
    """inv(a) for the derivative of `name`, which is infinite where a is singular (an error naming `name`)."""
    try:
        return inv(a)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(
            f"fgrad.numpy.linalg.{name}: the derivative of logabsdet at a singular matrix is infinite (logabsdet "
            f"is -inf there; input shape {tuple(a.shape)}); det, whose derivative there is the adjugate, is "
            f"differentiable everywhere") from None


det = Primitive("det", lambda a: array_module(a).linalg.det(a)).defvjp(
    lambda g, ans, a: _matrices(g) * _mT(_adjugate(a, ans))).defjvp(
    lambda t, ans, a: _trace(matmul(_adjugate(a, ans), t)))

def _slogdet_jvp(primals, tangents, ans):
    """With tau = tr(a^-1 da): d logabsdet = Re tau; the sign of a real matrix is locally constant,
    a complex one's, det/|det|, turns by i Im tau (Note [complex derivatives] in ops/conversion.py)."""
    a = primals[0]
    tau = _trace(matmul(_inverse_for("slogdet", a), tangents[0]))
    if a.dtype.kind != "c":
        return None, tau
    return ans[0] * (imag(tau) * 1j), real(tau)


def _slogdet_vjp(g, ans, a):
    """The transpose of _slogdet_jvp: c a^-T, with c = g_logabsdet (+ i Im(g_sign sign), complex a)."""
    c = g[1]
    if g[0] is not None and a.dtype.kind == "c":
        turn = imag(g[0] * ans[0]) * 1j
        c = turn if c is None else c + turn
    return None if c is None else _matrices(c) * _mT(_inverse_for("slogdet", a))


# slogdet -> (sign, logabsdet)
slogdet = Primitive("slogdet", lambda a: tuple(array_module(a).linalg.slogdet(a)), multiple_results=True).defvjp(
    _slogdet_vjp).defjvp_full(_slogdet_jvp)


# ---- triangular solve ------------------------------------------------------------------------
def _read(t, lower, unit_diagonal):
    """The part of a (tangent or cotangent of a) triangular matrix a solve reads."""
    return _triangle(t, lower, -1 if lower else 1) if unit_diagonal else _triangle(t, lower)


def _op(m, trans):
    return _mT(m) if trans else m


def _triangular_solve_vjp(g, x, primals, needs, lower, trans, unit_diagonal):
    a, _ = primals
    gb = triangular_solve(a, g, lower=lower, trans=1 - trans, unit_diagonal=unit_diagonal)  # shared by both
    ga = None
    if needs[0]:
        ga = _read(-matmul(x, _mT(gb)) if trans else -matmul(gb, _mT(x)), lower, unit_diagonal)
    return ga, gb


# op(A) x = b for a triangular A (only its triangle read; its diagonal taken as 1 when
# unit_diagonal); trans 0: A x = b, 1: A^T x = b; b is a (..., n, k) stack, broadcasting with a's.
triangular_solve = Primitive("triangular_solve", lambda a, b, lower, trans, unit_diagonal: scipy_over_stacks(
    "solve_triangular", a, b, lower=lower, trans=trans, unit_diagonal=unit_diagonal))
triangular_solve.defbatch(stacked(triangular_solve, (2, 2))).defvjp_all(_triangular_solve_vjp).defjvp(
    lambda t, x, a, b, lower, trans, unit_diagonal: -triangular_solve(
        a, matmul(_op(_read(t, lower, unit_diagonal), trans), x), lower=lower, trans=trans,
        unit_diagonal=unit_diagonal),
    lambda t, x, a, b, lower, trans, unit_diagonal: triangular_solve(
        a, t, lower=lower, trans=trans, unit_diagonal=unit_diagonal))


# ---- decompositions: JAX's published jvp rules; vjps by transposition (ops/transpose.py) --
def _cholesky_jvp(primals, tangents, L):
    # Murray (2016), arXiv:1602.07527: dL = L phi(L^-1 dA L^-H), phi = lower triangle, diagonal halved.
    def below(b):  # L^-1 b by substitution: L is triangular (an LU solve costs three times as much)
        return triangular_solve(L, b, lower=True, trans=0, unit_diagonal=False)
    s = _symmetric_part(tangents[0])  # (Note [symmetric gradients])
    n = L.shape[-1]
    phi = _xp(L).tri(n, dtype=L.dtype) - 0.5 * _eye(L, n)
    return matmul(L, phi * below(_mH(below(s))))  # (L^-1 (L^-1 s)^H = L^-1 s L^-H: s is Hermitian)


cholesky = Primitive("cholesky", _named_kernel("cholesky", lambda a: array_module(a).linalg.cholesky(a)))
cholesky.defjvp_full(_cholesky_jvp)


# Note [repeated eigenvalues]: the eigenvector derivatives of eigh and svd divide by gaps,
# w_j - w_i (s_j^2 - s_i^2), which are 0 where values repeat. A loss that does not depend on
# the basis the kernel picked in a repeated value's eigenspace (a function of the eigenvalues, the
# trace of V f(W) V^H, the nuclear norm) meets each such 1/0 with a zero numerator, the
# eigenvectors' cotangent in the block (V^H g_V there); by the zero-cotangent policy (Note [zero
# cotangents stay zero] in ops/elementwise.py) the term is 0, so F is 0 where values are equal
# to rounding (_inverse_gaps: a gap of rounding size would give the noise a factor of 1e16).
# Where the numerator is not 0 the derivative is undefined (the basis jumps as the values
# split), and the backward pass raises, naming the op and the repeated values, instead of
# returning inf or nan (_degenerate_checked; concrete cotangents only, as the phase check).
# Forward mode cannot tell which outputs the loss reads, so it returns the tangent with F's
# repeated entries 0. With fgrad.config.nan_safe_zeros off, F is JAX's 1 / gap.
def _inverse_gaps(values, gap):
    """F_ij = 1 / gap_ij, with 0 on the diagonal, and, under the zero-cotangent policy, where
    values i and j are equal to rounding (Note [repeated eigenvalues]). `values`: (..., k)."""
    eye = _eye(values, values.shape[-1])
    if not config.nan_safe_zeros:
        return 1.0 / (eye + gap) - eye
    same = _repeated(values)
    return where(same, 0.0, 1.0 / where(same, 1.0, gap))


def _repeated(values):
    """(..., k, k): True where values i and j agree to rounding (the diagonal too)."""
    scale = expand_dims(reduce_max(stop_gradient(absolute(values)), axis=(values.ndim - 1,), keepdims=True), -1)
    tol = np.finfo(values.dtype).eps ** 0.75 * scale
    return less_equal(absolute(expand_dims(values, -2) - expand_dims(values, -1)), tol)


def _eigh_jvp(primals, tangents, ans, UPLO):
    # Giles (2008): dw = diag(V^H dA V) (real), dV = V (F o V^H dA V) with F_ij = 1 / (w_j - w_i);
    # F's zero diagonal fixes the phase of a complex eigenvector (Note [phase-invariant losses]).
    w, v = ans
    vt_da_v = matmul(_mH(v), matmul(_symmetric_part(tangents[0]), v))  # (Note [symmetric gradients])
    f = _inverse_gaps(w, expand_dims(w, -2) - expand_dims(w, -1))  # (Note [repeated eigenvalues])
    return _real_part(_diag_part(vt_da_v)), matmul(v, f * vt_da_v)


eigh = Primitive("eigh", lambda a, UPLO: tuple(array_module(a).linalg.eigh(a, UPLO)), multiple_results=True)
eigh.defjvp_full(_eigh_jvp)


def _qr_square_jvp(dx, q, r):
    # Townsend, "Differentiating the QR decomposition" (m >= n, reduced Q and R); for complex
    # matrices (JAX's rule) the skew-Hermitian part also takes i Im of the diagonal, which keeps
    # R's diagonal real.
    dx_rinv = _mT(solve(_mT(r), _mT(dx)))
    qt_dx_rinv = matmul(_mH(q), dx_rinv)
    lower = _tril(qt_dx_rinv, -1)
    skew = lower - _mH(lower)
    if qt_dx_rinv.dtype.kind == "c":
        skew = skew + _eye(qt_dx_rinv, qt_dx_rinv.shape[-1]) * (imag(qt_dx_rinv) * 1j)
    return matmul(q, skew - qt_dx_rinv) + dx_rinv, matmul(qt_dx_rinv - skew, r)


def _qr_jvp(primals, tangents, ans, complete):
    (x,), (dx,), (q, r) = primals, tangents, ans
    m, n = x.shape[-2:]
    if complete and m > n:
        raise TypeError(f"fgrad: the derivative of qr(mode='complete') of a {m}x{n} matrix (m > n) is not "
                        f"unique (the extra columns of Q are arbitrary); use mode='reduced'")
    if m >= n:
        return _qr_square_jvp(dx, q, r)
    # Wide: X = [X1 X2] with X1 square; Q, R1 = qr(X1) and R2 = Q^T X2.
    dq, dr1 = _qr_square_jvp(dx[..., :m], q, r[..., :m])
    dr2 = matmul(_mH(dq), x[..., m:]) + matmul(_mH(q), dx[..., m:])
    return dq, concatenate(dr1, dr2, axis=dr1.ndim - 1)


qr = Primitive("qr", lambda a, complete: tuple(array_module(a).linalg.qr(a, "complete" if complete else "reduced")),
               multiple_results=True)
qr.defjvp_full(_qr_jvp)


def _eig(a):
    """NumPy's eig: of a complex matrix, complex arrays; of a real one, real arrays, which needs
    real eigenvalues (fgrad.numpy.linalg.eig casts a real matrix with complex eigenvalues to
    complex first, as NumPy's results then are)."""
    xp = array_module(a)
    w, v = xp.linalg.eig(a)
    if a.dtype.kind != "c" and w.dtype.kind == "c":
        if xp.any(w.imag != 0):
            raise TypeError("fgrad: eig of a real matrix with complex eigenvalues gives complex arrays; eig a "
                            "complex matrix (fgrad.numpy.linalg.eig does)")
        w, v = w.real, v.real
    return w, v


def _eig_jvp(primals, tangents, ans):
    # dw = diag(P), dV = V (F o P) with P = V^-1 dA V and F_ij = 1 / (w_j - w_i), then each
    # column's change along itself removed (NumPy's eigenvectors have unit norm: Re(v^H dv) = 0;
    # a complex one's phase is fixed by Im(v^H dv) = Im((V^H V F o P)_kk): Note [phase-invariant losses]).
    w, v = ans
    p = matmul(inv(v), matmul(tangents[0], v))
    eye = _eye(w, w.shape[-1])
    f = 1.0 / (eye + expand_dims(w, -2) - expand_dims(w, -1)) - eye
    dv = matmul(v, f * p)
    along = reduce_sum(conj(v) * dv if v.dtype.kind == "c" else v * dv, axis=(v.ndim - 2,), keepdims=True)
    return _diag_part(p), dv - v * _real_part(along)


eig = Primitive("eig", _eig, multiple_results=True)
eig.defjvp_full(_eig_jvp)
# (a real matrix with complex eigenvalues: a guarded decision, so compile retraces where it changes)
complex_spectrum = Primitive("complex_spectrum", lambda a: array_module(a).any(array_module(a).linalg.eigvals(a).imag),
                             register=False)


def _svd(a, full_matrices, compute_uv):
    xp = array_module(a)
    if not compute_uv:
        return (xp.linalg.svd(a, compute_uv=False),)
    return tuple(xp.linalg.svd(a, full_matrices=full_matrices))


def _svd_jvp(primals, tangents, ans, full_matrices, compute_uv):
    # Townsend, "Differentiating the singular value decomposition"; JAX's svd_jvp_rule. For a complex
    # matrix the diagonal of U^H dA V is complex: its real part is dS, and i Im of it, shared by
    # U and V, turns U's columns (the phase V keeps fixed: Note [phase-invariant losses]).
    (a,), (da,) = primals, tangents
    m, n = a.shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise TypeError(f"fgrad: the derivative of svd(full_matrices=True) of a {m}x{n} matrix is not unique "
                        f"(the extra singular vectors are arbitrary); pass full_matrices=False to differentiate svd")
    u, s, vh = ans if compute_uv else svd(a, full_matrices=False, compute_uv=True)
    v = _mH(vh)
    ds_mat = matmul(_mH(u), matmul(da, v))
    ds = _real_part(_diag_part(ds_mat))
    if not compute_uv:
        return (ds,)
    s_row, s_col = expand_dims(s, -2), expand_dims(s, -1)
    eye = _eye(s, s.shape[-1])
    f = _inverse_gaps(s, (s_row + s_col) * (s_row - s_col))  # F_ij = 1 / (s_j^2 - s_i^2): Note [repeated eigenvalues]
    dss, sds = ds_mat * s_row, s_col * ds_mat
    inner = f * (dss + _mH(dss))
    if ds_mat.dtype.kind == "c":  # (i Im diag(U^H dA V) / s: 0 where s is 0, as JAX)
        zero = s_row == 0.0
        inner = inner + eye * (imag(ds_mat) * 1j) / where(zero, 1.0, s_row) * where(zero, 0.0, 1.0)
    du = matmul(u, inner)
    dv = matmul(v, f * (sds + _mH(sds)))
    if m > n:  # the part of dA V outside span(U)
        da_v = matmul(da, v)
        du = du + (da_v - matmul(u, matmul(_mH(u), da_v))) / s_row
    if n > m:
        dat_u = matmul(_mH(da), u)
        dv = dv + (dat_u - matmul(v, matmul(vh, dat_u))) / s_row
    return du, ds, _mH(dv)


svd = Primitive("svd", _svd, multiple_results=True)  # always a tuple: (U, S, Vh), or (S,) without compute_uv
svd.defjvp_full(_svd_jvp)


def _pinv(a, rcond, hermitian):
    xp = array_module(a)
    return np.linalg.pinv(a, rcond, hermitian) if xp is np else xp.linalg.pinv(a, rcond)


def _pinv_jvp(primals, tangents, p):
    # Golub & Pereyra (1973), for constant rank:
    # dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P.
    (a,), (da,) = primals, tangents
    pt, dat = _mH(p), _mH(da)
    term1 = -matmul(p, matmul(da, p))
    term2 = matmul(p, matmul(pt, dat - matmul(matmul(dat, a), p)))
    y = matmul(dat, matmul(pt, p))
    return term1 + term2 + y - matmul(p, matmul(a, y))


pinv = Primitive("pinv", _pinv)
pinv.defjvp_full(lambda primals, tangents, p, rcond, hermitian: _pinv_jvp(primals, tangents, p))

for _prim in (cholesky, eigh, eig, qr, svd, pinv):
    vjp_from_jvp(_prim)


def _cholesky_vjp(transposed):
    """Murray (2016), eq. 10: A's cotangent is L^-T Phi(L^T g) L^-1, symmetrized (Note [symmetric
    gradients]): two triangular solves and a product, where the transposed jvp makes four solves
    and four products (it runs the tangent map once forward); complex L: `transposed`."""
    def vjp_all(g, L, primals, needs):
        if L.dtype.kind == "c":
            return transposed(g, L, primals, needs)
        n = L.shape[-1]
        phi = _xp(L).tri(n, dtype=L.dtype) - 0.5 * _eye(L, n)
        z = triangular_solve(L, phi * matmul(_mT(L), g), lower=True, trans=1, unit_diagonal=False)  # L^-T P
        ga = _mT(triangular_solve(L, _mT(z), lower=True, trans=1, unit_diagonal=False))  # L^-T P L^-1
        return (0.5 * (ga + _mT(ga)),)
    return vjp_all


cholesky.defvjp_all(_cholesky_vjp(cholesky.vjp_all))


# Note [phase-invariant losses]: a complex eigenvector (eigh, eig) or pair of singular vectors
# (svd) is fixed only up to a phase e^(i phi), which the kernel picks; the jvp rules pick the
# tangent that leaves it (F's zero diagonal). A loss that depends on the phase has no
# derivative: its cotangent g of V changes the loss by -phi_k Im(V^T g)_kk as V turns, so
# backward checks that Im diag(V^T g) (for svd, Im diag(U^T g_U) - Im diag(g_Vh Vh^T)) is 0, to
# 1e-2 as PyTorch checks, and raises if not, where a derivative would be a wrong number. Only
# concrete cotangents are checked (under vmap, compile or an outer derivative, the values the
# test would read are traced).
def _phase_turn(name, g, ans):
    """How far a loss with cotangents `g` of decomposition `name`'s outputs `ans` turns with
    the vectors' phases (None: nothing to check)."""
    if name == "svd":
        if len(ans) != 3 or ans[0].dtype.kind != "c" or (g[0] is None and g[2] is None):
            return None
        u, _, vh = ans
        turn = 0.0
        if g[0] is not None:
            turn = np.imag(np.diagonal(np.swapaxes(u, -1, -2) @ g[0], 0, -2, -1))
        if g[2] is not None:
            turn = turn - np.imag(np.diagonal(g[2] @ np.swapaxes(vh, -1, -2), 0, -2, -1))
        return turn
    v = ans[1]
    if v.dtype.kind != "c" or g[1] is None:
        return None
    return np.imag(np.diagonal(np.swapaxes(v, -1, -2) @ g[1], 0, -2, -1))


def _phase_checked(prim, name, what):
    """prim's vjp, after checking that the loss is phase-invariant (Note [phase-invariant losses])."""
    transposed = prim.vjp_all

    def vjp_all(g, ans, primals, needs, **params):
        if not any(isinstance(x, Tracer) for x in (*g, *ans)):
            turn = _phase_turn(name, g, ans)
            if turn is not None and not np.all(np.abs(turn) <= 1e-2):
                raise ValueError(
                    f"fgrad.numpy.linalg.{name}: the {what} of a complex matrix are specified up to multiplication by "
                    f"e^(i phi), and the loss depends on this phase (by up to {float(np.max(np.abs(turn))):.3g}), so "
                    f"its derivative is ill-defined (PyTorch raises too); let the loss depend on the {what} through "
                    f"phase-invariant quantities, such as abs(v) or v times conj(v)")
        return transposed(g, ans, primals, needs, **params)
    prim.vjp_all = vjp_all


def _block_numerators(name, g, ans):
    """(the values, [V^H g_V-like products]) whose entries at repeated values' pairs are the
    numerators of Note [repeated eigenvalues]; None when no vector has a cotangent."""
    xp = array_module(ans[0])

    def h(m):
        return xp.conj(xp.swapaxes(m, -1, -2))
    if name == "eigh":
        w, v = ans
        return None if g[1] is None else (w, [h(v) @ g[1]])
    if len(ans) != 3 or (g[0] is None and g[2] is None):
        return None
    u, s, vh = ans
    k = s.shape[-1]  # (full_matrices: the vectors beyond k have no singular value)
    return s, [y for y in (None if g[0] is None else h(u[..., :k]) @ g[0][..., :k],
                           None if g[2] is None else g[2][..., :k, :] @ h(vh[..., :k, :])) if y is not None]


def _check_repeated(name, what, values, numerators):
    """Raise a ValueError naming `name` and the repeated value where a numerator of Note
    [repeated eigenvalues] is not 0 (beyond rounding)."""
    values = to_host(values)
    k = values.shape[-1]
    pairs = to_host(_repeated(values)) & ~np.eye(k, dtype=bool)
    for y in numerators:
        size = np.abs(to_host(y))
        bad = np.argwhere(pairs & (size > np.finfo(values.dtype).eps ** 0.5 * size.max()))
        if len(bad):
            *stack, i, j = bad[0]
            where_ = f" of matrix {tuple(int(n) for n in stack)}" if stack else ""
            raise ValueError(
                f"fgrad.numpy.linalg.{name}: the derivative through the vectors is undefined at the repeated "
                f"{what[:-1]} {values[tuple(stack)][i]:.6g} ({what} {i} and {j}{where_} are equal): the vectors' "
                f"cotangent within its space is {size[tuple(bad[0])]:.3g}, not 0, so the derivative depends on how "
                f"the basis turns as the values split. Losses whose cotangent is 0 there (functions of the {what}, "
                f"traces of V f(W) V^H) are differentiable")


def _degenerate_checked(prim, name, what):
    """prim's vjp, after checking that at repeated values the loss does not depend on the basis
    of their space (Note [repeated eigenvalues]); concrete cotangents only."""
    transposed = prim.vjp_all

    def vjp_all(g, ans, primals, needs, **params):
        if config.nan_safe_zeros and not any(isinstance(x, Tracer) for x in (*g, *ans)):
            found = _block_numerators(name, g, ans)
            if found is not None:
                _check_repeated(name, what, *found)
        return transposed(g, ans, primals, needs, **params)
    prim.vjp_all = vjp_all


_degenerate_checked(eigh, "eigh", "eigenvalues")
_degenerate_checked(svd, "svd", "singular values")
_phase_checked(eigh, "eigh", "eigenvectors")
_phase_checked(eig, "eig", "eigenvectors")
_phase_checked(svd, "svd", "singular vectors")
for _prim in (inv, adjugate, det, slogdet, cholesky, eigh, eig, qr, svd, pinv):  # NumPy's stacked forms
    _prim.defbatch(leading(_prim))
