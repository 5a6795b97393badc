"""eigh and svd at repeated values (issue 33; Note [repeated eigenvalues] in ops/linalg.py), and
cholesky's rules by triangular solves.

Where the loss does not depend on the basis of a repeated value's space, the derivative is
finite and equals the closed form; where the eigenvectors' cotangent in that space is not 0,
the backward pass raises naming the op and the value. With fgrad.config.nan_safe_zeros off,
JAX's 1 / gap: not finite at exactly repeated values.
"""
import numpy as np
import pytest
import scipy.linalg

import fgrad
import fgrad.numpy as fnp
from fgrad.config import config

Q = np.linalg.qr(np.random.default_rng(0).normal(size=(4, 4)))[0]
REPEATED = {  # exactly repeated (V = I), and repeated to rounding in a turned basis
    "diagonal": np.diag([1.0, 1.0, 2.0, 3.0]),
    "turned": Q @ np.diag([1.0, 1.0, 1.0, 3.0]) @ Q.T,
}


def trace_of_exp(a):
    """trace(V exp(W) V^T): reads the eigenvectors, but not their basis in a repeated space."""
    w, v = fnp.linalg.eigh(a)
    return fnp.trace((v * fnp.exp(w)) @ v.T)


def reconstructed(a):
    """sum(G * V W V^T): the eigenvectors' cotangent within a repeated space is not 0."""
    w, v = fnp.linalg.eigh(a)
    return fnp.sum((v * w) @ v.T * np.arange(16.0).reshape(4, 4))


@pytest.mark.parametrize("which", list(REPEATED))
@pytest.mark.parametrize("loss, closed_form", [
    (lambda a: fnp.sum(fnp.linalg.eigh(a)[0]), lambda a: np.eye(4)),
    (lambda a: fnp.sum(fnp.exp(fnp.linalg.eigh(a)[0])), scipy.linalg.expm),
    (trace_of_exp, scipy.linalg.expm),
    (lambda a: fnp.sum(fnp.linalg.eigh(a)[0] ** 2), lambda a: 2.0 * a),
], ids=["sum_w", "sum_exp_w", "trace_V_expW_Vt", "sum_w_squared"])
def test_eigh_basis_free_losses_are_finite_and_right(which, loss, closed_form):
    a = REPEATED[which]
    np.testing.assert_allclose(fgrad.grad(loss)(a), closed_form(a), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("which", list(REPEATED))
def test_eigh_where_undefined_raises_naming_the_op_and_value(which):
    with pytest.raises(ValueError, match=r"eigh.*repeated eigenvalue 1 "):
        fgrad.grad(reconstructed)(REPEATED[which])


def test_eigh_distinct_values_keep_their_derivative():
    a = Q @ np.diag([1.0, 1.5, 2.0, 3.0]) @ Q.T
    np.testing.assert_allclose(fgrad.grad(reconstructed)(a), 0.5 * (np.arange(16.0).reshape(4, 4) + np.arange(
        16.0).reshape(4, 4).T), rtol=1e-9, atol=1e-9)  # sum(G * A): the symmetric part of G


def test_eigh_switched_off_is_jaxs_one_over_gap():
    a = REPEATED["diagonal"]
    with config.overriding(nan_safe_zeros=False):
        assert not np.all(np.isfinite(fgrad.grad(trace_of_exp)(a)))
    assert np.all(np.isfinite(fgrad.grad(trace_of_exp)(a)))


def test_eigh_jvp_vmap_and_compile_at_repeated_values():
    a = REPEATED["turned"]
    t = np.random.default_rng(1).normal(size=(4, 4))
    t = t + t.T
    _, dt = fgrad.jvp(trace_of_exp, (a,), (t,))
    np.testing.assert_allclose(dt, np.sum(scipy.linalg.expm(a) * t), rtol=1e-10)
    np.testing.assert_allclose(fgrad.vmap(fgrad.grad(trace_of_exp))(np.stack([a, a])),
                               np.stack([scipy.linalg.expm(a)] * 2), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(fgrad.compile(fgrad.grad(trace_of_exp))(a), scipy.linalg.expm(a), rtol=1e-10,
                               atol=1e-10)


def _polar(a):  # U V^T of a = U S V^T: the nuclear norm's gradient at a full-rank a
    u, _, vh = np.linalg.svd(a)
    return u @ vh


Q3, R3 = (np.linalg.qr(np.random.default_rng(k).normal(size=(3, 3)))[0] for k in (3, 4))
SVD_REPEATED = {"identity": 2.0 * np.eye(3), "turned": Q3 @ np.diag([2.0, 2.0, 1.0]) @ R3.T}


@pytest.mark.parametrize("which", list(SVD_REPEATED))
@pytest.mark.parametrize("loss", [
    lambda a: fnp.linalg.norm(a, "nuc"),
    lambda a: fnp.sum(fnp.linalg.svd(a)[1]),
    # reads U, but only through |u_k|^2 = 1: its cotangent within a repeated space is 0
    lambda a: (lambda u, s, vh: fnp.sum(s * fnp.sum(u * u, axis=0)))(*fnp.linalg.svd(a)),
], ids=["nuclear_norm", "sum_s", "sum_s_through_U"])
def test_svd_basis_free_losses_are_finite_and_right(which, loss):
    a = SVD_REPEATED[which]
    np.testing.assert_allclose(fgrad.grad(loss)(a), _polar(a), rtol=1e-10, atol=1e-10)


def test_svd_where_undefined_raises_naming_the_op_and_value():
    def loss(a):
        u, s, vh = fnp.linalg.svd(a)
        return fnp.sum((u * s) @ vh * np.arange(9.0).reshape(3, 3))
    with pytest.raises(ValueError, match=r"svd.*repeated singular value 2 "):
        fgrad.grad(loss)(SVD_REPEATED["identity"])


def test_cholesky_rules_solve_by_substitution():
    """Both of cholesky's rules solve with triangular_solve, never the general (LU) solve."""
    rng = np.random.default_rng(2)
    m = rng.normal(size=(5, 5))
    a = m @ m.T + 5.0 * np.eye(5)
    g = rng.normal(size=(5, 5))

    def loss(x):
        return fnp.sum(fnp.linalg.cholesky(x) * g)
    for fn in (fgrad.grad(loss), lambda x: fgrad.jvp(loss, (x,), (np.eye(5),))[1]):
        used = fgrad.make_graph(fn)(a).primitives()
        assert "triangular_solve" in used and "solve" not in used, used
    s = rng.normal(size=(5, 5))
    s = s + s.T
    eps = 1e-6
    fd = (loss(a + eps * s) - loss(a - eps * s)) / (2 * eps)
    np.testing.assert_allclose(np.sum(fgrad.grad(loss)(a) * s), fd, rtol=1e-7)
    np.testing.assert_allclose(fgrad.jvp(loss, (a,), (s,))[1], fd, rtol=1e-7)
