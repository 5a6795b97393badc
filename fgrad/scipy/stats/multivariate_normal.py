"""The multivariate normal distribution, as scipy.stats.multivariate_normal (and
jax.scipy.stats.multivariate_normal).

logpdf and pdf are differentiable in x, mean and cov, entropy in cov. As SciPy, cov may be a scalar (times
the identity), a vector (a diagonal) or a matrix, of which the lower triangle is read; as
fgrad's cholesky and eigh (Note [symmetric gradients] in fgrad/ops/linalg.py), the derivative
with respect to a matrix cov is that of the function on symmetric matrices, so gradients
come out symmetric. The last axis of x holds the components (a 1-D x is one point, or, for a
1-dimensional distribution, a vector of points); the result is squeezed, as SciPy's.

With allow_singular=False (the default) a matrix cov is factored by Cholesky; as SciPy, a
plain cov that is singular raises LinAlgError, and one that is not positive semidefinite
ValueError (a traced cov is not read for this: Cholesky raises where it fails). With allow_singular=True the
density is SciPy's on the support of a singular cov: through eigh, with SciPy's cutoff for
negligible eigenvalues, the pseudo-determinant and the pseudo-inverse, and -inf off the
support; its derivative is eigh's, defined where cov's eigenvalues are distinct.
"""
import numpy as np

from ... import backend as fgrad_backend
from ... import numpy as fnp
from ...ir.value import Tracer
from ...ops.stop_gradient import stop_gradient
from .. import linalg as _linalg
from ._util import inf, nan, promote, quiet

__all__ = ["entropy", "logpdf", "pdf"]

_LOG_2PI = float(np.log(2 * np.pi))


def _parameters(x, mean, cov):
    """(dim, x with the components on its last axis, mean, cov), as SciPy's
    _process_parameters_psd and _process_quantiles."""
    given = [v for v in (x, mean, cov) if v is not None]
    promoted = iter(promote(*given))
    x, mean, cov = (None if v is None else next(promoted) for v in (x, mean, cov))
    if mean is None:
        dim = 1 if fnp.ndim(cov) < 2 else fnp.shape(cov)[0]
    else:
        dim = int(np.prod(fnp.shape(mean), dtype=np.int64))
    if dim == 1:
        mean = None if mean is None else fnp.reshape(mean, (1,))
        cov = fnp.reshape(cov, (1, 1))
    if mean is not None and (fnp.ndim(mean) != 1 or fnp.shape(mean)[0] != dim):
        raise ValueError(f"Array 'mean' must be a vector of length {dim}.")
    if fnp.ndim(cov) == 1 and fnp.shape(cov)[0] != dim:
        raise ValueError(f"Array 'cov' must be of length {dim} if it is one dimensional, but cov.shape = "
                         f"{fnp.shape(cov)}.")
    if fnp.ndim(cov) == 2 and fnp.shape(cov) != (dim, dim):
        rows, cols = fnp.shape(cov)
        if rows != cols:
            raise ValueError(f"Array 'cov' must be square if it is two dimensional, but cov.shape = "
                             f"{fnp.shape(cov)}.")
        raise ValueError(f"Dimension mismatch: array 'cov' is of shape {fnp.shape(cov)}, but 'mean' is a vector "
                         f"of length {dim}.")
    if fnp.ndim(cov) > 2:
        raise ValueError(f"Array 'cov' must be at most two-dimensional, but cov.ndim = {fnp.ndim(cov)}")
    if x is None:  # (entropy: the parameters alone)
        return dim, None, mean, cov
    if fnp.ndim(x) == 0:
        x = fnp.reshape(x, (1,))
    elif fnp.ndim(x) == 1:
        x = fnp.reshape(x, (-1, 1) if dim == 1 else (1, -1))
    if fnp.shape(x)[-1] != dim:
        raise ValueError(f"fgrad.scipy.stats.multivariate_normal: x has {fnp.shape(x)[-1]} components on its last "
                         f"axis, but the distribution has {dim}")
    return dim, x, mean, cov


def _maha_cholesky(dev, cov):
    """(Mahalanobis distance squared, log det cov) for a positive definite matrix cov."""
    chol = fnp.linalg.cholesky(cov)
    d = fnp.shape(dev)[-1]
    flat = fnp.transpose(fnp.reshape(dev, (-1, d)))
    white = _linalg.solve_triangular(chol, flat, lower=True)
    maha = fnp.reshape(fnp.sum(white * white, axis=0), fnp.shape(dev)[:-1])
    return maha, 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))


def _singular(dev, cov, dim):
    """SciPy's _PSD: (Mahalanobis distance squared by the pseudo-inverse, log of the
    pseudo-determinant, rank, x off the support, cov not positive semidefinite)."""
    if fnp.ndim(cov) == 2:
        s, u = fnp.linalg.eigh(cov)
        rotated = fnp.matmul(dev, u)
    else:  # a scalar or a diagonal: its eigenvectors are the axes
        s = cov * fnp.ones_like(dev[(0,) * (fnp.ndim(dev) - 1)]) if fnp.ndim(cov) == 0 else cov
        rotated = dev
    fixed = stop_gradient(s)
    cond = float(1e6 * np.finfo(np.float64).eps if s.dtype == np.float64 else 1e3 * np.finfo(np.float32).eps)
    eps = cond * fnp.max(fnp.abs(fixed))  # (SciPy's _eigvalsh_to_eps)
    large = fixed > eps
    safe = fnp.where(large, s, 1.0)
    maha = fnp.sum(fnp.where(large, rotated * rotated / safe, 0.0), axis=-1)
    log_pdet = fnp.sum(fnp.where(large, fnp.log(safe), 0.0))
    rank = fnp.sum(fnp.astype(large, s.dtype))
    residual = fnp.sqrt(fnp.sum(fnp.where(large, 0.0, rotated * rotated), axis=-1))
    return maha, log_pdet, rank, residual >= 1e3 * eps, fnp.min(fixed) < -eps


def _check_plain(cov, dim, allow_singular):
    """SciPy's errors for a plain (not traced) cov: ValueError where it is not positive
    semidefinite, LinAlgError where it is singular and allow_singular is False (a traced cov
    is not read: there, a singular cov gives what Cholesky or eigh gives)."""
    if isinstance(cov, Tracer):
        return
    c = np.asarray(fgrad_backend.device("cpu").send(cov), dtype=np.float64)
    s = np.linalg.eigvalsh(c) if c.ndim == 2 else np.broadcast_to(c, (dim,))
    eps = 1e6 * np.finfo(np.float64).eps * np.max(np.abs(s))
    if np.min(s) < -eps:
        raise ValueError("The input matrix must be symmetric positive semidefinite.")
    if not allow_singular and np.any(s <= eps):
        raise np.linalg.LinAlgError("When `allow_singular is False`, the input matrix must be symmetric positive "
                                    "definite.")


@quiet
def logpdf(x, mean=None, cov=1, allow_singular=False):
    """log of the density at x, as scipy.stats.multivariate_normal.logpdf."""
    dim, x, mean, cov = _parameters(x, mean, cov)
    _check_plain(cov, dim, allow_singular)
    dev = x if mean is None else x - mean
    if allow_singular:
        maha, log_det, rank, off, not_psd = _singular(dev, cov, dim)
        out = -0.5 * (rank * _LOG_2PI + log_det + maha)
        out = fnp.where(not_psd, nan, fnp.where(off, -inf, out))
    else:
        if fnp.ndim(cov) == 2:
            maha, log_det = _maha_cholesky(dev, cov)
        elif fnp.ndim(cov) == 1:
            maha, log_det = fnp.sum(dev * dev / cov, axis=-1), fnp.sum(fnp.log(cov))
        else:
            maha, log_det = fnp.sum(dev * dev, axis=-1) / cov, dim * fnp.log(cov)
        out = -0.5 * (dim * _LOG_2PI + log_det + maha)
    return fnp.squeeze(out)


def pdf(x, mean=None, cov=1, allow_singular=False):
    """The density at x, as scipy.stats.multivariate_normal.pdf."""
    return fnp.exp(logpdf(x, mean, cov, allow_singular))


@quiet
def entropy(mean=None, cov=1):
    """The differential entropy, (rank (log(2 pi) + 1) + log pdet(cov)) / 2, as
    scipy.stats.multivariate_normal.entropy, which reads cov as allow_singular=True does (mean
    gives only the dimension)."""
    dim, _, mean, cov = _parameters(None, mean, cov)
    _check_plain(cov, dim, allow_singular=True)
    _, log_pdet, rank, _, not_psd = _singular(fnp.zeros_like(cov, shape=(1, dim)), cov, dim)
    return fnp.where(not_psd, nan, 0.5 * (rank * (_LOG_2PI + 1) + log_pdet))
