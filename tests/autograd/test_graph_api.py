"""fgrad.autograd.graph (register_multi_grad_hook, save_on_cpu, disable_saved_tensors_hooks)
and once_differentiable, against torch 2.13's behaviour on the same programs."""
import numpy as np
import pytest

import fgrad
from fgrad.autograd import Function, once_differentiable
from fgrad.autograd.graph import disable_saved_tensors_hooks, register_multi_grad_hook, save_on_cpu

torch = pytest.importorskip("torch")


def _multi(lib, mode):
    make = fgrad.tensor if lib is fgrad else torch.tensor
    a, b, c = (make(np.array(v), requires_grad=True) for v in ([1.0, 2.0], [3.0, 4.0], [5.0]))
    register = register_multi_grad_hook if lib is fgrad else torch.autograd.graph.register_multi_grad_hook
    seen = []
    if mode == "all":
        handle = register((a, b, c), lambda gs: seen.append([None if g is None else g.tolist() for g in gs]))
    else:
        handle = register((a, b), lambda g: seen.append(g.tolist()), mode="any")
    (a * b).sum().backward()
    (a * 2).sum().backward()
    handle.remove()
    (a * b).sum().backward()
    return seen


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook_calls_as_torch(mode):
    assert _multi(fgrad, mode) == _multi(torch, mode)


def test_save_on_cpu_gives_the_same_gradients():
    x = fgrad.tensor(np.array([0.5, 1.5]), requires_grad=True)
    with save_on_cpu(pin_memory=True):
        y = (fgrad.exp(x) * fgrad.sin(x)).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.5]) * (np.sin([0.5, 1.5]) + np.cos([0.5, 1.5])))


def test_disable_saved_tensors_hooks_refuses_hooks_inside():
    for graph in (fgrad.autograd.graph, torch.autograd.graph):
        with graph.disable_saved_tensors_hooks("no hooks in here"):
            with pytest.raises(RuntimeError, match="no hooks in here"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # (allowed again after)
            pass
    assert disable_saved_tensors_hooks is fgrad.autograd.graph.disable_saved_tensors_hooks


def _cube(lib):
    base = Function if lib is fgrad else torch.autograd.Function
    mark = once_differentiable if lib is fgrad else torch.autograd.function.once_differentiable

    class Cube(base):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @mark
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g
    return Cube


def test_once_differentiable_raises_on_a_second_derivative_as_torch():
    for lib in (fgrad, torch):
        make = fgrad.tensor if lib is fgrad else torch.tensor
        x = make(np.array([2.0]), requires_grad=True)
        cube = _cube(lib)
        y = cube.apply(x)
        seed = make(np.array([1.0]), requires_grad=True)
        (g,) = (fgrad.autograd if lib is fgrad else torch.autograd).grad(y, x, seed, create_graph=True)
        assert g.tolist() == [12.0] and g.requires_grad
        with pytest.raises(RuntimeError, match="differentiate twice a function that was marked with "
                                               "@once_differentiable"):
            g.sum().backward()
        x.grad = None
        cube.apply(x).sum().backward()
        assert x.grad.tolist() == [12.0]
