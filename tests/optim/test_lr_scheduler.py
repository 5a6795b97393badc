"""fgrad.optim.lr_scheduler against torch 2.13: each schedule's lr sequence over 40 epochs (bit
for bit: torch's recursive forms kept), schedulers chained on one optimizer, SequentialLR,
ReduceLROnPlateau on a given metric sequence, OneCycleLR's momentum, state_dict resumes, errors."""
import copy
import warnings

import numpy as np
import pytest

from fgrad import nn, optim
from fgrad.optim import lr_scheduler as fsched

torch = pytest.importorskip("torch")
tsched = torch.optim.lr_scheduler
EPOCHS = 40


def _optimizers(name="SGD", **kw):
    """The same two-group optimizer in both libraries (group 1 with its own lr)."""
    kw = dict(dict(lr=0.1, momentum=0.9) if name == "SGD" else dict(lr=0.1), **kw)
    f = getattr(optim, name)([{"params": [nn.Parameter(np.ones(2))]},
                              {"params": [nn.Parameter(np.ones(1))], "lr": 0.03}], **kw)
    t = getattr(torch.optim, name)([{"params": [torch.nn.Parameter(torch.ones(2))]},
                                    {"params": [torch.nn.Parameter(torch.ones(1))], "lr": 0.03}], **kw)
    return f, t


def _sequence(opt, schedulers, epochs=EPOCHS, metrics=None):
    """[(lrs, momenta, get_last_lr())] after each epoch: optimizer.step() then each scheduler's
    step(); the momenta are each group's momentum and beta1 (what OneCycleLR anneals)."""
    out = []
    for epoch in range(epochs):
        opt.step()
        for s in schedulers:
            s.step(*([] if metrics is None else [metrics[epoch]]))
        momenta = [g[k] if k == "momentum" else g[k][0] for g in opt.param_groups for k in ("momentum", "betas")
                   if k in g]
        out.append(([g["lr"] for g in opt.param_groups], momenta, schedulers[-1].get_last_lr()))
    return out


def _assert_same(ours, theirs):
    for row, trow in zip(ours, theirs, strict=True):
        for mine, torch_s in zip(row, trow, strict=True):
            np.testing.assert_array_equal(mine, torch_s)


SCHEDULES = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[3, 10, 10, 25], gamma=0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.93),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=12, eta_min=0.001),  # (past T_max: up again)
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=15),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lr_lambda=lambda e: 0.95 ** e / (1 + e % 3)),
    "LambdaLR-per-group": lambda m, o: m.LambdaLR(o, lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.9 ** e]),
    "OneCycleLR-cos": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=EPOCHS),
    "OneCycleLR-linear-3phase": lambda m, o: m.OneCycleLR(o, max_lr=0.8, epochs=4, steps_per_epoch=10, pct_start=0.25,
                                                          anneal_strategy="linear", three_phase=True,
                                                          div_factor=10.0, final_div_factor=100.0),
    "OneCycleLR-no-momentum": lambda m, o: m.OneCycleLR(o, max_lr=0.4, total_steps=EPOCHS, cycle_momentum=False),
}


@pytest.mark.parametrize("name", SCHEDULES)
def test_lr_sequence_as_torch(name):
    f, t = _optimizers()
    ours = _sequence(f, [SCHEDULES[name](fsched, f)])
    theirs = _sequence(t, [SCHEDULES[name](tsched, t)])
    _assert_same(ours, theirs)
    assert len({tuple(lrs) for lrs, _, _ in ours}) > 3  # (the lr moved)


def test_one_cycle_cycles_adam_betas_as_torch():
    f, t = _optimizers("AdamW")
    ours = _sequence(f, [fsched.OneCycleLR(f, max_lr=0.3, total_steps=EPOCHS, base_momentum=0.8)])
    theirs = _sequence(t, [tsched.OneCycleLR(t, max_lr=0.3, total_steps=EPOCHS, base_momentum=0.8)])
    _assert_same(ours, theirs)
    assert f.param_groups[0]["betas"][1] == 0.999 and f.param_groups[0]["betas"][0] != 0.9


def test_chained_schedulers_compose_as_torch():
    # Two schedulers on one optimizer: each multiplies the lr the other left (the recursive forms).
    def make(m, o):
        return [m.LinearLR(o, start_factor=0.1, total_iters=6), m.ExponentialLR(o, gamma=0.9),
                m.MultiStepLR(o, milestones=[20, 30], gamma=0.5)]
    f, t = _optimizers()
    _assert_same(_sequence(f, make(fsched, f)), _sequence(t, make(tsched, t)))
    f, t = _optimizers()  # the cosine's recursion on an lr another scheduler changed: not its closed form
    both = lambda m, o: [m.CosineAnnealingLR(o, T_max=9), m.StepLR(o, step_size=4, gamma=0.5)]  # noqa: E731
    _assert_same(_sequence(f, both(fsched, f)), _sequence(t, both(tsched, t)))


@pytest.mark.parametrize("milestones", [[5], [5, 18], [0, 12]])
def test_sequential_lr_as_torch(milestones):
    def make(m, o):
        parts = [m.LinearLR(o, start_factor=0.1, total_iters=5), m.CosineAnnealingLR(o, T_max=13),
                 m.LambdaLR(o, lambda e: 0.9 ** e)][:len(milestones) + 1]
        return [m.SequentialLR(o, parts, milestones=milestones)]
    f, t = _optimizers()
    _assert_same(_sequence(f, make(fsched, f)), _sequence(t, make(tsched, t)))


@pytest.mark.parametrize("kw", [dict(), dict(mode="max", factor=0.5, patience=2, threshold=0.1, cooldown=3),
                                dict(patience=1, threshold_mode="abs", threshold=0.05, min_lr=[0.01, 0.02]),
                                dict(mode="max", threshold_mode="abs", patience=0, factor=0.7, eps=1e-3)])
def test_reduce_lr_on_plateau_as_torch(kw):
    rng = np.random.default_rng(2)
    metrics = np.concatenate([np.linspace(1, 0.5, 8), 0.5 + 0.02 * rng.normal(size=EPOCHS - 8)])
    f, t = _optimizers()
    ours = _sequence(f, [fsched.ReduceLROnPlateau(f, **kw)], metrics=metrics)
    theirs = _sequence(t, [tsched.ReduceLROnPlateau(t, **kw)], metrics=[float(m) for m in metrics])
    _assert_same(ours, theirs)
    assert ours[-1][0] != ours[0][0]


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR", "LinearLR", "OneCycleLR-cos"])
def test_state_dict_resumes_the_schedule(name):
    f, _ = _optimizers()
    scheduler = SCHEDULES[name](fsched, f)
    _sequence(f, [scheduler], epochs=15)
    saved_opt, saved = copy.deepcopy(f.state_dict()), copy.deepcopy(scheduler.state_dict())
    assert "optimizer" not in saved and saved["last_epoch"] == 15
    rest = _sequence(f, [scheduler], epochs=20)
    f2, _ = _optimizers()  # torch's order: make both, then load both
    scheduler2 = SCHEDULES[name](fsched, f2)
    f2.load_state_dict(saved_opt)
    scheduler2.load_state_dict(saved)
    assert _sequence(f2, [scheduler2], epochs=20) == rest


class Decay:
    """A callable object: LambdaLR's state_dict keeps its attributes (a function's, nothing)."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


def test_state_dicts_of_the_composite_schedulers():
    f, _ = _optimizers()
    lam = fsched.LambdaLR(f, [Decay(0.9), lambda e: 1.0])
    saved = lam.state_dict()
    assert saved["lr_lambdas"] == [{"rate": 0.9}, None]
    other = fsched.LambdaLR(_optimizers()[0], [Decay(0.5), lambda e: 1.0])
    other.load_state_dict(saved)
    assert other.lr_lambdas[0].rate == 0.9 and callable(other.lr_lambdas[1])

    def make(o):
        return fsched.SequentialLR(o, [fsched.ExponentialLR(o, 0.8), fsched.StepLR(o, 3)], milestones=[4])
    g, _ = _optimizers()
    seq = make(g)
    _sequence(g, [seq], epochs=6)
    saved_opt, saved = copy.deepcopy(g.state_dict()), copy.deepcopy(seq.state_dict())
    assert [s["last_epoch"] for s in saved["_schedulers"]] == [3, 2]
    rest = _sequence(g, [seq], epochs=10)
    g2, _ = _optimizers()
    seq2 = make(g2)
    g2.load_state_dict(saved_opt)
    seq2.load_state_dict(saved)
    assert _sequence(g2, [seq2], epochs=10) == rest

    h, _ = _optimizers()
    plateau = fsched.ReduceLROnPlateau(h, patience=1, cooldown=2)
    metrics = [1.0, 0.9, 0.95, 0.97, 0.99, 0.98, 0.99, 1.0, 1.0, 1.0]
    _sequence(h, [plateau], epochs=4, metrics=metrics)
    saved_opt, saved = copy.deepcopy(h.state_dict()), copy.deepcopy(plateau.state_dict())
    rest = _sequence(h, [plateau], epochs=6, metrics=metrics[4:])
    h2, _ = _optimizers()
    plateau2 = fsched.ReduceLROnPlateau(h2)
    h2.load_state_dict(saved_opt)
    plateau2.load_state_dict(saved)
    assert _sequence(h2, [plateau2], epochs=6, metrics=metrics[4:]) == rest
    assert rest[-1][0] != rest[0][0]


def test_step_with_an_epoch_uses_the_closed_form_as_torch():
    f, t = _optimizers()
    ours, theirs = fsched.CosineAnnealingLR(f, T_max=10), tsched.CosineAnnealingLR(t, T_max=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in [3, 7, 4, 15]:
            f.step(), t.step()
            ours.step(epoch), theirs.step(epoch)
            np.testing.assert_allclose(ours.get_last_lr(), theirs.get_last_lr(), rtol=1e-12)
    with pytest.warns(UserWarning, match="epoch parameter"):
        ours.step(2)


def test_warnings_as_torch():
    f, _ = _optimizers()
    scheduler = fsched.StepLR(f, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        scheduler.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        scheduler.get_lr()


def test_errors_as_torch():
    f, _ = _optimizers()
    with pytest.raises(KeyError, match="initial_lr"):
        fsched.StepLR(f, step_size=3, last_epoch=4)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        fsched.ExponentialLR(object(), gamma=0.9)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        fsched.LambdaLR(f, [lambda e: 1.0])
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        fsched.LinearLR(f, start_factor=0)
    with pytest.raises(ValueError, match=r"Factor should be < 1\.0"):
        fsched.ReduceLROnPlateau(f, factor=1.0)
    with pytest.raises(ValueError, match="mode middle is unknown"):
        fsched.ReduceLROnPlateau(f, mode="middle")
    with pytest.raises(ValueError, match="total_steps OR"):
        fsched.OneCycleLR(f, max_lr=0.1)
    with pytest.raises(ValueError, match="max_lr must have the same length"):
        fsched.OneCycleLR(f, max_lr=[0.1], total_steps=5)
    with pytest.raises(ValueError, match="momentum or beta1"):
        fsched.OneCycleLR(optim.Adagrad([nn.Parameter(np.ones(1))]), max_lr=0.1, total_steps=5)
    one_cycle = fsched.OneCycleLR(f, max_lr=0.1, total_steps=2)
    f.step()
    one_cycle.step(), one_cycle.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        one_cycle.step()
    g, _ = _optimizers()
    other, _ = _optimizers()
    with pytest.raises(ValueError, match="one more than the number of milestone"):
        fsched.SequentialLR(g, [fsched.StepLR(g, 2)], milestones=[3])
    with pytest.raises(ValueError, match="same optimizer"):
        fsched.SequentialLR(g, [fsched.StepLR(g, 2), fsched.StepLR(other, 2)], milestones=[3])
    with pytest.raises(ValueError, match="ReduceLROnPlateau"):
        fsched.SequentialLR(g, [fsched.StepLR(g, 2), fsched.ReduceLROnPlateau(g)], milestones=[3])
