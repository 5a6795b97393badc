"""fgrad.nn.utils against torch 2.13: clip_grad_norm_ returns torch's total norm (2, 1, 3.5,
inf) and leaves torch's gradients, clip_grad_value_ torch's clamped ones, parameters_to_vector
and vector_to_parameters round-trip, and the errors."""
import math

import numpy as np
import pytest

import fgrad
from fgrad import nn

from .torch_reference import assert_close

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)
SHAPES = [(4, 3), (3,), (2, 2, 5)]


def _params(dtype=np.float64, scale=1.0):
    values = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [(rng.standard_normal(s) * scale).astype(dtype) for s in SHAPES]
    ours = [nn.Parameter(fgrad.tensor(v)) for v in values]
    theirs = [torch.nn.Parameter(torch.tensor(v)) for v in values]
    for p, q, g in zip(ours, theirs, grads):
        p.grad, q.grad = fgrad.tensor(g.copy()), torch.tensor(g.copy())
    return ours, theirs


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_is_torchs(norm_type, max_norm, dtype):
    ours, theirs = _params(dtype)
    got = nn.utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    want = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert isinstance(got, fgrad.Tensor)
    assert_close(got, want, dtype, "total norm")
    for p, q in zip(ours, theirs):
        assert_close(p.grad, q.grad, dtype, "clipped gradient")


def test_clip_grad_norm_of_one_tensor_and_of_none():
    ours, theirs = _params()
    assert_close(nn.utils.clip_grad_norm_(ours[0], 0.1), torch.nn.utils.clip_grad_norm_(theirs[0], 0.1),
                 np.float64, "one tensor")
    assert_close(ours[0].grad, theirs[0].grad, np.float64, "one tensor's gradient")
    p = nn.Parameter(fgrad.zeros(3))
    assert nn.utils.clip_grad_norm_([p], 1.0).item() == 0.0


def test_clip_grad_norm_refuses_a_nonfinite_norm_when_asked():
    ours, _ = _params()
    ours[1].grad[0] = math.inf
    with pytest.raises(RuntimeError, match=r"The total norm of order 2\.0 for gradients from `parameters` is non-f"):
        nn.utils.clip_grad_norm_(ours, 1.0, error_if_nonfinite=True)
    with np.errstate(invalid="ignore"):  # (the inf entry times 1 / inf is NaN, as in torch)
        assert math.isinf(nn.utils.clip_grad_norm_(ours, 1.0).item())


def test_total_norm_and_clipping_separately_as_torch():
    ours, theirs = _params()
    total = nn.utils.get_total_norm([p.grad for p in ours], 3.0)
    want = torch.nn.utils.get_total_norm([q.grad for q in theirs], 3.0)
    assert_close(total, want, np.float64, "get_total_norm")
    nn.utils.clip_grads_with_norm_(ours, 0.2, total)
    torch.nn.utils.clip_grads_with_norm_(theirs, 0.2, want)
    for p, q in zip(ours, theirs):
        assert_close(p.grad, q.grad, np.float64, "clip_grads_with_norm_")


def test_clip_grad_value_is_torchs():
    ours, theirs = _params(scale=3.0)
    nn.utils.clip_grad_value_(ours, 1.5)
    torch.nn.utils.clip_grad_value_(theirs, 1.5)
    for p, q in zip(ours, theirs):
        assert_close(p.grad, q.grad, np.float64, "clip_grad_value_")


def test_parameters_to_vector_and_back():
    ours, theirs = _params()
    vec = nn.utils.parameters_to_vector(ours)
    assert_close(vec, torch.nn.utils.parameters_to_vector(theirs), np.float64, "parameters_to_vector")
    before = [p.grad.numpy().copy() for p in ours]
    (vec * fgrad.tensor(np.arange(vec.shape[0], dtype=float))).sum().backward()  # differentiable, as torch's
    start = 0
    for p, g in zip(ours, before):
        n = p.numel()
        np.testing.assert_array_equal(p.grad.numpy().ravel(), g.ravel() + np.arange(start, start + n))
        start += n
    new = np.arange(vec.shape[0], dtype=float)
    nn.utils.vector_to_parameters(fgrad.tensor(new), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), theirs)
    for p, q in zip(ours, theirs):
        assert_close(p.detach(), q.detach(), np.float64, "vector_to_parameters")
        assert isinstance(p, nn.Parameter)
    with pytest.raises(TypeError, match=r"expected torch\.Tensor, but got: ndarray"):
        nn.utils.vector_to_parameters(new, ours)
