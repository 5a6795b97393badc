"""The Tensor face where torch answers and fgrad did not: what torch allows works, and what it
refuses raises a message that names what was wrong and what to do."""
import io

import numpy as np
import pytest

import fgrad
import fgrad.nn.functional as F


def test_float_class_labels_are_refused_not_truncated():
    logits = fgrad.tensor(np.random.default_rng(0).normal(size=(3, 4)), requires_grad=True)
    with pytest.raises(ValueError, match=r"cross_entropy: a floating-point target holds class probabilities and must "
                                         r"have the input's shape \(3, 4\), got shape \(3,\).*target.long\(\)"):
        F.cross_entropy(logits, fgrad.tensor([0.0, 1.7, 2.0]))
    with pytest.raises(TypeError, match="nll_loss: class-index targets must have an integer dtype, got float64"):
        F.nll_loss(logits, np.array([0.0, 1.7, 2.0]))  # (was read as [0, 1, 2])
    with pytest.raises(TypeError, match="integer dtype, got bool"):
        F.cross_entropy(logits, np.array([True, False, True]))
    torch = pytest.importorskip("torch")
    t = torch.tensor(logits.detach().numpy())
    assert F.cross_entropy(logits, np.array([0, 1, 2])).item() == pytest.approx(
        torch.nn.functional.cross_entropy(t, torch.tensor([0, 1, 2])).item())
    probs = np.full((3, 4), 0.25)
    assert F.cross_entropy(logits, probs).item() == pytest.approx(
        torch.nn.functional.cross_entropy(t, torch.tensor(probs)).item())


def test_numpy_functions_fgrad_does_not_cover_take_detached_tensors():
    t = fgrad.tensor([1.0, 2.0], requires_grad=True)
    for value in (t.detach(), fgrad.tensor([1.0, 2.0])):  # (was "numpy.save ... cannot differentiate it")
        buffer = io.BytesIO()
        np.save(buffer, value)
        buffer.seek(0)
        np.testing.assert_array_equal(np.load(buffer), [1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"numpy.save: Can't call numpy\(\) on Tensor that requires grad.*"
                                           r"detach\(\)"):
        np.save(io.BytesIO(), t)
    with fgrad.no_grad():  # (np.asarray(t) works there too, as torch's)
        np.save(io.BytesIO(), t)
    with pytest.raises(TypeError, match=r"numpy.save is not supported on traced values"):
        fgrad.grad(lambda x: (np.save(io.BytesIO(), x), x.sum())[1])(np.ones(2))


def test_to_takes_dtypes_and_says_a_dtype_name_is_not_a_device():
    t = fgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(ValueError, match=r"Tensor.to: 'float32' is a dtype, not a device.*t.to\(np.float32\)"):
        t.to("float32")
    for args, kwargs in [((np.float32,), {}), ((np.dtype("float32"),), {}), ((), {"dtype": "float32"}),
                         (("cpu", np.float32), {}), ((fgrad.tensor(np.ones(1, np.float32)),), {})]:
        assert t.to(*args, **kwargs).dtype == np.float32  # (np.dtype("float32") was read as a device)
    assert t.to("cpu") is t and t.to(copy=True) is not t
    t.to(np.float32).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [1.0, 1.0])


class _Scale(fgrad.autograd.Function):  # torch 2's style: forward without ctx, then setup_context
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None


def test_torch2_style_function():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    _Scale.apply(x, 3.0).sum().backward()  # (a bare TypeError before: forward() takes 2 arguments)
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(fgrad.grad(lambda v: _Scale.apply(v, 3.0).sum())(np.ones(2)), [3.0, 3.0])


def test_second_backward_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (fgrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x + 1).sum()  # nothing saved: torch allows a second backward
        y.backward()
        y.backward()
        np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
        y = (x * x).sum()
        y.backward()
        with pytest.raises(RuntimeError, match=r"backward through the graph a second time.*retain_graph=True"):
            y.backward()


class _Constant(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, 3.0

    @staticmethod
    def backward(ctx, g, h):
        assert h is None  # (as torch: no gradient for a number)
        return g * 2


def test_a_python_number_from_forward_is_a_constant_as_torch():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    y, c = _Constant.apply(x)
    assert c == 3.0 and type(c) is float  # (was a Tensor with a grad_fn)
    (y.sum() * c).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_array_equal(fgrad.grad(lambda v: _Constant.apply(v)[0].sum() * _Constant.apply(v)[1])(
        np.ones(2)), [6.0, 6.0])
