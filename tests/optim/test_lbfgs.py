"""fgrad.optim.LBFGS against torch 2.13: fixed steps and the strong-Wolfe line search, a short
history that overflows, the tolerances that stop it early, and its state_dict."""
import copy

import numpy as np
import pytest

import fgrad
from fgrad import nn, optim

torch = pytest.importorskip("torch")

X0 = np.array([-1.2, 1.0, -0.5, 0.8, 1.3, -0.7])
M0 = np.random.default_rng(1).normal(size=(2, 3)) * 0.5


def _loss(x, m):
    """A Rosenbrock valley in x (milder than 100's, whose rounding grows past 1e-10 in 80
    iterations in both libraries alike), plus a quartic bowl in m (a second parameter, not flat)."""
    return (3 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum() + (m ** 4 + m ** 2).sum()


def _run(lib, opt_class, kw, steps):
    params = [nn.Parameter(X0.copy()), nn.Parameter(M0.copy())] if lib is fgrad else \
        [torch.nn.Parameter(torch.tensor(X0)), torch.nn.Parameter(torch.tensor(M0))]
    opt = opt_class(params, **kw)

    def closure():
        opt.zero_grad()
        loss = _loss(*params)
        loss.backward()
        return loss
    losses, trajectory = [], []
    for _ in range(steps):
        losses.append(opt.step(closure).item())
        trajectory.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    return params, opt, losses, np.array(trajectory)


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.1, max_iter=7, history_size=3),
                                dict(line_search_fn="strong_wolfe"),
                                dict(line_search_fn="strong_wolfe", history_size=2, max_iter=9, max_eval=12),
                                dict(line_search_fn="strong_wolfe", tolerance_change=1e-3),
                                dict(lr=0.01, line_search_fn="strong_wolfe", max_iter=6),
                                dict(lr=0.5, tolerance_grad=1e-1, max_iter=50)],
                         ids=["defaults", "short-history", "wolfe", "wolfe-short", "wolfe-tol-change",
                              "wolfe-growing-steps", "tol-grad"])
def test_trajectory_as_torch(kw):
    _, opt, losses, trajectory = _run(fgrad, optim.LBFGS, kw, 4)
    _, topt, tlosses, ttrajectory = _run(torch, torch.optim.LBFGS, kw, 4)
    np.testing.assert_allclose(trajectory, ttrajectory, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-9, atol=1e-12)
    state, tstate = opt.state_dict()["state"][0], topt.state_dict()["state"][0]
    assert state.keys() == tstate.keys()
    assert (state["func_evals"], state["n_iter"]) == (tstate["func_evals"], tstate["n_iter"])
    assert len(state["old_dirs"]) == len(tstate["old_dirs"])
    np.testing.assert_allclose(state["d"], tstate["d"].numpy(), rtol=1e-8, atol=1e-10)
    assert losses[-1] < losses[0]


def test_state_dict_resumes_the_run():
    kw = dict(line_search_fn="strong_wolfe", history_size=4, max_iter=5)
    params, opt, _, _ = _run(fgrad, optim.LBFGS, kw, 2)
    resumed = [nn.Parameter(p.detach().numpy().copy()) for p in params]
    opt2 = optim.LBFGS(resumed, **kw)
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
    for ps, o in ((params, opt), (resumed, opt2)):
        def closure(ps=ps, o=o):
            o.zero_grad()
            loss = _loss(*ps)
            loss.backward()
            return loss
        o.step(closure)
    for a, b in zip(params, resumed):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_a_parameter_without_a_gradient_as_torch():
    # a parameter the loss does not use has no .grad: its part of the flat gradient is zero
    def run(lib, make):
        ps = [make(X0), make(np.ones(2))]
        opt = (optim.LBFGS if lib is fgrad else torch.optim.LBFGS)(ps, line_search_fn="strong_wolfe", max_iter=8)

        def closure():
            opt.zero_grad()
            loss = _loss(ps[0], ps[0][:2])
            loss.backward()
            return loss
        opt.step(closure)
        assert ps[1].grad is None
        return [p.detach().numpy().copy() for p in ps]
    ours = run(fgrad, lambda a: nn.Parameter(a.copy()))
    theirs = run(torch, lambda a: torch.nn.Parameter(torch.tensor(a)))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(ours[1], [1.0, 1.0])


def test_complex_parameters_as_torch():
    # torch's LBFGS steps a complex parameter as its (real, imag) pairs; so does fgrad's
    z0 = np.array([1.0 + 0.5j, -0.3 + 1.2j, 0.7 - 0.4j])

    def run(z, opt_class):
        opt = opt_class([z], line_search_fn="strong_wolfe", max_iter=6)

        def closure():
            opt.zero_grad()
            loss = (z * z.conj()).real.sum() + ((z ** 2).real ** 2).sum()
            loss.backward()
            return loss
        for _ in range(2):
            opt.step(closure)
        return z.detach().numpy()
    ours = run(nn.Parameter(z0.copy()), optim.LBFGS)
    theirs = run(torch.nn.Parameter(torch.tensor(z0)), torch.optim.LBFGS)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    assert not np.allclose(ours, z0)


def test_step_needs_a_closure():
    with pytest.raises(RuntimeError, match="requires a closure"):
        optim.LBFGS([nn.Parameter(np.ones(2))]).step()


def test_returns_at_once_at_a_minimum():
    p = nn.Parameter(np.zeros(3))
    opt = optim.LBFGS([p])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == 0.0 and len(calls) == 1


def test_line_search_as_torch_on_many_functions():
    # The strong-Wolfe search alone, on random wavy quartics, directions and first steps: each branch
    # (growing the step, zooming, stepping back from a bracket's end) against torch's own.
    from torch.optim.lbfgs import _strong_wolfe as torch_wolfe

    from fgrad.optim.lbfgs import _strong_wolfe
    rng = np.random.default_rng(5)
    agree = 0
    for _ in range(300):
        a, b, w, x = rng.uniform(0.01, 2, 4), rng.normal(size=4), rng.uniform(1, 10, 4), rng.normal(size=4)
        f = lambda z: float((a * z ** 4 + b * np.cos(w * z)).sum())  # noqa: E731
        g = lambda z: 4 * a * z ** 3 - b * w * np.sin(w * z)  # noqa: E731
        d, t = -g(x) * rng.uniform(0.01, 3), 10 ** rng.uniform(-3, 2)
        ours = _strong_wolfe(lambda x, t, d: (f(x + t * d), g(x + t * d)), x, t, d, f(x), g(x), g(x).dot(d))
        at = lambda x, t, d: x.numpy() + float(t) * d.numpy()  # noqa: E731
        theirs = torch_wolfe(lambda x, t, d: (f(at(x, t, d)), torch.tensor(g(at(x, t, d)))), torch.tensor(x), t,
                             torch.tensor(d), f(x), torch.tensor(g(x)), torch.tensor(g(x).dot(d)))
        assert ours[3] == theirs[3]  # the same number of evaluations
        np.testing.assert_allclose([ours[0], float(ours[2])], [theirs[0], float(theirs[2])], rtol=1e-9, atol=1e-12)
        agree += ours[3] > 2
    assert agree > 30  # (most searches needed more than a step or two)
