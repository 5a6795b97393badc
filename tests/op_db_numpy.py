"""Op-database rows for fgrad.numpy's statistics, calculus, polynomials, selections, sets,
shaping and array-API functions (see op_db.py)."""
import numpy as np

import fgrad.numpy as fnp

from .op_db import custom, distinct, uniform

NAN_AT = np.array([[0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]], dtype=bool)  # (NaNs for the nan* rows)


def with_nans(rng, shape=(3, 4)):
    return np.where(NAN_AT, np.nan, distinct(rng, shape) * 4 - 2)


def pos(rng, shape):
    return uniform(rng, shape, 0.5, 2.0)


def increasing(rng, n):
    return np.cumsum(uniform(rng, (n,), 0.3, 1.0))


def row(name, samples, fn, ref, **kw):
    return custom(name, samples, fn=fn, ref=ref, **kw)


def same(name, samples, call, **kw):
    """A row calling the same expression with fgrad.numpy and with NumPy (`call(m, *args)`)."""
    return row(name, samples, lambda *a: call(fnp, *a), lambda *a: call(np, *a), **kw)


NUMPY_OPS = [
    # ---- statistics
    same("average", lambda rng: [(uniform(rng, (3, 4)), pos(rng, (3, 4)))], lambda m, x, w: m.average(x, 1, w)),
    same("average[1-D weights]", lambda rng: [(uniform(rng, (3, 4)), pos(rng, (4,)))],
         lambda m, x, w: m.average(x, axis=1, weights=w)),
    same("median", lambda rng: [(distinct(rng, (3, 5)),), (distinct(rng, (4,)),)], lambda m, x: m.median(x, axis=-1)),
    same("median[all]", lambda rng: [(distinct(rng, (3, 4)),)], lambda m, x: m.median(x)),
    same("quantile", lambda rng: [(distinct(rng, (3, 5)),)], lambda m, x: m.quantile(x, [0.1, 0.75], axis=1)),
    same("quantile[keepdims]", lambda rng: [(distinct(rng, (3, 5)),)],
         lambda m, x: m.quantile(x, 0.3, axis=(0, 1), keepdims=True)),
    same("percentile", lambda rng: [(distinct(rng, (4, 3)),)], lambda m, x: m.percentile(x, 40.0, axis=0)),
    same("nanmedian", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanmedian(x, axis=1), batchable=False),
    same("nanquantile", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanquantile(x, [0.2, 0.9], axis=1),
         batchable=False),
    same("nanpercentile", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanpercentile(x, 30.0, axis=1),
         batchable=False),
    same("nanmax", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanmax(x, axis=1)),
    same("nanmin", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanmin(x, axis=0)),
    same("nanprod", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanprod(x, axis=1)),
    same("nancumsum", lambda rng: [(with_nans(rng),)], lambda m, x: m.nancumsum(x, axis=1)),
    same("nancumprod", lambda rng: [(with_nans(rng),)], lambda m, x: m.nancumprod(x, axis=0)),
    same("nanvar", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanvar(x, axis=1, ddof=1)),
    same("nanstd", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanstd(x)),
    same("nanargmax", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanargmax(x, axis=1), differentiable=False),
    same("nanargmin", lambda rng: [(with_nans(rng),)], lambda m, x: m.nanargmin(x, axis=1), differentiable=False),
    same("cov", lambda rng: [(uniform(rng, (3, 5)),)], lambda m, x: m.cov(x)),
    same("cov[rowvar=False,ddof=0]", lambda rng: [(uniform(rng, (5, 3)),)],
         lambda m, x: m.cov(x, rowvar=False, ddof=0)),
    same("cov[y,aweights]", lambda rng: [(uniform(rng, (5,)), uniform(rng, (5,)), pos(rng, (5,)))],
         lambda m, x, y, w: m.cov(x, y, aweights=w)),
    same("corrcoef", lambda rng: [(uniform(rng, (3, 6)),)], lambda m, x: m.corrcoef(x)),
    same("bincount", lambda rng: [(np.array([0, 2, 2, 4]), uniform(rng, (4,)))],
         lambda m, i, w: m.bincount(i, weights=w, minlength=6)),
    same("histogram", lambda rng: [(distinct(rng, (7,)), pos(rng, (7,)))],
         lambda m, x, w: m.histogram(x, bins=3, weights=w, density=True), batchable=False),
    same("histogram_bin_edges", lambda rng: [(distinct(rng, (6,)),)], lambda m, x: m.histogram_bin_edges(x, bins=4),
         batchable=False),
    # ---- calculus
    same("diff", lambda rng: [(uniform(rng, (3, 5)),)], lambda m, x: m.diff(x, n=2, axis=1)),
    same("diff[prepend,append]", lambda rng: [(uniform(rng, (5,)), uniform(rng, (2,)))],
         lambda m, x, a: m.diff(x, prepend=0.5, append=a)),
    same("ediff1d", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (2,)))],
         lambda m, x, e: m.ediff1d(x, to_end=e, to_begin=1.0)),
    same("gradient", lambda rng: [(uniform(rng, (4, 5)),)], lambda m, x: m.gradient(x)),
    same("gradient[dx,edge_order=2]", lambda rng: [(uniform(rng, (6,)),)],
         lambda m, x: m.gradient(x, 0.5, edge_order=2)),
    same("gradient[coordinates]", lambda rng: [(uniform(rng, (6,)), increasing(rng, 6))],
         lambda m, y, x: m.gradient(y, x)),
    same("gradient[coordinates,edge_order=2]", lambda rng: [(uniform(rng, (6,)), increasing(rng, 6))],
         lambda m, y, x: m.gradient(y, x, edge_order=2)),
    same("trapezoid", lambda rng: [(uniform(rng, (3, 5)),)], lambda m, y: m.trapezoid(y, dx=0.3)),
    same("trapezoid[x]", lambda rng: [(uniform(rng, (3, 5)), increasing(rng, 5))], lambda m, y, x: m.trapezoid(y, x)),
    same("interp", lambda rng: [(np.array([-1.0, 0.35, 0.9, 2.2, 5.0]), np.array([0.0, 0.3, 1.0, 3.0]),
                                 uniform(rng, (4,)))],
         lambda m, x, xp, fp: m.interp(x, xp, fp, left=-2.0)),
    same("convolve", lambda rng: [(uniform(rng, (5,)), uniform(rng, (3,)))], lambda m, a, v: m.convolve(a, v)),
    same("convolve[same]", lambda rng: [(uniform(rng, (3,)), uniform(rng, (6,)))],
         lambda m, a, v: m.convolve(a, v, "same")),
    same("convolve[valid]", lambda rng: [(uniform(rng, (6,)), uniform(rng, (3,)))],
         lambda m, a, v: m.convolve(a, v, "valid")),
    same("correlate", lambda rng: [(uniform(rng, (6,)), uniform(rng, (3,)))], lambda m, a, v: m.correlate(a, v)),
    same("correlate[full,longer v]", lambda rng: [(uniform(rng, (2,)), uniform(rng, (5,)))],
         lambda m, a, v: m.correlate(a, v, "full")),
    same("cross", lambda rng: [(uniform(rng, (4, 3)), uniform(rng, (4, 3))),
                               (uniform(rng, (3,)), uniform(rng, (2, 3)))], lambda m, a, b: m.cross(a, b)),
    same("unwrap", lambda rng: [(np.array([0.0, 3.0, 6.5, 0.2]) + uniform(rng, (4,), -0.1, 0.1),)],
         lambda m, p: m.unwrap(p)),
    # ---- polynomials
    same("polyval", lambda rng: [(uniform(rng, (4,)), uniform(rng, (2, 3)))], lambda m, p, x: m.polyval(p, x)),
    same("polyfit", lambda rng: [(increasing(rng, 6), uniform(rng, (6,)))], lambda m, x, y: m.polyfit(x, y, 2),
         atol=1e-4),
    same("polyfit[w,2-D y]", lambda rng: [(increasing(rng, 6), uniform(rng, (6, 2)), pos(rng, (6,)))],
         lambda m, x, y, w: m.polyfit(x, y, 1, w=w), atol=1e-4),
    same("polyder", lambda rng: [(uniform(rng, (5,)),)], lambda m, p: m.polyder(p, 2)),
    same("polyint", lambda rng: [(uniform(rng, (3,)),)], lambda m, p: m.polyint(p, 2, k=[1.0, 2.0])),
    same("polyadd", lambda rng: [(uniform(rng, (2,)), uniform(rng, (4,)))], lambda m, a, b: m.polyadd(a, b)),
    same("polysub", lambda rng: [(uniform(rng, (4,)), uniform(rng, (3,)))], lambda m, a, b: m.polysub(a, b)),
    same("polymul", lambda rng: [(uniform(rng, (3,)), uniform(rng, (2,)))], lambda m, a, b: m.polymul(a, b)),
    same("polydiv", lambda rng: [(uniform(rng, (5,)), uniform(rng, (2,), 1.0, 2.0))], lambda m, u, v: m.polydiv(u, v),
         batchable=False),
    same("poly", lambda rng: [(uniform(rng, (3,)),)], lambda m, r: m.poly(r)),
    same("vander", lambda rng: [(uniform(rng, (4,)),)], lambda m, x: m.vander(x, 3)),
    same("vander[increasing]", lambda rng: [(uniform(rng, (3,)),)], lambda m, x: m.vander(x, increasing=True)),
    # ---- selections and index builders
    same("meshgrid", lambda rng: [(uniform(rng, (2,)), uniform(rng, (3,)))], lambda m, a, b: m.meshgrid(a, b)),
    same("meshgrid[ij]", lambda rng: [(uniform(rng, (2,)), uniform(rng, (3,)), uniform(rng, (2,)))],
         lambda m, a, b, c: m.meshgrid(a, b, c, indexing="ij")),
    same("select", lambda rng: [(uniform(rng, (3, 4)),)],
         lambda m, x: m.select([x > 0.5, x < -0.5], [x * x, x * 2.0], default=-1.0)),
    same("piecewise", lambda rng: [(distinct(rng, (6,)) - 0.5,)],
         lambda m, x: m.piecewise(x, [x < 0, x >= 0], [lambda t: t * t, lambda t: t + 1.0]), batchable=False),
    same("choose", lambda rng: [(uniform(rng, (5,)), uniform(rng, (5,)), uniform(rng, (5,)))],
         lambda m, a, b, c: m.choose(np.array([0, 1, 2, 1, 0]), [a, b, c])),
    same("compress", lambda rng: [(uniform(rng, (4, 3)),)], lambda m, x: m.compress([True, False, True, True], x, 0)),
    same("extract", lambda rng: [(distinct(rng, (3, 4)) - 0.5,)], lambda m, x: m.extract(x > 0, x), batchable=False),
    # ---- shaping
    same("append", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (1, 3)))], lambda m, a, b: m.append(a, b, axis=0)),
    same("append[flat]", lambda rng: [(uniform(rng, (2, 2)), uniform(rng, (3,)))], lambda m, a, b: m.append(a, b)),
    same("insert", lambda rng: [(uniform(rng, (5,)), uniform(rng, (3,)))], lambda m, a, v: m.insert(a, [1, 3, 3], v)),
    same("insert[column]", lambda rng: [(uniform(rng, (3, 4)), uniform(rng, (1, 3)))],
         lambda m, a, v: m.insert(a, 1, v, axis=1)),
    same("insert[row]", lambda rng: [(uniform(rng, (3, 4)), uniform(rng, (4,)))],
         lambda m, a, v: m.insert(a, 2, v, axis=0)),
    same("delete", lambda rng: [(uniform(rng, (3, 5)),)], lambda m, a: m.delete(a, [0, 2], axis=1)),
    same("block", lambda rng: [(uniform(rng, (2, 2)), uniform(rng, (2, 3)))],
         lambda m, a, b: m.block([[a, b], [b[:, :2], b * 2.0]])),
    same("rot90", lambda rng: [(uniform(rng, (2, 3)),)], lambda m, x: m.rot90(x)),
    same("rot90[k=3]", lambda rng: [(uniform(rng, (2, 3, 2)),)], lambda m, x: m.rot90(x, 3, axes=(1, 2))),
    same("resize", lambda rng: [(uniform(rng, (5,)),)], lambda m, x: m.resize(x, (3, 4))),
    same("rollaxis", lambda rng: [(uniform(rng, (2, 3, 4)),)], lambda m, x: m.rollaxis(x, 2, 0)),
    same("hsplit", lambda rng: [(uniform(rng, (3, 4)),)], lambda m, x: m.hsplit(x, 2)),
    same("vsplit", lambda rng: [(uniform(rng, (4, 3)),)], lambda m, x: m.vsplit(x, [1])),
    same("dsplit", lambda rng: [(uniform(rng, (2, 2, 4)),)], lambda m, x: m.dsplit(x, 2)),
    same("unstack", lambda rng: [(uniform(rng, (3, 4)),)], lambda m, x: m.unstack(x, axis=1)),
    same("apply_along_axis", lambda rng: [(uniform(rng, (3, 4)),)],
         lambda m, x: m.apply_along_axis(lambda r: r * m.sum(r), 1, x)),
    same("apply_over_axes", lambda rng: [(uniform(rng, (2, 3, 4)),)], lambda m, x: m.apply_over_axes(m.sum, x, [0, 2])),
    same("partition", lambda rng: [(distinct(rng, (6,)),)], lambda m, x: m.partition(x, 2), batchable=False),
    same("trim_zeros", lambda rng: [(uniform(rng, (3,), 0.5, 2.0),)],  # (the zeros are constants: FD moves x only)
         lambda m, x: m.trim_zeros(m.concatenate([np.zeros(1), x, np.zeros(2)])), batchable=False, one_device=False),
    same("unique", lambda rng: [(distinct(rng, (5,)),)],
         lambda m, x: m.unique(m.concatenate([x, x[:2]]), return_index=True, return_counts=True), batchable=False),
    same("union1d", lambda rng: [(distinct(rng, (4,)), distinct(rng, (3,)) + 1.0)], lambda m, a, b: m.union1d(a, b),
         batchable=False),
    same("setdiff1d", lambda rng: [(distinct(rng, (5,)),)], lambda m, a: m.setdiff1d(a, a[:2]), batchable=False),
    same("intersect1d", lambda rng: [(distinct(rng, (5,)),)], lambda m, a: m.intersect1d(a, a[1:3]), batchable=False),
    same("setxor1d", lambda rng: [(distinct(rng, (5,)),)], lambda m, a: m.setxor1d(a, a[1:3]), batchable=False),
    # ---- searching and counting (no derivative)
    same("searchsorted", lambda rng: [(np.sort(distinct(rng, (5,))), distinct(rng, (3,)))],
         lambda m, a, v: m.searchsorted(a, v), differentiable=False),
    same("digitize", lambda rng: [(distinct(rng, (5,)), np.array([0.2, 0.5, 0.8]))],
         lambda m, x, b: m.digitize(x, b), differentiable=False, batchable=False),
    same("isin", lambda rng: [(distinct(rng, (5,)),)], lambda m, x: m.isin(x, x[::2]), differentiable=False,
         batchable=False),
    same("argwhere", lambda rng: [(uniform(rng, (3, 4)),)], lambda m, x: m.argwhere(x > 0), differentiable=False,
         batchable=False),
    same("flatnonzero", lambda rng: [(uniform(rng, (3, 4)),)], lambda m, x: m.flatnonzero(x > 0),
         differentiable=False, batchable=False),
    same("lexsort", lambda rng: [(distinct(rng, (5,)), distinct(rng, (5,)))], lambda m, a, b: m.lexsort((a, b)),
         differentiable=False, batchable=False),
    same("argpartition", lambda rng: [(distinct(rng, (6,)),)], lambda m, x: m.argpartition(x, 2),
         differentiable=False, batchable=False),
    # ---- elementwise and array API
    same("angle", lambda rng: [(uniform(rng, (5,)),)], lambda m, x: m.angle(x), differentiable=False),
    same("real", lambda rng: [(uniform(rng, (5,)),)], lambda m, x: m.real(x)),
    same("imag", lambda rng: [(uniform(rng, (5,)),)], lambda m, x: m.imag(x), differentiable=False),
    same("conj", lambda rng: [(uniform(rng, (5,)),)], lambda m, x: m.conj(x)),
    same("frexp", lambda rng: [(uniform(rng, (5,), 0.3, 7.0),)], lambda m, x: m.frexp(x), batchable=False),
    same("modf", lambda rng: [(uniform(rng, (5,), -3.0, 3.0) + 0.01,)], lambda m, x: m.modf(x)),
    same("divmod", lambda rng: [(uniform(rng, (5,), 0.1, 3.0), uniform(rng, (5,), 0.7, 0.9))],
         lambda m, x, y: m.divmod(x, y)),
    same("nan_to_num", lambda rng: [(np.array([np.nan, np.inf, -np.inf, 0.5]) + 0.0 * uniform(rng, (4,)),)],
         lambda m, x: m.nan_to_num(x, posinf=9.0), differentiable=False),
    same("isposinf", lambda rng: [(np.array([np.inf, -np.inf, 1.0]),)], lambda m, x: m.isposinf(x),
         differentiable=False),
    same("isneginf", lambda rng: [(np.array([np.inf, -np.inf, 1.0]),)], lambda m, x: m.isneginf(x),
         differentiable=False),
    same("cumulative_sum", lambda rng: [(uniform(rng, (3, 4)),)],
         lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True)),
    same("cumulative_prod", lambda rng: [(uniform(rng, (5,)),)], lambda m, x: m.cumulative_prod(x)),
    same("vecdot", lambda rng: [(uniform(rng, (3, 4)), uniform(rng, (4,)))], lambda m, a, b: m.vecdot(a, b)),
    same("matvec", lambda rng: [(uniform(rng, (2, 3, 4)), uniform(rng, (4,)))], lambda m, a, b: m.matvec(a, b)),
    same("vecmat", lambda rng: [(uniform(rng, (3,)), uniform(rng, (2, 3, 4)))], lambda m, a, b: m.vecmat(a, b)),
    same("matrix_transpose", lambda rng: [(uniform(rng, (2, 3, 4)),)], lambda m, x: m.matrix_transpose(x)),
    same("concat", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (2, 2)))],
         lambda m, a, b: m.concat([a, b], axis=1)),
    same("geomspace", lambda rng: [(pos(rng, ()), pos(rng, ()) + 2.0)], lambda m, a, b: m.geomspace(a, b, 5)),
    same("geomspace[arrays, axis=1]", lambda rng: [(pos(rng, (2,)), pos(rng, (2,)) + 2.0)],
         lambda m, a, b: m.geomspace(a, b, 4, endpoint=False, axis=1)),
    same("linspace", lambda rng: [(uniform(rng, ()), uniform(rng, ()))], lambda m, a, b: m.linspace(a, b, 5)),
    same("linspace[arrays, axis=-1, endpoint=False]", lambda rng: [(uniform(rng, (2, 1)), uniform(rng, (3,)))],
         lambda m, a, b: m.linspace(a, b, 4, endpoint=False, axis=-1)),
    same("linspace[retstep]", lambda rng: [(uniform(rng, ()), uniform(rng, (2,)))],
         lambda m, a, b: m.linspace(a, b, 3, retstep=True)),
    same("linspace[num=1]", lambda rng: [(uniform(rng, ()), uniform(rng, ()))], lambda m, a, b: m.linspace(a, b, 1)),
    same("logspace", lambda rng: [(uniform(rng, ()), uniform(rng, (2,)))], lambda m, a, b: m.logspace(a, b, 4)),
    same("logspace[base]", lambda rng: [(uniform(rng, ()), uniform(rng, ()), pos(rng, ()) + 1.0)],
         lambda m, a, b, base: m.logspace(a, b, 4, base=base, axis=0)),
    same("diagflat", lambda rng: [(uniform(rng, (2, 2)),)], lambda m, x: m.diagflat(x, 1)),
    same("full", lambda rng: [(uniform(rng, ()),)], lambda m, g: m.full((2, 3), g)),
    same("array_equal", lambda rng: [(uniform(rng, (3,)),)], lambda m, x: m.array_equal(x, x * 1.0),
         differentiable=False, batchable=False),
    same("heaviside", lambda rng: [(uniform(rng, (5,)), uniform(rng, (5,)))], lambda m, x, h: m.heaviside(x, h),
         differentiable=False),
    same("ldexp", lambda rng: [(uniform(rng, (4,)),)], lambda m, x: m.ldexp(x, np.array([1, -2, 0, 3])),
         one_device=False),  # (the exponents are a CPU array)
    same("nextafter", lambda rng: [(uniform(rng, (3,)),)], lambda m, x: m.nextafter(x, 5.0), differentiable=False),
    same("spacing", lambda rng: [(uniform(rng, (3,)),)], lambda m, x: m.spacing(x), differentiable=False),
    *[same(name, lambda rng: [(np.array([12, 7, 5, 3]), np.array([3, 4, 1, 6]))],
           lambda m, a, b, name=name: getattr(m, name)(a, b), differentiable=False)
      for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm")],
    *[same(name, lambda rng: [(np.array([12, 7, 5, 3]),)], lambda m, a, name=name: getattr(m, name)(a),
           differentiable=False) for name in ("bitwise_not", "bitwise_count")],
]


def real_eigen(rng, shape):
    """Distinct real eigenvalues: a diagonal 2, 5, 8, ... plus a small perturbation."""
    n = shape[-1]
    return np.diag(2.0 + 3.0 * np.arange(n)) + 0.3 * rng.normal(size=shape)


NUMPY_OPS += [
    # ---- linalg
    same("linalg.eig", lambda rng: [(real_eigen(rng, (3, 3)),), (real_eigen(rng, (2, 3, 3)),)],
         lambda m, a: m.linalg.eig(a)),
    same("linalg.eig_invariants", lambda rng: [(real_eigen(rng, (3, 3)),), (real_eigen(rng, (2, 3, 3)),)],
         lambda m, a: (lambda w, v: (w, v * m.conj(v)))(*m.linalg.eig(a))),
    same("linalg.eigvals", lambda rng: [(real_eigen(rng, (4, 4)),)], lambda m, a: m.linalg.eigvals(a)),
    # a real matrix with complex eigenvalues (a rotation's): complex results, as NumPy's
    same("linalg.eigvals_rotation",
         lambda rng: [(np.array([[0.3, -1.2], [1.0, 0.2]]) + 0.1 * rng.normal(size=(2, 2)),)],
         lambda m, a: m.linalg.eigvals(a)),
    same("linalg.lstsq", lambda rng: [(uniform(rng, (5, 3)), uniform(rng, (5,))), (uniform(rng, (4, 2)),
                                                                                   uniform(rng, (4, 2)))],
         lambda m, a, b: m.linalg.lstsq(a, b)[:2], batchable=False),
    same("linalg.multi_dot", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (3, 4)), uniform(rng, (4, 2)))],
         lambda m, a, b, c: m.linalg.multi_dot([a, b, c])),
    same("linalg.cond", lambda rng: [(real_eigen(rng, (3, 3)),)], lambda m, a: m.linalg.cond(a)),
    same("linalg.cond[p=1]", lambda rng: [(real_eigen(rng, (3, 3)),)], lambda m, a: m.linalg.cond(a, 1)),
    same("linalg.matrix_rank", lambda rng: [(uniform(rng, (4, 3)),)], lambda m, a: m.linalg.matrix_rank(a),
         differentiable=False, batchable=False),
    same("linalg.tensorsolve", lambda rng: [(real_eigen(rng, (6, 6)).reshape(2, 3, 2, 3), uniform(rng, (2, 3)))],
         lambda m, a, b: m.linalg.tensorsolve(a, b)),
    same("linalg.tensorinv", lambda rng: [(real_eigen(rng, (6, 6)).reshape(6, 2, 3),)],
         lambda m, a: m.linalg.tensorinv(a, 1)),
    same("linalg.diagonal", lambda rng: [(uniform(rng, (2, 3, 3)),)], lambda m, a: m.linalg.diagonal(a, offset=1)),
    same("linalg.cross", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (2, 3)))],
         lambda m, a, b: m.linalg.cross(a, b)),
    same("linalg.vecdot", lambda rng: [(uniform(rng, (2, 3)), uniform(rng, (3,)))],
         lambda m, a, b: m.linalg.vecdot(a, b)),
    same("linalg.matrix_transpose", lambda rng: [(uniform(rng, (2, 3)),)], lambda m, a: m.linalg.matrix_transpose(a)),
]
