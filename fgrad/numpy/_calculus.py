"""Differences, derivatives and integrals of sampled data, interpolation, 1-D convolution
and polynomials: composites of fgrad ops, differentiable in every array argument. What
depends on values piecewise constantly (interp's interval, unwrap's jumps) is computed by
ops too (a search, a remainder), so fgrad.compile stages it rather than guarding the
values, and vmap maps it.
"""
import numpy as np

from ..ir.value import Tracer, decided
from ..ops import elementwise as ew
from ..ops.conversion import conj
from ._arguments import _as_operand, _on_device_of, _shape, normalize_axis
from ._creation import ones_like, zeros_like
from ._elementwise import astype, clip
from ._reductions import cumsum, sum
from ._sets import searchsorted
from ._shaping import atleast_1d, broadcast_to, concatenate, flip, ravel, reshape, stack
from .linalg import pinv

__all__ = ["convolve", "correlate", "diff", "ediff1d", "gradient", "interp", "poly", "polyadd", "polyder",
           "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval", "roots", "trapezoid", "unwrap",
           "vander"]


def _real(name, x):
    x = _as_operand(x)
    if x.dtype.kind == "c":
        raise TypeError(f"fgrad.numpy.{name}: complex values are not supported (real values only)")
    return x


def _slice(ndim, axis, s):
    return (slice(None),) * axis + (s,) + (slice(None),) * (ndim - axis - 1)


# ---- differences --------------------------------------------------------------------------
def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    a = _as_operand(a)
    (axis,) = normalize_axis(axis, a.ndim, "diff")
    parts = [a]
    for extra, where in ((prepend, 0), (append, 1)):
        if extra is not np._NoValue:
            e = extra if isinstance(extra, Tracer) or hasattr(extra, "shape") else _on_device_of(a, extra)
            if e.ndim == 0:
                shape = list(_shape(a))
                shape[axis] = 1
                e = broadcast_to(e, tuple(shape))
            parts.insert(0 if where == 0 else len(parts), e)
    if len(parts) > 1:
        a = concatenate(parts, axis=axis)
    for _ in range(n):
        a = a[_slice(a.ndim, axis, slice(1, None))] - a[_slice(a.ndim, axis, slice(None, -1))]
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    d = diff(ravel(_as_operand(ary)))

    def part(x):
        return ravel(x if isinstance(x, Tracer) or hasattr(x, "shape") else _on_device_of(d, x))
    parts = [part(x) for x in (to_begin,) if x is not None] + [d] + [part(x) for x in (to_end,) if x is not None]
    return concatenate(parts) if len(parts) > 1 else d


def gradient(f, *varargs, axis=None, edge_order=1):
    """Second-order central differences inside, first- or second-order one-sided at the
    edges; spacings as NumPy takes them (a scalar per axis, or coordinates)."""
    f = _as_operand(f)
    if f.dtype.kind in "iu":  # (NumPy's: integers in float64, else unsigned differences wrap: [1, 0] gave 255)
        f = astype(f, np.float64)
    axes = tuple(range(f.ndim)) if axis is None else normalize_axis(axis, f.ndim, "gradient")
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("fgrad.numpy.gradient: give one spacing, or one per axis")
    if edge_order not in (1, 2):
        raise ValueError("fgrad.numpy.gradient: edge_order must be 1 or 2")
    spacing = [astype(h, np.float64) if np.ndim(h) and _as_operand(h).dtype.kind in "iu" else h for h in spacing]
    out = [_gradient_along(f, ax, h, edge_order) for ax, h in zip(axes, spacing)]
    return out[0] if len(out) == 1 else tuple(out)


def _gradient_along(f, ax, h, edge_order):
    n = _shape(f)[ax]
    if n < edge_order + 1:
        raise ValueError("fgrad.numpy.gradient: too few points along an axis for the edge order")
    at = lambda s: f[_slice(f.ndim, ax, s)]  # noqa: E731
    shape = [1] * f.ndim
    shape[ax] = -1
    if np.ndim(h) == 0:
        interior = (at(slice(2, None)) - at(slice(None, -2))) / (2.0 * h)
        if edge_order == 1:
            first = (at(slice(1, 2)) - at(slice(0, 1))) / h
            last = (at(slice(-1, None)) - at(slice(-2, -1))) / h
        else:
            first = -(3.0 * at(slice(0, 1)) - 4.0 * at(slice(1, 2)) + at(slice(2, 3))) / (2.0 * h)
            last = (3.0 * at(slice(-1, None)) - 4.0 * at(slice(-2, -1)) + at(slice(-3, -2))) / (2.0 * h)
    else:
        x = _as_operand(h)
        d = diff(x)
        dx1, dx2 = reshape(d[:-1], shape), reshape(d[1:], shape)
        a, c = -dx2 / (dx1 * (dx1 + dx2)), dx1 / (dx2 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        interior = a * at(slice(None, -2)) + b * at(slice(1, -1)) + c * at(slice(2, None))
        if edge_order == 1:
            first = (at(slice(1, 2)) - at(slice(0, 1))) / d[0]
            last = (at(slice(-1, None)) - at(slice(-2, -1))) / d[-1]
        else:
            p, q = d[0], d[1]
            first = (-(2.0 * p + q) / (p * (p + q)) * at(slice(0, 1)) + (p + q) / (p * q) * at(slice(1, 2))
                     - p / (q * (p + q)) * at(slice(2, 3)))
            p, q = d[-2], d[-1]
            last = (q / (p * (p + q)) * at(slice(-3, -2)) - (q + p) / (p * q) * at(slice(-2, -1))
                    + (2.0 * q + p) / (q * (p + q)) * at(slice(-1, None)))
    return concatenate([first, interior, last], axis=ax)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = _as_operand(y)
    (axis,) = normalize_axis(axis, y.ndim, "trapezoid")
    if x is None:
        d = dx
    else:
        d = diff(_as_operand(x))
        if d.ndim == 1:
            shape = [1] * y.ndim
            shape[axis] = -1
            d = reshape(d, tuple(shape))
        else:
            d = diff(_as_operand(x), axis=axis)
    mid = (y[_slice(y.ndim, axis, slice(1, None))] + y[_slice(y.ndim, axis, slice(None, -1))]) / 2.0
    return sum(d * mid, axis=axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """p plus the multiples of `period` that undo its jumps (NumPy's algorithm in fgrad ops: the
    correction is piecewise constant, so its derivative is 0, and fgrad.compile stages it)."""
    p = _as_operand(p)
    (axis,) = normalize_axis(axis, p.ndim, "unwrap")
    discont = period / 2 if discont is None else discont
    dd = diff(p, axis=axis)
    half = period / 2
    ddmod = ew.remainder(dd + half, period) - half
    ddmod = ew.where(ew.logical_and(ew.equal(ddmod, -half), ew.greater(dd, 0)), half, ddmod)
    correct = ew.where(ew.less(ew.absolute(dd), discont), 0.0, ddmod - dd)
    shape = list(_shape(p))
    shape[axis] = 1
    return p + concatenate([zeros_like(p, shape=tuple(shape)), cumsum(correct, axis=axis)], axis=axis)


# ---- interpolation ----------------------------------------------------------------------
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation, differentiable in x, xp and fp; the interval each x falls
    in is a search (no derivative), a step of the program under fgrad.compile."""
    if period is not None:
        raise NotImplementedError("fgrad.numpy.interp: period= is not implemented")
    x, xp, fp = (_real("interp", v) for v in (x, xp, fp))
    n = _shape(xp)[0]
    if n == 1:
        out = broadcast_to(fp[0], _shape(x)) + 0.0 * x
    else:
        i = clip(searchsorted(xp, x, side="right") - 1, 0, n - 2)
        x0, x1, f0, f1 = xp[i], xp[i + 1], fp[i], fp[i + 1]
        out = f0 + (f1 - f0) / (x1 - x0) * (x - x0)
    out = ew.where(ew.less(x, xp[0]), fp[0] if left is None else left, out)
    return ew.where(ew.greater(x, xp[-1]), fp[-1] if right is None else right, out)


# ---- 1-D convolution -----------------------------------------------------------------------
def convolve(a, v, mode="full"):
    """np.convolve: a Toeplitz matrix of v (gathered by static indices) times a."""
    a, v = ravel(_as_operand(a)), ravel(_as_operand(v))
    na, nv = _shape(a)[0], _shape(v)[0]
    if na == 0 or nv == 0:
        raise ValueError("fgrad.numpy.convolve: inputs cannot be empty")
    if nv > na:
        a, v, na, nv = v, a, nv, na
    full = na + nv - 1
    start, length = {"full": (0, full), "same": ((nv - 1) // 2, na), "valid": (nv - 1, na - nv + 1)}[_mode(mode)]
    rows = np.arange(start, start + length)[:, None] - np.arange(na)[None, :]  # out[n] = sum_k a[k] v[n - k]
    inside = _on_device_of(v, (rows >= 0) & (rows < nv))
    matrix = ew.where(inside, v[np.clip(rows, 0, nv - 1)], 0.0)
    return sum(matrix * a[None, :], axis=1)


def correlate(a, v, mode="valid"):
    """np.correlate: c[k] = sum_n a[n + k] conj(v[n]) (NumPy conjugates a complex v)."""
    v = _as_operand(v)
    a, v = ravel(_as_operand(a)), ravel(conj(v) if v.dtype.kind == "c" else v)
    if _shape(v)[0] > _shape(a)[0]:
        return flip(convolve(v, a[::-1], mode=mode))
    return convolve(a, v[::-1], mode=mode)


def _mode(mode):
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"fgrad.numpy.convolve: mode must be 'full', 'same' or 'valid', got {mode!r}")
    return mode


# ---- polynomials (highest power first, as numpy.poly*) --------------------------------
def _coeffs(p):
    p = atleast_1d(_as_operand(p))
    if p.ndim != 1:
        raise ValueError("fgrad.numpy: polynomial coefficients must be 1-D")
    return p


def polyval(p, x):
    """Horner's scheme."""
    p = _coeffs(p)
    x = _as_operand(x)
    y = zeros_like(x, dtype=np.result_type(p.dtype, x.dtype)) + p[0]
    for k in range(1, _shape(p)[0]):
        y = y * x + p[k]
    return y


def vander(x, N=None, increasing=False):
    x = _as_operand(x)
    n = _shape(x)[0] if N is None else N
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    return ew.power(x[:, None], _on_device_of(x, powers[None, :].astype(x.dtype if x.dtype.kind in "fc"
                                                                             else np.int64)))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least squares (NumPy's column scaling, then the pseudo-inverse); `full` and `cov` are
    not implemented."""
    if full or cov:
        raise NotImplementedError("fgrad.numpy.polyfit: full= and cov= are not implemented")
    x, y = _as_operand(x), _as_operand(y)
    lhs = vander(astype(x, np.result_type(x.dtype, np.float64)) if x.dtype.kind != "f" else x, deg + 1)
    rhs = y
    if w is not None:
        w = _as_operand(w)
        lhs = lhs * w[:, None]
        rhs = rhs * (w if y.ndim == 1 else w[:, None])
    scale = ew.sqrt(sum(lhs * lhs, axis=0))
    c = pinv(lhs / scale) @ rhs
    return c / (scale if y.ndim == 1 else scale[:, None])


def polyder(p, m=1):
    p = _coeffs(p)
    for _ in range(m):
        n = _shape(p)[0] - 1
        if n <= 0:
            return zeros_like(p[:1])
        p = p[:-1] * _on_device_of(p, np.arange(n, 0, -1).astype(p.dtype if p.dtype.kind in "fc" else np.float64))
    return p


def polyint(p, m=1, k=None):
    p = _coeffs(p)
    k = 0.0 if k is None else k
    ks = [k] * m if isinstance(k, Tracer) or np.ndim(k) == 0 else list(k)  # (one constant, or one per step)
    for i in range(m):
        n = _shape(p)[0]
        k_i = ks[i] if isinstance(ks[i], Tracer) else _on_device_of(p, np.asarray(ks[i], dtype=np.float64))
        p = concatenate([p / _on_device_of(p, np.arange(n, 0, -1).astype(np.float64)),
                         reshape(k_i + 0.0, (1,))])
    return p


def _padded(a, b):
    na, nb = _shape(a)[0], _shape(b)[0]
    if na < nb:
        a = concatenate([zeros_like(b[:nb - na]), a])
    elif nb < na:
        b = concatenate([zeros_like(a[:na - nb]), b])
    return a, b


def polyadd(a1, a2):
    a, b = _padded(_coeffs(a1), _coeffs(a2))
    return a + b


def polysub(a1, a2):
    a, b = _padded(_coeffs(a1), _coeffs(a2))
    return a - b


def polymul(a1, a2):
    return convolve(_coeffs(a1), _coeffs(a2))


def polydiv(u, v):
    """(quotient, remainder) by long division; the remainder's leading zeros are trimmed as
    NumPy trims them (a decision on the values)."""
    u, v = _coeffs(u), _coeffs(v)
    m, n = _shape(u)[0] - 1, _shape(v)[0] - 1
    r = [u[i] + 0.0 for i in range(m + 1)]
    q = []
    for k in range(max(m - n + 1, 0)):
        d = r[k] / v[0]
        q.append(d)
        for j in range(n + 1):
            r[k + j] = r[k + j] - d * v[j]
    quotient = stack(q) if q else zeros_like(u[:1])
    rem = stack(r)
    while _shape(rem)[0] > 1 and np.allclose(decided(rem[0], "fgrad.numpy.polydiv's remainder"), 0, rtol=1e-14):
        rem = rem[1:]
    return quotient, rem


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with these (real) roots; of a square matrix,
    its characteristic polynomial (NumPy's, through eigenvalues: no derivative implemented,
    so traced matrices raise under a differentiating transform)."""
    z = _as_operand(seq_of_zeros)
    if z.ndim == 2 and _shape(z)[0] == _shape(z)[1] and _shape(z)[0] > 0:
        return np.poly(np.asarray(z))
    c = ones_like(ravel(z)[:1]) if _shape(ravel(z))[0] else np.ones(1)
    for k in range(_shape(ravel(z))[0]):
        c = convolve(c, stack([ones_like(z[k]), -z[k]]))
    return c


def roots(p):
    """NumPy's (eigenvalues of the companion matrix, complex in general): no derivative is
    implemented, so traced coefficients raise under a differentiating transform."""
    return np.roots(np.asarray(p))
