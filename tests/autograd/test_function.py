"""autograd.Function's gradient count, as torch's: backward may return extra trailing Nones, for
forward's defaulted arguments left out; any other count is an error naming the Function."""
import numpy as np
import pytest

import fgrad


class Affine(fgrad.autograd.Function):
    """x * w (+ b): backward always returns three gradients, b's None when b was not passed."""

    @staticmethod
    def forward(ctx, x, w, b=None):
        ctx.save_for_backward(x, w)
        return x * w if b is None else x * w + b

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w, g * x, None


class Surplus(Affine):
    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w, g * x, g


def test_trailing_none_gradients_for_arguments_not_passed_are_dropped():
    x = fgrad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    w = fgrad.tensor(np.array([3.0, -1.0]), requires_grad=True)
    Affine.apply(x, w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, -1.0])
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])


def test_an_extra_gradient_that_is_not_none_is_an_error():
    x = fgrad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    w = fgrad.tensor(np.array([3.0, -1.0]), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"SurplusBackward returned an incorrect number of gradients \(expected 2, "
                                           r"got 3\)"):
        Surplus.apply(x, w).sum().backward()


def test_matches_torch():
    torch = pytest.importorskip("torch")

    class TorchAffine(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b=None):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w, g * x, None

    x, w = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, -1.0], requires_grad=True)
    TorchAffine.apply(x, w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, -1.0])
