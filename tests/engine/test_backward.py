"""The backward engine's loop (fgrad/engine/backward.py): each of its
branches against finite differences or a closed form."""
import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.testing import check_grads

RNG = np.random.default_rng(7)
X = RNG.uniform(0.2, 0.9, 6)
W = RNG.standard_normal((4, 3))


def test_unary_elementwise_chain():
    f = lambda x: fnp.sum(fnp.cos(-fnp.tanh(fnp.sin(x)) * 1.5))  # noqa: E731
    check_grads(f, (X,), order=2)


def test_unary_input_with_broadcasting_and_dtype_change():
    # A unary op whose input is broadcast later, and a float32 input: fit_cotangent runs.
    f = lambda x: fnp.sum(fnp.exp(x)[:, None] * np.ones((6, 3)))  # noqa: E731
    check_grads(f, (X,), order=1)
    g = fgrad.grad(f)(X.astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 3 * np.exp(X), rtol=1e-5)


def test_output_zero_of_a_multiple_result_node_feeds_an_elementwise_op():
    # eigh's outputs are Edges even at index 0: the cotangent goes to eigh's slot 0.
    f = lambda w: fnp.sum(fnp.linalg.eigh(w.T @ w)[0] * fnp.arange(1.0, 4.0))  # noqa: E731
    check_grads(f, (W,), order=1, modes="rev")


def test_fan_out_accumulates_and_unused_branch_costs_nothing():
    def f(x):
        y = fnp.sin(x)
        unused = fnp.exp(x) * 3.0  # noqa: F841  (on the tape, reached by no cotangent)
        return fnp.sum(y * y + y)
    np.testing.assert_allclose(fgrad.grad(f)(X), (2 * np.sin(X) + 1) * np.cos(X), rtol=1e-12)


def test_unread_same_shape_inputs_on_a_lean_tape_with_a_retained_graph():
    # add/subtract keep nothing of a same-shape input (no shape to fit); the graph is
    # walked twice through vjp_fun.
    def f(x):
        return (x + 1.0) - fnp.sin(x) + np.ones(6)

    _out, vjp_fun = fgrad.vjp(f, X)
    ct = RNG.standard_normal(6)
    for _ in range(2):
        (g,) = vjp_fun(ct)
        np.testing.assert_allclose(g, ct * (1 - np.cos(X)), rtol=1e-12)


def test_unread_broadcast_input_is_fitted():
    f = lambda x, b: fnp.sum((x[:, None] + b) * np.arange(3.0))  # noqa: E731
    gx, gb = fgrad.grad(f, argnums=(0, 1))(X, np.zeros(3))
    np.testing.assert_allclose(gx, np.full(6, 3.0))
    np.testing.assert_allclose(gb, 6 * np.arange(3.0))


def test_a_freed_tape_says_so():
    from fgrad.engine.backward import FreedGraphError, backward
    from fgrad.ops.primitive import new_trace
    from fgrad.transforms.reverse import VJPTrace, trace_inputs

    ctx = new_trace(VJPTrace, "test")
    with ctx as trace:
        (x,) = trace_inputs(trace, [X], ["x"], "test")
        y = fnp.sum(fnp.sin(x))
    backward([(y.node, 0, np.float64(1.0))], tape=ctx.closed)
    with pytest.raises(FreedGraphError, match="second time"):
        backward([(y.node, 0, np.float64(1.0))], tape=ctx.closed)


def test_forward_over_reverse_multiplies_on_the_traced_partial(monkeypatch):
    # Note [the partial first] (ops/elementwise.py): the backward pass of hvp meets traced
    # partials and plain cotangents; partial * g dispatches on the tracer's own operator,
    # where g * partial would go through NumPy's __array_ufunc__ override protocol.
    from fgrad.ir.value import Tracer

    calls = []
    real = Tracer.__array_ufunc__
    monkeypatch.setattr(Tracer, "__array_ufunc__", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    f = lambda x: fnp.sum(fnp.exp(fnp.sin(x) * 2.0) ** 2)  # noqa: E731
    v = np.linspace(0.5, 1.5, 6)
    value, hv = fgrad.hvp(f, (X,), (v,))
    assert calls == []
    np.testing.assert_allclose(hv, fgrad.hessian(f)(X) @ v, rtol=1e-10)
    np.testing.assert_allclose(value, f(X))


class _Recording:
    """A stand-in profiler: while one is set, every node takes backward's general path."""

    def clock(self):
        return 0.0

    def record_backward(self, node, t0):
        pass


@pytest.mark.parametrize("f", [
    lambda x, y: fnp.sum(fnp.cos(-fnp.tanh(fnp.sin(x)) * 1.5) * y + x / y),
    lambda x, y: fnp.sum(fnp.exp(x.astype(np.float32))[:, None] * y - fnp.maximum(x[:, None], y)),
    lambda x, y: fnp.sum(x * x + fnp.arctan2(x, y) - fnp.log1p(y * y)),
    lambda x, y: fnp.sum(fnp.arcsin(x) * fnp.arctanh(x / y) + fnp.arctan2(x - 0.5, y - 1.0)),
    lambda x, y: fnp.sum(fnp.where(x < 0.5, fnp.arcsin(2.0 * x), 0.0) + fnp.where(y > 1.0, fnp.arccosh(y), 0.0)),
    lambda x, y: fnp.arcsin(x[0]) * fnp.arctanh(y[0] / 2.0) + fnp.where(x[1] >= 0.5, 0.0, fnp.arcsin(2.0 * x[1])),
    lambda x, y: fnp.sum(fnp.log(x) * fnp.sqrt(y) + fnp.where(y > 1.0, fnp.log(y - 1.0), 0.0)
                         + fnp.where(x < 0.5, fnp.sqrt(0.5 - x), 0.0)),
    lambda x, y: fnp.log(x[0]) * fnp.sqrt(y[0])
    + fnp.where(y[1] > 1.0, fnp.log(y[1] - 1.0) + fnp.sqrt(y[1] - 1.0), 0.0),
], ids=["unary_chain", "broadcast_and_float32", "two_argument_partials", "nan_safe_partials",
        "nan_safe_partials_masked_poles", "nan_safe_partials_on_scalars", "quotients_masked_poles",
        "quotients_on_scalars"])
def test_the_inline_partials_match_the_general_path(f, monkeypatch):
    """Note [the inline partials] (engine/backward.py): the loop's inline copy of apply_partial
    and send gives exactly what apply_rule and send give."""
    from fgrad.engine import backward as engine
    x, y = RNG.uniform(0.2, 0.9, 4), RNG.uniform(0.5, 1.5, 4)
    if "where" in f.__code__.co_names:
        x[1], y[1] = 0.5, 1.0  # (masked poles: arcsin(2x) and arccosh at 1, where the cotangent is 0)
    inline = fgrad.grad(f, argnums=(0, 1))(x, y)
    monkeypatch.setattr(engine, "profiler", _Recording())
    general = fgrad.grad(f, argnums=(0, 1))(x, y)
    for a, b in zip(inline, general):
        assert a.dtype == b.dtype and np.all(np.isfinite(a))  # (the policy's zeros at the masked poles)
        np.testing.assert_array_equal(a, b)
