"""Returned derivatives are arrays the caller owns: writable, and sharing memory neither with
each other nor with the caller's arguments and cotangents (Note [returned derivatives are
owned] in fgrad/transforms/owned.py); functional transforms of arrays return arrays."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


def _independent(*arrays, callers=()):
    for i, a in enumerate(arrays):
        assert isinstance(a, np.ndarray) and a.flags.writeable
        for b in list(arrays[i + 1:]) + list(callers):
            assert not np.shares_memory(a, b)


def test_grad_with_several_argnums_returns_separate_arrays():
    x, y = np.ones(2), np.ones(2)
    gx, gy = fgrad.grad(lambda x, y: fnp.sum(x + y), argnums=(0, 1))(x, y)  # add passes g to both
    _independent(gx, gy, callers=(x, y))
    gx *= 5.0
    np.testing.assert_array_equal(gy, [1.0, 1.0])


def test_concatenated_pieces_get_separate_gradients():
    x, y = np.ones(3), np.ones(2)
    _independent(*fgrad.grad(lambda x, y: fnp.sum(fnp.concatenate([x, y])), argnums=(0, 1))(x, y))


def test_vjp_of_the_identity_does_not_return_the_callers_cotangent():
    ct = np.ones(3)
    _, pull = fgrad.vjp(lambda x: x, np.zeros(3))
    (g,) = pull(ct)
    _independent(g, callers=(ct,))
    _, pull = fgrad.vjp(lambda x: fnp.reshape(x, (3,)), np.zeros((1, 3)))
    _independent(pull(ct)[0], callers=(ct,))


def test_jvp_and_linearize_of_the_identity_do_not_return_the_callers_tangent():
    t = np.ones(3)
    _, t_out = fgrad.jvp(lambda x: x, (np.zeros(3),), (t,))
    _independent(t_out, callers=(t,))
    _, f_jvp = fgrad.linearize(lambda x: x, np.zeros(3))
    _independent(f_jvp(t), callers=(t,))


def test_a_custom_rule_returning_its_residual_does_not_hand_back_the_input():
    @fgrad.custom_vjp
    def f(x):
        return fnp.sum(x)
    f.defvjp(lambda x: (fnp.sum(x), x), lambda x, g: (x,))
    x = np.arange(3.0)
    _independent(fgrad.grad(f)(x), callers=(x,))


@pytest.mark.parametrize("n", [3, 5000])  # above 4,096 elements broadcast_to is a read-only view
def test_gradients_are_writable(n):
    g = fgrad.grad(fnp.sum)(np.ones(n))
    g *= 0.5
    np.testing.assert_array_equal(g[:2], [0.5, 0.5])
    gs = fgrad.grad(lambda x, y: fnp.sum(x) + fnp.sum(y), argnums=(0, 1))(np.ones(n), np.ones(n))
    _independent(*gs)


def test_transforms_of_arrays_return_arrays_when_an_nn_module_runs_inside():
    lin = fgrad.nn.Linear(2, 1)
    x = np.ones(2)
    g = fgrad.grad(lambda x: fnp.sum(lin(x)))(x)
    value, g2 = fgrad.value_and_grad(lambda x: fnp.sum(lin(x)))(x)
    assert type(g) is np.ndarray and type(g2) is np.ndarray and isinstance(value, np.ndarray)
    np.testing.assert_allclose(g, lin.weight.detach().numpy()[0])
    out, t = fgrad.jvp(lambda x: lin(x), (x,), (np.ones(2),))
    assert type(out) is np.ndarray and type(t) is np.ndarray
    out, pull = fgrad.vjp(lambda x: lin(x), x)
    assert type(out) is np.ndarray and type(pull(np.ones(1))[0]) is np.ndarray
