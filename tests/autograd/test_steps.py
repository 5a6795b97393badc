"""Steps (floor, ceil, trunc, fix, round, rint, sign): recorded on the Tensor face with gradient zero, as
torch's (its FloorBackward0 hands zeros on, so a leaf's .grad is zeros, not None), and zero derivatives
under fgrad.grad, jvp, vmap and compile, as JAX's; frac's gradient is 1 (ops/elementwise.py's `step`)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import fgrad
import fgrad.numpy as fnp

X = np.array([1.5, -2.5, 0.25, 3.0])

# name -> call(m, t) in torch's names, m torch or fgrad
CALLS = {
    "floor": lambda m, t: m.floor(t), "ceil": lambda m, t: t.ceil(), "trunc": lambda m, t: m.trunc(t),
    "fix": lambda m, t: t.fix(), "fn.fix": lambda m, t: m.fix(t), "round": lambda m, t: t.round(),
    "fn.round": lambda m, t: m.round(t), "round.decimals": lambda m, t: m.round(t * 3.3, decimals=1),
    "special.round": lambda m, t: m.special.round(t), "sign": lambda m, t: t.sign(), "fn.sign": lambda m, t: m.sign(t),
    "frac": lambda m, t: t.frac(), "fn.frac": lambda m, t: m.frac(t),
    "clamp": lambda m, t: m.clamp(t, -1.0, 2.0),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_steps_record_a_zero_gradient_as_torch(name):
    want, got = torch.tensor(X, requires_grad=True), fgrad.tensor(X, requires_grad=True)
    y_want, y_got = CALLS[name](torch, want), CALLS[name](fgrad, got)
    assert y_got.requires_grad and y_got.grad_fn is not None
    if not name.endswith(("frac", "clamp", "decimals", "special.round")):  # (frac is a difference here, clamp a
        # clip; torch names a round with decimals RoundBackward1)
        assert type(y_want.grad_fn).__name__ == y_got.grad_fn.name()
    (y_want * y_want).sum().backward()
    (y_got * y_got).sum().backward()
    np.testing.assert_allclose(y_got.detach().numpy(), y_want.detach().numpy())
    np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy())


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "fix", "round", "around", "rint", "sign"])
def test_steps_have_zero_derivatives_as_jax(name):
    fn, reference = getattr(fnp, name), getattr(jnp, "trunc" if name == "fix" else name)
    f = lambda v: fnp.sum(fn(v) * v)  # noqa: E731 (the product rule sees the step's zero)
    g = lambda v: jnp.sum(reference(v) * v)  # noqa: E731
    np.testing.assert_allclose(fgrad.grad(f)(X), jax.grad(g)(X))
    np.testing.assert_allclose(fgrad.grad(lambda v: fnp.sum(fn(v)))(X), np.zeros_like(X))
    np.testing.assert_allclose(fgrad.jvp(fn, (X,), (np.ones_like(X),))[1], np.zeros_like(X))
    np.testing.assert_allclose(fgrad.vmap(fgrad.grad(fn))(X), np.zeros_like(X))
    np.testing.assert_allclose(fgrad.compile(fgrad.grad(f))(X), jax.grad(g)(X))
    np.testing.assert_allclose(fgrad.hessian(f)(X), jax.hessian(g)(X))


def test_special_round_keeps_the_graph():
    np.testing.assert_allclose(fgrad.grad(lambda v: fnp.sum(fgrad.special.round(v, 1) * v))(X),
                               jax.grad(lambda v: jnp.sum(jnp.round(v, 1) * v))(X))
    t = fgrad.tensor(X, requires_grad=True)
    y = fgrad.special.round(t, decimals=1)
    assert y.grad_fn.name() == "RoundBackward0"
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.zeros_like(X))
