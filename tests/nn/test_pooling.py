"""fgrad.nn's pools against torch 2.13: F.max_pool1d/2d (with return_indices), avg_pool2d,
adaptive_avg_pool2d and their Modules give torch's outputs, indices and gradients."""
import numpy as np
import pytest

import fgrad
import fgrad.nn.functional as F
from fgrad import nn

from .parity import module_parity, run_both

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]

MAX2D = [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
         {"kernel_size": (2, 3), "stride": (2, 1), "padding": (1, 0), "dilation": (2, 1)},
         {"kernel_size": 3, "stride": 2, "ceil_mode": True}, {"kernel_size": (3, 2), "stride": 1, "padding": (1, 1)}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", MAX2D)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 8)])
def test_max_pool2d_matches_torch(kw, shape, dtype):
    x = np.random.default_rng(0).standard_normal(shape)
    run_both(lambda a: F.max_pool2d(a, **kw), lambda a: TF.max_pool2d(a, **kw), [x], dtype)
    _, idx = F.max_pool2d(fgrad.tensor(x.astype(dtype)), return_indices=True, **kw)
    _, tidx = TF.max_pool2d(torch.tensor(x.astype(dtype)), return_indices=True, **kw)
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    assert idx.dtype == fgrad.int64


def test_max_pool_gradient_goes_to_the_first_maximum_as_torch():
    x = np.array([[[[1.0, 1.0, 0.0], [1.0, 0.5, 1.0], [0.0, 1.0, 1.0]]]])  # ties in every window
    kw = {"kernel_size": 2, "stride": 1}
    run_both(lambda a: F.max_pool2d(a, **kw), lambda a: TF.max_pool2d(a, **kw), [x], np.float64)
    run_both(lambda a: F.max_pool2d(a, **kw), lambda a: TF.max_pool2d(a, **kw), [np.zeros((1, 1, 3, 3))], np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
                                {"kernel_size": 2, "stride": 1, "padding": 1, "dilation": 2}])
def test_max_pool1d_matches_torch(kw, dtype):
    x = np.random.default_rng(1).standard_normal((2, 3, 9))
    run_both(lambda a: F.max_pool1d(a, **kw), lambda a: TF.max_pool1d(a, **kw), [x], dtype)
    _, idx = F.max_pool1d(fgrad.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(idx.numpy(), TF.max_pool1d(torch.tensor(x), return_indices=True, **kw)[1].numpy())


AVG2D = [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
         {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
         {"kernel_size": (3, 2), "stride": (2, 3), "padding": (1, 1), "count_include_pad": False},
         {"kernel_size": 2, "stride": 1, "padding": 1, "divisor_override": 3}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", AVG2D)
def test_avg_pool2d_matches_torch(kw, dtype):
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 6))
    run_both(lambda a: F.avg_pool2d(a, **kw), lambda a: TF.avg_pool2d(a, **kw), [x], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size", [1, (3, 4), (5, None), (7, 6), 4])
def test_adaptive_avg_pool2d_matches_torch(size, dtype):
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 6))
    run_both(lambda a: F.adaptive_avg_pool2d(a, size), lambda a: TF.adaptive_avg_pool2d(a, size), [x], dtype)
    run_both(lambda a: F.adaptive_avg_pool2d(a, size), lambda a: TF.adaptive_avg_pool2d(a, size), [x[0]], dtype)


@pytest.mark.parametrize("make", [lambda m: m.MaxPool2d(2), lambda m: m.MaxPool2d(3, 2, 1, ceil_mode=True),
                                  lambda m: m.MaxPool1d(3, 1, 1), lambda m: m.AvgPool2d(3, 2, 1),
                                  lambda m: m.AvgPool2d(2, ceil_mode=True, count_include_pad=False),
                                  lambda m: m.AdaptiveAvgPool2d((2, 3))])
def test_modules_match_torch(make):
    shape = (2, 3, 7) if isinstance(make(nn), nn.MaxPool1d) else (2, 3, 7, 6)
    module_parity(make(nn), make(torch.nn), [np.random.default_rng(4).standard_normal(shape)], np.float64)
    assert make(nn).extra_repr().split(", ")[0] == make(torch.nn).extra_repr().split(", ")[0]


def test_max_pool_module_returns_indices():
    x = np.random.default_rng(5).standard_normal((1, 2, 4, 4))
    _, idx = nn.MaxPool2d(2, return_indices=True)(fgrad.tensor(x))
    np.testing.assert_array_equal(idx.numpy(), torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))[1].numpy())


def test_errors_name_what_is_wrong():
    x = fgrad.tensor(np.zeros((1, 1, 4, 4)))
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        F.max_pool2d(fgrad.tensor(np.zeros((4, 4))), 2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.avg_pool2d(x, 5)
    with pytest.raises(RuntimeError, match="adaptive_avg_pool2d"):
        F.adaptive_avg_pool2d(fgrad.tensor(np.zeros(4)), 2)
