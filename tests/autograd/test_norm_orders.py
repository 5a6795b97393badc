"""Tensor.norm's p=0 (a grad_fn, zero gradient) and p='nuc' (the nuclear norm), against torch."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

X = np.array([[1.0, -2.0, 0.0], [3.0, 0.5, 0.0]])


@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_norm_0_has_a_grad_fn_and_zero_gradient(dim):
    x = fgrad.tensor(X, requires_grad=True)
    t = torch.tensor(X, requires_grad=True)
    y, ty = x.norm(0, dim=dim), t.norm(0, dim=dim)
    assert y.grad_fn is not None and ty.grad_fn is not None
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    y.sum().backward()
    assert np.all(x.grad.numpy() == 0)  # (torch's rule gives no gradient: its .grad stays None)
    with_nan = fgrad.tensor([np.nan, 0.0, 1.0, np.inf], requires_grad=True)
    assert with_nan.norm(0).item() == torch.tensor([np.nan, 0.0, 1.0, np.inf]).norm(0).item()
    assert fgrad.tensor(X).norm(0).grad_fn is None


@pytest.mark.parametrize("shape,dim,keepdim", [((2, 3), None, False), ((2, 3), None, True), ((2, 2, 3), (0, 2), False),
                                               ((3, 2, 2), (-1, -2), True)])
def test_nuclear_norm_as_torch(shape, dim, keepdim):
    a = np.random.default_rng(0).normal(size=shape)
    x = fgrad.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    kw = {} if dim is None else {"dim": dim}
    y, ty = x.norm(p="nuc", keepdim=keepdim, **kw), t.norm(p="nuc", keepdim=keepdim, **kw)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-10)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(fgrad.norm(x, p="nuc", keepdim=keepdim, **kw).detach().numpy(), ty.detach().numpy(),
                               rtol=1e-10)


@pytest.mark.parametrize("shape,dim", [((3,), None), ((2, 2, 3), None), ((2, 3), 1)])
def test_nuclear_norm_refuses_as_torch(shape, dim):
    kw = {} if dim is None else {"dim": dim}
    with pytest.raises(RuntimeError):
        torch.ones(shape).norm(p="nuc", **kw)
    with pytest.raises(RuntimeError, match="nuclear norm"):
        fgrad.ones(*shape).norm(p="nuc", **kw)
