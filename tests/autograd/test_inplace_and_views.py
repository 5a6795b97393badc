"""Issue 17, the imperative face: in-place writes that carry no gradient cut the old history
(PyTorch's ZeroBackward/CopyBackwards), views follow their base through in-place changes
(Note [views follow their base] in fgrad/autograd/tensor.py), hooks cannot change a
gradient's shape. The expected values are PyTorch 2's."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


def _x():
    return fgrad.tensor([1.0, 1.0], requires_grad=True)


@pytest.mark.parametrize("write", [
    lambda y: y.zero_(),
    lambda y: y.fill_(3.0),
    lambda y: y.copy_(np.ones(2)),
    lambda y: y.copy_(fgrad.tensor([5.0, 5.0])),
])
def test_an_inplace_write_without_grad_cuts_the_old_history(write):
    x = _x()
    y = x * 2
    write(y)
    (y * 1.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])  # PyTorch: zeros, not None
    assert y.requires_grad and y.grad_fn is not None


def test_fill_from_a_tracked_tensor_sends_its_gradient_to_the_source_only():
    x, s = _x(), fgrad.tensor(2.0, requires_grad=True)
    y = x * 2
    y.fill_(s)
    (y * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    assert s.grad.item() == 6.0


def test_zero_on_a_leaf_that_requires_grad_raises_outside_no_grad():
    x = _x()
    with pytest.raises(RuntimeError, match=r"leaf Variable that requires grad.*zero_"):
        x.zero_()
    with fgrad.no_grad():
        x.zero_()
    np.testing.assert_array_equal(x.detach().numpy(), [0.0, 0.0])


@pytest.mark.parametrize("changed", ["base", "sibling view"])
def test_a_view_follows_an_inplace_change_of_its_base_or_a_sibling(changed):
    x = _x()
    y = x * 2
    v, sibling = y[0:1], y[0:1]
    (y if changed == "base" else sibling).mul_(3)
    v.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 0.0])


def test_a_reshape_view_follows_its_base():
    x = _x()
    y = x * 2
    r = y.reshape(2, 1)
    y.add_(x)
    r.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_a_view_of_a_view_follows_the_base():
    x = fgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1.0
    v = y[0:2]
    w = v.reshape(2, 1)
    y.mul_(x)  # y = x * x
    w.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0, 0.0])


def test_a_view_of_an_untracked_base_that_becomes_tracked_requires_grad():
    x = _x()
    y = fgrad.zeros(2)
    v = y[1:2]
    y.add_(x)
    assert v.requires_grad
    (v * 5.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 5.0])


def test_many_short_lived_views_do_not_pile_up_on_their_base():
    w = fgrad.tensor(np.ones((3, 3)), requires_grad=True)
    for _ in range(1000):
        (w.T @ np.ones(3)).sum()
    assert len(w._views) < 64


@pytest.mark.parametrize("leaf", [True, False])
def test_a_hook_returning_another_shape_raises(leaf):
    x = _x()
    y = x * 2
    (x if leaf else y).register_hook(lambda g: fnp.ones((3, 2)))
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    msg = str(e.value)
    assert "hook" in msg and "lambda" in msg and "(3, 2)" in msg and "(2,)" in msg


def test_a_node_hook_returning_another_dtype_raises():
    x = _x()
    y = x * 2
    y.grad_fn.register_prehook(lambda gs: (np.ones(2, np.float32),))
    with pytest.raises(RuntimeError, match=r"hook.*float32.*float64"):
        y.sum().backward()


def test_a_hook_returning_the_same_shape_replaces_the_gradient():
    x = _x()
    x.register_hook(lambda g: g * 10.0)
    (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 20.0])
