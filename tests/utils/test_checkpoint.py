"""fgrad.utils.checkpoint against torch.utils.checkpoint: the same gradients as without it, for
inputs and for the parameters used inside, in both call forms; and under fgrad.grad."""
import numpy as np
import pytest

import fgrad
from fgrad import nn
from fgrad.utils.checkpoint import checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")


def _model():
    fgrad.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))


def _grads(run):
    model = _model()
    x = fgrad.tensor(np.linspace(-1.0, 1.0, 6).reshape(2, 3), requires_grad=True)
    run(model, x).sum().backward()
    return [x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]


@pytest.mark.parametrize("form", ["checkpoint", "checkpoint_sequential"])
def test_gradients_equal_the_uncheckpointed_ones(form):
    want = _grads(lambda m, x: m(x))
    if form == "checkpoint":
        got = _grads(lambda m, x: checkpoint(m, x, use_reentrant=False))
    else:
        got = _grads(lambda m, x: checkpoint_sequential(m, 2, x, use_reentrant=False))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-13)


def test_the_recomputation_draws_what_the_forward_drew():
    def noisy(x):
        return x * fgrad.rand(3)
    x = fgrad.tensor(np.ones(3), requires_grad=True)
    fgrad.manual_seed(1)
    out = checkpoint(noisy, x)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), out.detach().numpy())  # (d(x * r)/dx = r, the forward's r)


def test_under_fgrad_grad_it_is_the_functional_checkpoint():
    g = fgrad.grad(lambda a: checkpoint(lambda b: fgrad.numpy.sum(fgrad.numpy.sin(b) ** 2), a))(np.array([0.3, 1.1]))
    np.testing.assert_allclose(g, 2 * np.sin([0.3, 1.1]) * np.cos([0.3, 1.1]), rtol=1e-13)


def test_torch_gives_the_same():
    model = _model()
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4), torch.nn.Tanh(),
                                 torch.nn.Linear(4, 1)).double()
    tmodel.load_state_dict({k: torch.tensor(v.numpy()) for k, v in model.state_dict().items()})
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    xt = torch.tensor(x, requires_grad=True)
    torch.utils.checkpoint.checkpoint_sequential(tmodel, 2, xt, use_reentrant=False).sum().backward()
    got = _grads(lambda m, x: checkpoint_sequential(m, 2, x))
    np.testing.assert_allclose(got[0], xt.grad.numpy(), rtol=1e-12)
    for g, p in zip(got[1:], tmodel.parameters()):
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-12)
