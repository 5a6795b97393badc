"""fgrad.optim: state keyed by the parameters (pickle, deepcopy, state_dict), torch's rules and numbers."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import fgrad
from fgrad import nn, optim

X = np.random.default_rng(0).normal(size=(8, 3))


def _train(model, opt, steps=3):
    for _ in range(steps):
        opt.zero_grad()
        (model(fgrad.tensor(X)) ** 2).sum().backward()
        opt.step()


def _weights(model):
    return [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("make", [lambda ps: optim.Adam(ps, lr=0.1),
                                  lambda ps: optim.SGD(ps, lr=0.01, momentum=0.9)])
@pytest.mark.parametrize("clone", [lambda obj: pickle.loads(pickle.dumps(obj)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
def test_state_survives_pickle_and_deepcopy(make, clone):
    # Adam's moments (SGD's momentum) travel with the model: the copy trains on exactly as the
    # original does (state keyed by id(param) silently restarted from zero moments).
    model = nn.Linear(3, 2)
    opt = make(model.parameters())
    _train(model, opt)
    model2, opt2 = clone((model, opt))
    assert type(model2.weight) is nn.Parameter
    assert all(p in opt2.state for p in model2.parameters())
    _train(model, opt)
    _train(model2, opt2)
    for a, b in zip(_weights(model), _weights(model2)):
        np.testing.assert_array_equal(a, b)


def test_state_dict_round_trip_as_torch():
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.1)
    _train(model, opt)
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0, 1] and sorted(sd["state"]) == [0, 1]
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}  # torch's names
    model2 = copy.deepcopy(model)
    opt2 = optim.Adam(model2.parameters(), lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1
    kept = copy.deepcopy(sd)
    _train(model, opt)
    _train(model2, opt2)
    for a, b in zip(_weights(model), _weights(model2)):
        np.testing.assert_array_equal(a, b)
    # a state dict taken as a checkpoint does not follow the optimizer's later steps
    np.testing.assert_array_equal(sd["state"][0]["exp_avg"], kept["state"][0]["exp_avg"])
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.Adam(nn.Linear(3, 2).parameters()).load_state_dict({"state": {}, "param_groups": [{"params": [0]}]})


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9)),
                                     ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
                                     ("Adam", dict(lr=0.1)), ("Adam", dict(lr=0.1, weight_decay=0.1))])
def test_a_parameter_given_twice_as_torch(name, kw):
    # torch 2.13 warns and keeps both entries: the parameter is updated twice per step.
    torch = pytest.importorskip("torch")
    w0 = np.array([1.0, -2.0])
    p = nn.Parameter(w0)
    q = torch.nn.Parameter(torch.tensor(w0))
    with pytest.warns(UserWarning, match="duplicate parameters"):
        opt = getattr(optim, name)([p, p], **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        topt = getattr(torch.optim, name)([q, q], **kw)
    for _ in range(3):
        opt.zero_grad()
        (p ** 3).sum().backward()
        opt.step()
        topt.zero_grad()
        (q ** 3).sum().backward()
        topt.step()
    np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12)


def test_parameter_checks_as_torch():
    p = nn.Parameter(np.ones(2))
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    opt = optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [p]})
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([p], nesterov=True)


def test_step_closure_returns_the_loss():
    p = nn.Parameter(np.array([3.0]))
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == 9.0
    np.testing.assert_allclose(p.detach().numpy(), [1.5])
