"""fgrad.autograd.forward_ad: dual values are Tensors (Note [dual tensors]), compared with torch's."""
import numpy as np
import pytest

import fgrad
import fgrad.autograd.forward_ad as fwAD
from fgrad import nn
from fgrad.func import functional_call

X = np.array([0.5, 1.0, 2.0])
V = np.array([1.0, -0.5, 0.25])


def _dual_run(lib, AD, exp):
    """A dual of a leaf that requires grad, Tensor methods on it, its value read inside the level,
    its tangent, and backward through it after the level: torch's numbers for each."""
    x = lib.tensor(X, requires_grad=True)
    with AD.dual_level():
        d = AD.make_dual(x, lib.tensor(V))
        y = exp(d.sin() * d)
        primal, tangent = AD.unpack_dual(y)
        inside = (float(y[1]), y.detach().numpy().copy(), tangent.detach().numpy().copy(),
                  type(primal).__name__, type(tangent).__name__, y.requires_grad)
    after = AD.unpack_dual(y).tangent
    (y * 2).sum().backward()
    return inside, after, y.detach().numpy().copy(), x.grad.numpy().copy()


def test_duals_are_tensors_as_torch():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tAD
    ours = _dual_run(fgrad, fwAD, fgrad.numpy.exp)
    theirs = _dual_run(torch, tAD, torch.exp)
    (f, value, tangent, p_type, t_type, rg), after, value_after, grad = ours
    assert (p_type, t_type, rg) == ("Tensor", "Tensor", True)
    assert after is None and theirs[1] is None  # the tangent is dropped when the level exits
    assert f == pytest.approx(theirs[0][0])
    np.testing.assert_allclose(value, theirs[0][1])
    np.testing.assert_allclose(tangent, theirs[0][2])
    np.testing.assert_allclose(value_after, theirs[2])
    np.testing.assert_allclose(grad, theirs[3])


def test_a_dual_after_its_level_is_its_primal():
    x = fgrad.tensor(X)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, fgrad.tensor(V))
        y = d * d
    np.testing.assert_allclose((y + 1).numpy(), X * X + 1)  # ops on it work, and give the primal's numbers
    assert y.tolist() == (X * X).tolist() and fwAD.unpack_dual(y).tangent is None
    with fwAD.dual_level():  # (a later level does not see the old tangent)
        assert fwAD.unpack_dual(y).tangent is None
        np.testing.assert_allclose(fwAD.unpack_dual(fwAD.make_dual(y, fgrad.tensor(V)) * 3).tangent.numpy(), 3 * V)


def test_forward_ad_tutorial():
    # PyTorch's forward-mode AD tutorial (intermediate/forward_ad_usage.py), fgrad for torch.
    primal, tangent = fgrad.tensor(np.random.randn(10, 10)), fgrad.tensor(np.random.randn(10, 10))
    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        assert fwAD.unpack_dual(dual_input).tangent is tangent
        plain_tensor = fgrad.tensor(np.random.randn(10, 10))
        dual_output = dual_input ** 2 + plain_tensor ** 2
        jvp = fwAD.unpack_dual(dual_output).tangent
    assert fwAD.unpack_dual(dual_output).tangent is None
    np.testing.assert_allclose(jvp.numpy(), 2 * primal.numpy() * tangent.numpy())

    model = nn.Linear(5, 5)
    inputs = fgrad.tensor(np.random.randn(16, 5))
    params = dict(model.named_parameters())
    tangents = {name: fgrad.tensor(np.random.rand(*p.shape)) for name, p in params.items()}
    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))
        jvp = fwAD.unpack_dual(model(inputs)).tangent
    dual_params = {}
    with fwAD.dual_level():
        for name, p in params.items():
            dual_params[name] = fwAD.make_dual(p, tangents[name])
        jvp2 = fwAD.unpack_dual(functional_call(nn.Linear(5, 5), dual_params, inputs)).tangent
    expected = inputs.numpy() @ tangents["weight"].numpy().T + tangents["bias"].numpy()
    np.testing.assert_allclose(jvp.detach().numpy(), expected)
    np.testing.assert_allclose(jvp2.detach().numpy(), expected)


class _Exp(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = fgrad.numpy.exp(foo)
        ctx.save_for_backward(result)
        ctx.result = result
        return result

    @staticmethod
    def backward(ctx, g):
        (result,) = ctx.saved_tensors
        return g * result

    @staticmethod
    def jvp(ctx, g):
        return g * ctx.result


def test_function_jvp_and_backward_under_a_dual_level():
    # forward runs once; jvp gives the tangent, and the node for backward is recorded too
    # (before, the primal lost its history: backward missed the Function's term, silently).
    x = fgrad.tensor(X, requires_grad=True)
    with fwAD.dual_level():
        y = _Exp.apply(fwAD.make_dual(x, fgrad.tensor(V)))
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(), np.exp(X) * V)
        (y + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(X) + 1)


def test_what_forward_ad_refuses():
    x = fgrad.tensor(X)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, fgrad.tensor(V))
        with pytest.raises(RuntimeError, match="in-place operation on or with a Tensor of a traced value"):
            d.add_(1)
        with pytest.raises(RuntimeError, match="in-place operation"):
            fgrad.zeros(3).copy_(d)  # (torch makes it a dual; a plain copy would drop the tangent)
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            with fwAD.dual_level():
                pass
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, fgrad.tensor(np.ones(2)))

        class NoJvp(fgrad.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        with pytest.raises(NotImplementedError, match="needs the Function's jvp"):
            NoJvp.apply(d)
