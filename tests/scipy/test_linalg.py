"""fgrad.scipy.linalg beyond the op table: the derivative identities its rules rest on,
SciPy's own factors as inputs, and errors for the options fgrad does not support."""
import numpy as np
import pytest
import scipy.linalg as sl

import fgrad
import fgrad.numpy as fnp
import fgrad.scipy.linalg as fsl

rng = np.random.default_rng(0)
A = rng.normal(size=(3, 3))
E = rng.normal(size=(3, 3))
G = rng.normal(size=(3, 3))
S = A @ A.T + 3 * np.eye(3)  # symmetric positive definite
B = rng.normal(size=(3, 2))


# ---- the derivative identities ---------------------------------------------------------------
def test_expm_jvp_is_scipys_frechet_derivative():
    _, tangent = fgrad.jvp(fsl.expm, (A,), (E,))
    np.testing.assert_allclose(tangent, sl.expm_frechet(A, E, compute_expm=False), rtol=1e-12, atol=1e-12)


def test_expm_vjp_is_the_frechet_derivative_at_the_transpose():
    _, pull = fgrad.vjp(fsl.expm, A)
    np.testing.assert_allclose(pull(G)[0], sl.expm_frechet(A.T, G, compute_expm=False), rtol=1e-12, atol=1e-12)
    # the adjoint identity <G, L(A, E)> = <L(A^T, G), E>
    assert np.isclose(np.sum(G * fsl.expm_frechet(A, E, compute_expm=False)),
                      np.sum(fsl.expm_frechet(A.T, G, compute_expm=False) * E), rtol=1e-12)


def test_expm_frechet_matches_scipy_and_differentiates_in_both_arguments():
    expm_a, frechet = fsl.expm_frechet(A, E)
    want_expm, want_frechet = sl.expm_frechet(A, E)
    np.testing.assert_allclose(expm_a, want_expm, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(frechet, want_frechet, rtol=1e-12, atol=1e-12)
    # linear in E: its gradient along E is the adjoint, L(A^T, G)
    grad_e = fgrad.grad(lambda e: fnp.sum(G * fsl.expm_frechet(A, e, compute_expm=False)))(E)
    np.testing.assert_allclose(grad_e, sl.expm_frechet(A.T, G, compute_expm=False), rtol=1e-10, atol=1e-12)


def test_sqrtm_derivative_solves_the_sylvester_equation():
    root = sl.sqrtm(S)
    _, tangent = fgrad.jvp(fsl.sqrtm, (S,), (E,))
    np.testing.assert_allclose(root @ tangent + tangent @ root, E, rtol=1e-10, atol=1e-12)
    _, pull = fgrad.vjp(fsl.sqrtm, S)
    np.testing.assert_allclose(pull(G)[0], sl.solve_sylvester(root.T, root.T, G), rtol=1e-10, atol=1e-12)


def test_lu_tangents_keep_the_factors_triangular_and_reproduce_da():
    a, da = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    (p, l_, u), (_, dl, du) = fgrad.jvp(lambda a: tuple(fsl.lu(a)), (a,), (da,))
    np.testing.assert_allclose(np.triu(dl), 0, atol=1e-14)  # strictly lower (L's diagonal is 1)
    np.testing.assert_allclose(np.tril(du, -1), 0, atol=1e-14)
    np.testing.assert_allclose(p @ (dl @ u + l_ @ du), da, rtol=1e-10, atol=1e-12)  # d(P L U) = dA


# ---- SciPy's factors as inputs -------------------------------------------------------------------
def test_cho_solve_takes_scipys_cho_factor_and_ignores_its_other_triangle():
    for lower in (True, False):
        c_and_lower = sl.cho_factor(S, lower=lower)  # (the unused triangle holds S's entries)
        np.testing.assert_allclose(fsl.cho_solve(c_and_lower, B), sl.cho_solve(c_and_lower, B), rtol=1e-12)
        grad_c = fgrad.grad(lambda c: fnp.sum(fsl.cho_solve((c, lower), B) ** 2))(c_and_lower[0])
        unused = np.triu(grad_c, 1) if lower else np.tril(grad_c, -1)
        assert np.all(unused == 0)


def test_cho_factor_then_cho_solve_is_solve():
    x = fsl.cho_solve(fsl.cho_factor(S), B)
    np.testing.assert_allclose(x, np.linalg.solve(S, B), rtol=1e-12)
    g = fgrad.grad(lambda s: fnp.sum(fsl.cho_solve(fsl.cho_factor((s + s.T) / 2), B)))(S)
    want = fgrad.grad(lambda s: fnp.sum(fnp.linalg.solve((s + s.T) / 2, B)))(S)
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_lu_solve_takes_scipys_lu_factor():
    a = A + 3 * np.eye(3)
    lu_and_piv = sl.lu_factor(a)
    for trans in (0, 1, 2):
        np.testing.assert_allclose(fsl.lu_solve(lu_and_piv, B, trans=trans), sl.lu_solve(lu_and_piv, B, trans=trans),
                                   rtol=1e-12)
    # the gradient through lu_factor equals that of a plain solve
    g = fgrad.grad(lambda a: fnp.sum(fsl.lu_solve(fsl.lu_factor(a), B) ** 2))(a)
    want = fgrad.grad(lambda a: fnp.sum(fnp.linalg.solve(a, B) ** 2))(a)
    np.testing.assert_allclose(g, want, rtol=1e-10, atol=1e-12)


def test_lu_solve_under_vmap_with_pivots_that_differ_between_examples():
    stack = rng.normal(size=(4, 3, 3))
    assert len({tuple(sl.lu_factor(m)[1]) for m in stack}) > 1
    got = fgrad.vmap(lambda a: fsl.lu_solve(fsl.lu_factor(a), B))(stack)
    np.testing.assert_allclose(got, np.linalg.solve(stack, B), rtol=1e-12)


def test_solve_triangular_reads_one_triangle():
    a = A + 3 * np.eye(3)
    g = fgrad.grad(lambda a: fnp.sum(fsl.solve_triangular(a, B, lower=True, unit_diagonal=True)))(a)
    assert np.all(np.triu(g) == 0)  # neither the upper triangle nor the diagonal is read
    np.testing.assert_allclose(fsl.solve_triangular(a, B, lower=True, unit_diagonal=True),
                               sl.solve_triangular(a, B, lower=True, unit_diagonal=True), rtol=1e-12)


def test_block_diag_and_toeplitz_on_plain_values():
    np.testing.assert_array_equal(fsl.block_diag(), sl.block_diag())
    np.testing.assert_array_equal(fsl.block_diag([1, 2], [[3]], 4), sl.block_diag([1, 2], [[3]], 4))
    np.testing.assert_array_equal(fsl.toeplitz([1.0, 2.0, 3.0], [1.0, 5.0]), sl.toeplitz([1.0, 2.0, 3.0], [1.0, 5.0]))


# ---- unsupported options raise, naming them ------------------------------------------------------
@pytest.mark.parametrize("call, option", [
    (lambda: fsl.eigh(S, b=np.eye(3)), "b="),
    (lambda: fsl.eigh(S, subset_by_value=(0.0, 1.0)), "subset_by_value"),
    (lambda: fsl.qr(A, pivoting=True), "pivoting"),
    (lambda: fsl.sqrtm(S, disp=False), "disp"),
])
def test_unsupported_options_raise_naming_them(call, option):
    with pytest.raises(NotImplementedError, match=option):
        call()


@pytest.mark.parametrize("call, message", [
    (lambda: fsl.solve_triangular(A, B, trans=3), "trans"),
    (lambda: fsl.lu_solve(sl.lu_factor(A), B, trans="X"), "trans"),
    (lambda: fsl.expm_frechet(A, E, method="Pade"), "method"),
    (lambda: fsl.qr(A, mode="raw"), "mode"),
    (lambda: fsl.svd(A, lapack_driver="gejsv"), "lapack_driver"),
    (lambda: fsl.solve_triangular(A, np.ones(4)), r"\(3, 3\).*\(4,\)"),
    (lambda: fsl.block_diag(np.ones((2, 2, 2))), "dimension greater than 2"),
])
def test_invalid_arguments_raise_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_expm_of_a_non_square_matrix_raises():
    with pytest.raises(np.linalg.LinAlgError, match="expm"):
        fsl.expm(np.ones((2, 3)))
