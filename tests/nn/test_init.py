"""fgrad.nn.init against torch 2.13's formulas: each initializer's shape, dtype and statistics
(bounds, means, standard deviations from a large draw), the fans and gains, constant_/eye_/
zeros_/ones_ exactly, orthogonal_ as torch's construction on the same normal draw, the
generator= stream, and torch's errors."""
import math

import numpy as np
import pytest

import fgrad
from fgrad import nn

torch = pytest.importorskip("torch")
TI = torch.nn.init


def _pair(shape, dtype=np.float64):
    return fgrad.zeros(*shape, dtype=dtype), torch.zeros(*shape, dtype=getattr(torch, np.dtype(dtype).name))


@pytest.mark.parametrize("name,param", [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                                        ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain_is_torchs(name, param):
    assert nn.init.calculate_gain(name, param) == TI.calculate_gain(name, param)


def test_fans_are_torchs():
    for shape in [(7, 3), (8, 4, 3, 5), (6, 2, 9)]:
        ours, theirs = _pair(shape)
        assert nn.init._calculate_fan_in_and_fan_out(ours) == TI._calculate_fan_in_and_fan_out(theirs)


def _bound_and_std(fill, shape=(400, 300, 3)):
    """The largest |value| and the standard deviation of one large draw, and the mean."""
    t = fgrad.zeros(*shape)
    out = fill(t)
    assert out is t
    v = t.numpy()
    return np.abs(v).max(), v.std(), v.mean()


@pytest.mark.parametrize("case", [
    ("xavier_uniform_", {"gain": 2.0}, "uniform", lambda fi, fo: 2.0 * math.sqrt(6.0 / (fi + fo))),
    ("xavier_normal_", {"gain": 0.5}, "normal", lambda fi, fo: 0.5 * math.sqrt(2.0 / (fi + fo))),
    ("kaiming_uniform_", {}, "uniform", lambda fi, fo: math.sqrt(2.0 / (1 + 0.0)) * math.sqrt(3.0 / fi)),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, "uniform", lambda fi, fo: math.sqrt(1.0 / fi)),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, "uniform",
     lambda fi, fo: math.sqrt(2.0) * math.sqrt(3.0 / fo)),
    ("kaiming_normal_", {"nonlinearity": "tanh"}, "normal", lambda fi, fo: (5.0 / 3) / math.sqrt(fi)),
    ("kaiming_normal_", {"mode": "fan_out", "a": 0.1}, "normal",
     lambda fi, fo: math.sqrt(2.0 / 1.01) / math.sqrt(fo)),
], ids=lambda c: f"{c[0]}{c[1]}")
def test_scaled_initializers_follow_torchs_formulas(case):
    name, kwargs, kind, scale = case
    shape = (400, 300, 3)
    fan_in, fan_out = 300 * 3, 400 * 3
    want = scale(fan_in, fan_out)  # the uniform's bound, or the normal's standard deviation
    bound, std, mean = _bound_and_std(lambda t: getattr(nn.init, name)(t, **kwargs), shape)
    _, theirs = _pair(shape)
    getattr(TI, name)(theirs, **kwargs)
    if kind == "uniform":
        assert want * 0.999 < bound <= want
        assert abs(std - want / math.sqrt(3)) < 0.01 * want
        assert abs(theirs.std().item() - want / math.sqrt(3)) < 0.01 * want
        assert theirs.abs().max().item() <= want
    else:
        assert abs(std - want) < 0.01 * want and abs(theirs.std().item() - want) < 0.01 * want
    assert abs(mean) < 0.01 * want


def test_uniform_normal_trunc_normal_statistics():
    t = fgrad.zeros(100000)
    nn.init.uniform_(t, -3.0, 5.0)
    assert t.numpy().min() >= -3.0 and t.numpy().max() < 5.0 and abs(t.numpy().mean() - 1.0) < 0.03
    nn.init.normal_(t, 2.0, 0.5)
    assert abs(t.numpy().mean() - 2.0) < 0.01 and abs(t.numpy().std() - 0.5) < 0.01
    nn.init.trunc_normal_(t, mean=1.0, std=2.0, a=-1.0, b=2.0)
    theirs = TI.trunc_normal_(torch.zeros(100000, dtype=torch.float64), mean=1.0, std=2.0, a=-1.0, b=2.0)
    v = t.numpy()
    assert v.min() >= -1.0 and v.max() <= 2.0
    for stat in (np.mean, np.std):  # the truncated normal's moments, as torch's draw has them
        assert abs(stat(v) - stat(theirs.numpy())) < 0.02


def test_exact_initializers_equal_torchs():
    for shape in [(3, 5), (4, 4), (6, 2)]:
        ours, theirs = _pair(shape)
        np.testing.assert_array_equal(nn.init.eye_(ours).numpy(), TI.eye_(theirs).numpy())
    for fill in [lambda m, t: m.constant_(t, 0.3), lambda m, t: m.ones_(t), lambda m, t: m.zeros_(t)]:
        ours, theirs = _pair((2, 3, 4), np.float32)
        np.testing.assert_array_equal(fill(nn.init, ours).numpy(), fill(TI, theirs).numpy())
        assert ours.dtype == np.float32


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 2, 3), (6, 6)])
def test_orthogonal_is_torchs_construction_on_the_same_draw(shape):
    gen = fgrad.Generator().manual_seed(7)
    t = fgrad.zeros(*shape)
    nn.init.orthogonal_(t, gain=1.5, generator=gen)
    draw = fgrad.Generator().manual_seed(7).numpy.normal(0.0, 1.0, (shape[0], int(np.prod(shape[1:]))))
    # torch.nn.init.orthogonal_'s steps, in torch, on that draw
    flat = torch.tensor(draw)
    rows, cols = flat.shape
    if rows < cols:
        flat = flat.t()
    q, r = torch.linalg.qr(flat)
    q *= torch.diag(r, 0).sign()
    if rows < cols:
        q = q.t()
    np.testing.assert_allclose(t.numpy(), 1.5 * q.reshape(shape).numpy(), rtol=1e-12, atol=1e-12)
    m = t.numpy().reshape(shape[0], -1) / 1.5
    small = min(m.shape)
    gram = m @ m.T if m.shape[0] == small else m.T @ m
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-12)


def test_generator_makes_draws_repeatable_and_parameters_stay_parameters():
    a, b = fgrad.zeros(4, 5), fgrad.zeros(4, 5)
    nn.init.xavier_uniform_(a, generator=fgrad.Generator().manual_seed(3))
    nn.init.xavier_uniform_(b, generator=fgrad.Generator().manual_seed(3))
    assert np.array_equal(a.numpy(), b.numpy())
    layer = nn.Linear(4, 3)
    weight = layer.weight
    nn.init.kaiming_normal_(layer.weight)
    nn.init.zeros_(layer.bias)
    assert layer.weight is weight and isinstance(weight, nn.Parameter) and weight.requires_grad
    assert weight.grad_fn is None and np.all(layer.bias.detach().numpy() == 0)


def test_bad_input_raises_as_torch():
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(fgrad.zeros(5))
    with pytest.raises(ValueError, match="Mode fan_mid not supported"):
        nn.init.kaiming_uniform_(fgrad.zeros(3, 3), mode="fan_mid")
    with pytest.raises(ValueError, match="Unsupported nonlinearity softsign"):
        nn.init.calculate_gain("softsign")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        nn.init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.eye_(fgrad.zeros(2, 2, 2))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        nn.init.kaiming_uniform_(fgrad.zeros(0, 3))
