"""fgrad.func's transforms of Tensor functions keep the Tensor face inside, composed (as torch.func)."""
import numpy as np
import pytest

import fgrad
import fgrad.func as ff

X = np.random.default_rng(1).normal(size=(3, 2))


def f(x):
    return x.sin().sum() * x.cos().sum()


def g(x):
    return x.sin() * x.sum()


@pytest.mark.parametrize("compose", [
    lambda m: m.vmap(g), lambda m: m.vmap(m.grad(f)), lambda m: m.vmap(m.jacrev(g)), lambda m: m.vmap(m.jacfwd(g)),
    lambda m: m.vmap(m.hessian(f)), lambda m: m.vmap(m.vmap(g)), lambda m: m.grad(lambda x: m.vmap(g)(x).sum()),
    lambda m: m.vmap(m.grad(f), chunk_size=2),
], ids=["vmap", "vmap-grad", "vmap-jacrev", "vmap-jacfwd", "vmap-hessian", "vmap-vmap", "grad-vmap", "chunked"])
def test_composed_transforms_of_tensor_functions_match_torch_func(compose):
    torch = pytest.importorskip("torch")
    import torch.func as tf
    out = compose(ff)(fgrad.tensor(X))  # ("'VJPTracer' object has no attribute 'sin'" before)
    assert isinstance(out, fgrad.Tensor)
    np.testing.assert_allclose(out.numpy(), compose(tf)(torch.tensor(X)).numpy(), rtol=1e-12)


def test_vmap_of_a_tensor_function_records_for_backward():
    torch = pytest.importorskip("torch")
    import torch.func as tf
    w = np.array([0.5, -1.0])

    def h(x, w):
        return (x.sin() * w).sum()
    x = fgrad.tensor(X, requires_grad=True)
    ff.vmap(h, in_dims=(0, None))(x, fgrad.tensor(w)).sum().backward()
    tx = torch.tensor(X, requires_grad=True)
    tf.vmap(h, in_dims=(0, None))(tx, torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


class _Square(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_functions_under_transforms_of_tensor_functions():
    # apply gets the Tensors of traced values: it runs on their values and gives Tensors back
    # (before: "multiply got a traced value of grad ... not active here").
    t = fgrad.tensor(X)
    np.testing.assert_allclose(np.asarray(ff.grad(lambda x: _Square.apply(x).sin().sum())(t)), 2 * X * np.cos(X * X))
    np.testing.assert_allclose(np.asarray(ff.vmap(ff.grad(lambda x: _Square.apply(x).sum()))(t)), 2 * X)
    np.testing.assert_allclose(ff.vmap(lambda x: _Square.apply(x).sum())(t).numpy(), (X * X).sum(axis=1))


@pytest.mark.parametrize("transform", [
    lambda m, f: m.grad(f), lambda m, f: m.jacrev(f), lambda m, f: m.jacfwd(f), lambda m, f: m.hessian(f),
    lambda m, f: m.vmap(f), lambda m, f: m.vmap(f, chunk_size=1),
    lambda m, f: lambda x: m.vjp(f, x)[1](x.sum() * 0 + 1)[0], lambda m, f: lambda x: m.jvp(f, (x,), (x,))[1],
], ids=["grad", "jacrev", "jacfwd", "hessian", "vmap", "vmap-chunked", "vjp", "jvp"])
@pytest.mark.parametrize("f", [lambda x: x.sum(), lambda x: x.sum() * 0 + 2.0], ids=["sum", "constant"])
def test_transforms_of_tensors_return_tensors_where_the_result_is_a_constant(transform, f):
    """A derivative that never met the Tensor (the sum's is ones, a constant's zeros) came back
    as a NumPy array, where torch.func returns a Tensor; arrays in, arrays out still."""
    out = transform(ff, f)(fgrad.tensor(X))
    assert isinstance(out, fgrad.Tensor) and not out.requires_grad, type(out)
    assert not isinstance(transform(ff, f)(X), fgrad.Tensor)
    torch = pytest.importorskip("torch")
    import torch.func as tf
    expected = transform(tf, f)(torch.tensor(X))
    np.testing.assert_allclose(out.numpy(), expected.detach().numpy(), rtol=1e-12)
