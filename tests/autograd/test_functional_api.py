"""fgrad.autograd.functional's vjp, jvp, jacobian, hessian, vhp and hvp against torch 2.13's
torch.autograd.functional: the same results (and nesting) for the same functions and inputs."""
import numpy as np
import pytest

import fgrad
from fgrad.autograd import functional as F

torch = pytest.importorskip("torch")
TF = torch.autograd.functional

RNG = np.random.default_rng(0)
X, Y = RNG.normal(size=(3,)), RNG.normal(size=(2, 3))


def one_in_one_out(L, x):
    return L.sin(x) * x.sum()


def two_in_two_out(L, x, y):
    return (x * y).sum(1), L.exp(y).sum(0) + x


def scalar(L, x, y):
    return (L.sin(x) * y).sum() + (x * x).sum() * y[0, 0]


def _make(lib, arrays):
    make = fgrad.tensor if lib is fgrad else torch.tensor
    return tuple(make(a.copy()) for a in arrays)


def _numpy(result):
    if isinstance(result, (tuple, list)):  # (torch's forward-mode jacobian nests in lists)
        return tuple(_numpy(r) for r in result)
    return result.detach().numpy()


def _close(a, b):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def _both(call):
    """call(lib, functional module) in fgrad and in torch, as NumPy nests."""
    return _numpy(call(fgrad, F)), _numpy(call(torch, TF))


CALLS = {
    "vjp": lambda L, M: M.vjp(lambda x: one_in_one_out(L, x), *_make(L, [X]), *_make(L, [np.arange(3.0)])),
    "vjp tuple": lambda L, M: M.vjp(lambda x, y: two_in_two_out(L, x, y), _make(L, [X, Y]),
                                    _make(L, [np.ones(2), np.arange(3.0)])),
    "jvp": lambda L, M: M.jvp(lambda x: one_in_one_out(L, x), *_make(L, [X]), *_make(L, [np.arange(3.0)])),
    "jvp tuple": lambda L, M: M.jvp(lambda x, y: two_in_two_out(L, x, y), _make(L, [X, Y]),
                                    _make(L, [np.ones(3), np.ones((2, 3))])),
    "jacobian": lambda L, M: M.jacobian(lambda x: one_in_one_out(L, x), *_make(L, [X])),
    "jacobian tuple": lambda L, M: M.jacobian(lambda x, y: two_in_two_out(L, x, y), _make(L, [X, Y])),
    "jacobian forward-mode": lambda L, M: M.jacobian(lambda x, y: two_in_two_out(L, x, y), _make(L, [X, Y]),
                                                     vectorize=True, strategy="forward-mode"),
    "hessian": lambda L, M: M.hessian(lambda x: (L.sin(x) * x).sum(), *_make(L, [X])),
    "hessian tuple": lambda L, M: M.hessian(lambda x, y: scalar(L, x, y), _make(L, [X, Y])),
    "vhp": lambda L, M: M.vhp(lambda x, y: scalar(L, x, y), _make(L, [X, Y]), _make(L, [np.ones(3), np.ones((2, 3))])),
    "hvp": lambda L, M: M.hvp(lambda x, y: scalar(L, x, y), _make(L, [X, Y]), _make(L, [np.ones(3), np.ones((2, 3))])),
    "unused input (zeros)": lambda L, M: M.jacobian(lambda x, y: L.sin(x), _make(L, [X, Y])),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_matches_torch(name):
    ours, theirs = _both(CALLS[name])
    _close(ours, theirs)


def test_strict_and_v_errors_are_torchs():
    for L, M in ((fgrad, F), (torch, TF)):
        x, y = _make(L, [X, Y])
        with pytest.raises(RuntimeError, match="independent of input 1"):
            M.jacobian(lambda a, b: L.sin(a), (x, y), strict=True)
        with pytest.raises(RuntimeError, match="can only be None if"):
            M.vjp(lambda a: a * 2, x)


def test_create_graph_keeps_results_differentiable():
    x = fgrad.tensor(X, requires_grad=True)
    jac = F.jacobian(lambda a: a ** 3, x, create_graph=True)
    jac.sum().backward()
    xt = torch.tensor(X, requires_grad=True)
    TF.jacobian(lambda a: a ** 3, xt, create_graph=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    assert not F.jacobian(lambda a: a ** 3, x).requires_grad
