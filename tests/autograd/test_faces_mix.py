"""The two faces mix (issue 17, case 14): a Function's forward and backward see Tensors under
every transform (Note [tensors of traced values] in fgrad/autograd/tape.py); gradcheck and
gradgradcheck of Tensors check the imperative face with Tensors throughout."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad import autograd


class Cube(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        assert isinstance(x, fgrad.Tensor)
        ctx.save_for_backward(x)
        return x.pow(3)

    @staticmethod
    def backward(ctx, g):
        assert isinstance(g, fgrad.Tensor)
        (x,) = ctx.saved_tensors
        return g * 3.0 * x.pow(2)  # differentiable: double backward and hessian go through it


class Exp(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


X = np.array([0.5, 1.0, 2.0])


def loss(x):
    return fnp.sum(Cube.apply(x))


@pytest.mark.parametrize("transform,expected", [
    (lambda: fgrad.grad(loss)(X), 3 * X ** 2),
    (lambda: fgrad.hessian(loss)(X), np.diag(6 * X)),
    (lambda: fgrad.jvp(loss, (X,), (np.ones(3),))[1], np.sum(3 * X ** 2)),
    (lambda: fgrad.hvp(loss, (X,), (np.ones(3),))[1], 6 * X),
    (lambda: fgrad.grad(lambda x: fnp.sum(fgrad.grad(lambda y: fnp.sum(Exp.apply(y)))(x)))(X), np.exp(X)),
    (lambda: fgrad.jacrev(lambda x: Cube.apply(x))(X), np.diag(3 * X ** 2)),
])
def test_a_function_sees_tensors_under_every_transform(transform, expected):
    got = transform()
    assert type(got) in (np.ndarray, np.float64)
    np.testing.assert_allclose(got, expected)


def test_gradcheck_and_gradgradcheck_of_tensors_use_the_tensor_face():
    t = fgrad.tensor(X, requires_grad=True)
    assert fgrad.gradcheck(lambda t: Cube.apply(t), (t,))
    assert fgrad.gradgradcheck(lambda t: Cube.apply(t), (t,))
    assert fgrad.gradcheck(lambda t: t.exp().sum(dim=0), (t,))  # PyTorch-style methods
    assert fgrad.gradgradcheck(lambda t: (t * t.sigmoid()).var(), (t,))  # var: PyTorch's, unbiased


def test_gradcheck_of_tensors_finds_a_wrong_backward():
    class Wrong(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 3.0

    with pytest.raises(fgrad.testing.GradcheckError, match="Jacobian"):
        fgrad.gradcheck(lambda t: Wrong.apply(t), (fgrad.tensor(X, requires_grad=True),))


def test_detach_in_a_backward_stops_second_derivatives_on_both_faces():
    class Detached(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.pow(3)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3.0 * x.detach().pow(2)

    functional = fgrad.hessian(lambda x: fnp.sum(Detached.apply(x)))(X)
    t = fgrad.tensor(X, requires_grad=True)
    (g,) = autograd.grad(Detached.apply(t).sum(), t, create_graph=True)
    np.testing.assert_array_equal(functional, np.zeros((3, 3)))
    assert not g.requires_grad  # (as PyTorch: nothing to differentiate a second time)


def test_a_tensor_of_a_traced_value_cannot_require_grad():
    def f(x):
        class Probe(autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.requires_grad_()
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        return fnp.sum(Probe.apply(x))
    with pytest.raises(RuntimeError, match="cannot require grad"):
        fgrad.hessian(f)(X)


def test_a_pytorch_style_function_of_tensors_keeps_its_methods_under_functional_transforms():
    t = fgrad.tensor(X, requires_grad=True)
    g = fgrad.grad(lambda t: t.exp().sum(dim=0))(t)
    np.testing.assert_allclose(g.detach().numpy(), np.exp(X))
    _, tangent = fgrad.jvp(lambda t: t.exp().sum(), (t,), (fgrad.tensor(np.ones(3)),))
    assert float(tangent) == pytest.approx(np.exp(X).sum())
    np.testing.assert_allclose(fgrad.hessian(lambda t: t.pow(3).sum())(t).detach().numpy(), np.diag(6 * X))
    # the Tensor's own semantics: var is unbiased, as in PyTorch
    np.testing.assert_allclose(fgrad.grad(lambda t: t.var())(t).detach().numpy(), 2 * (X - X.mean()) / 2)
