"""Op-database rows for linear algebra, einsum and special functions (see op_db.py).

Matrices are sampled well conditioned (A + n I, SPD for cholesky, distinct eigen- and
singular values), so finite differences are accurate and derivatives are unique.
Decompositions whose outputs carry an arbitrary sign (eigenvectors, singular vectors)
have a value row comparing the raw output with NumPy and a derivative row on
sign-invariant functions of it (v**2, U @ Vh).
"""
import numpy as np
import scipy.special as sps

import fgrad.numpy as fnp
import fgrad.scipy.special as fsp

from .op_db import custom, uniform, with_kwargs

inf = np.inf


def matrix(rng, shape):
    """Well conditioned: a normal matrix plus n times the identity (n = size of the last axes)."""
    n = shape[-1]
    return rng.normal(size=shape) + n * np.eye(n)


def spd(rng, shape):
    """Symmetric positive definite: B B^T + n I."""
    b = rng.normal(size=shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


def normal(rng, shape):
    return rng.normal(size=shape)


def square_rows(name, fn, ref, shapes=((3, 3), (2, 3, 3)), sampler=matrix, **kw):
    return custom(name, lambda rng: [(sampler(rng, s),) for s in shapes], fn=fn, ref=ref, **kw)


def eig_invariants(eigh):
    """Eigenvalues, and eigenvectors made sign-invariant (|v|**2: phase-invariant too, for the
    complex rows of tests/ops/test_op_table_complex.py)."""
    return lambda a: (lambda w, v: (w, v * fnp.conj(v)))(*eigh(a))


def svd_invariants(svd):
    """S, the sign-invariant |U|**2 and |Vh|**2, and the polar factor U @ Vh."""
    return lambda a: (lambda u, s, vh: (s, u * fnp.conj(u), vh * fnp.conj(vh), u @ vh))(*svd(a, full_matrices=False))


def sym(a):
    """The symmetric (for complex a, Hermitian) part."""
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


def fsym(a):
    return (a + fnp.conj(fnp.swapaxes(a, -1, -2))) / 2


RECT = ((3, 3), (4, 3), (3, 4), (2, 4, 3))

def singular(rng, shape, rank):
    """A (stack of) square matrices of the given rank: a product of n x rank and rank x n factors."""
    n = shape[-1]
    return normal(rng, shape[:-1] + (rank,)) @ normal(rng, shape[:-2] + (rank, n))


LINALG = [
    custom("linalg.solve", lambda rng: [(matrix(rng, (3, 3)), normal(rng, (3,))),
                                        (matrix(rng, (3, 3)), normal(rng, (3, 2))),
                                        (matrix(rng, (2, 3, 3)), normal(rng, (2, 3, 2))),
                                        (matrix(rng, (2, 3, 3)), normal(rng, (3,))),
                                        (matrix(rng, (3, 3)), normal(rng, (2, 3, 1)))],
           fn=fnp.linalg.solve, ref=np.linalg.solve),
    square_rows("linalg.inv", fnp.linalg.inv, np.linalg.inv),
    square_rows("linalg.det", fnp.linalg.det, np.linalg.det, shapes=((1, 1), (3, 3), (2, 3, 3))),
    # at singular matrices (rank n - 1 and n - 2): the adjugate; the second derivative raises there
    custom("linalg.det_singular", lambda rng: [(np.ones((3, 3)),), (singular(rng, (3, 3), 2),),
                                               (singular(rng, (3, 3), 1),),
                                               (singular(rng, (2, 4, 4), 3),)],
           fn=fnp.linalg.det, ref=np.linalg.det, second_order=False),
    custom("linalg.slogdet", lambda rng: [(matrix(rng, (3, 3)),), (-matrix(rng, (3, 3)),), (matrix(rng, (2, 3, 3)),)],
           fn=lambda a: tuple(fnp.linalg.slogdet(a)), ref=lambda a: tuple(np.linalg.slogdet(a))),
    # cholesky and eigh differentiate the function on symmetric matrices (Note [symmetric
    # gradients] in fgrad/ops/linalg.py): finite differences of single entries see that
    # function through sym(a) = (a + a^T) / 2
    square_rows("linalg.cholesky", lambda a: fnp.linalg.cholesky(fsym(a)), lambda a: np.linalg.cholesky(sym(a)),
                sampler=spd),
    square_rows("linalg.cholesky_upper", lambda a: fnp.linalg.cholesky(fsym(a), upper=True),
                lambda a: np.linalg.cholesky(sym(a), upper=True), sampler=spd),
    # the raw eigenvectors: values only (their signs are LAPACK's choice)
    square_rows("linalg.eigh", lambda a: tuple(fnp.linalg.eigh(a)), lambda a: tuple(np.linalg.eigh(a)),
                sampler=spd, differentiable=False),
    square_rows("linalg.eigh_lower", eig_invariants(lambda a: fnp.linalg.eigh(fsym(a))),
                eig_invariants(lambda a: np.linalg.eigh(sym(a))), sampler=normal),
    square_rows("linalg.eigh_upper", eig_invariants(lambda a: fnp.linalg.eigh(fsym(a), UPLO="U")),
                eig_invariants(lambda a: np.linalg.eigh(sym(a), UPLO="U")), sampler=normal),
    square_rows("linalg.eigvalsh", lambda a: fnp.linalg.eigvalsh(fsym(a)), lambda a: np.linalg.eigvalsh(sym(a)),
                sampler=normal),
    custom("linalg.qr", lambda rng: [(normal(rng, s),) for s in RECT], fn=lambda a: tuple(fnp.linalg.qr(a)),
           ref=lambda a: tuple(np.linalg.qr(a))),
    custom("linalg.qr_complete_square", lambda rng: [(normal(rng, (3, 3)),), (normal(rng, (3, 4)),)],
           fn=lambda a: tuple(fnp.linalg.qr(a, mode="complete")),
           ref=lambda a: tuple(np.linalg.qr(a, mode="complete"))),
    custom("linalg.qr_r", lambda rng: [(normal(rng, (4, 3)),)], fn=lambda a: fnp.linalg.qr(a, mode="r"),
           ref=lambda a: np.linalg.qr(a, mode="r")),
    custom("linalg.svd", lambda rng: [(normal(rng, s),) for s in RECT], fn=lambda a: tuple(fnp.linalg.svd(a)),
           ref=lambda a: tuple(np.linalg.svd(a)), differentiable=False),
    custom("linalg.svd_reduced", lambda rng: [(normal(rng, s),) for s in RECT],
           fn=svd_invariants(fnp.linalg.svd), ref=svd_invariants(np.linalg.svd)),
    custom("linalg.svd_values", lambda rng: [(normal(rng, s),) for s in RECT],
           fn=lambda a: fnp.linalg.svd(a, compute_uv=False), ref=lambda a: np.linalg.svd(a, compute_uv=False)),
    custom("linalg.svdvals", lambda rng: [(normal(rng, (2, 4, 3)),)], fn=fnp.linalg.svdvals, ref=np.linalg.svdvals),
    custom("linalg.pinv", lambda rng: [(normal(rng, s),) for s in RECT], fn=fnp.linalg.pinv, ref=np.linalg.pinv),
    custom("linalg.matrix_power", lambda rng: [(matrix(rng, (3, 3)) / 3, n) for n in (0, 1, 2, 3, 5, -2)]
           + [(matrix(rng, (2, 3, 3)) / 3, 3)], fn=fnp.linalg.matrix_power, ref=np.linalg.matrix_power),
    custom("linalg.trace", lambda rng: [(normal(rng, (3, 3)),), (normal(rng, (2, 3, 4)),)],
           fn=fnp.linalg.trace, ref=np.linalg.trace),
    *with_kwargs("linalg.norm", [{}, {"ord": 2}, {"ord": 1}, {"ord": inf}, {"ord": -inf}, {"ord": 0}, {"ord": 3},
                                 {"ord": 0.5}, {"ord": -1.5}, {"keepdims": True}],
                 shapes=((5,),), fn=fnp.linalg.norm, ref=np.linalg.norm),
    *with_kwargs("linalg.norm", [{}, {"ord": "fro"}, {"ord": "nuc"}, {"ord": 1}, {"ord": -1}, {"ord": 2}, {"ord": -2},
                                 {"ord": inf}, {"ord": -inf}, {"ord": 2, "keepdims": True}],
                 shapes=((3, 4),), fn=fnp.linalg.norm, ref=np.linalg.norm),
    *with_kwargs("linalg.norm", [{"axis": 1}, {"axis": -1, "ord": 1, "keepdims": True}, {"axis": (1, 2)},
                                 {"axis": (2, 0), "ord": 1}, {"axis": (0, 2), "ord": inf, "keepdims": True},
                                 {"axis": (-1, -2), "ord": "nuc"}, {"axis": (1, 2), "ord": -2}],
                 shapes=((2, 3, 4),), fn=fnp.linalg.norm, ref=np.linalg.norm),
    *with_kwargs("linalg.vector_norm", [{}, {"axis": (0, 2), "ord": 1}, {"axis": 1, "ord": inf, "keepdims": True},
                                        {"ord": 3, "keepdims": True}],
                 shapes=((2, 3, 4),), fn=fnp.linalg.vector_norm, ref=np.linalg.vector_norm),
    *with_kwargs("linalg.matrix_norm", [{}, {"ord": "nuc"}, {"ord": -inf, "keepdims": True}],
                 shapes=((2, 3, 4),), fn=fnp.linalg.matrix_norm, ref=np.linalg.matrix_norm),
]


def einsum_row(name, subscripts, *shapes, **kwargs):
    return custom(f"einsum[{name}]", lambda rng: [tuple(normal(rng, s) for s in shapes)],
                  fn=lambda *ops: fnp.einsum(subscripts, *ops, **kwargs),
                  ref=lambda *ops: np.einsum(subscripts, *ops, **kwargs))


EINSUM = [
    einsum_row("matmul", "ij,jk->ik", (2, 3), (3, 4)),
    einsum_row("implicit", "ij,jk", (2, 3), (3, 4)),
    einsum_row("implicit_transpose", "ba", (2, 3)),
    einsum_row("transpose", "ij->ji", (2, 3)),
    einsum_row("diagonal", "ii->i", (3, 3)),
    einsum_row("trace", "ii", (3, 3)),
    einsum_row("sum", "ij->", (2, 3)),
    einsum_row("dot", "i,i", (3,), (3,)),
    einsum_row("outer", "i,j->ij", (3,), (2,)),
    einsum_row("batched", "bij,bjk->bik", (2, 3, 4), (2, 4, 2)),
    einsum_row("ellipsis_broadcast", "...ij,...jk->...ik", (2, 1, 3, 4), (4, 4, 2)),
    einsum_row("ellipsis_implicit", "...i,...i", (2, 3), (3,)),
    einsum_row("label_broadcast", "i,i->i", (1,), (3,)),
    einsum_row("diagonal_with_other", "iij,j->i", (3, 3, 2), (2,)),
    einsum_row("summed_alone", "ij,k->i", (2, 3), (4,)),
    einsum_row("three_operands", "ij,jk,kl->il", (2, 3), (3, 4), (4, 2)),
    einsum_row("optimize", "ij,jk,kl->il", (2, 3), (3, 4), (4, 2), optimize=True),
    custom("einsum[sublists]", lambda rng: [(normal(rng, (2, 3)), normal(rng, (3, 4)))],
           fn=lambda a, b: fnp.einsum(a, [0, 1], b, [1, 2], [0, 2]),
           ref=lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2])),
]


def special_row(name, lo, hi, shapes=((), (3,), (2, 3)), **kw):
    return custom(f"special.{name}", lambda rng: [(uniform(rng, s, lo, hi),) for s in shapes],
                  fn=getattr(fsp, name), ref=getattr(sps, name), **kw)


SPECIAL = [
    special_row("erf", -2.0, 2.0), special_row("erfc", -2.0, 2.0),
    special_row("gammaln", 0.2, 4.0),
    custom("special.gammaln_negative", lambda rng: [(uniform(rng, (3,), -2.8, -2.2),)], fn=fsp.gammaln,
           ref=sps.gammaln),
    special_row("digamma", 0.3, 4.0), special_row("expit", -3.0, 3.0), special_row("logit", 0.1, 0.9),
    custom("special.polygamma", lambda rng: [(n, uniform(rng, (3,), 0.5, 3.0)) for n in (0, 1, 2)]
           + [(np.array([1, 2, 3]), uniform(rng, (2, 3), 0.5, 3.0))], fn=fsp.polygamma, ref=sps.polygamma),
    custom("special.xlogy", lambda rng: [(uniform(rng, (3,), -2, 2), uniform(rng, (3,), 0.2, 3)),
                                         (uniform(rng, (2, 3), -2, 2), uniform(rng, (3,), 0.2, 3))],
           fn=fsp.xlogy, ref=sps.xlogy),
    custom("special.xlogy_zero", lambda rng: [(np.array([0.0, 1.5, 0.0]), uniform(rng, (3,), 0.2, 3))],
           fn=fsp.xlogy, ref=sps.xlogy),
    *with_kwargs("special.logsumexp",
                 [{}, {"axis": 1}, {"axis": (0, 2), "keepdims": True}, {"axis": -1, "keepdims": True}],
                 fn=fsp.logsumexp, ref=sps.logsumexp),
    custom("special.logsumexp_b", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (2, 3), 0.5, 2.0)),
                                               (uniform(rng, (2, 3)), uniform(rng, (3,), 0.5, 2.0))],
           fn=lambda a, b: fsp.logsumexp(a, axis=1, b=b), ref=lambda a, b: sps.logsumexp(a, axis=1, b=b)),
    custom("special.logsumexp_sign",
           lambda rng: [(uniform(rng, (2, 3)), np.array([[1.0, -2.0, 0.5], [-1.0, -0.5, 0.3]]))],
           fn=lambda a, b: fsp.logsumexp(a, axis=1, b=b, return_sign=True),
           ref=lambda a, b: sps.logsumexp(a, axis=1, b=b, return_sign=True)),
    custom("special.logsumexp_neg_inf", lambda rng: [(np.array([[-inf, -inf], [0.5, -inf]]),)],
           fn=lambda a: fsp.logsumexp(a, axis=1), ref=lambda a: sps.logsumexp(a, axis=1), differentiable=False),
    *with_kwargs("special.softmax", [{}, {"axis": -1}, {"axis": (0, 2)}], fn=fsp.softmax, ref=sps.softmax),
    *with_kwargs("special.log_softmax", [{}, {"axis": 1}], fn=fsp.log_softmax, ref=sps.log_softmax),
]

LINALG_OPS = LINALG + EINSUM + SPECIAL

__all__ = ["LINALG_OPS"]
