"""fgrad.nn's activations against torch 2.13: outputs and input gradients (float64 to 1e-10,
float32 to 1e-5), the kinks included (inputs hold exact 0 and each clip's ends), the Modules'
defaults and reprs, PReLU's weight copied through its state dict."""
import numpy as np
import pytest

import fgrad
from fgrad import nn
from fgrad.nn import functional as F

from .torch_reference import compare, compare_parameter_grads, copy_parameters, to_fgrad, to_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]


def _input(shape=(4, 5, 3), seed=0):
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    x.flat[:6] = [0.0, -1.0, 1.0, 6.0, 25.0, -30.0]  # relu's and hardtanh's kinks, softplus's linear part
    return x


CASES = [
    ("relu", lambda m, x: m.relu(x)),
    ("relu6", lambda m, x: m.relu6(x)),
    ("leaky_relu", lambda m, x: m.leaky_relu(x)),
    ("leaky_relu slope", lambda m, x: m.leaky_relu(x, 0.2)),
    ("elu", lambda m, x: m.elu(x)),
    ("elu alpha", lambda m, x: m.elu(x, alpha=0.7)),
    ("selu", lambda m, x: m.selu(x)),
    ("gelu", lambda m, x: m.gelu(x)),
    ("gelu tanh", lambda m, x: m.gelu(x, approximate="tanh")),
    ("silu", lambda m, x: m.silu(x)),
    ("mish", lambda m, x: m.mish(x)),
    ("softplus", lambda m, x: m.softplus(x)),
    ("softplus beta threshold", lambda m, x: m.softplus(x, beta=2.0, threshold=5.0)),
    ("hardtanh", lambda m, x: m.hardtanh(x)),
    ("hardtanh range", lambda m, x: m.hardtanh(x, -2.0, 6.0)),
    ("sigmoid", lambda m, x: m.sigmoid(x)),
    ("logsigmoid", lambda m, x: m.logsigmoid(x)),
    ("tanh", lambda m, x: m.tanh(x)),
    ("softmax", lambda m, x: m.softmax(x, dim=1)),
    ("softmax last", lambda m, x: m.softmax(x, dim=-1)),
    ("softmin", lambda m, x: m.softmin(x, dim=0)),
    ("log_softmax", lambda m, x: m.log_softmax(x, dim=2)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_functional_matches_torch(name, fn, dtype):
    compare(torch, lambda x: fn(F, x), lambda x: fn(TF, x), [_input()], dtype, what=name)


MODULES = [
    ("ReLU", (), {}), ("ReLU6", (), {}), ("LeakyReLU", (0.3,), {}), ("ELU", (), {"alpha": 2.0}), ("SELU", (), {}),
    ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}), ("Mish", (), {}),
    ("Softplus", (), {"beta": 0.5, "threshold": 3.0}), ("Hardtanh", (-0.5, 0.5), {}), ("Sigmoid", (), {}),
    ("Tanh", (), {}), ("LogSigmoid", (), {}), ("Softmax", (), {"dim": 1}), ("Softmin", (), {"dim": -1}),
    ("LogSoftmax", (), {"dim": 0}),
]


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_torch_and_print_as_torch(name, args, kwargs):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    compare(torch, ours, theirs, [_input()], what=name)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("num_parameters,shape", [(1, (4, 3, 5)), (3, (4, 3, 5)), (3, (4, 3)), (1, (7,)),
                                                  (5, (2, 5, 4, 3))])
def test_prelu_matches_torch_with_its_weight(num_parameters, shape, dtype):
    theirs = torch.nn.PReLU(num_parameters, init=0.1, dtype=torch.float64 if dtype == np.float64 else torch.float32)
    with torch.no_grad():
        theirs.weight.copy_(torch.linspace(-0.5, 0.5, num_parameters))
    ours = nn.PReLU(num_parameters, dtype=dtype)
    assert ours.weight.dtype == dtype and tuple(ours.weight.shape) == (num_parameters,)
    assert np.all(ours.weight.detach().numpy() == 0.25)  # torch's default init
    copy_parameters(theirs, ours)
    compare(torch, ours, theirs, [_input(shape)], dtype, what="PReLU")
    compare_parameter_grads(theirs, ours, dtype, "PReLU")
    assert repr(ours) == repr(theirs)
    w = to_fgrad(ours.weight.detach().numpy(), True)
    got = F.prelu(to_fgrad(_input(shape).astype(dtype)), w)
    np.testing.assert_allclose(got.detach().numpy(), TF.prelu(to_torch(torch, _input(shape).astype(dtype)),
                                                     theirs.weight).detach().numpy(), rtol=1e-6)


def test_inplace_activations_write_their_input_as_torch():
    x = to_fgrad(_input())
    out = F.relu(x, inplace=True)
    assert out is x and np.array_equal(x.numpy(), np.maximum(_input(), 0))
    y = to_fgrad(_input())
    nn.ELU(inplace=True)(y)
    np.testing.assert_allclose(y.numpy(), TF.elu(to_torch(torch, _input())).numpy(), rtol=1e-12)
    leaf = to_fgrad(_input(), True)
    with pytest.raises(RuntimeError, match="leaf"):
        F.leaky_relu(leaf, inplace=True)


def test_bad_arguments_raise_as_torch():
    x = to_fgrad(_input())
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(x, approximate="fast")
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        nn.Hardtanh(1.0, -1.0)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(x, to_fgrad(np.ones(3)))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        implicit = F.softmax(x)
    with pytest.warns(UserWarning):
        want = TF.softmax(to_torch(torch, _input()))
    np.testing.assert_allclose(implicit.numpy(), want.numpy(), rtol=1e-12)  # dim 0 for a 3-D input, as torch's


def test_softmax_dtype_casts_first():
    x = to_fgrad(_input().astype(np.float32))
    assert F.softmax(x, dim=1, dtype=np.float64).dtype == np.float64


def test_second_derivatives_as_torch():
    """Written in fgrad ops, the activations differentiate again (gelu's second derivative)."""
    x = _input((6,))
    fx, tx = to_fgrad(x, True), to_torch(torch, x, True)
    (g,) = fgrad.autograd.grad(F.gelu(fx).sum(), fx, create_graph=True)
    (tg,) = torch.autograd.grad(TF.gelu(tx).sum(), tx, create_graph=True)
    g.sum().backward()
    tg.sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
