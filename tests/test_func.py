"""fgrad.func against torch.func: linearize, stack_module_state (an ensemble under vmap) and
functional_call with tied weights and strict."""
import numpy as np
import pytest

import fgrad
from fgrad import nn

torch = pytest.importorskip("torch")


def _pair(seed):
    fgrad.manual_seed(seed)
    ours = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


def test_linearize_matches_torch():
    x, t = np.array([0.3, -1.2, 2.0]), np.array([1.0, 0.5, -0.25])
    out, f_jvp = fgrad.func.linearize(lambda a: fgrad.numpy.sin(a) * a.sum(), fgrad.tensor(x))
    want, t_jvp = torch.func.linearize(lambda a: torch.sin(a) * a.sum(), torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_allclose(f_jvp(fgrad.tensor(t)).numpy(), t_jvp(torch.tensor(t)).numpy(), rtol=1e-12)


def test_an_ensemble_by_stack_module_state_and_vmap_matches_torch():
    pairs = [_pair(s) for s in range(3)]
    x = np.random.default_rng(0).normal(size=(5, 3))
    params, buffers = fgrad.func.stack_module_state([p[0] for p in pairs])
    tparams, tbuffers = torch.func.stack_module_state([p[1] for p in pairs])
    assert list(params) == list(tparams) and all(p.requires_grad for p in params.values())
    base = pairs[0][0]

    def one(p, b, data):
        return fgrad.func.functional_call(base, (p, b), (data,))

    def tone(p, b, data):
        return torch.func.functional_call(pairs[0][1], (p, b), (data,))
    got = fgrad.func.vmap(one, in_dims=(0, 0, None))(params, buffers, fgrad.tensor(x))
    want = torch.func.vmap(tone, in_dims=(0, 0, None))(tparams, tbuffers, torch.tensor(x))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="same class"):
        fgrad.func.stack_module_state([base, nn.Linear(3, 4)])


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Linear(3, 3, bias=False)
        self.decode = nn.Linear(3, 3, bias=False)
        self.decode.weight = self.encode.weight  # (one tensor, two names)

    def forward(self, x):
        return self.decode(self.encode(x))


def test_functional_call_ties_weights_and_checks_strictly():
    model, x = Tied(), fgrad.tensor(np.ones((1, 3)))
    w = fgrad.tensor(np.eye(3) * 2.0)
    tied = fgrad.func.functional_call(model, {"encode.weight": w}, (x,))
    np.testing.assert_allclose(tied.numpy(), 4 * np.ones((1, 3)))  # (w in both places)
    untied = fgrad.func.functional_call(model, {"encode.weight": w}, (x,), tie_weights=False).detach().numpy()
    np.testing.assert_allclose(untied, (model.encode.weight.detach().numpy() @ (2.0 * np.ones(3)))[None])
    with pytest.raises(ValueError, match="which are tied"):
        fgrad.func.functional_call(model, {"encode.weight": w, "decode.weight": w * 1.0}, (x,))
    with pytest.raises(RuntimeError, match="Missing key"):
        fgrad.func.functional_call(model, {}, (x,), strict=True)
    tmodel = torch.nn.Module()
    tmodel.encode = torch.nn.Linear(3, 3, bias=False)
    with pytest.raises(RuntimeError, match="Missing key"):
        torch.func.functional_call(tmodel, {}, (torch.ones(1, 3),), strict=True)


def test_vjp_inside_vmap_of_tensors_returns_tensors():
    """A vjp taken per example (inside vmap) of Tensors gives Tensors, with their methods (the NTK
    pattern reads output.numel()), as torch.func's."""
    w = fgrad.tensor(np.arange(6.0).reshape(2, 3))

    def per_example(x):
        out, pull = fgrad.func.vjp(lambda w: w @ x, w)
        assert isinstance(out, fgrad.Tensor) and out.numel() == 2
        (g,) = pull(fgrad.ones_like(out))
        assert isinstance(g, fgrad.Tensor)
        return g
    xs = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])
    got = fgrad.func.vmap(per_example)(fgrad.tensor(xs))
    np.testing.assert_allclose(got.numpy(), np.stack([np.outer(np.ones(2), x) for x in xs]))


def test_fgrad_vmap_takes_torch_vmap_keywords():
    x, y = fgrad.tensor(np.ones((4, 3))), fgrad.tensor(np.arange(3.0))
    got = fgrad.vmap(lambda a, b: a * b, in_dims=(0, None), out_dims=1)(x, y)
    want = torch.vmap(lambda a, b: a * b, in_dims=(0, None), out_dims=1)(torch.ones(4, 3, dtype=torch.float64),
                                                                        torch.arange(3.0, dtype=torch.float64))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
