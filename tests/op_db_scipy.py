"""Op-database rows for fgrad.scipy.linalg, fgrad.scipy.signal and fgrad.scipy.integrate (see op_db.py).

Matrices are sampled as in op_db_linalg.py (well conditioned, SPD where a factorization
needs it). Each row's reference is SciPy's function. odeint has no row: an adaptive solver
agrees with a reference, and its adjoint derivative with its tangent, to the solver's
tolerance, not to the table's 1e-12; tests/scipy/test_integrate.py checks it.
"""
import numpy as np
import scipy.integrate as si
import scipy.linalg as sl
import scipy.signal as ss

import fgrad.numpy as fnp
import fgrad.scipy.integrate as fsi
import fgrad.scipy.linalg as fsl
import fgrad.scipy.signal as fss

from .op_db import custom, uniform
from .op_db_linalg import RECT, fsym, matrix, normal, spd, square_rows, sym


def _factor(rng, shape, lower):
    """A Cholesky factor of an SPD matrix, with noise in the triangle cho_solve must not read."""
    c = np.linalg.cholesky(spd(rng, shape))
    c = c if lower else np.swapaxes(c, -1, -2)
    return c + (np.triu(normal(rng, shape), 1) if lower else np.tril(normal(rng, shape), -1))


def _rhs(rng, n):
    return [normal(rng, (n,)), normal(rng, (n, 2)), normal(rng, (2, n, 2))]


def _band(rng, l_and_u, n):
    """A diagonally dominant band in solve_banded's form; the corners it never reads hold noise."""
    lower, upper = l_and_u
    ab = normal(rng, (lower + upper + 1, n))
    ab[upper] += 4.0 * np.sign(ab[upper])
    return ab


def _triangular_rows():
    rows = []
    for lower in (True, False):
        for trans in (0, 1, "C"):
            for unit in (False, True):
                if unit and trans == "C":
                    continue
                kw = {"trans": trans, "lower": lower, "unit_diagonal": unit}
                label = ",".join(f"{k}={v}" for k, v in kw.items())
                rows.append(custom(f"scipy.linalg.solve_triangular[{label}]",
                                   lambda rng: [(matrix(rng, (3, 3)), b) for b in _rhs(rng, 3)]
                                   + [(matrix(rng, (2, 3, 3)), normal(rng, (3,))),
                                      (matrix(rng, (2, 3, 3)), normal(rng, (3, 1)))],
                                   fn=fsl.solve_triangular, ref=sl.solve_triangular, kwargs=kw))
    return rows


def _lu_factor_samples(rng):
    a = matrix(rng, (3, 3))
    lu_, piv = sl.lu_factor(a)
    return [(lu_, piv, b) for b in _rhs(rng, 3)]


LINALG = [
    square_rows("scipy.linalg.expm", fsl.expm, sl.expm, shapes=((1, 1), (3, 3), (2, 3, 3)), sampler=normal),
    custom("scipy.linalg.expm_frechet", lambda rng: [(normal(rng, (3, 3)), normal(rng, (3, 3))),
                                                      (normal(rng, (2, 2)), normal(rng, (2, 2)))],
           fn=fsl.expm_frechet, ref=sl.expm_frechet),
    custom("scipy.linalg.expm_frechet[compute_expm=False]", lambda rng: [(normal(rng, (3, 3)), normal(rng, (3, 3)))],
           fn=fsl.expm_frechet, ref=sl.expm_frechet, kwargs={"compute_expm": False}),
    square_rows("scipy.linalg.sqrtm", fsl.sqrtm, sl.sqrtm, sampler=spd),
    square_rows("scipy.linalg.sqrtm_nonsymmetric", fsl.sqrtm, sl.sqrtm, shapes=((3, 3),)),
    *_triangular_rows(),
    *[custom(f"scipy.linalg.solve_banded[{lu}]", lambda rng, lu=lu: [(_band(rng, lu, 5), b) for b in _rhs(rng, 5)[:2]],
             fn=lambda ab, b, lu=lu: fsl.solve_banded(lu, ab, b), ref=lambda ab, b, lu=lu: sl.solve_banded(lu, ab, b))
      for lu in ((1, 1), (2, 0), (0, 3), (0, 0))],
    custom("scipy.linalg.solve_sylvester",
           lambda rng: [(normal(rng, (3, 3)), normal(rng, (2, 2)), normal(rng, (3, 2))),
                        (normal(rng, (2, 2)), normal(rng, (2, 2)), normal(rng, (2, 2)))],
           fn=fsl.solve_sylvester, ref=sl.solve_sylvester),
    *[square_rows(f"scipy.linalg.cho_factor[lower={lower}]", lambda a, lower=lower: fsl.cho_factor(fsym(a), lower)[0],
                  lambda a, lower=lower: (np.tril if lower else np.triu)(sl.cho_factor(sym(a), lower)[0]),
                  sampler=spd, shapes=((3, 3),)) for lower in (True, False)],
    *[custom(f"scipy.linalg.cho_solve[lower={lower}]",
             lambda rng, lower=lower: [(_factor(rng, (3, 3), lower), b) for b in _rhs(rng, 3)[:2]],
             fn=lambda c, b, lower=lower: fsl.cho_solve((c, lower), b),
             ref=lambda c, b, lower=lower: sl.cho_solve((c, lower), b)) for lower in (True, False)],
    custom("scipy.linalg.lu", lambda rng: [(normal(rng, s),) for s in RECT], fn=lambda a: tuple(fsl.lu(a)),
           ref=lambda a: tuple(sl.lu(a))),
    custom("scipy.linalg.lu[permute_l=True]", lambda rng: [(normal(rng, (3, 3)),), (normal(rng, (4, 3)),)],
           fn=lambda a: tuple(fsl.lu(a, permute_l=True)), ref=lambda a: tuple(sl.lu(a, permute_l=True))),
    custom("scipy.linalg.lu[p_indices=True]", lambda rng: [(normal(rng, (3, 3)),), (normal(rng, (2, 3, 4)),)],
           fn=lambda a: tuple(fsl.lu(a, p_indices=True)), ref=lambda a: tuple(sl.lu(a, p_indices=True)),
           differentiable=False),
    custom("scipy.linalg.lu_factor", lambda rng: [(normal(rng, s),) for s in RECT], fn=lambda a: fsl.lu_factor(a)[0],
           ref=lambda a: sl.lu_factor(a)[0]),
    custom("scipy.linalg.lu_factor_pivots", lambda rng: [(normal(rng, (4, 4)),), (normal(rng, (2, 3, 3)),)],
           fn=lambda a: tuple(fsl.lu_factor(a)), ref=lambda a: tuple(sl.lu_factor(a)), differentiable=False),
    *[custom(f"scipy.linalg.lu_solve[trans={trans}]",
             lambda rng: [(matrix(rng, (3, 3)), normal(rng, (3,))), (matrix(rng, (3, 3)), normal(rng, (2, 3, 2))),
                          (matrix(rng, (2, 3, 3)), normal(rng, (3,)))],
             fn=lambda a, b, trans=trans: fsl.lu_solve(fsl.lu_factor(a), b, trans=trans),
             ref=lambda a, b, trans=trans: sl.lu_solve(sl.lu_factor(a), b, trans=trans)) for trans in (0, 1)],
    *[custom(f"scipy.linalg.lu_solve_factors[trans={trans}]", _lu_factor_samples,
             fn=lambda lu_, piv, b, trans=trans: fsl.lu_solve((lu_, piv), b, trans=trans),
             ref=lambda lu_, piv, b, trans=trans: sl.lu_solve((lu_, piv), b, trans=trans)) for trans in (0, 1)],
    custom("scipy.linalg.block_diag", lambda rng: [(normal(rng, (2, 3)), normal(rng, (1,)), normal(rng, (2, 2))),
                                                    (normal(rng, (2, 2)),),
                                                    (np.float64(rng.normal()), normal(rng, (3,)))],
           fn=fsl.block_diag, ref=sl.block_diag),
    custom("scipy.linalg.toeplitz", lambda rng: [(normal(rng, (3,)), normal(rng, (4,))),
                                                  (normal(rng, (4,)), normal(rng, (2,))),
                                                  (normal(rng, (2, 3)), normal(rng, (2,)))],
           fn=fsl.toeplitz, ref=sl.toeplitz),
    custom("scipy.linalg.toeplitz_symmetric", lambda rng: [(normal(rng, (3,)),), (normal(rng, (2, 3)),)],
           fn=fsl.toeplitz, ref=sl.toeplitz),
    # scipy.linalg's names for fgrad.numpy.linalg's
    square_rows("scipy.linalg.inv", fsl.inv, sl.inv),
    square_rows("scipy.linalg.det", fsl.det, sl.det),
    custom("scipy.linalg.solve", lambda rng: [(matrix(rng, (3, 3)), b) for b in _rhs(rng, 3)],
           fn=fsl.solve, ref=sl.solve),
    custom("scipy.linalg.solve[transposed=True]", lambda rng: [(matrix(rng, (3, 3)), normal(rng, (3, 2)))],
           fn=lambda a, b: fsl.solve(a, b, transposed=True), ref=lambda a, b: sl.solve(a, b, transposed=True)),
    *[square_rows(f"scipy.linalg.cholesky[lower={lower}]", lambda a, lower=lower: fsl.cholesky(fsym(a), lower=lower),
                  lambda a, lower=lower: sl.cholesky(sym(a), lower=lower), sampler=spd) for lower in (True, False)],
    square_rows("scipy.linalg.eigh", lambda a: (lambda w, v: (w, v * fnp.conj(v)))(*fsl.eigh(fsym(a))),
                lambda a: (lambda w, v: (w, v * np.conj(v)))(*sl.eigh(sym(a))), shapes=((3, 3),), sampler=normal),
    square_rows("scipy.linalg.eigh[eigvals_only=True,lower=False]",
                lambda a: fsl.eigh(fsym(a), lower=False, eigvals_only=True),
                lambda a: sl.eigh(sym(a), lower=False, eigvals_only=True), shapes=((3, 3),), sampler=normal),
    square_rows("scipy.linalg.eigh[subset_by_index]",
                lambda a: fsl.eigh(fsym(a), subset_by_index=(1, 2), eigvals_only=True),
                lambda a: sl.eigh(sym(a), subset_by_index=(1, 2), eigvals_only=True), shapes=((4, 4),), sampler=normal),
    custom("scipy.linalg.qr", lambda rng: [(normal(rng, (3, 3)),), (normal(rng, (3, 4)),)],
           fn=fsl.qr, ref=sl.qr),
    custom("scipy.linalg.qr[mode=economic]", lambda rng: [(normal(rng, s),) for s in RECT[:3]],
           fn=lambda a: fsl.qr(a, mode="economic"), ref=lambda a: sl.qr(a, mode="economic")),
    custom("scipy.linalg.qr[mode=r]", lambda rng: [(normal(rng, s),) for s in RECT[:3]],
           fn=lambda a: fsl.qr(a, mode="r"), ref=lambda a: sl.qr(a, mode="r")),
    custom("scipy.linalg.svd", lambda rng: [(normal(rng, s),) for s in RECT[:3]],
           fn=lambda a: (lambda u, s, vh: (s, u @ vh))(*fsl.svd(a, full_matrices=False)),
           ref=lambda a: (lambda u, s, vh: (s, u @ vh))(*sl.svd(a, full_matrices=False))),
    custom("scipy.linalg.svd[compute_uv=False]", lambda rng: [(normal(rng, s),) for s in RECT[:3]],
           fn=lambda a: fsl.svd(a, compute_uv=False), ref=lambda a: sl.svd(a, compute_uv=False)),
]


# ---- signal: shapes where in2 is smaller, larger, of even and odd sizes, and of mixed sizes
_SIGNAL_SHAPES = {1: [((6,), (3,)), ((5,), (4,)), ((3,), (5,)), ((4,), (4,))],
                  2: [((4, 5), (2, 3)), ((3, 3), (3, 2)), ((2, 3), (3, 4)), ((3, 4), (2, 5))],
                  3: [((3, 4, 3), (2, 3, 2))]}


def _signal_rows(name, fn, ref, ndims, extra=None):
    rows = []
    for mode in ("full", "same", "valid"):
        shapes = [s for n in ndims for s in _SIGNAL_SHAPES[n]]
        if mode == "valid":  # (one input at least as large as the other along every axis)
            shapes = [(a, b) for a, b in shapes
                      if all(x >= y for x, y in zip(a, b)) or all(x <= y for x, y in zip(a, b))]
        rows.append(custom(f"scipy.signal.{name}[mode={mode}]",
                           lambda rng, shapes=shapes: [(normal(rng, a), normal(rng, b)) for a, b in shapes],
                           fn=lambda x, y, mode=mode: fn(x, y, mode),
                           ref=lambda x, y, mode=mode: ref(x, y, mode, **(extra or {}))))
    return rows


SIGNAL = [
    *_signal_rows("convolve", fss.convolve, ss.convolve, (1, 2, 3), {"method": "direct"}),
    *_signal_rows("correlate", fss.correlate, ss.correlate, (1, 2, 3), {"method": "direct"}),
    *_signal_rows("convolve2d", fss.convolve2d, ss.convolve2d, (2,)),
    *_signal_rows("correlate2d", fss.correlate2d, ss.correlate2d, (2,)),
]


INTEGRATE = [
    custom("scipy.integrate.trapezoid", lambda rng: [(uniform(rng, (5,)),), (uniform(rng, (3, 4)),)],
           fn=fsi.trapezoid, ref=si.trapezoid),
    custom("scipy.integrate.trapezoid[x]", lambda rng: [(uniform(rng, (3, 4)), np.sort(uniform(rng, (4,)))),
                                                        (uniform(rng, (3, 4)), uniform(rng, (3, 4)))],
           fn=fsi.trapezoid, ref=si.trapezoid),
    custom("scipy.integrate.trapezoid[axis=0]", lambda rng: [(uniform(rng, (3, 4)), np.sort(uniform(rng, (3,))))],
           fn=lambda y, x: fsi.trapezoid(y, x, axis=0), ref=lambda y, x: si.trapezoid(y, x, axis=0)),
    custom("scipy.integrate.trapezoid[dx]", lambda rng: [(uniform(rng, (2, 5)), np.float64(0.3))],
           fn=lambda y, dx: fsi.trapezoid(y, dx=dx), ref=lambda y, dx: si.trapezoid(y, dx=dx)),
]

_T = np.array([0.0, 0.3, 0.7, 1.0])


def _decay(y0, k):
    """dy/dt = -k y solved by odeint at tolerances tight enough for the table (1e-13): its values,
    jvp (through the solver) and vjp (the adjoint) then agree with the exact solution to ~1e-13."""
    return fsi.odeint(lambda y, t, k: -k * y, y0, _T, k, rtol=1e-13, atol=1e-13)


INTEGRATE.append(custom("scipy.integrate.odeint", lambda rng: [(uniform(rng, (2,)), uniform(rng, (2,), 0.5, 1.5))],
                        fn=_decay, ref=lambda y0, k: y0 * np.exp(-np.outer(_T, k)), second_order=False,
                        one_device=False))  # (the time grid is a CPU constant: test_integrate.py moves it)

SCIPY_OPS = LINALG + SIGNAL + INTEGRATE
