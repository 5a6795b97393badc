"""custom_vjp and custom_jvp called on Tensors record their rule (one node), not fun's own ops:
the Tensor face's gradient is the rule's, as the functional face's is. Before, the rule was
ignored there and .grad held fun's derivative: a wrong number wherever the rule differs (a
numerically safe rule, a straight-through estimator, a clipped gradient)."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp


@fgrad.custom_vjp
def clip_gradient(x):
    return x


clip_gradient.defvjp(lambda x: (x, None), lambda _, g: (fnp.clip(g, -1.0, 1.0),))


@fgrad.custom_jvp
def safe_log1pexp(x):
    return fnp.log(1.0 + fnp.exp(x))


safe_log1pexp.defjvps(lambda t, ans, x: t * (1.0 - 1.0 / (1.0 + fnp.exp(x))))


def test_a_custom_vjp_rule_is_what_backward_uses():
    x = fgrad.tensor([3.0, -0.5], requires_grad=True)
    y = clip_gradient(x * 4.0)
    assert "Backward" in y.grad_fn.name()
    (y * 10.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0])  # (the clipped 10s, times 4; fun's own gradient: 40)
    np.testing.assert_allclose(fgrad.grad(lambda a: (clip_gradient(a * 4.0) * 10.0).sum())(np.array([3.0, -0.5])),
                               x.grad.numpy())


def test_a_custom_jvp_rule_is_what_backward_uses():
    x = fgrad.tensor([800.0, 0.0], requires_grad=True)  # (exp(800) overflows: fun's own derivative is nan there)
    with np.errstate(over="ignore", invalid="ignore"):
        safe_log1pexp(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 0.5])


def test_pytree_outputs_nondiff_arguments_and_tensors_that_do_not_record():
    @fgrad.custom_vjp
    def scaled(k, x, y):
        return {"sum": k * (x + y), "x": x}
    scaled.defvjp(lambda k, x, y: ({"sum": k * (x + y), "x": x}, k),
                  lambda k, ct: (0.0 * k, 2 * ct["sum"] + ct["x"], 3 * ct["sum"]))
    x, y = fgrad.tensor([1.0], requires_grad=True), fgrad.tensor([2.0])
    out = scaled(fgrad.tensor(5.0), x, y)
    (out["sum"] + out["x"]).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0])  # (the rule's 2 + 1, not fun's 5 + 1)
    plain = scaled(fgrad.tensor(5.0), fgrad.tensor([1.0]), y)  # (nothing records: fun runs as it is)
    assert plain["sum"].grad_fn is None and plain["sum"].tolist() == [15.0]
    with fgrad.no_grad():
        assert scaled(fgrad.tensor(5.0), x, y)["sum"].grad_fn is None


def test_complex_values_follow_the_tensor_faces_convention():
    @fgrad.custom_vjp
    def square(z):
        return z * z
    square.defvjp(lambda z: (z * z, z), lambda z, g: (2 * z * g,))
    w, v = fgrad.tensor([1.0 + 2j], requires_grad=True), fgrad.tensor([1.0 + 2j], requires_grad=True)
    (square(w).abs() ** 2).sum().backward()
    ((v * v).abs() ** 2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), v.grad.numpy())


def test_checkpoint_on_tensors():
    x = fgrad.tensor([0.5, 1.5], requires_grad=True)
    fgrad.checkpoint(lambda a: fnp.sin(a) * a)(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 1.5]) * [0.5, 1.5] + np.sin([0.5, 1.5]))


def test_a_second_derivative_through_the_rule_raises_instead_of_dropping_it():
    @fgrad.custom_vjp
    def cube(x):
        return x ** 3
    cube.defvjp(lambda x: (x ** 3, x), lambda x, g: (3 * x ** 2 * g,))
    z = fgrad.tensor([2.0], requires_grad=True)
    (g,) = fgrad.autograd.grad(cube(z).sum() + (z ** 2).sum(), z, create_graph=True)
    assert g.tolist() == [16.0]
    with pytest.raises(RuntimeError, match="second derivative through custom_vjp cube called on Tensors"):
        g.sum().backward()
    np.testing.assert_allclose(fgrad.hessian(lambda a: cube(a).sum())(np.array([2.0])), [[12.0]])


def test_an_input_changed_in_place_after_the_call_keeps_the_calls_derivative():
    @fgrad.custom_vjp
    def sine(x):
        return fnp.sin(x)
    sine.defvjp(lambda x: (fnp.sin(x), x), lambda x, g: (fnp.cos(x) * g,))
    t = fgrad.tensor([1.0], requires_grad=True)
    m = t * 1.0
    y = sine(m)
    m.add_(1.0)  # (allowed: the rule kept its own copy of the value it was called at)
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.cos([1.0]))


def test_writing_into_a_read_only_array_says_so():
    a = np.ones(2)
    a.flags.writeable = False
    with pytest.raises(RuntimeError, match="array is read-only"):
        fgrad.from_numpy(a).add_(1.0)
