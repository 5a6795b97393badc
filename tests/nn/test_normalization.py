"""fgrad.nn's normalizations against torch 2.13: F.batch_norm, layer_norm, group_norm, rms_norm and
BatchNorm1d/2d, LayerNorm, GroupNorm, RMSNorm give torch's outputs and gradients; BatchNorm's
running statistics after several training steps, and its eval outputs, are torch's."""
import numpy as np
import pytest

import fgrad
import fgrad.nn.functional as F
from fgrad import nn

from .parity import close, copy_parameters, module_parity, run_both

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,shape", [
    (lambda m: m.BatchNorm1d(3), (5, 3)), (lambda m: m.BatchNorm1d(3, affine=False), (4, 3, 6)),
    (lambda m: m.BatchNorm2d(2), (3, 2, 4, 5)), (lambda m: m.BatchNorm2d(2, track_running_stats=False), (3, 2, 2, 2)),
    (lambda m: m.LayerNorm(4), (3, 4)), (lambda m: m.LayerNorm((3, 4), bias=False), (2, 3, 4)),
    (lambda m: m.LayerNorm((2, 3), elementwise_affine=False, eps=1e-3), (4, 2, 3)),
    (lambda m: m.GroupNorm(2, 4), (3, 4, 5)), (lambda m: m.GroupNorm(3, 6, affine=False), (2, 6, 2, 2)),
    (lambda m: m.RMSNorm(4), (3, 4)), (lambda m: m.RMSNorm((2, 4), eps=1e-4), (3, 2, 4)),
])
def test_modules_match_torch(make, shape, dtype):
    rng = np.random.default_rng(0)
    f, t = make(nn), make(torch.nn)
    for p in f.parameters():  # not all ones and zeros, so a wrong scale or shift shows
        p.data = fgrad.tensor(rng.uniform(0.5, 1.5, tuple(p.shape)))
    module_parity(f, t, [rng.standard_normal(shape) * 2.0 + 1.0], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
@pytest.mark.parametrize("make,shape", [(lambda m, mo: m.BatchNorm2d(3, momentum=mo), (4, 3, 3, 2)),
                                        (lambda m, mo: m.BatchNorm1d(3, momentum=mo), (6, 3))])
def test_batch_norm_running_stats_and_eval_match_torch(make, shape, momentum, dtype):
    rng = np.random.default_rng(1)
    f, t = make(nn, momentum), make(torch.nn, momentum)
    f.to(getattr(fgrad, np.dtype(dtype).name))
    t.to(getattr(torch, np.dtype(dtype).name))
    copy_parameters(f, t)
    for step in range(4):
        x = (rng.standard_normal(shape) * (1 + step) + step).astype(dtype)
        close(f(fgrad.tensor(x)), t(torch.tensor(x)), dtype, f"training output, step {step}")
    fs, ts = f.state_dict(), t.state_dict()
    assert list(fs) == list(ts)
    for name in ts:
        close(fs[name], ts[name], dtype if name != "num_batches_tracked" else np.int64, name)
    f.eval()
    t.eval()
    x = rng.standard_normal(shape).astype(dtype)
    run_both(f, t, [x], dtype)


def test_functional_batch_norm_matches_torch():
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((4, 3, 5)), rng.uniform(0.5, 2, 3), rng.standard_normal(3)
    mean, var = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    run_both(lambda *a: F.batch_norm(a[0], fgrad.tensor(mean), fgrad.tensor(var), a[1], a[2], False, 0.1, 1e-3),
             lambda *a: TF.batch_norm(a[0], torch.tensor(mean), torch.tensor(var), a[1], a[2], False, 0.1, 1e-3),
             [x, w, b], np.float64)
    fm, fv, tm, tv = fgrad.tensor(mean), fgrad.tensor(var), torch.tensor(mean), torch.tensor(var)
    run_both(lambda *a: F.batch_norm(a[0], fm, fv, a[1], a[2], True, 0.2),
             lambda *a: TF.batch_norm(a[0], tm, tv, a[1], a[2], True, 0.2), [x, w, b], np.float64)
    close(fm, tm, np.float64, "running_mean")
    close(fv, tv, np.float64, "running_var (unbiased)")


@pytest.mark.parametrize("dtype", DTYPES)
def test_functional_norms_match_torch(dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 3))
    w, b = rng.uniform(0.5, 2, (4, 3)), rng.standard_normal((4, 3))
    run_both(lambda *a: F.layer_norm(a[0], (4, 3), a[1], a[2]), lambda *a: TF.layer_norm(a[0], (4, 3), a[1], a[2]),
             [x, w, b], dtype)
    run_both(lambda *a: F.group_norm(a[0], 2, a[1], a[2]), lambda *a: TF.group_norm(a[0], 2, a[1], a[2]),
             [x, w[:, 0], b[:, 0]], dtype)
    run_both(lambda *a: F.rms_norm(a[0], (3,), a[1]), lambda *a: TF.rms_norm(a[0], (3,), a[1]), [x, w[0]], dtype)


def test_errors_name_what_is_wrong():
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(2)(fgrad.tensor(np.zeros((2, 2, 3))))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(2)(fgrad.tensor(np.zeros((1, 2))))
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\]"):
        nn.LayerNorm(4)(fgrad.tensor(np.zeros((2, 3))))
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(3, 4)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(fgrad.tensor(np.zeros((2, 4, 3))), 3)


def test_buffers_are_saved_and_moved():
    bn = nn.BatchNorm2d(3)
    assert [n for n, _ in bn.named_buffers()] == ["running_mean", "running_var", "num_batches_tracked"]
    assert list(bn.state_dict()) == list(torch.nn.BatchNorm2d(3).state_dict())
    bn.float()
    assert bn.running_mean.dtype == fgrad.float32 and bn.num_batches_tracked.dtype == fgrad.int64
    bn(fgrad.tensor(np.ones((2, 3, 2, 2), dtype=np.float32)))
    bn.reset_running_stats()
    assert int(bn.num_batches_tracked.item()) == 0 and float(bn.running_var.sum().item()) == 3.0
