"""fgrad.optim against torch 2.13: every optimizer and option, the same initial parameters and
losses, the same trajectories (1e-10 in float64, 1e-5 in float32), state_dicts of torch's
structure that resume a run exactly, and torch's errors for bad hyperparameters."""
import copy
import warnings

import numpy as np
import pytest

import fgrad
from fgrad import nn, optim

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X, Y = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 3))
W0, B0 = RNG.normal(size=(4, 3)), RNG.normal(size=3)
TORCH_ONLY = {"foreach", "capturable", "differentiable", "fused"}  # (torch's kernel choices, not options here)

CONFIGS = [
    ("SGD", dict(lr=0.05)), ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)), ("SGD", dict(lr=0.05, maximize=True)),
    ("Adam", {}), ("Adam", dict(lr=0.05, amsgrad=True)), ("Adam", dict(lr=0.05, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)), ("Adam", dict(lr=0.05, maximize=True)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-6, amsgrad=True, weight_decay=0.1)),
    ("AdamW", {}), ("AdamW", dict(lr=0.05, weight_decay=0.5, amsgrad=True)), ("AdamW", dict(lr=0.05, maximize=True)),
    ("Adamax", {}), ("Adamax", dict(lr=0.05, weight_decay=0.1)), ("Adamax", dict(betas=(0.5, 0.8), maximize=True)),
    ("NAdam", {}), ("NAdam", dict(lr=0.05, momentum_decay=0.01)), ("NAdam", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)), ("NAdam", dict(maximize=True)),
    ("RAdam", {}), ("RAdam", dict(lr=0.05, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)), ("RAdam", dict(maximize=True)),
    ("RMSprop", {}), ("RMSprop", dict(momentum=0.9)), ("RMSprop", dict(centered=True)),
    ("RMSprop", dict(alpha=0.9, centered=True, momentum=0.5, weight_decay=0.1)), ("RMSprop", dict(maximize=True)),
    ("Adagrad", {}), ("Adagrad", dict(lr=0.1, lr_decay=0.1)),
    ("Adagrad", dict(initial_accumulator_value=0.5, weight_decay=0.1)), ("Adagrad", dict(eps=1e-5, maximize=True)),
    ("Adadelta", {}), ("Adadelta", dict(rho=0.5, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True)),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for name, kw in CONFIGS]


@pytest.fixture
def float64_scalars():
    """torch keeps optimizer scalars (step, NAdam's mu_product) in its default dtype; fgrad's
    default is float64, so compare against torch with float64 as its default too."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(old)


def _loss(lib, w, b):
    x, y = (fgrad.tensor(X), fgrad.tensor(Y)) if lib is fgrad else (torch.tensor(X), torch.tensor(Y))
    return ((x.to(w.dtype) @ w + b).tanh() - y.to(w.dtype)).pow(2).sum() + (b ** 4).sum()


class Pair:
    """The same parameters and optimizer in fgrad and in torch, stepped together."""

    def __init__(self, name, kw, dtype=None, params=None, groups=None):
        params = [W0, B0] if params is None else params
        self.f = [nn.Parameter(p.astype(dtype or p.dtype)) for p in params]
        self.t = [torch.nn.Parameter(torch.tensor(p.astype(dtype or p.dtype))) for p in params]
        make = groups or (lambda ps: ps)
        self.fopt = getattr(optim, name)(make(self.f), **kw)
        self.topt = getattr(torch.optim, name)(make(self.t), **kw)

    def step(self, n=1, loss=_loss):
        for _ in range(n):
            for lib, ps, opt in ((fgrad, self.f, self.fopt), (torch, self.t, self.topt)):
                opt.zero_grad()
                loss(lib, *ps).backward()
                opt.step()

    def check(self, rtol=1e-10, atol=1e-12):
        for f, t in zip(self.f, self.t):
            assert np.isfinite(f.detach().numpy()).all()
            np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_trajectory_as_torch(name, kw, float64_scalars):
    pair = Pair(name, kw)
    # (maximize climbs the negated loss: the same bounded descent)
    loss = (lambda lib, w, b: -_loss(lib, w, b)) if kw.get("maximize") else _loss
    for _ in range(25):
        pair.step(loss=loss)
        pair.check()
    assert not np.allclose(pair.f[0].detach().numpy(), W0, atol=1e-3)  # (it moved)


@pytest.mark.parametrize("name,kw", [("Adam", dict(lr=0.05, amsgrad=True)), ("RMSprop", dict(centered=True)),
                                     ("NAdam", {}), ("AdamW", {})])
def test_float32_trajectory_as_torch(name, kw):
    pair = Pair(name, kw, dtype=np.float32)
    pair.step(20)
    assert pair.f[0].dtype == np.float32
    pair.check(rtol=1e-5, atol=1e-6)


def _complex_loss(lib, z):
    return (z * z.conj()).real.sum() + (z ** 3).real.sum()


@pytest.mark.parametrize("name,kw", [("Adam", dict(lr=0.05, amsgrad=True)), ("RMSprop", dict(centered=True)),
                                     ("Adagrad", dict(initial_accumulator_value=0.1)), ("Adamax", {}),
                                     ("NAdam", dict(weight_decay=0.1))])
def test_complex_parameters_as_torch(name, kw, float64_scalars):
    # torch steps a complex parameter as its (real, imag) pairs; so does fgrad
    z0 = (RNG.normal(size=5) + 1j * RNG.normal(size=5)) * 0.5
    pair = Pair(name, kw, params=[z0])
    pair.step(15, loss=_complex_loss)
    pair.check()


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_state_dict_as_torch_and_resumes(name, kw, float64_scalars):
    groups = lambda ps: [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.01}]  # noqa: E731
    pair = Pair(name, kw, groups=groups)
    pair.step(7)
    sd, tsd = pair.fopt.state_dict(), pair.topt.state_dict()
    assert sd["state"].keys() == tsd["state"].keys()
    for i in sd["state"]:
        assert sd["state"][i].keys() == tsd["state"][i].keys()
        for key, value in sd["state"][i].items():
            np.testing.assert_allclose(np.asarray(value), np.asarray(tsd["state"][i][key]), rtol=1e-10, atol=1e-14)
    for group, tgroup in zip(sd["param_groups"], tsd["param_groups"]):
        assert group["params"] == tgroup["params"]
        assert group.keys() == tgroup.keys() - TORCH_ONLY
        assert {k: group[k] for k in group} == {k: tgroup[k] for k in group}
    # load into a fresh optimizer (other hyperparameters) over copies: it continues the same run
    resumed = [nn.Parameter(p.detach().numpy().copy()) for p in pair.f]
    opt = getattr(optim, name)(groups(resumed), lr=0.123)
    opt.load_state_dict(copy.deepcopy(sd))
    pair.step(6)
    for _ in range(6):
        opt.zero_grad()
        _loss(fgrad, *resumed).backward()
        opt.step()
    for a, b in zip(resumed, pair.f):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    pair.check()


def test_defaults_as_torch():
    for name in ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta", "LBFGS"]:
        ours = getattr(optim, name)([nn.Parameter(np.ones(2))]).defaults
        theirs = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))]).defaults
        assert ours == {k: v for k, v in theirs.items() if k not in TORCH_ONLY}, name


def test_adagrad_state_exists_before_any_step():
    p = nn.Parameter(np.ones(3))
    sd = optim.Adagrad([p], initial_accumulator_value=0.25).state_dict()
    tsd = torch.optim.Adagrad([torch.nn.Parameter(torch.ones(3))], initial_accumulator_value=0.25).state_dict()
    assert sd["state"].keys() == tsd["state"].keys() == {0}
    np.testing.assert_array_equal(sd["state"][0]["sum"], tsd["state"][0]["sum"].numpy())


def test_add_param_group_mid_run_as_torch(float64_scalars):
    extra = RNG.normal(size=3)
    pair = Pair("Adam", dict(lr=0.05, amsgrad=True), params=[W0, B0, extra])
    pair.fopt.param_groups[0]["params"].pop(), pair.topt.param_groups[0]["params"].pop()

    def loss(lib, w, b, c):
        return _loss(lib, w, b) + (c * c * b).sum()
    pair.step(3, loss=loss)
    pair.fopt.add_param_group({"params": [pair.f[2]], "lr": 0.2, "betas": (0.5, 0.6)})
    pair.topt.add_param_group({"params": [pair.t[2]], "lr": 0.2, "betas": (0.5, 0.6)})
    assert pair.fopt.param_groups[1]["amsgrad"] is True and pair.fopt.param_groups[1]["eps"] == 1e-8
    pair.step(5, loss=loss)
    pair.check()
    assert [g["params"] for g in pair.fopt.state_dict()["param_groups"]] == [[0, 1], [2]]


@pytest.mark.parametrize("name,kw", [("RMSprop", dict(momentum=0.9)), ("Adagrad", {}), ("NAdam", {}),
                                     ("RAdam", {}), ("Adamax", {}), ("Adadelta", {}), ("AdamW", {})])
def test_a_parameter_given_twice_as_torch(name, kw, float64_scalars):
    p, q = nn.Parameter(np.array([1.0, -2.0])), torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        opt = getattr(optim, name)([p, p], **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        topt = getattr(torch.optim, name)([q, q], **kw)
    for _ in range(4):
        for x, o in ((p, opt), (q, topt)):
            o.zero_grad()
            (x ** 3).sum().backward()
            o.step()
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12)


def test_zero_grad_set_to_none_false_keeps_zeros():
    p = nn.Parameter(np.ones(2))
    opt = optim.AdamW([p])
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


@pytest.mark.parametrize("name,kw,message", [
    ("Adam", dict(lr=-1), "Invalid learning rate: -1"), ("AdamW", dict(betas=(1.0, 0.9)), "beta parameter at index 0"),
    ("NAdam", dict(betas=(0.9, -0.1)), "beta parameter at index 1"), ("RAdam", dict(eps=-1), "epsilon value"),
    ("Adamax", dict(weight_decay=-1), "weight_decay value"), ("NAdam", dict(momentum_decay=-1), "momentum_decay"),
    ("RMSprop", dict(alpha=-0.1), "alpha value"), ("RMSprop", dict(momentum=-1), "momentum value"),
    ("Adagrad", dict(lr_decay=-1), "lr_decay value"),
    ("Adagrad", dict(initial_accumulator_value=-1), "initial_accumulator_value value"),
    ("Adadelta", dict(rho=1.5), "rho value"), ("LBFGS", dict(lr=-0.5), "Invalid learning rate"),
    ("LBFGS", dict(line_search_fn="wolfe"), "strong_wolfe"),
])
def test_bad_hyperparameters_raise_as_torch(name, kw, message):
    with pytest.raises(ValueError, match=message):
        getattr(optim, name)([nn.Parameter(np.ones(2))], **kw)
    if name != "LBFGS" or "line_search_fn" not in kw:  # (torch checks the line search only in step)
        with pytest.raises(ValueError, match=message):
            getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **kw)


def test_parameters_given_twice_across_groups_raise():
    p = nn.Parameter(np.ones(2))
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.RMSprop([{"params": [p]}, {"params": [p], "lr": 0.1}])
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [nn.Parameter(np.ones(1))]}])


def test_a_tensor_lr_is_refused_by_name():
    with pytest.raises(TypeError, match="lr must be a number, not a Tensor"):
        optim.Adam([nn.Parameter(np.ones(2))], lr=fgrad.tensor(0.1))


def test_betas_kept_as_given_as_torch():
    ours = optim.NAdam([nn.Parameter(np.ones(2))], betas=[0.8, 0.9]).state_dict()["param_groups"][0]["betas"]
    theirs = torch.optim.NAdam([torch.nn.Parameter(torch.ones(2))], betas=[0.8, 0.9]).state_dict()
    assert ours == theirs["param_groups"][0]["betas"] and type(ours) is list
