"""torch's comparison functions by name (eq ... ge and their aliases), finfo/iinfo, real/imag/conj,
empty_like, logspace, bincount, gradient, matrix_power and pinverse, against torch 2.13."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")


def _same(got, want):
    assert str(got.dtype).replace("fgrad.", "") == str(want.dtype).replace("torch.", "")
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got.detach().numpy()), want.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
                                  "less_equal", "not_equal"])
def test_comparisons_as_torch(name):
    a, b = [[1.0, 2.0, 3.0], [0.0, 2.0, -1.0]], [[2.0, 2.0, 2.0]]
    for x, y in [(a, b), (a, a)]:
        for dtype in ("float64", "int64"):
            fx, fy = fgrad.tensor(x).to(getattr(fgrad, dtype)), fgrad.tensor(y).to(getattr(fgrad, dtype))
            tx, ty = torch.tensor(x).to(getattr(torch, dtype)), torch.tensor(y).to(getattr(torch, dtype))
            _same(getattr(fgrad, name)(fx, fy), getattr(torch, name)(tx, ty))
            _same(getattr(fx, name)(fy), getattr(tx, name)(ty))
            _same(getattr(fgrad, name)(fx, 2), getattr(torch, name)(tx, 2))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_finfo_as_torch(dtype):
    got, want = fgrad.finfo(getattr(fgrad, dtype)), torch.finfo(getattr(torch, dtype))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(got, field) == getattr(want, field), field


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_iinfo_as_torch(dtype):
    got, want = fgrad.iinfo(getattr(fgrad, dtype)), torch.iinfo(getattr(torch, dtype))
    assert (got.bits, got.max, got.min, got.dtype) == (want.bits, want.max, want.min, want.dtype)


def test_real_imag_conj_as_torch():
    z, r = [1.0 + 2.0j, -0.5 - 1.0j], [1.0, -3.0]
    for name in ("real", "imag", "conj"):
        _same(getattr(fgrad, name)(fgrad.tensor(z)),
              getattr(torch, name)(torch.tensor(z, dtype=torch.complex128)).resolve_conj())
    _same(fgrad.real(fgrad.tensor(r)), torch.real(torch.tensor(r, dtype=torch.float64)))
    _same(fgrad.conj(fgrad.tensor(r)), torch.conj(torch.tensor(r, dtype=torch.float64)))
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        fgrad.imag(fgrad.tensor(r))
    x = fgrad.tensor(z, requires_grad=True)
    (fgrad.real(x) * 2 + fgrad.imag(x) * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 + 3j, 2 + 3j])  # (torch's convention: the conjugate Wirtinger)


def test_empty_like_logspace_as_torch():
    got = fgrad.empty_like(fgrad.ones(2, 3, dtype=fgrad.int64))
    assert got.shape == (2, 3) and got.dtype == fgrad.int64
    torch.set_default_dtype(torch.float64)
    try:
        for args, kw in [((0, 2, 3), {}), ((0, 3, 4), {"base": 2.0}), ((-1, 1, 5), {})]:
            _same(fgrad.logspace(*args, **kw), torch.logspace(*args, **kw))
    finally:
        torch.set_default_dtype(torch.float32)


def test_bincount_as_torch():
    i = [0, 2, 2, 5]
    _same(fgrad.bincount(fgrad.tensor(i)), torch.bincount(torch.tensor(i)))
    _same(fgrad.bincount(fgrad.tensor(i), minlength=8), torch.bincount(torch.tensor(i), minlength=8))
    for dtype in ("float32", "float64", "int64"):
        w = [0.5, 1.0, 2.0, 3.0]
        _same(fgrad.bincount(fgrad.tensor(i), fgrad.tensor(w).to(getattr(fgrad, dtype))),
              torch.bincount(torch.tensor(i), torch.tensor(w).to(getattr(torch, dtype))))
    x = fgrad.tensor([0.5, 1.0, 2.0, 3.0], requires_grad=True)
    (fgrad.bincount(fgrad.tensor(i), x) * fgrad.arange(6.0)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 2.0, 5.0])
    for bad in ([-1, 2], [[1, 2]]):
        with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
            fgrad.bincount(fgrad.tensor(bad))


def test_gradient_matrix_power_pinverse_as_torch():
    a = np.array([[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 4.0]])
    for kw in [{}, {"dim": 1}, {"dim": 0, "spacing": 2.0}, {"dim": [0, 1], "spacing": [1.0, 0.5]},
               {"dim": -1, "edge_order": 2}]:
        got, want = fgrad.gradient(fgrad.tensor(a), **kw), torch.gradient(torch.tensor(a), **kw)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    m = np.array([[2.0, 1.0], [0.5, 3.0]])
    for n in (0, 1, 3, -2):
        _same(fgrad.matrix_power(fgrad.tensor(m), n), torch.matrix_power(torch.tensor(m), n))
        _same(fgrad.tensor(m).matrix_power(n), torch.tensor(m).matrix_power(n))
    s = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 1.0]])
    _same(fgrad.pinverse(fgrad.tensor(s)), torch.pinverse(torch.tensor(s)))
    x, t = fgrad.tensor(m, requires_grad=True), torch.tensor(m, requires_grad=True)
    fgrad.matrix_power(x, 3).sum().backward()
    torch.matrix_power(t, 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)
