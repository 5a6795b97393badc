"""torch's order statistics, scans, counts and searches on Tensors (fgrad/autograd/torch_order.py: median,
nanmedian, quantile, nanquantile, kthvalue, mode, msort, cummax, cummin, aminmax, count_nonzero,
logcumsumexp, std_mean, var_mean, histc, bucketize, searchsorted, unique, unique_consecutive,
take_along_dim, argwhere, nonzero, isin) against torch 2.13: values, dtypes and shapes, the index
results, the gradients after backward (float64 and float32), the Tensor methods, and the errors."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
NAN = np.nan
# distinct values (the index a tie gets is torch's implementation's, except where torch defines it)
SHAPES = [(), (5,), (3, 4), (2, 3, 4)]
DISTINCT = {shape: RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.5 - 3.0 for shape in SHAPES}
TIES = {shape: RNG.integers(0, 3, size=shape).astype(np.float64) for shape in SHAPES}
FLOATS = [np.float64, np.float32]
TOL = {np.float64: 1e-10, np.float32: 1e-5}


def _outputs(out):
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _outputs(item)]
    return [out]


def _run(lib, fn, inputs, grad=True):
    make = fgrad.tensor if lib is fgrad else torch.tensor
    xs = [make(x.copy(), requires_grad=grad and x.dtype.kind == "f") for x in inputs]
    outs = _outputs(fn(lib, *xs))
    values = [np.asarray(o.detach()) for o in outs]
    weights = np.random.default_rng(1)
    loss = 0
    for o in outs:
        w = make(weights.normal(size=tuple(o.shape)).astype(np.asarray(o.detach()).dtype)
                 if o.dtype in (torch.float32, torch.float64, fgrad.float32, fgrad.float64) else np.zeros(()))
        if o.requires_grad:
            loss = loss + (o * w).sum()
    grads = None
    if not isinstance(loss, int):
        loss.backward()
        grads = [None if x.grad is None else np.asarray(x.grad) for x in xs]
    return values, grads


def _same(fn, *inputs, tol=1e-10, grad=True):
    (values, grads), (want, want_grads) = _run(fgrad, fn, inputs, grad), _run(torch, fn, inputs, grad)
    assert len(values) == len(want)
    for v, w in zip(values, want):
        assert v.shape == w.shape and v.dtype == w.dtype, (v.shape, w.shape, v.dtype, w.dtype)
        np.testing.assert_allclose(v, w, rtol=tol, atol=tol)
    assert (grads is None) == (want_grads is None), (grads, want_grads)
    for g, w in zip(grads or (), want_grads or ()):
        assert (g is None) == (w is None)
        if g is not None:
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def _dims(shape):
    return [0, -1] if len(shape) < 2 else [0, -1, 1]


# ---- values chosen along a dim -------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_median_nanmedian_kthvalue_mode(shape, dtype):
    x, ties = DISTINCT[shape].astype(dtype), TIES[shape].astype(dtype)
    tol = TOL[dtype]
    for name in ("median", "nanmedian"):
        _same(lambda L, a: getattr(L, name)(a), x, tol=tol)
        _same(lambda L, a: getattr(a, name)(), ties, tol=tol)  # (the gradient shared among the tied entries)
        for dim in _dims(shape):
            for keepdim in (False, True):
                _same(lambda L, a: getattr(L, name)(a, dim, keepdim), x, tol=tol)
                _same(lambda L, a: getattr(a, name)(dim=dim, keepdim=keepdim), x, tol=tol)
    n = shape[-1] if shape else 1
    for k in sorted({1, (n + 1) // 2, n}):
        _same(lambda L, a: L.kthvalue(a, k), x, tol=tol)
        _same(lambda L, a: a.kthvalue(k, -1, True), x, tol=tol)
        _same(lambda L, a: L.kthvalue(a, min(k, shape[0] if shape else 1), 0), x, tol=tol)
    for dim in _dims(shape):  # (mode's ties are defined: the smallest value, its last index)
        for keepdim in (False, True):
            _same(lambda L, a: L.mode(a, dim, keepdim), ties, tol=tol)
            _same(lambda L, a: a.mode(dim=dim, keepdim=keepdim), ties, tol=tol)


def test_median_ints_nans_and_lower_middle():
    _same(lambda L, a: L.median(a), np.array([1.0, 4.0, 3.0, 2.0]))  # (2, not 2.5)
    for x in (np.array([[3, 1, 4, 2], [7, 7, 5, 6]]), np.array([3, 1, 2], dtype=np.int32)):
        _same(lambda L, a: (L.median(a), L.median(a, -1), L.kthvalue(a, 2, 0), L.mode(a, 0)), x)
    nans = np.array([[3.0, NAN, 1.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 1.0, NAN, 0.0], [1.0, 2.0, 3.0, 4.0]])
    for dim in (0, 1):  # (all-NaN slices: nanmedian's index there is torch's nth_element's; not compared)
        _same(lambda L, a: (L.median(a, dim), L.nanmedian(a[[0, 2, 3]], dim, True)), nans)
    assert np.isnan(fgrad.nanmedian(fgrad.tensor(nans), 1).values[1].item())
    _same(lambda L, a: (L.median(a), L.nanmedian(a[0])), nans, grad=False)
    assert np.isnan(fgrad.median(fgrad.tensor(np.zeros(0))).item())
    _same(lambda L, a: L.median(a, 0), np.zeros((3, 0)))
    _same(lambda L, a: (L.mode(a, 1), L.mode(a, 0)), np.array([[2.0, 2.0, 1.0, 1.0], [1.0, 3.0, 3.0, 1.0]]))


def test_order_errors():
    x = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(IndexError, match=r"median\(\): Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        fgrad.median(x, 2)
    with pytest.raises(IndexError, match=r"median\(\): Expected reduction dim 0 to have non-zero size"):
        fgrad.median(fgrad.zeros(0, 3), 0)
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have non-zero size"):
        fgrad.mode(fgrad.zeros(2, 0), 1)
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dim"'):
        fgrad.median(x, keepdim=True)
    with pytest.raises(NotImplementedError, match=r"not implemented for fgrad\.bool"):
        fgrad.median(fgrad.tensor([True, False]))
    for k, t in ((3, x), (0, x), (2, fgrad.tensor(1.0))):
        with pytest.raises(RuntimeError, match=r"kthvalue\(\): selected number k out of range for dimension"):
            fgrad.kthvalue(t, k)
    with pytest.raises(IndexError, match=r"cummax\(\): Dimension out of range"):
        fgrad.cummax(x, -3)
    with pytest.raises(RuntimeError, match=r"aminmax\(\): cannot compute aminmax over an empty dimension"):
        fgrad.aminmax(fgrad.zeros(0))


# ---- sorting, scans, extremes and counts ------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_msort_cummax_cummin_aminmax_logcumsumexp(shape, dtype):
    x, ties = DISTINCT[shape].astype(dtype), TIES[shape].astype(dtype)
    tol = TOL[dtype]
    _same(lambda L, a: (L.msort(a), a.msort()), x, tol=tol)
    _same(lambda L, a: (L.aminmax(a), a.aminmax(keepdim=True)), ties, tol=tol)
    for dim in _dims(shape):
        _same(lambda L, a: (L.cummax(a, dim), a.cummin(dim)), ties, tol=tol)  # (ties: the last index)
        _same(lambda L, a: (L.cummax(a, dim), L.cummin(a, dim)), x, tol=tol)
        _same(lambda L, a: (L.logcumsumexp(a, dim), a.logcumsumexp(dim)), x, tol=tol)
        for keepdim in (False, True):
            _same(lambda L, a: L.aminmax(a, dim=dim, keepdim=keepdim), ties, tol=tol)


def test_scans_ints_nans_and_extremes():
    ints = np.array([[1, 3, 2, 3, 1, 3], [0, 0, -1, 5, 5, -2]])
    _same(lambda L, a: (L.cummax(a, 1), L.cummin(a, 1), L.cummax(a, 0), L.aminmax(a, dim=1)), ints)
    _same(lambda L, a: (L.cummax(a, 0), L.cummin(a, 0)), np.array([True, False, True]))
    nans = np.array([1.0, NAN, 5.0, NAN, 7.0, -1.0])
    _same(lambda L, a: (L.cummax(a, 0), L.cummin(a, 0)), nans)
    big = np.array([[-1000.0, 0.0, 1000.0, 999.0], [5.0, -np.inf, 5.0, 4.0]])
    _same(lambda L, a: L.logcumsumexp(a, 1), big[:1])
    _same(lambda L, a: L.logcumsumexp(a, 1), big, grad=False)
    long = RNG.normal(size=(3, 37))  # (not a power of two: the rounds of the scan)
    _same(lambda L, a: L.logcumsumexp(a, 1), long)
    with pytest.raises(NotImplementedError, match=r"logcumsumexp: not implemented for fgrad\.int64"):
        fgrad.logcumsumexp(fgrad.tensor([1, 2]), 0)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_count_nonzero_argwhere_nonzero(shape):
    x = TIES[shape]
    for data in (x, x.astype(np.int64), x > 1):
        _same(lambda L, a: (L.count_nonzero(a), L.argwhere(a), L.nonzero(a), L.nonzero(a, as_tuple=True)), data)
        for dim in _dims(shape) + ([(0, -1)] if len(shape) > 1 else []):
            _same(lambda L, a: (L.count_nonzero(a, dim), a.count_nonzero(dim=dim)), data)
        _same(lambda L, a: a.argwhere(), data)
    _same(lambda L, a: (L.nonzero(a, as_tuple=True), L.argwhere(a)), np.array(0.0))


# ---- quantiles and moments -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_quantile(shape, dtype):
    x, tol = DISTINCT[shape].astype(dtype), TOL[dtype]
    qs = np.array([0.0, 0.3, 0.5, 0.8, 1.0], dtype=dtype)
    for how in ("linear", "lower", "higher", "midpoint", "nearest"):
        for name in ("quantile", "nanquantile"):
            _same(lambda L, a, q: getattr(L, name)(a, q, interpolation=how), x, qs, tol=tol)
            _same(lambda L, a: getattr(a, name)(0.4, interpolation=how, keepdim=True), x, tol=tol)
            for dim in _dims(shape):
                for keepdim in (False, True):
                    _same(lambda L, a, q: getattr(L, name)(a, q, dim, keepdim, interpolation=how), x, qs, tol=tol)
                    _same(lambda L, a: getattr(a, name)(0.7, dim=dim, keepdim=keepdim, interpolation=how), x,
                          tol=tol)


def test_quantile_nans_nearest_and_errors():
    nans = np.array([[3.0, NAN, 1.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 1.0, 6.0, 0.0]])
    q = np.array([0.0, 0.25, 0.5, 1.0])
    for how in ("linear", "lower", "nearest"):
        _same(lambda L, a, q: (L.quantile(a, q, 1, interpolation=how), L.nanquantile(a, q, 1, interpolation=how)),
              nans, q, grad=False)
        _same(lambda L, a, q: L.quantile(a[2], q, interpolation=how), nans, q)
    even = np.arange(5.0)  # (positions x.5: nearest rounds half to even, as torch's)
    _same(lambda L, a, q: L.quantile(a, q, interpolation="nearest"), even, np.array([0.125, 0.375, 0.625, 0.875]))
    x = fgrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be either float or double dtype"):
        fgrad.quantile(fgrad.tensor([1, 2]), 0.5)
    with pytest.raises(RuntimeError, match=r"quantile\(\) q must be in the range \[0, 1\] but got 1.5"):
        fgrad.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match=r"quantile\(\) q values must be in the range \[0, 1\]"):
        fgrad.quantile(x, fgrad.tensor([0.5, -1.0]))
    with pytest.raises(RuntimeError, match=r"q tensor must be same dtype as the input tensor"):
        fgrad.quantile(x, fgrad.tensor([0.5], dtype=fgrad.float32))
    with pytest.raises(RuntimeError, match=r"q must be a scalar or 1D tensor"):
        fgrad.quantile(x, fgrad.tensor([[0.5]]))
    with pytest.raises(RuntimeError, match=r"interpolation must be one of linear, lower, higher, midpoint or "
                                           r"nearest, but got foo"):
        fgrad.nanquantile(x, 0.5, interpolation="foo")
    with pytest.raises(RuntimeError, match=r"quantile\(\) input tensor must be non-empty"):
        fgrad.quantile(fgrad.zeros(0), 0.5)
    with pytest.raises(IndexError, match=r"quantile\(\): Dimension out of range"):
        fgrad.quantile(x, 0.5, dim=1)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_std_mean_var_mean(shape, dtype):
    x, tol = DISTINCT[shape].astype(dtype), TOL[dtype]
    for name in ("std_mean", "var_mean"):
        # (correction >= N, no degrees of freedom left: fgrad's var/std gradients are not torch's NaNs)
        if shape:
            _same(lambda L, a: getattr(L, name)(a), x, tol=tol)
        _same(lambda L, a: getattr(L, name)(a, correction=0), x, tol=tol)
        for dim in _dims(shape) + ([(0, -1)] if len(shape) > 1 else []):
            for keepdim in (False, True):
                if shape and min(np.array(shape)[list(np.atleast_1d(dim))]) > 2:
                    _same(lambda L, a: getattr(L, name)(a, dim, keepdim=keepdim, correction=2), x, tol=tol)
                _same(lambda L, a: getattr(L, name)(a, dim, False, keepdim), x, tol=tol)
                if shape:
                    _same(lambda L, a: getattr(L, name)(a, dim, True, keepdim), x, tol=tol)
    z = DISTINCT[(3, 4)] + 1j * TIES[(3, 4)]
    _same(lambda L, a: (L.std_mean(a, 1), L.var_mean(a)), z, grad=False)


def test_moments_errors():
    with pytest.raises(RuntimeError, match="std_mean only support floating point and complex dtypes"):
        fgrad.std_mean(fgrad.tensor([1, 2, 4]))
    with pytest.raises(RuntimeError, match="var_mean only support floating point and complex dtypes"):
        fgrad.var_mean(fgrad.tensor([True]))
    with pytest.raises(IndexError, match=r"var_mean\(\): Dimension out of range"):
        fgrad.var_mean(fgrad.tensor([1.0, 2.0]), 1)
    std, mean = fgrad.std_mean(fgrad.tensor([1.0, 2.0, 4.0]), True)  # (torch's std_mean(input, unbiased))
    np.testing.assert_allclose([std.item(), mean.item()], [np.std([1, 2, 4], ddof=1), 7 / 3])


# ---- histograms, searches, sets and gathers ------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_histc(dtype):
    x = (RNG.normal(size=(4, 5)) * 3).astype(dtype)
    for kw in ({}, {"bins": 7}, {"bins": 4, "min": -1, "max": 2}, {"bins": 3, "min": 2, "max": 2}):
        _same(lambda L, a: (L.histc(a, **kw), a.histc(**kw)), x, grad=False)
    _same(lambda L, a: (L.histc(a, 4), L.histc(a[:0], 3)), np.array([1.0, 1.0], dtype=dtype), grad=False)
    _same(lambda L, a: L.histc(a, 3, 0, 3), np.array([0.0, 1.0, 3.0, 4.0, -1.0, NAN], dtype=dtype), grad=False)
    _same(lambda L, a: L.histc(a, 5), np.array(2.0, dtype=dtype), grad=False)
    edges = (np.arange(-6, 7) * 0.1).astype(dtype)  # (entries on the bins' edges: torch's rounding in dtype)
    for bins, lo, hi in ((10, -2, 2), (11, -1.5, 0.7), (4, 0.1, 0.3), (6, 0, 0)):
        _same(lambda L, a: L.histc(a, bins, lo, hi), edges, grad=False)
    assert not fgrad.histc(fgrad.tensor(x, requires_grad=True)).requires_grad
    with pytest.raises(NotImplementedError, match=r"histc: not implemented for fgrad\.int64"):
        fgrad.histc(fgrad.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=r"bins must be > 0, but got 0"):
        fgrad.histc(fgrad.tensor([1.0]), bins=0)
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        fgrad.histc(fgrad.tensor([1.0]), bins=3, min=3, max=1)
    with pytest.raises(RuntimeError, match=r"range of \[1, inf\] is not finite"):
        fgrad.histc(fgrad.tensor([1.0, np.inf]), bins=3)


def test_bucketize_searchsorted():
    edges = np.array([1.0, 3.0, 3.0, 5.0, 8.0])
    values = np.array([[0.0, 1.0, 3.0], [4.0, 8.0, 9.0]])
    rows = np.sort(RNG.integers(0, 9, size=(2, 3, 6)), axis=-1)
    queries = RNG.integers(0, 10, size=(2, 3, 4))
    for right in (False, True):
        _same(lambda L, a, e: (L.bucketize(a, e, right=right), L.bucketize(a[0, 2], e, right=right, out_int32=True),
                               L.searchsorted(e, a, right=right)), values, edges)
        _same(lambda L, s, v: L.searchsorted(s, v, right=right), rows, queries)
        _same(lambda L, s, v: L.searchsorted(s, v, side="right" if right else "left", out_int32=right), rows,
              queries)
    for x in (values, values.astype(np.int64)[0], values[0, 0]):
        _same(lambda L, a, e: L.bucketize(a, e), x, edges.astype(np.int64))
    assert fgrad.bucketize(3, fgrad.tensor([1, 3, 5]), right=True).item() == 2
    assert fgrad.searchsorted(fgrad.tensor([1, 3]), 3).item() == 1
    shuffled, sorter = np.array([5.0, 1.0, 3.0]), np.array([1, 2, 0])
    _same(lambda L, s, v, i: L.searchsorted(s, v, sorter=i), shuffled, np.array([0.0, 2.0, 3.0, 6.0]), sorter)
    seq = fgrad.tensor([1, 3])
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension, but got dim\\(2\\)"):
        fgrad.bucketize(fgrad.tensor([1]), fgrad.tensor([[1, 3]]))
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites, got side of left while right "
                                           "was True"):
        fgrad.searchsorted(seq, fgrad.tensor([3]), right=True, side="left")
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right' but got foo"):
        fgrad.searchsorted(seq, fgrad.tensor([3]), side="foo")
    with pytest.raises(RuntimeError, match=r"first N-1 dimensions of boundaries tensor and input value tensor "
                                           r"must match, but we got boundaries tensor \[2, 2\] and input value "
                                           r"tensor \[1\]"):
        fgrad.searchsorted(fgrad.tensor([[1, 3], [2, 4]]), fgrad.tensor([3]))
    with pytest.raises(RuntimeError, match="input value can be a scalar only when boundaries tensor dimension is 1"):
        fgrad.searchsorted(fgrad.tensor([[1, 3]]), 3)
    with pytest.raises(RuntimeError, match="boundaries tensor should have positive dimension"):
        fgrad.searchsorted(fgrad.tensor(1), fgrad.tensor([2]))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unique_unique_consecutive(shape):
    x = TIES[shape]
    for data in (x, x.astype(np.int64), x.astype(np.float32)):
        for inverse in (False, True):
            for counts in (False, True):
                _same(lambda L, a: (L.unique(a, return_inverse=inverse, return_counts=counts),
                                    L.unique_consecutive(a, return_inverse=inverse, return_counts=counts),
                                    a.unique(sorted=False), a.unique_consecutive()), data, grad=False)
                for dim in _dims(shape) if shape else ():
                    _same(lambda L, a: (L.unique(a, return_inverse=inverse, return_counts=counts, dim=dim),
                                        a.unique_consecutive(return_inverse=inverse, return_counts=counts, dim=dim)),
                          data, grad=False)
    _same(lambda L, a: (L.unique(a), L.unique_consecutive(a)), np.array([NAN, 1.0, NAN, NAN, 1.0]), grad=False)
    slices = np.array([[1, 1], [1, 1], [2, 3], [1, 1], [0, 5]])
    _same(lambda L, a: (L.unique(a, dim=0, return_inverse=True, return_counts=True),
                        L.unique_consecutive(a, dim=0, return_inverse=True, return_counts=True)), slices)
    with pytest.raises(IndexError, match=r"unique\(\): Dimension out of range"):
        fgrad.unique(fgrad.tensor([[1, 2]]), dim=2)


@pytest.mark.parametrize("dtype", FLOATS)
def test_take_along_dim(dtype):
    x, tol = DISTINCT[(3, 4)].astype(dtype), TOL[dtype]
    idx = RNG.integers(0, 4, size=(3, 6))
    _same(lambda L, a, i: (L.take_along_dim(a, i, 1), a.take_along_dim(i, dim=-1)), x, idx, tol=tol)
    _same(lambda L, a, i: L.take_along_dim(a, i), x, idx, tol=tol)  # (flattened: repeated indices add up)
    _same(lambda L, a, i: L.take_along_dim(a, i, 0), x, RNG.integers(0, 3, size=(5, 4)), tol=tol)
    _same(lambda L, a, i: L.take_along_dim(a, i, 1), x[:1], idx, tol=tol)  # (input broadcast: its gradient sums)
    _same(lambda L, a, i: L.take_along_dim(a, i, 1), x, idx[:1], tol=tol)  # (indices broadcast)
    _same(lambda L, a, i: L.take_along_dim(a, i, 1), x, np.array([[-1, 0]]), tol=tol)  # (negative: from the end)
    x3 = DISTINCT[(2, 3, 4)].astype(dtype)
    _same(lambda L, a: L.take_along_dim(a, L.argsort(a, dim=1), dim=1), x3, tol=tol)
    _same(lambda L, a, i: L.take_along_dim(a, i), np.array(2.0, dtype=dtype), np.array(0), tol=tol)
    with pytest.raises(IndexError, match="dimension specified as 0 but tensor has no dimensions"):
        fgrad.take_along_dim(fgrad.tensor(2.0), fgrad.tensor(0), 0)
    with pytest.raises(RuntimeError, match=r"dtype of indices should be fgrad\.int64 but got fgrad\.float32"):
        fgrad.take_along_dim(fgrad.tensor(x), fgrad.tensor([[1.0]], dtype=fgrad.float32), 1)
    with pytest.raises(RuntimeError, match="input and indices should have the same number of dimensions, but got 2 "
                                           "dimensions for input, and 1 dimensions for indices"):
        fgrad.take_along_dim(fgrad.tensor(x), fgrad.tensor([1]), 1)


def test_isin():
    a, b = np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 6, 9])
    for invert in (False, True):
        _same(lambda L, x, y: (L.isin(x, y, invert=invert), L.isin(x, y, assume_unique=True, invert=invert),
                               L.isin(x.double(), y)), a, b)
    assert fgrad.isin(2, fgrad.tensor([1, 2, 3])).item() is True
    _same(lambda L, x: L.isin(x, 2), a)


def test_methods_and_namespace():
    methods = ["aminmax", "argwhere", "count_nonzero", "cummax", "cummin", "histc", "kthvalue", "logcumsumexp",
               "median", "mode", "msort", "nanmedian", "nanquantile", "quantile", "take_along_dim", "unique",
               "unique_consecutive"]
    functions = methods + ["bucketize", "isin", "nonzero", "searchsorted", "std_mean", "var_mean"]
    assert all(callable(getattr(fgrad, name)) and name in fgrad.__all__ for name in functions)
    assert all(getattr(fgrad.Tensor, name) is getattr(fgrad, name) for name in methods)
    assert {n for n in functions if hasattr(torch.Tensor, n)} == set(methods) | {"nonzero"}
    values, indices = fgrad.median(fgrad.tensor([[1.0, 3.0, 2.0]]), 1)
    assert type(fgrad.kthvalue(fgrad.tensor([1.0]), 1)).__name__ == "kthvalue"
    assert fgrad.aminmax(fgrad.tensor([1.0, 2.0]))._fields == ("min", "max")
    assert values.item() == 2.0 and indices.item() == 2 and indices.dtype == fgrad.int64


@pytest.mark.parametrize("fn", [
    lambda x: fgrad.median(x), lambda x: fgrad.median(x, 0), lambda x: fgrad.nanmedian(x),
    lambda x: fgrad.nanmedian(x, 0), lambda x: fgrad.kthvalue(x, 1), lambda x: fgrad.mode(x),
    lambda x: fgrad.cummax(x, 0), lambda x: fgrad.cummin(x, 0), lambda x: fgrad.aminmax(x),
    lambda x: fgrad.msort(x), lambda x: fgrad.sort(x), lambda x: fgrad.argsort(x), lambda x: fgrad.topk(x, 1)])
def test_orders_of_complex_tensors_raise_as_torchs(fn):
    # a complex tensor has no order: torch raises (NotImplementedError, or sort's RuntimeError) where
    # NumPy's lexicographic order gave a value
    with pytest.raises((NotImplementedError, RuntimeError)):
        fn(fgrad.tensor([1 + 2j, 3 - 1j, 0.5j]))
