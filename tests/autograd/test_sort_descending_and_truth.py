"""Against torch 2.13: a descending sort (and topk) of unsigned, bool and the least signed ints
(it negated the values: uint8 [1, 2, 3, 0] sorted descending gave [0, 3, 2, 1], a wrong value
without an error, and bool raised), all/any with dim and keepdim as bool Tensors (uint8 for uint8,
as torch's; they were Python bools with no dim), trace of a uint8 tensor in int64, and tril/triu
keeping a bool tensor bool."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")


def _same(got, want, where):
    assert str(got.dtype).replace("fgrad.", "") == str(want.dtype).replace("torch.", ""), where
    assert tuple(got.shape) == tuple(want.shape), where
    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=where)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64", "bool", "float32", "float64"])
def test_sort_and_topk_as_torch(dtype):
    rng = np.random.default_rng(3)
    for shape in [(7,), (3, 5), (2, 3, 4)]:
        v = rng.integers(-3, 4, shape)
        if dtype.startswith("float"):
            v = v.astype(float)
            v[rng.random(shape) < 0.2] = np.nan  # (NaN sorts as the largest value)
        if dtype == "int64":
            v[rng.random(shape) < 0.2] = np.iinfo(np.int64).min  # (whose negation wraps to itself)
        t, f = torch.tensor(v).to(getattr(torch, dtype)), fgrad.tensor(v).to(getattr(fgrad, dtype))
        for dim in range(-1, len(shape)):
            for descending in (True, False):
                want, got = torch.sort(t, dim=dim, descending=descending, stable=True), \
                    fgrad.sort(f, dim=dim, descending=descending)
                where = f"{dtype} {shape} dim {dim} descending {descending}"
                _same(got.values, want.values, where)
                _same(got.indices, want.indices, where)
                _same(fgrad.argsort(f, dim=dim, descending=descending),
                      torch.argsort(t, dim=dim, descending=descending, stable=True), where)
            if dtype != "bool":  # (torch's topk has no bool kernel)
                _same(fgrad.topk(f, 2, dim=dim).values, torch.topk(t, 2, dim=dim).values, f"topk {dtype} {dim}")
                _same(fgrad.topk(f, 2, dim=dim, largest=False).values, torch.topk(t, 2, dim=dim, largest=False).values,
                      f"topk smallest {dtype} {dim}")


def test_descending_sort_keeps_its_gradient():
    x = fgrad.tensor([3.0, 1.0, 2.0, 1.0], requires_grad=True)
    (fgrad.sort(x, descending=True).values * fgrad.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 3.0, 2.0, 4.0])  # (ties keep their order)


@pytest.mark.parametrize("dtype", ["uint8", "int64", "bool", "float64"])
@pytest.mark.parametrize("name", ["all", "any"])
def test_all_and_any_as_torch(name, dtype):
    rng = np.random.default_rng(4)
    for shape in [(), (3,), (2, 3), (2, 0)]:
        v = rng.integers(0, 2, shape)
        t, f = torch.tensor(v).to(getattr(torch, dtype)), fgrad.tensor(v).to(getattr(fgrad, dtype))
        _same(getattr(f, name)(), getattr(t, name)(), f"{name} {dtype} {shape}")
        _same(getattr(fgrad, name)(f), getattr(torch, name)(t), f"fgrad.{name} {dtype} {shape}")
        for dim in (0, -1):
            for keepdim in (False, True):
                where = f"{name} {dtype} {shape} dim {dim} keepdim {keepdim}"
                _same(getattr(f, name)(dim=dim, keepdim=keepdim), getattr(t, name)(dim=dim, keepdim=keepdim), where)
    with pytest.raises(IndexError, match="Dimension out of range"):
        getattr(fgrad.tensor([1.0]), name)(dim=1)
    assert bool(getattr(fgrad.tensor([1.0, 1.0]), name)()) is True  # (`if t.all():` reads its value)


def test_trace_of_uint8_and_tril_of_bool_as_torch():
    m = np.array([[200, 1], [2, 100]])
    _same(fgrad.trace(fgrad.tensor(m, dtype=fgrad.uint8)), torch.trace(torch.tensor(m, dtype=torch.uint8)), "trace")
    b = np.array([[True, True], [True, False]])
    for name in ("tril", "triu"):
        _same(getattr(fgrad, name)(fgrad.tensor(b)), getattr(torch, name)(torch.tensor(b)), name)
