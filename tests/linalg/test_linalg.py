"""Linear algebra, einsum and special functions beyond the op table: errors users meet,
NumPy's semantics on plain arrays, and derivatives of composed functions against JAX."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
import fgrad.scipy.special as fsp

rng = np.random.default_rng(0)
A = rng.normal(size=(3, 3)) + 3 * np.eye(3)
W = rng.normal(size=(4, 3))


# ---- errors name the function, the argument and the shapes ---------------------------------
def test_solve_shape_mismatch_names_solve_and_shapes():
    with pytest.raises(ValueError, match=r"linalg\.solve.*\(3, 3\).*\(4,\)"):
        fnp.linalg.solve(A, np.ones(4))
    with pytest.raises(ValueError, match=r"linalg\.solve.*\(2, 3, 3\).*\(4, 3, 1\)"):
        fnp.linalg.solve(np.stack([A, A]), np.ones((4, 3, 1)))


def test_non_square_raises_linalg_error():
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.inv.*square.*\(4, 3\)"):
        fnp.linalg.inv(W)
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.det.*two-dimensional"):
        fnp.linalg.det(np.ones(3))


def test_cholesky_of_indefinite_matrix_surfaces_numpys_linalg_error():
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.cholesky.*positive definite"):
        fnp.linalg.cholesky(-np.eye(3))
    with pytest.raises(np.linalg.LinAlgError, match="cholesky"):
        fgrad.grad(lambda a: fnp.linalg.cholesky(a).sum())(-np.eye(3))


def test_inv_of_singular_matrix_names_inv():
    with pytest.raises(np.linalg.LinAlgError, match=r"linalg\.inv.*[Ss]ingular"):
        fnp.linalg.inv(np.ones((2, 2)))


@pytest.mark.parametrize("shape", [(4, 3), (3, 4)])
def test_svd_full_matrices_of_non_square_is_not_differentiable(shape):
    x = rng.normal(size=shape)
    f = lambda a: fnp.linalg.svd(a)[0].sum()  # noqa: E731  (full_matrices=True by default)
    with pytest.raises(TypeError, match=r"svd.*full_matrices=False"):
        fgrad.grad(f)(x)
    with pytest.raises(TypeError, match=r"svd.*full_matrices=False"):
        fgrad.jvp(f, (x,), (np.ones(shape),))
    fgrad.grad(lambda a: fnp.linalg.svd(a, full_matrices=False)[1].sum())(x)  # the way out works
    fgrad.grad(lambda a: fnp.linalg.svd(a, compute_uv=False).sum())(x)


def test_svd_full_matrices_of_square_is_differentiable():
    g = fgrad.grad(lambda a: (fnp.linalg.svd(a)[0] ** 2 * np.arange(3.0)).sum())(A)
    assert np.all(np.isfinite(g))


def test_qr_complete_of_tall_matrix_is_not_differentiable():
    with pytest.raises(TypeError, match=r"qr.*mode='reduced'"):
        fgrad.grad(lambda a: fnp.linalg.qr(a, mode="complete")[0].sum())(W)


def test_einsum_errors_name_einsum():
    with pytest.raises(ValueError, match=r"einsum.*2 operand subscripts but 1 operands"):
        fnp.einsum("ij,jk", A)
    with pytest.raises(ValueError, match=r"einsum.*operand 0 has shape \(3, 3\)"):
        fnp.einsum("ijk->i", A)
    with pytest.raises(ValueError, match=r"einsum.*'z' does not appear"):
        fnp.einsum("ij->z", A)


# ---- plain arrays in, plain NumPy results out, NumPy's return types -------------------------
def test_plain_arrays_give_numpy_results():
    assert isinstance(fnp.linalg.inv(A), np.ndarray)
    _sign, logdet = fnp.linalg.slogdet(A)
    assert fnp.linalg.slogdet(A).logabsdet == logdet
    _w, v = fnp.linalg.eigh(A)
    assert fnp.linalg.eigh(A).eigenvectors is not None and isinstance(v, np.ndarray)
    q, r = fnp.linalg.qr(W)
    np.testing.assert_allclose(q @ r, W, atol=1e-12)
    u, s, vh = fnp.linalg.svd(W)
    assert (u.shape, s.shape, vh.shape) == ((4, 4), (3,), (3, 3))
    assert fnp.linalg.svd(W, full_matrices=False).U.shape == (4, 3)


def test_numpy_calls_on_traced_values_use_fgrad():
    g = fgrad.grad(lambda a: np.linalg.norm(np.linalg.inv(a)) + np.einsum("ii", a))(A)
    expected = fgrad.grad(lambda a: fnp.linalg.norm(fnp.linalg.inv(a)) + fnp.trace(a))(A)
    np.testing.assert_allclose(g, expected, rtol=1e-12)


def test_gradients_keep_float32():
    a32 = A.astype(np.float32)
    for f in (lambda a: fnp.linalg.slogdet(a)[1], lambda a: fnp.linalg.svd(a, compute_uv=False).sum(),
              lambda a: fnp.einsum("ij,jk->", a, a), lambda a: fsp.logsumexp(a)):
        assert fgrad.grad(f)(a32).dtype == np.float32


# ---- derivatives of composed functions against JAX -------------------------------------------
jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy
jsp = pytest.importorskip("jax.scipy.special")


def _cases(np_, sp_):
    """The same functions written against fgrad (fnp, fsp) or JAX (jnp, jsp)."""
    la = np_.linalg
    return {
        "logdet_of_gram": lambda x: la.slogdet(x.T @ x + np_.eye(3))[1],
        "cholesky_solve": lambda x: np_.sum(la.solve(la.cholesky(x.T @ x + np_.eye(3)), x[0]) ** 2),
        "eigh_weighted": lambda x: np_.sum(la.eigh(x.T @ x)[0] * np_.arange(1.0, 4.0)),
        "eigh_projector": lambda x: np_.sum((lambda w, v: v[:, -1:] @ v[:, -1:].T)(*la.eigh(x.T @ x)) * x[:3]),
        "nuclear_norm": lambda x: la.norm(x, "nuc"),
        "spectral_norm": lambda x: la.norm(x, 2),
        "svd_polar": lambda x: np_.sum((lambda u, s, vh: u @ vh)(*la.svd(x, full_matrices=False)) * x),
        "qr_r_diag": lambda x: np_.sum(np_.log(np_.abs(np_.diagonal(la.qr(x)[1])))),
        "pinv_lstsq": lambda x: np_.sum((la.pinv(x) @ np_.arange(4.0)) ** 2),
        "inv_det": lambda x: la.det(la.inv(x[:3] + 3 * np_.eye(3))),
        "matrix_power": lambda x: np_.sum(la.matrix_power(x[:3] / 3, 3)),
        "einsum_chain": lambda x: np_.einsum("ij,kj,kl->", x, x, x),
        "einsum_diag": lambda x: np_.sum(np_.einsum("ii->i", x[:3]) * np_.einsum("...j,...j->...", x, x)[:3]),
        "logsumexp_softmax": lambda x: sp_.logsumexp(x, axis=0).sum() + np_.sum(sp_.softmax(x, axis=1) ** 2),
        "log_softmax": lambda x: np_.sum(sp_.log_softmax(x, axis=1) * x),
        "special": lambda x: np_.sum(sp_.erf(x) + sp_.gammaln(x * x + 1) + sp_.xlogy(x, x * x + 1) + sp_.expit(x)),
    }


FGRAD_CASES, JAX_CASES = _cases(fnp, fsp), _cases(jnp, jsp)


@pytest.mark.parametrize("name", sorted(FGRAD_CASES))
def test_value_gradient_and_hessian_match_jax(name):
    f, jf = FGRAD_CASES[name], JAX_CASES[name]
    # one compiled JAX function: JAX's op-by-op dispatch would dominate the test's time
    value, grad, hess = jax.jit(lambda x: (jf(x), jax.grad(jf)(x), jax.hessian(jf)(x)))(W)
    np.testing.assert_allclose(f(W), value, rtol=1e-10)
    np.testing.assert_allclose(fgrad.grad(f)(W), grad, rtol=1e-8, atol=1e-10)
    hessian = fgrad.jacfwd(fgrad.grad(f))(W)  # forward over reverse
    np.testing.assert_allclose(hessian, hess, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(fgrad.jacrev(fgrad.grad(f))(W), hessian, rtol=1e-8, atol=1e-10)


# ---- derivatives at the edges: symbolic zero outputs, broadcast einsum labels ---------------
@pytest.mark.parametrize("f", [
    lambda a: fnp.sum(fnp.linalg.eigvalsh(a)),
    lambda a: fnp.sum(fnp.linalg.eigh(a)[0]),
    lambda a: fnp.sum(fnp.linalg.svd(a)[1]),
])
def test_spectrum_gradient_at_repeated_values_is_finite(f):
    # Only the eigen/singular values are used: the vectors' term (0 * inf where values
    # repeat) must not be computed into the gradient. d sum(w) / dA = I here.
    with np.errstate(divide="ignore", invalid="ignore"):
        g = fgrad.grad(f)(np.eye(3))
    np.testing.assert_allclose(g, np.eye(3), atol=1e-12)


def test_slogdet_sign_alone_has_zero_gradient():
    g = fgrad.grad(lambda a: fnp.linalg.slogdet(a)[0] + fnp.sum(a))(A)
    np.testing.assert_allclose(g, np.ones((3, 3)))


def test_einsum_gradient_where_a_label_broadcasts_from_size_one():
    a, b = np.array([1.0, 2.0, 3.0]), np.array([2.0])
    np.testing.assert_allclose(fgrad.grad(lambda a: fnp.einsum("i,i->", a, b))(a), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(fgrad.grad(lambda b: fnp.einsum("i,i->", a, b))(b), [6.0])
    M = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(fgrad.grad(lambda M: fnp.einsum("ij,j->", M, b))(M), np.full((2, 3), 2.0))


def test_einsum_sublists_number_labels_as_numpy():
    x = np.arange(6.0).reshape(2, 3)
    assert fnp.einsum(x, [30, 0]).shape == np.einsum(x, [30, 0]).shape == (3, 2)
    np.testing.assert_allclose(fnp.einsum(x, [0, 1], x, [2, 1], [0, 2]), np.einsum(x, [0, 1], x, [2, 1], [0, 2]))


def test_a_cotangent_that_cannot_fit_its_primal_is_an_error():
    from fgrad.ops.broadcasting import fit_cotangent
    with pytest.raises(ValueError, match=r"cotangent of shape \(1,\).*primal's shape \(3,\)"):
        fit_cotangent(np.ones(1), np.ones(3))


# ---- issue 17: singular matrices and the symmetric convention --------------------------------
SINGULAR = [np.ones((2, 2)), np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), np.diag([1.0, 0.0, 0.0]),
            np.zeros((2, 3, 3))]


@pytest.mark.parametrize("a", SINGULAR, ids=["rank1_2x2", "rank2_3x3", "rank1_3x3", "zeros_stack"])
def test_grad_of_det_at_a_singular_matrix_is_the_adjugate(a):
    g = fgrad.grad(lambda m: fnp.sum(fnp.linalg.det(m)))(a)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    expected = jax.grad(lambda m: jax.numpy.sum(jax.numpy.linalg.det(m)))(a)
    np.testing.assert_allclose(g, expected, atol=1e-12)
    fgrad.testing.check_grads(lambda m: fnp.linalg.det(m), (a,), order=1)
    _, t = fgrad.jvp(fnp.linalg.det, (a,), (np.ones_like(a),))
    np.testing.assert_allclose(t, np.sum(g * np.ones_like(a), axis=(-2, -1)), atol=1e-12)


def test_the_second_derivative_of_det_at_a_singular_matrix_raises_rather_than_guess():
    with pytest.raises(NotImplementedError, match="second derivative of det at a singular matrix"):
        fgrad.hessian(fnp.linalg.det)(np.ones((2, 2)))
    a = np.array([[2.0, 1.0], [0.5, 3.0]])  # invertible: every order works
    np.testing.assert_allclose(fgrad.hessian(fnp.linalg.det)(a).reshape(4, 4)[0], [0.0, 0.0, 0.0, 1.0], atol=1e-12)


def test_grad_of_slogdet_at_a_singular_matrix_names_slogdet():
    with pytest.raises(np.linalg.LinAlgError, match=r"slogdet: the derivative of logabsdet at a singular matrix"):
        fgrad.grad(lambda a: fnp.linalg.slogdet(a)[1])(np.ones((2, 2)))


@pytest.mark.parametrize("fn", [
    lambda a: fnp.sum(fnp.linalg.eigh(a)[0] * np.arange(1.0, 4.0)),
    lambda a: fnp.sum(fnp.linalg.eigh(a, UPLO="U")[0] ** 3),
    lambda a: fnp.sum(fnp.linalg.eigvalsh(a) ** 2),
    lambda a: fnp.sum(fnp.linalg.cholesky(a) * np.arange(9.0).reshape(3, 3)),
    lambda a: fnp.sum(fnp.linalg.cholesky(a, upper=True) ** 2),
])
def test_eigh_and_cholesky_gradients_are_symmetric_as_jax_and_pytorch(fn):
    """Note [symmetric gradients]: a gradient step keeps a symmetric parameter symmetric."""
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    g = fgrad.grad(fn)(a)
    np.testing.assert_allclose(g, g.T, atol=1e-12)
    # along symmetric perturbations it is the derivative of NumPy's function
    s = np.array([[0.3, -0.2, 0.1], [-0.2, 0.5, 0.4], [0.1, 0.4, -0.6]])
    eps = 1e-6
    fd = (fn(a + eps * s) - fn(a - eps * s)) / (2 * eps)
    assert np.sum(g * s) == pytest.approx(fd, rel=1e-6)


def test_eigh_gradient_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    w = np.arange(1.0, 4.0)
    ours = fgrad.grad(lambda a: fnp.sum(fnp.linalg.eigh(a)[0] * w))(a)
    theirs = jax.grad(lambda a: jax.numpy.sum(jax.numpy.linalg.eigh(a)[0] * w))(a)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_eig_under_vmap_reads_each_example_as_its_matrix():
    """eig of a real matrix decides real or complex results from the spectrum (a guarded
    decision); under vmap with the batch axis among the matrix axes, the decision read the
    stacked array's trailing axes as matrices: other matrices, so a real spectrum came out
    complex (or a complex one raised). Each example's spectrum is its own."""
    rng = np.random.default_rng(0)
    q = rng.standard_normal((3, 3))
    a = q @ np.diag([1.0, 2.0, 3.0]) @ np.linalg.inv(q)  # (real eigenvalues)
    for axis in (0, 1, 2):
        stacked = np.stack([a * (1 + 0.03 * b) for b in range(4)], axis=axis)
        w = fgrad.vmap(lambda m: fnp.linalg.eig(m)[0], in_axes=axis)(stacked)
        assert w.dtype == np.float64, axis
        np.testing.assert_allclose(np.sort(w, axis=1), [np.array([1.0, 2.0, 3.0]) * (1 + 0.03 * b) for b in range(4)])
