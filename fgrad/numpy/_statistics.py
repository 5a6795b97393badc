"""Order statistics, weighted means, covariances, histograms and the NaN-ignoring reductions.

All are composites of fgrad ops. Quantiles sort and interpolate linearly between neighbours
(NumPy's default method), so they are differentiable in the data as a gather is; which
neighbours depends on where NaNs are (the nan* quantiles: a Python decision, guarded under
fgrad.compile, refused under vmap). Counts (histograms, bincount) are piecewise constant in
the samples, so have no derivative in them; in weights and bin edges they do.
"""
import numpy as np

from ..backend import array_module
from ..ir.value import BatchTracer, Tracer, _has_level, decided, peek
from ..ops import conversion as cv
from ..ops import elementwise as ew
from ._arguments import _as_operand, _check_out, _count, _on_device_of, _on_host, _shape, normalize_axis
from ._creation import full_like, zeros_like
from ._elementwise import abs2, astype, clip
from ._indexing import at, diagonal, take, take_along_axis
from ._reductions import all, amax, amin, argmax, argmin, as_count, cumprod, cumsum, mean, prod, sort, sum, var
from ._shaping import atleast_2d, broadcast_to, concatenate, ravel, reshape, squeeze, transpose

__all__ = ["average", "bincount", "corrcoef", "cov", "histogram", "histogram2d", "histogram_bin_edges",
           "histogramdd", "median", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmedian",
           "nanmin", "nanpercentile", "nanprod", "nanquantile", "nanstd", "nanvar", "percentile", "quantile"]


def _real(what, x):
    """x as an operand; complex values raise (these compute for real data: NumPy's complex
    conventions, conjugates and orderings, are not reproduced)."""
    x = _as_operand(x)
    if x.dtype.kind == "c":
        raise TypeError(f"fgrad.numpy: {what} of complex values are not supported (real values only)")
    return x


# ---- weighted means ---------------------------------------------------------------------
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """np.average: sum(a * w) / sum(w) over axis (the plain mean without weights)."""
    a = _as_operand(a)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        scale = full_like(avg, _count(a, normalize_axis(axis, a.ndim, "average")) if axis is not None
                          else _count(a, None))
        return (avg, scale) if returned else avg
    w = _as_operand(weights)
    if _shape(w) != _shape(a):
        if axis is None or w.ndim != 1:
            raise TypeError("fgrad.numpy.average: weights must have a's shape, or be 1-D along the given axis")
        (ax,) = normalize_axis(axis, a.ndim, "average")
        w = reshape(w, (1,) * ax + _shape(w) + (1,) * (a.ndim - ax - 1))
        w = broadcast_to(w, _shape(a))
    total = sum(w, axis=axis, keepdims=keepdims)
    avg = sum(a * w, axis=axis, keepdims=keepdims) / total
    return (avg, broadcast_to(total, _shape(avg))) if returned else avg


# ---- quantiles -------------------------------------------------------------------------
def _quantile(a, q, axis, keepdims, name, ignore_nan):
    """Linear interpolation between the sorted values around q * (n - 1), n the count of
    (non-NaN) values of each slice; q's axes lead the result, as in NumPy."""
    a = _real("quantiles", a)
    q_arr = np.asarray(q, dtype=np.float64)  # (a traced q raises: the slope in q is not computed)
    if np.any((q_arr < 0) | (q_arr > 1)):
        raise ValueError(f"fgrad.numpy.{name}: quantiles must be in the range [0, 1]")
    if axis is None:
        src, ax, kept_shape = ravel(a), 0, (1,) * a.ndim
    else:
        axes = normalize_axis(axis, a.ndim, name)
        if len(axes) != 1:
            front = tuple(i for i in range(a.ndim) if i not in axes)
            src = reshape(transpose(a, front + axes), tuple(_shape(a)[i] for i in front) + (-1,))
            ax = src.ndim - 1
        else:
            src, ax = a, axes[0]
        kept_shape = tuple(1 if i in axes else d for i, d in enumerate(_shape(a)))
    s = sort(src, axis=ax)
    n = _shape(s)[ax]
    if ignore_nan:
        counts = np.sum(~np.isnan(_on_host(s, f"fgrad.numpy.{name} (where the NaNs are)")), axis=ax,
                        keepdims=True)
    else:
        counts = np.full(_shape(s)[:ax] + (1,) + _shape(s)[ax + 1:], n)
    pos = q_arr.reshape(q_arr.shape + (1,) * s.ndim) * (np.maximum(counts, 1) - 1)  # q axes first
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(counts - 1, 0))
    frac = _on_device_of(a, (pos - lo).astype(a.dtype if a.dtype.kind == "f" else np.float64))
    expand = (1,) * q_arr.ndim
    s_q = broadcast_to(reshape(s, expand + _shape(s)), q_arr.shape + _shape(s))
    full = lambda idx: np.broadcast_to(idx, q_arr.shape + _shape(s)[:ax] + (1,) + _shape(s)[ax + 1:])  # noqa: E731
    lo_v = take_along_axis(s_q, full(lo), axis=q_arr.ndim + ax)
    hi_v = take_along_axis(s_q, full(hi), axis=q_arr.ndim + ax)
    out = lo_v + (hi_v - lo_v) * frac
    if ignore_nan:
        out = ew.where(_on_device_of(a, counts == 0), np.nan, out)
    elif n and a.dtype.kind in "fc":  # (NumPy's: a slice with a NaN has NaN quantiles; sorted last, it is the
        # largest value, which interpolation reads only near q = 1, so the rest came out finite)
        last = take_along_axis(s_q, full(np.full(lo.shape, n - 1)), axis=q_arr.ndim + ax)
        out = ew.where(ew.isnan(last), np.nan, out)
    out = squeeze(out, axis=q_arr.ndim + ax)
    if keepdims:
        out = reshape(out, q_arr.shape + kept_shape)
    return out


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    _check_method("quantile", method, weights, out)
    return _quantile(a, q, axis, keepdims, "quantile", False)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    _check_method("percentile", method, weights, out)
    return _quantile(a, np.asarray(q) / 100.0, axis, keepdims, "percentile",
                     False)


def _bools_as_float(a):
    """A bool operand as float64: NumPy's median and nanmedian take the mean of the middle
    values of bools (its quantile refuses them, subtracting bools)."""
    a = _as_operand(a)
    return astype(a, np.float64) if a.dtype == np.bool_ else a


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    _check_method("median", "linear", None, out)
    return _quantile(_bools_as_float(a), 0.5, axis, keepdims, "median", False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None):
    _check_method("nanquantile", method, weights, out)
    return _quantile(a, q, axis, keepdims, "nanquantile", True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    _check_method("nanpercentile", method, weights, out)
    return _quantile(a, np.asarray(q) / 100.0, axis, keepdims,
                     "nanpercentile", True)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    _check_method("nanmedian", "linear", None, out)
    return _quantile(_bools_as_float(a), 0.5, axis, keepdims, "nanmedian", True)


def _check_method(name, method, weights, out):
    _check_out(name, out)
    if method != "linear" or weights is not None:
        raise NotImplementedError(f"fgrad.numpy.{name}: only method='linear' without weights is implemented "
                                  f"(got method={method!r}{', weights' if weights is not None else ''})")


# ---- NaN-ignoring reductions -------------------------------------------------------------
def _masked(a, fill):
    """a, and a with `fill` where it is NaN (for a complex a, where either part is: NumPy's isnan)."""
    a = _as_operand(a)
    return a, ew.where(ew.isnan(a), fill, a) if a.dtype.kind in "fc" else a


def nanmax(a, axis=None, out=None, keepdims=False):
    """max ignoring NaN (NaN where a slice is all NaN, as NumPy, which also warns)."""
    a, filled = _masked(a, -np.inf)
    if a.dtype.kind not in "fc":  # (no NaN: max's, in a's dtype, as NumPy's; the NaN fill made float64)
        return amax(a, axis=axis, out=out, keepdims=keepdims)
    all_nan = all(ew.isnan(a), axis=axis, keepdims=keepdims)
    return ew.where(all_nan, np.nan, amax(filled, axis=axis, out=out, keepdims=keepdims))


def nanmin(a, axis=None, out=None, keepdims=False):
    a, filled = _masked(a, np.inf)
    if a.dtype.kind not in "fc":
        return amin(a, axis=axis, out=out, keepdims=keepdims)
    all_nan = all(ew.isnan(a), axis=axis, keepdims=keepdims)
    return ew.where(all_nan, np.nan, amin(filled, axis=axis, out=out, keepdims=keepdims))


def _nanarg(name, arg, a, fill, axis, out, keepdims):
    """argmax/argmin of a with NaNs as `fill`; an all-NaN slice raises NumPy's ValueError
    (a Python decision on where the NaNs are, guarded under fgrad.compile); under vmap, where
    no example may raise, its index is -1 (JAX's)."""
    a, filled = _masked(a, fill)
    index = arg(filled, axis=axis, out=out, keepdims=keepdims)
    if a.dtype.kind not in "fc":
        return index
    all_nan = all(ew.isnan(a), axis=axis, keepdims=keepdims)
    if _has_level(all_nan, BatchTracer):
        return ew.where(all_nan, -1, index)
    if np.any(_on_host(all_nan, f"fgrad.numpy.{name} (where the NaNs are)")):
        raise ValueError("All-NaN slice encountered")
    return index


def nanargmax(a, axis=None, out=None, keepdims=False):
    return _nanarg("nanargmax", argmax, a, -np.inf, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=False):
    return _nanarg("nanargmin", argmin, a, np.inf, axis, out, keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    return prod(_masked(a, 1.0)[1], axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    return cumsum(_masked(a, 0.0)[1], axis=axis, dtype=dtype, out=out)


def nancumprod(a, axis=None, dtype=None, out=None):
    return cumprod(_masked(a, 1.0)[1], axis=axis, dtype=dtype, out=out)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a, filled = _masked(a, 0.0)
    if a.dtype.kind not in "fc":  # (no NaN: var's, as NumPy's)
        return var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)
    valid = ew.logical_not(ew.isnan(a))
    if dtype is not None:  # (computed in it, as NumPy's)
        filled = astype(filled, dtype)
    values = filled.dtype if filled.dtype.kind in "fc" else np.dtype(np.float64)
    n = as_count(sum(valid, axis=axis, keepdims=True), values)  # (float32 values keep float32, as NumPy's)
    d = ew.where(valid, filled - sum(filled, axis=axis, keepdims=True) / n, 0.0)
    dof = n - ddof  # (NaN where it is not positive, as NumPy's: an all-NaN slice with ddof=1 gave -0.0)
    out = ew.where(dof > 0, sum(abs2(d), axis=axis, keepdims=True) / ew.where(dof > 0, dof, 1), np.nan)
    return out if keepdims else squeeze(out, axis=axis) if axis is not None else reshape(out, ())


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return ew.sqrt(nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims))


# ---- covariance ------------------------------------------------------------------------
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """np.cov (NumPy's algorithm, in fgrad ops): differentiable in m, y and aweights."""
    x = atleast_2d(_as_operand(m))
    if not rowvar and x.shape[0] != 1:
        x = transpose(x)
    if y is not None:
        y = atleast_2d(_as_operand(y))
        if not rowvar and y.shape[0] != 1:
            y = transpose(y)
        x = concatenate([x, y], axis=0)
    if dtype is not None:
        x = astype(x, dtype)
    elif x.dtype != np.result_type(x.dtype, np.float64):  # (NumPy's: float32 data in float64 too)
        x = astype(x, np.result_type(x.dtype, np.float64))
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None
    if fweights is not None:
        w = _as_operand(fweights)
    if aweights is not None:
        aw = _as_operand(aweights)
        aw = astype(aw, np.float64) if aw.dtype.kind == "c" else aw  # (NumPy's cast: real weights)
        w = aw if w is None else w * aw
    if w is None:
        avg = mean(x, axis=1, keepdims=True)
        fact = x.shape[1] - ddof
        fact = fact if fact > 0 else 0.0  # (NumPy's: no degrees of freedom divide by 0, inf, not a negative count)
        xm = x - avg
        c = (xm @ _adjoint(xm)) / fact
    else:
        v1 = sum(w)
        avg = sum(x * w, axis=1, keepdims=True) / v1
        fact = v1 - ddof if aweights is None else v1 - ddof * sum(w * aw) / v1
        fact = ew.where(fact > 0, fact, 0.0)  # (as above)
        xm = x - avg
        c = (xm @ _adjoint(xm * w)) / fact  # (as NumPy: X conj(X w)^T)
    return squeeze(c) if c.shape == (1, 1) else c


def _adjoint(x):
    """x's conjugate transpose (NumPy's cov conjugates complex data)."""
    x = transpose(x)
    return cv.conj(x) if x.dtype.kind == "c" else x


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """np.corrcoef: cov normalized by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    complex_values = c.dtype.kind == "c"
    d = ew.sqrt(cv.real(diagonal(c)) if complex_values and isinstance(c, Tracer) else
                np.real(diagonal(c)) if complex_values else diagonal(c))
    c = c / d[:, None] / d[None, :]
    if not complex_values:
        return clip(c, -1, 1)
    parts = (cv.real(c), cv.imag(c)) if isinstance(c, Tracer) else (np.real(c), np.imag(c))
    return clip(parts[0], -1, 1) + clip(parts[1], -1, 1) * 1j  # (each part clipped, as NumPy)


# ---- counting ---------------------------------------------------------------------------
def bincount(x, weights=None, minlength=0):
    """Counts of each integer in x (no derivative in x); with weights, their sums (differentiable
    in the weights)."""
    idx = _on_device_of(x, decided(x, "fgrad.numpy.bincount's x"))  # (x's device: CuPy counts on the GPU)
    if weights is None or not isinstance(weights, Tracer):
        return array_module(idx).bincount(idx, weights=None if weights is None else peek(weights),
                                          minlength=minlength)
    n = max(int(idx.max()) + 1 if idx.size else 0, minlength)
    w = _as_operand(weights)
    return at(zeros_like(w, shape=(n,), dtype=w.dtype))[idx].add(w)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges: from a's minimum and maximum when `bins` is a count (differentiable in a
    there, as JAX's), else as given."""
    a = _real("histogram_bin_edges", a)
    if isinstance(bins, str):
        return np.histogram_bin_edges(np.asarray(a), bins, range)  # (edges from a's spread: a traced a raises)
    if np.ndim(bins) == 1:
        return _as_operand(bins) if isinstance(bins, Tracer) else np.asarray(bins, dtype=np.result_type(a, 0.0))
    if range is None:
        lo, hi = amin(a), amax(a)
    else:
        lo, hi = range
    same = decided(lo, "a histogram's range") == decided(hi, "a histogram's range")
    if same:
        lo, hi = lo - 0.5, hi + 0.5
    if not (isinstance(lo, Tracer) or isinstance(hi, Tracer)):
        return array_module(peek(a)).linspace(lo, hi, int(bins) + 1)
    return lo + (hi - lo) * _on_device_of(a, np.linspace(0.0, 1.0, int(bins) + 1))


def histogram(a, bins=10, range=None, density=None, weights=None):
    """(counts, edges): counts have no derivative in a; weights' sums and density do."""
    a = _real("histogram", a)  # (bins are intervals of real values)
    edges = histogram_bin_edges(a, bins, range, weights)
    flat = np.ravel(_on_host(a, "fgrad.numpy.histogram's samples"))
    e = _on_host(edges, "fgrad.numpy.histogram's edges")
    index = np.searchsorted(e, flat, side="right") - 1
    index[flat == e[-1]] = len(e) - 2  # (the last bin is closed on the right)
    inside = (index >= 0) & (index < len(e) - 1)
    w = None if weights is None else ravel(_as_operand(weights))
    if w is None:
        counts = np.bincount(index[inside], minlength=len(e) - 1)
        counts = _on_device_of(a, counts if not density else counts.astype(np.float64))
    else:
        counts = bincount(_on_device_of(w, index[inside]), weights=take(w, np.flatnonzero(inside)),
                          minlength=len(e) - 1)
    if density:
        return counts / sum(counts) / (edges[1:] - edges[:-1]), edges
    return counts, edges


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's, on the values. Its edges (from the samples' range) and weighted counts have
    derivatives this does not compute, so traced samples or weights raise under a
    differentiating transform (as any conversion that would drop a derivative)."""
    values = np.asarray(sample)
    w = None if weights is None else np.asarray(weights)
    return np.histogramdd(values, bins=bins, range=range, density=density, weights=w)


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """As histogramdd, for two coordinates."""
    w = None if weights is None else np.asarray(weights)
    return np.histogram2d(np.asarray(x), np.asarray(y), bins=bins, range=range, density=density, weights=w)
