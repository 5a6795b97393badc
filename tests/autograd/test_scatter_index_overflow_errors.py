"""Tensor face: torch's exception types where fgrad computed or raised another. scatter, scatter_,
scatter_add and scatter_add_ with a src of another dtype raise RuntimeError (had computed, casting);
index_select with an index out of [0, size), negative ones too, raises IndexError (was RuntimeError);
clamp/clip/clamp_ of a floating tensor with a finite Python bound beyond its dtype's range raise
RuntimeError (float16 with max=1e6 had computed); setitem with a Python int beyond int64 raises
ValueError, whatever the tensor's dtype (was RuntimeError or OverflowError). Against torch."""
import numpy as np
import pytest
import torch

import fgrad


def _outcome(f):
    try:
        return f()
    except (RuntimeError, IndexError, ValueError, OverflowError, TypeError) as e:
        return e


def _same(got, want):
    if isinstance(want, Exception):
        assert type(got) is type(want), (got, want)
        return
    assert not isinstance(got, Exception), got
    got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
    want = want.detach().numpy()
    assert str(got.dtype) == str(want.dtype) and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


SCATTERS = {
    "scatter": lambda m, x, i, s: x.scatter(0, i, s),
    "fn scatter": lambda m, x, i, s: m.scatter(x, 0, i, s),
    "scatter_": lambda m, x, i, s: x.clone().scatter_(0, i, s),
    "scatter_add": lambda m, x, i, s: x.scatter_add(0, i, s),
    "fn scatter_add": lambda m, x, i, s: m.scatter_add(x, 0, i, s),
    "scatter_add_": lambda m, x, i, s: x.clone().scatter_add_(0, i, s),
    "scatter reduce=add": lambda m, x, i, s: x.scatter(0, i, s, reduce="add"),
}
DTYPES = ["float32", "float64", "int32", "int64", "bool"]


@pytest.mark.parametrize("call", SCATTERS)
@pytest.mark.parametrize("self_dtype", DTYPES)
@pytest.mark.parametrize("src_dtype", DTYPES)
def test_scatter_src_dtype_matches_torch(call, self_dtype, src_dtype):
    if call.startswith("scatter reduce") and self_dtype == "bool":
        pytest.skip("torch's reduce=add of bools")
    out = []
    for m in (fgrad, torch):
        x = m.zeros(3, dtype=getattr(m, self_dtype))
        i = m.tensor([0, 2, 0])
        s = m.ones(3, dtype=getattr(m, src_dtype))
        out.append(_outcome(lambda: SCATTERS[call](m, x, i, s)))
    _same(*out)


@pytest.mark.parametrize("src", [2, 2.5, True])
def test_scatter_value_is_cast_as_torch(src):
    for dtype in ("float32", "int64"):
        got = fgrad.zeros(3, dtype=getattr(fgrad, dtype)).scatter(0, fgrad.tensor([0, 2]), src)
        want = torch.zeros(3, dtype=getattr(torch, dtype)).scatter(0, torch.tensor([0, 2]), src)
        _same(got, want)


def test_scatter_in_place_records_the_gradient_as_torch():
    grads = []
    for m in (fgrad, torch):
        src = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = m.zeros(4) * 1.0
        x.scatter_(0, m.tensor([0, 3, 1]), src * 2)
        y = x.clone().scatter_add_(0, m.tensor([0, 0, 1]), src)
        (y * m.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        grads.append(src.grad.numpy())
    np.testing.assert_allclose(*grads)


@pytest.mark.parametrize("index", [[-1], [3], [0, -3], [5, 0], [0, 2]])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select_out_of_range_matches_torch(index, dim):
    values = np.arange(9.0).reshape(3, 3)
    got = _outcome(lambda: fgrad.tensor(values).index_select(dim, fgrad.tensor(index)))
    want = _outcome(lambda: torch.tensor(values).index_select(dim, torch.tensor(index)))
    _same(got, want)
    _same(_outcome(lambda: fgrad.index_select(fgrad.tensor(values), dim, fgrad.tensor(index))), want)


@pytest.mark.parametrize("index", [[0], [1], [-1]])
def test_index_select_of_a_0d_tensor_matches_torch(index):
    got = _outcome(lambda: fgrad.tensor(2.0).index_select(0, fgrad.tensor(index)))
    want = _outcome(lambda: torch.tensor(2.0, dtype=torch.float64).index_select(0, torch.tensor(index)))
    _same(got, want)


CLAMPS = {
    "clamp(max=)": lambda m, x, v: m.clamp(x, max=v),
    "clamp(min=)": lambda m, x, v: x.clamp(min=v),
    "clip": lambda m, x, v: m.clip(x, -v, v) if v == v else m.clip(x, v, v),
    "clamp_": lambda m, x, v: x.clone().clamp_(max=v),
}
BOUNDS = [1e6, -1e6, 65504.0, 65519.0, 65520.0, 1e39, -1e39, 1e300, 100000, float("inf"), float("-inf"), 2.5]


@pytest.mark.parametrize("call", CLAMPS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("bound", BOUNDS)
def test_clamp_float_overflow_matches_torch(call, dtype, bound):
    got = _outcome(lambda: CLAMPS[call](fgrad, fgrad.tensor([1.0, -3.0], dtype=getattr(fgrad, dtype)), bound))
    want = _outcome(lambda: CLAMPS[call](torch, torch.tensor([1.0, -3.0], dtype=getattr(torch, dtype)), bound))
    _same(got, want)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float16", "float32", "float64", "bool"])
@pytest.mark.parametrize("value", [2 ** 63, -2 ** 63 - 1, 2 ** 64 - 1, 2 ** 64, 2 ** 70, -2 ** 70, 2 ** 63 - 1,
                                   -2 ** 63, 300, -1])
@pytest.mark.parametrize("where", ["item", "slice"])
def test_setitem_of_a_big_int_matches_torch(dtype, value, where):
    index = 0 if where == "item" else slice(0, 2)
    out = []
    for m in (fgrad, torch):
        x = m.zeros(3, dtype=getattr(m, dtype))

        def write(x=x):
            x[index] = value
            return x
        out.append(_outcome(write))
    _same(*out)


def test_full_of_a_big_int_is_torchs_runtime_error():
    for m in (fgrad, torch):
        with pytest.raises(RuntimeError):
            m.full((2,), 2 ** 63, dtype=m.int64)
        with pytest.raises(OverflowError):
            m.full((2,), 2 ** 64, dtype=m.int64)
