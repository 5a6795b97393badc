"""A PyTorch-style training step on CUDA (marked gpu: skipped without CUDA and CuPy): a model
moved with .to("cuda"), CrossEntropyLoss, MSELoss and GaussianNLLLoss on CUDA targets, backward,
Adam's step; every parameter, gradient and loss stays on the GPU and equals the CPU's run.
Not yet run on a GPU when written (stop 45: the device loan was paused): the first GPU session
to run it learns whether the losses' host checks of their targets reach CUDA arrays."""
import copy

import numpy as np
import pytest

import fgrad
from fgrad import nn

pytestmark = pytest.mark.gpu


def _step(model, loss_fn, x, y, device):
    model = model.to(device)
    opt = fgrad.optim.Adam(model.parameters(), lr=1e-2)
    x, y = x.to(device), y.to(device)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return model, losses


@pytest.mark.parametrize("loss_name", ["cross_entropy", "mse", "gaussian_nll"])
def test_a_training_step_on_cuda_matches_the_cpu(loss_name):
    rng = np.random.default_rng(0)
    x = fgrad.tensor(rng.standard_normal((16, 5)))
    if loss_name == "cross_entropy":
        y, loss_fn, out = fgrad.tensor(rng.integers(0, 3, 16)), nn.CrossEntropyLoss(), 3
    elif loss_name == "mse":
        y, loss_fn, out = fgrad.tensor(rng.standard_normal((16, 2))), nn.MSELoss(), 2
    else:
        y, out = fgrad.tensor(rng.standard_normal((16, 1))), 2
        gauss = nn.GaussianNLLLoss()
        loss_fn = lambda z, y: gauss(z[:, :1], y, fgrad.exp(z[:, 1:]))  # noqa: E731
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, out))
    on_cpu, cpu_losses = _step(copy.deepcopy(model), loss_fn, x, y, "cpu")
    on_gpu, gpu_losses = _step(copy.deepcopy(model), loss_fn, x, y, "cuda")
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-10)
    for (name, p), q in zip(on_gpu.named_parameters(), on_cpu.parameters()):
        assert str(p.device).startswith("cuda") and str(p.grad.device).startswith("cuda"), name
        np.testing.assert_allclose(p.detach().cpu().numpy(), q.detach().numpy(), rtol=1e-10, atol=1e-12)
