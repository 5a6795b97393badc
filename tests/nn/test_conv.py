"""fgrad.nn's convolutions against torch 2.13: F.conv1d, conv2d, conv_transpose2d and their
Modules give torch's outputs and gradients (inputs and parameters), and torch's errors."""
import numpy as np
import pytest

import fgrad
import fgrad.nn.functional as F
from fgrad import nn

from .parity import module_parity, run_both

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]

CONV2D = [  # (input shape, weight shape, keyword arguments)
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((2, 4, 7, 6), (6, 2, 3, 2), {"stride": (2, 1), "padding": 1, "dilation": (1, 2), "groups": 2}),
    ((1, 3, 5, 5), (2, 3, 3, 2), {"padding": "same", "dilation": 2}),
    ((2, 2, 6, 5), (3, 2, 2, 2), {"padding": "valid", "stride": 3}),
    ((6, 5, 4), (6, 1, 3, 3), {"padding": (1, 2), "groups": 6}),  # unbatched, depthwise
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs,ws,kw", CONV2D)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_matches_torch(xs, ws, kw, bias, dtype):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws)] + ([rng.standard_normal(ws[0])] if bias else [])
    run_both(lambda *a: F.conv2d(*a, **kw), lambda *a: TF.conv2d(*a, **kw), arrays, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1}, {"dilation": 2, "padding": "same"},
                                {"groups": 2, "padding": 2}])
def test_conv1d_matches_torch(kw, dtype):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((3, 4, 9)), rng.standard_normal((6, 4 // kw.get("groups", 1), 3)),
              rng.standard_normal(6)]
    run_both(lambda *a: F.conv1d(*a, **kw), lambda *a: TF.conv1d(*a, **kw), arrays, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 3, 4, 5), (3, 2, 3, 3), {}),
    ((2, 4, 4, 3), (4, 3, 3, 2), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2, "dilation": (1, 2)}),
    ((3, 3, 3), (3, 2, 2, 2), {"stride": (2, 3), "padding": (0, 1), "output_padding": (1, 2)}),
])
def test_conv_transpose2d_matches_torch(xs, ws, kw, dtype):
    rng = np.random.default_rng(2)
    groups = kw.get("groups", 1)
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[1] * groups)]
    run_both(lambda *a: F.conv_transpose2d(*a, **kw), lambda *a: TF.conv_transpose2d(*a, **kw), arrays, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", [
    (lambda m: m.Conv2d(3, 4, 3, padding=1), (2, 3, 6, 6)),
    (lambda m: m.Conv2d(4, 6, (3, 2), stride=2, groups=2, bias=False), (2, 4, 7, 7)),
    (lambda m: m.Conv2d(2, 3, 3, padding="same", padding_mode="reflect"), (2, 2, 5, 6)),
    (lambda m: m.Conv2d(2, 3, 3, padding=2, padding_mode="replicate"), (1, 2, 4, 4)),
    (lambda m: m.Conv2d(2, 3, 3, padding=1, padding_mode="circular"), (1, 2, 4, 5)),
    (lambda m: m.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 8)),
    (lambda m: m.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1), (2, 4, 3, 3)),
])
def test_modules_match_torch(make, shape, dtype):
    module_parity(make(nn), make(torch.nn), [np.random.default_rng(3).standard_normal(shape)], dtype)


def test_initialization_is_torchs_distribution():
    """kaiming_uniform_(a=sqrt(5)): weight and bias uniform within 1/sqrt(fan_in), fan-in from dimension 1."""
    fgrad.manual_seed(0)
    conv = nn.Conv2d(8, 64, 3)
    w, b = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    bound = 1 / np.sqrt(8 * 9)
    assert w.shape == (64, 8, 3, 3) and np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound and w.dtype == np.float64
    assert abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound  # uniform's standard deviation
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert tuple(t.weight.shape) == (4, 3, 3, 3) and np.abs(t.weight.detach().numpy()).max() <= 1 / np.sqrt(27)
    assert nn.Conv2d(1, 2, 3, dtype=fgrad.float32).weight.dtype == fgrad.float32


def test_conv_transpose_output_size_picks_output_padding():
    rng = np.random.default_rng(4)
    f, t = nn.ConvTranspose2d(2, 3, 3, stride=2), torch.nn.ConvTranspose2d(2, 3, 3, stride=2).double()
    x = rng.standard_normal((1, 2, 4, 4))
    with torch.no_grad():
        t.weight.copy_(torch.tensor(f.weight.detach().numpy()))
        t.bias.copy_(torch.tensor(f.bias.detach().numpy()))
    got = f(fgrad.tensor(x), output_size=(10, 9)).detach().numpy()
    np.testing.assert_allclose(got, t(torch.tensor(x), output_size=(10, 9)).detach().numpy(), atol=1e-12)
    with pytest.raises(ValueError, match="requested an output size"):
        f(fgrad.tensor(x), output_size=(12, 12))


def test_errors_name_what_is_wrong():
    x = fgrad.tensor(np.zeros((1, 3, 4, 4)))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d"):
        F.conv2d(fgrad.tensor(np.zeros((3, 4))), fgrad.tensor(np.zeros((2, 3, 3, 3))))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv2d(x, fgrad.tensor(np.zeros((2, 3, 5, 5))))
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 4, 4\] to have 4 channels, but got 3"):
        F.conv2d(x, fgrad.tensor(np.zeros((2, 2, 3, 3))), groups=2)
    with pytest.raises(RuntimeError, match="Input type \\(double\\) and weight type \\(float\\) should be the same"):
        F.conv2d(x, fgrad.tensor(np.zeros((2, 3, 3, 3), dtype=np.float32)))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(4, 4, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        F.conv2d(x, fgrad.tensor(np.zeros((2, 3, 3, 3))), padding="full")
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(x, fgrad.tensor(np.zeros((3, 2, 3, 3))), output_padding=1)


def test_second_derivatives_match_torch():
    """The input gradient differentiates again (its rules are fgrad ops): the gradient of the squared
    gradient norm equals torch's double backward."""
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    fx, fw = fgrad.tensor(x, requires_grad=True), fgrad.tensor(w, requires_grad=True)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    (gf,) = fgrad.autograd.grad(F.max_pool2d(F.conv2d(fx, fw, stride=2, padding=1), 2).pow(3).sum(), [fx],
                                create_graph=True)
    (gt,) = torch.autograd.grad(TF.max_pool2d(TF.conv2d(tx, tw, stride=2, padding=1), 2).pow(3).sum(), [tx],
                                create_graph=True)
    (gf * gf).sum().backward()
    (gt * gt).sum().backward()
    np.testing.assert_allclose(fw.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-10)
