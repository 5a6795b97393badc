"""The examples of the seed document on autograd (shared/seeds), translated from torch to fgrad.

Each asserts the numbers the document states.
"""
import numpy as np
import pytest

import fgrad
import fgrad.nn.functional as F
from fgrad import nn


def test_computation_graph_names():
    x = fgrad.tensor([2.0], requires_grad=True)
    y = fgrad.tensor([3.0], requires_grad=True)
    z = x * y
    w = z + x
    loss = w.sum()
    assert loss.grad_fn.name() == "SumBackward0"
    assert z.grad_fn.name() == "MulBackward0"
    assert repr(loss.grad_fn) == "<SumBackward0>"
    assert x.grad_fn is None and x.is_leaf


def test_grad_fn_chain_and_next_functions():
    x = fgrad.tensor([2.0], requires_grad=True)
    z = x ** 2
    assert z.grad_fn.name() == "PowBackward0"
    w = z + 5
    assert w.grad_fn.name() == "AddBackward0"
    assert w.grad_fn.next_functions[0][0] is z.grad_fn
    assert w.grad_fn.next_functions[1][0] is None  # 5 is a constant
    (acc, index), (const, _) = z.grad_fn.next_functions
    assert acc.name() == "AccumulateGrad" and index == 0 and const is None
    assert acc.variable() is x


def test_forward_builds_graph_without_gradients():
    def forward(x):
        y = x ** 2
        z = y + 3
        w = z * 2
        return w.sum()
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    loss = forward(x)
    assert x.grad is None
    assert loss.grad_fn.name() == "SumBackward0"
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0, 12.0])


def test_requires_grad_propagation_and_detach():
    x = fgrad.tensor([1.0], requires_grad=True)
    y = fgrad.tensor([2.0], requires_grad=False)
    z = x * y
    assert z.requires_grad and z.grad_fn.name() == "MulBackward0"
    z2 = x * 10
    assert z2.grad_fn.name() == "MulBackward0"
    z3 = x.detach() * y
    assert not z3.requires_grad and z3.grad_fn is None


def test_no_grad_builds_no_graph():
    x = fgrad.tensor([1.0], requires_grad=True)
    y = x ** 2
    assert y.requires_grad
    with fgrad.no_grad():
        z = x ** 2
        assert not z.requires_grad and z.grad_fn is None
    assert fgrad.is_grad_enabled()


def test_backward_matrix_multiply():
    x = fgrad.tensor([2.0, 3.0], requires_grad=True)
    W = fgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x @ W
    loss = y.sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 7.0])
    np.testing.assert_allclose(W.grad.numpy(), [[2.0, 2.0], [3.0, 3.0]])
    assert loss.grad is None


def test_manual_gradient_is_4():
    x = fgrad.tensor([2.0], requires_grad=True)
    loss = x ** 2
    loss.backward()
    assert x.grad.item() == 4.0
    np.testing.assert_allclose((2 * x.data).numpy(), [4.0])


def test_chain_rule_is_24():
    x = fgrad.tensor([3.0], requires_grad=True)
    y = x * 2
    z = y ** 2
    z.backward()
    assert x.grad.item() == 24.0


def test_batch_backward_shapes():
    x = fgrad.randn(4, 10, requires_grad=True)
    target = fgrad.randn(4, 5)
    model = nn.Linear(10, 5)
    loss = F.mse_loss(model(x), target)
    loss.backward()
    assert model.weight.grad.shape == (5, 10)
    assert x.grad.shape == (4, 10)


class ReLU(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


def test_custom_relu_function():
    x = fgrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = ReLU.apply(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 1.0])
    assert y.grad_fn.name() == "ReLUBackward"


class LinearWithCustomGrad(fgrad.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input @ weight.t()
        if bias is not None:
            output += bias
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_output @ weight
        grad_weight = grad_output.t() @ input
        grad_bias = grad_output.sum(0) if bias is not None else None
        return grad_input, grad_weight, grad_bias


def test_custom_linear_function_shapes_and_values():
    x = fgrad.randn(32, 10, requires_grad=True)
    W = fgrad.randn(5, 10, requires_grad=True)
    b = fgrad.randn(5, requires_grad=True)
    y = LinearWithCustomGrad.apply(x, W, b)
    y.sum().backward()
    assert x.grad.shape == (32, 10) and W.grad.shape == (5, 10) and b.grad.shape == (5,)
    np.testing.assert_allclose(W.grad.numpy(), np.ones((5, 32)) @ x.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), np.full(5, 32.0))


def test_gradient_accumulation_is_5():
    x = fgrad.tensor([1.0], requires_grad=True)
    y = x ** 2
    y.backward()
    assert x.grad.item() == 2.0
    y = x ** 3
    y.backward()
    assert x.grad.item() == 5.0


def test_zero_grad_between_updates():
    model = nn.Linear(10, 5)
    optimizer = fgrad.optim.SGD(model.parameters(), lr=0.01)
    data = fgrad.randn(8, 10)
    model(data).sum().backward()
    first = model.weight.grad.numpy().copy()
    model(data).sum().backward()
    np.testing.assert_allclose(model.weight.grad.numpy(), 2 * first)
    optimizer.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_intentional_accumulation_equals_big_batch():
    fgrad.manual_seed(0)
    model = nn.Linear(10, 5)
    data, target = fgrad.randn(128, 10), fgrad.randn(128, 5)
    F.mse_loss(model(data), target).backward()
    full = model.weight.grad.numpy().copy()
    model.zero_grad()
    for k in range(4):
        chunk = slice(32 * k, 32 * (k + 1))
        (F.mse_loss(model(data[chunk]), target[chunk]) / 4).backward()
    np.testing.assert_allclose(model.weight.grad.numpy(), full, rtol=1e-12, atol=1e-14)


def test_hook_sees_gradient_and_handle_removes_it():
    seen = []
    x = fgrad.randn(3, requires_grad=True)
    handle = x.register_hook(lambda g: seen.append(g.numpy().copy()) or g)
    (x ** 2).sum().backward()
    np.testing.assert_allclose(seen[0], 2 * x.detach().numpy())
    handle.remove()
    (x ** 2).sum().backward()
    assert len(seen) == 1


def test_gradient_clipping_hook():
    def clip_grad_hook(grad, max_norm=1.0):
        norm = grad.norm()
        if norm > max_norm:
            return grad * (max_norm / norm)
        return grad
    model = nn.Linear(10, 5)
    for _name, param in model.named_parameters():
        param.register_hook(lambda g, m=1.0: clip_grad_hook(g, m))
    x = fgrad.randn(16, 10) * 10
    model(x).sum().backward()
    for p in model.parameters():
        assert float(p.grad.norm()) <= 1.0 + 1e-12


def test_gradient_monitor_hooks():
    class GradientMonitor:
        def __init__(self, model):
            self.grad_stats = {}
            for name, param in model.named_parameters():
                param.register_hook(lambda g, n=name: self._record(n, g))

        def _record(self, name, grad):
            self.grad_stats[name] = {"mean": grad.mean().item(), "std": grad.std().item()}
            return grad
    model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 5))
    monitor = GradientMonitor(model)
    model(fgrad.randn(4, 10)).sum().backward()
    assert set(monitor.grad_stats) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert monitor.grad_stats["2.bias"]["mean"] == pytest.approx(4.0)


def test_detach_stops_gradient():
    x = fgrad.randn(3, 4, requires_grad=True)
    y = x ** 2
    z = y.detach()
    w = z ** 2
    loss = w.sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        loss.backward()
    assert x.grad is None and y.grad is None


def test_no_grad_inference():
    model = nn.Linear(10, 5)
    x = fgrad.randn(3, 10)
    model(x).sum().backward()
    with fgrad.no_grad():
        predictions = model(x)
    assert predictions.grad_fn is None and not predictions.requires_grad


def test_numerical_gradient_check():
    def numerical_gradient(func, x, eps=1e-5):
        grad = fgrad.zeros_like(x)
        for i in range(x.numel()):
            x_plus = x.clone()
            x_plus.view(-1)[i] += eps
            x_minus = x.clone()
            x_minus.view(-1)[i] -= eps
            grad.view(-1)[i] = (func(x_plus) - func(x_minus)) / (2 * eps)
        return grad

    def my_function(x):
        return (x ** 2).sum()
    x = fgrad.randn(3, requires_grad=True)
    y = my_function(x)
    y.backward()
    analytical_grad = x.grad.clone()
    x.grad.zero_()
    numerical_grad = numerical_gradient(my_function, x)
    assert fgrad.allclose(analytical_grad, numerical_grad, atol=1e-4)
    assert float(x.grad.abs().sum()) == 0.0


def test_training_loop_drives_loss_down_100x():
    fgrad.manual_seed(0)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((256, 10))
    true_W = rng.standard_normal((10, 1))
    Y = X @ true_W + 0.5

    class SimpleNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(10, 20)
            self.fc2 = nn.Linear(20, 1)

        def forward(self, x):
            return self.fc2(F.tanh(self.fc1(x)))
    model = SimpleNet()
    optimizer = fgrad.optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    data, target = fgrad.tensor(X), fgrad.tensor(Y)
    first = None
    for _epoch in range(500):
        loss = criterion(model(data), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        first = loss.item() if first is None else first
    final = criterion(model(data), target).item()
    assert final < first / 100, (first, final)
    model.eval()
    with fgrad.no_grad():
        assert not model(data).requires_grad


def test_classification_training_with_cross_entropy_and_sgd():
    fgrad.manual_seed(1)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 4))
    labels = (X[:, 0] + X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = fgrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    data, target = fgrad.tensor(X), fgrad.tensor(labels)
    for _ in range(200):
        loss = criterion(model(data), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with fgrad.no_grad():
        accuracy = (model(data).argmax(1) == target).float().mean().item()
    assert accuracy > 0.9
