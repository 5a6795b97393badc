"""torch's `dim` arguments on the Tensor face: out of range, negative, repeated and on 0-D tensors,
each call made on torch and on fgrad, which must raise the same exception type or give the same
values (fgrad/autograd/dims.py checks them before fgrad.numpy, whose errors are NumPy's)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as torch_F

import fgrad
import fgrad.nn.functional as F


def _index(m, shape):
    return m.zeros(shape, dtype=m.int64)


# name -> call(m, nn_functional, t, d): a torch call with torch's names, on t of shape (2, 3)
ONE_DIM = {
    "unsqueeze": lambda m, f, t, d: t.unsqueeze(d),
    "fn.unsqueeze": lambda m, f, t, d: m.unsqueeze(t, d),
    "squeeze": lambda m, f, t, d: t.squeeze(d),
    "transpose0": lambda m, f, t, d: t.transpose(0, d),
    "transpose1": lambda m, f, t, d: m.transpose(t, d, 1),
    "permute": lambda m, f, t, d: t.permute(d, 1 if d in (0, -2) else 0),
    "movedim.source": lambda m, f, t, d: m.movedim(t, d, 0),
    "movedim.destination": lambda m, f, t, d: t.movedim(0, d),
    "flatten.start": lambda m, f, t, d: t.flatten(d),
    "flatten.end": lambda m, f, t, d: m.flatten(t, 0, d),
    "narrow": lambda m, f, t, d: t.narrow(d, 0, 1),
    "index_select": lambda m, f, t, d: t.index_select(d, m.tensor([1, 0])),
    "gather": lambda m, f, t, d: t.gather(d, _index(m, (2, 2))),
    "scatter": lambda m, f, t, d: t.scatter(d, _index(m, (1, 2)), m.ones(1, 2, dtype=t.dtype)),
    "scatter_add": lambda m, f, t, d: m.scatter_add(t, d, _index(m, (1, 2)), m.ones(1, 2, dtype=t.dtype)),
    "cat": lambda m, f, t, d: m.cat([t, t], d),
    "stack": lambda m, f, t, d: m.stack([t, t], d),
    "chunk": lambda m, f, t, d: t.chunk(2, d),
    "split": lambda m, f, t, d: m.split(t, 1, d),
    "unbind": lambda m, f, t, d: t.unbind(d),
    "roll": lambda m, f, t, d: t.roll(1, d),
    "flip": lambda m, f, t, d: t.flip(d),
    "fn.flip": lambda m, f, t, d: m.flip(t, [d]),
    "sum": lambda m, f, t, d: t.sum(dim=d),
    "sum.tuple": lambda m, f, t, d: m.sum(t, dim=(d,), keepdim=True),
    "mean": lambda m, f, t, d: t.mean(d),
    "prod": lambda m, f, t, d: t.prod(d),
    "max": lambda m, f, t, d: t.max(d),
    "min": lambda m, f, t, d: m.min(t, d, keepdim=True),
    "argmax": lambda m, f, t, d: t.argmax(d),
    "argmin": lambda m, f, t, d: m.argmin(t, d),
    "logsumexp": lambda m, f, t, d: t.logsumexp(d),
    "var": lambda m, f, t, d: t.var(d),
    "std": lambda m, f, t, d: m.std(t, d),
    "norm": lambda m, f, t, d: t.norm(dim=d),
    "cumsum": lambda m, f, t, d: t.cumsum(d),
    "cumprod": lambda m, f, t, d: m.cumprod(t, d),
    "sort": lambda m, f, t, d: t.sort(d),
    "argsort": lambda m, f, t, d: m.argsort(t, d),
    "topk": lambda m, f, t, d: t.topk(1, d),
    "softmax": lambda m, f, t, d: t.softmax(d),
    "log_softmax": lambda m, f, t, d: m.log_softmax(t, d),
    "diagonal": lambda m, f, t, d: m.diagonal(t, 0, 0, d),
    "repeat_interleave": lambda m, f, t, d: t.repeat_interleave(2, d),
    "size": lambda m, f, t, d: t.size(d),
    "stride": lambda m, f, t, d: t.stride(d),
    "cross": lambda m, f, t, d: m.cross(m.ones(3, 3, dtype=t.dtype), m.ones(3, 3, dtype=t.dtype), dim=d),
    "F.softmax": lambda m, f, t, d: f.softmax(t, d),
    "F.log_softmax": lambda m, f, t, d: f.log_softmax(t, dim=d),
    "F.softmin": lambda m, f, t, d: f.softmin(t, d),
    "special.softmax": lambda m, f, t, d: m.special.softmax(t, d),
    "special.log_softmax": lambda m, f, t, d: m.special.log_softmax(t, d),
    "special.logsumexp": lambda m, f, t, d: m.special.logsumexp(t, d),
    "linalg.vector_norm": lambda m, f, t, d: m.linalg.vector_norm(t, dim=d),
    "linalg.norm": lambda m, f, t, d: m.linalg.norm(t, dim=d),
    "linalg.matrix_norm": lambda m, f, t, d: m.linalg.matrix_norm(t, dim=(d, 1 if d in (0, -2) else 0)),
    "linalg.vecdot": lambda m, f, t, d: m.linalg.vecdot(t, t, dim=d),
    "linalg.cross": lambda m, f, t, d: m.linalg.cross(m.ones(3, 3, dtype=t.dtype), m.ones(3, 3, dtype=t.dtype),
                                                      dim=d),
    "linalg.diagonal": lambda m, f, t, d: m.linalg.diagonal(t, dim1=d, dim2=1 if d in (0, -2) else 0),
    "fft.fft": lambda m, f, t, d: m.fft.fft(t, dim=d),
    "fft.rfft": lambda m, f, t, d: m.fft.rfft(t, dim=d),
    "fft.fftn": lambda m, f, t, d: m.fft.fftn(t, dim=(d,)),
    "fft.fftshift": lambda m, f, t, d: m.fft.fftshift(t, dim=d),
    "select": lambda m, f, t, d: t.select(d, -1),
    "fn.select": lambda m, f, t, d: m.select(t, d, 1),
    "amax": lambda m, f, t, d: t.amax(d),
    "amin": lambda m, f, t, d: m.amin(t, (d,), keepdim=True),
    "diff": lambda m, f, t, d: t.diff(dim=d),
    "unflatten": lambda m, f, t, d: t.unflatten(d, (1, -1)),
    "fn.unflatten": lambda m, f, t, d: m.unflatten(t, d, (-1, 1)),
    "nn.Flatten": lambda m, f, t, d: m.nn.Flatten(d)(t),
    "nn.Unflatten": lambda m, f, t, d: m.nn.Unflatten(d, (1, -1))(t),
    "nn.Softmax": lambda m, f, t, d: m.nn.Softmax(d)(t),
}

# name -> call(m, f, t) with a repeated dim (directly or after wrapping), on t of shape (2, 3)
REPEATED = {
    "sum": lambda m, f, t: t.sum(dim=(0, 0)),
    "sum.wrapped": lambda m, f, t: m.sum(t, dim=(1, -1)),
    "mean": lambda m, f, t: t.mean((0, -2)),
    "var": lambda m, f, t: t.var((1, 1)),
    "std": lambda m, f, t: t.std((1, 1)),
    "logsumexp": lambda m, f, t: t.logsumexp((0, 0)),
    "norm": lambda m, f, t: t.norm(dim=(0, -2)),
    "permute": lambda m, f, t: t.permute(0, 0),
    "permute.wrapped": lambda m, f, t: m.permute(t, (1, -1)),
    "flip": lambda m, f, t: t.flip((0, 0)),
    "movedim.source": lambda m, f, t: m.movedim(t, (0, 0), (0, 1)),
    "movedim.destination": lambda m, f, t: t.movedim((0, 1), (1, -1)),
    "linalg.vector_norm": lambda m, f, t: m.linalg.vector_norm(t, dim=(0, -2)),
    "linalg.matrix_norm": lambda m, f, t: m.linalg.matrix_norm(t, dim=(0, -2)),
    "fft.fftn": lambda m, f, t: m.fft.fftn(t, dim=(0, 0)),
    "amax": lambda m, f, t: t.amax((0, -2)),
}

# name -> call(m, f, s, d) on a 0-D tensor s: torch takes dim -1 and 0 there
SCALAR = {
    "unsqueeze": lambda m, f, s, d: s.unsqueeze(d),
    "squeeze": lambda m, f, s, d: s.squeeze(d),
    "transpose": lambda m, f, s, d: s.transpose(d, 0),
    "flatten": lambda m, f, s, d: s.flatten(d),
    "sum": lambda m, f, s, d: s.sum(d),
    "mean": lambda m, f, s, d: m.mean(s, (d,), keepdim=True),
    "prod": lambda m, f, s, d: s.prod(d),
    "max": lambda m, f, s, d: s.max(d),
    "argmax": lambda m, f, s, d: s.argmax(d),
    "logsumexp": lambda m, f, s, d: s.logsumexp(d),
    "norm": lambda m, f, s, d: s.norm(dim=d),
    "cumsum": lambda m, f, s, d: s.cumsum(d),
    "sort": lambda m, f, s, d: s.sort(d),
    "softmax": lambda m, f, s, d: s.softmax(d),
    "F.log_softmax": lambda m, f, s, d: f.log_softmax(s, d),
    "flip": lambda m, f, s, d: s.flip(d),
    "roll": lambda m, f, s, d: s.roll(1, d),
    "size": lambda m, f, s, d: s.size(d),
    "amax": lambda m, f, s, d: s.amax(d),
    "select": lambda m, f, s, d: s.select(d, 0),
}


def _leaves(out):
    """A result's arrays, in order (a tuple's, a named tuple's, a Size's entries)."""
    if isinstance(out, (torch.Tensor, fgrad.Tensor)):
        return [out.detach().numpy()]
    if isinstance(out, (tuple, list)):
        return [leaf for o in out for leaf in _leaves(o)]
    return [np.asarray(out)]


def _run(call, m, f, t):
    try:
        return None, _leaves(call(m, f, t))
    except Exception as e:  # (the type is what is compared)
        return e, None


def _same(call, torch_t, fgrad_t):
    """torch and fgrad raise the same exception type (IndexError: torch's message) or agree."""
    expected, want = _run(call, torch, torch_F, torch_t)
    error, got = _run(call, fgrad, F, fgrad_t)
    if expected is not None:
        assert isinstance(error, type(expected)), f"torch raised {expected!r}, fgrad gave {error!r} {got!r}"
        if isinstance(expected, IndexError):
            assert "out of range" in str(error) or "no dimensions" in str(error), str(error)
        return
    assert error is None, f"torch gave {want!r}, fgrad raised {error!r}"
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _pair(shape=(2, 3)):
    values = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
    return torch.tensor(values, requires_grad=True), fgrad.tensor(values, requires_grad=True)


@pytest.mark.parametrize("d", [5, 2, -3, -4, -1, -2, 0, 1])
@pytest.mark.parametrize("name", list(ONE_DIM))
def test_one_dim_as_torch(name, d):
    _same(lambda m, f, t: ONE_DIM[name](m, f, t, d), *_pair())


@pytest.mark.parametrize("name", list(REPEATED))
def test_repeated_dims_as_torch(name):
    _same(REPEATED[name], *_pair())


@pytest.mark.parametrize("d", [-2, -1, 0, 1])
@pytest.mark.parametrize("name", list(SCALAR))
def test_scalar_dims_as_torch(name, d):
    _same(lambda m, f, s: SCALAR[name](m, f, s, d), *_pair(()))


def test_message_names_the_function():
    t = fgrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    with pytest.raises(IndexError, match=r"unsqueeze\(\): Dimension out of range \(expected to be in range of "
                                         r"\[-3, 2\], but got 5\)"):
        t.unsqueeze(5)
    with pytest.raises(IndexError, match=r"^sum\(\): Dimension out of range"):
        t.sum(dim=4)


def test_wrapped_dims_still_differentiate():
    t, x = _pair((2, 3))
    t.transpose(-1, -2).unsqueeze(-1).sum(dim=(-3, 1)).softmax(-1).pow(2).sum().backward()
    x.transpose(-1, -2).unsqueeze(-1).sum(dim=(-3, 1)).softmax(-1).pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
