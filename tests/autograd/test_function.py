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


class HostSort(fgrad.autograd.Function):
    """Sorts along the last axis with NumPy (no fgrad ops to batch): its vmap rule sorts every
    example at once, moving the batch dimension to the front."""

    calls = 0

    @staticmethod
    def forward(x):
        return fgrad.tensor(np.sort(x.detach().numpy(), axis=-1))

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError

    @staticmethod
    def vmap(info, in_dims, x):
        HostSort.calls += 1
        assert info.batch_size == x.shape[in_dims[0]]
        return HostSort.apply(x.movedim(in_dims[0], 0)), 0


def test_a_vmap_staticmethod_batches_the_function():
    xs = np.array([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]])
    HostSort.calls = 0
    got = fgrad.func.vmap(HostSort.apply)(fgrad.tensor(xs))
    np.testing.assert_array_equal(got.numpy(), np.sort(xs, axis=-1))
    got = fgrad.vmap(HostSort.apply, in_axes=1, out_axes=1)(xs.T)  # (arrays too; another batch axis)
    np.testing.assert_array_equal(np.asarray(got), np.sort(xs, axis=-1).T)
    assert HostSort.calls == 2


def test_a_vmap_rule_must_return_outputs_and_dims():
    class NoDims(HostSort):
        @staticmethod
        def vmap(info, in_dims, x):
            return HostSort.apply(x)

    with pytest.raises(RuntimeError, match=r"NoDims.vmap must return \(outputs, out_dims\)"):
        fgrad.func.vmap(NoDims.apply)(fgrad.tensor(np.ones((2, 3))))
