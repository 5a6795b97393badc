"""fgrad.nn.upsampling's interpolate and Upsample against torch 2.13: 'nearest', 'nearest-exact',
'linear', 'bilinear' and 'trilinear' (align_corners False and True), size= and scale_factor=
(integer, fractional, per-axis, recompute_scale_factor), up and down, 3-, 4- and 5-D input:
outputs and input gradients (float64 to 1e-10, float32 to 1e-5), dtypes kept; the Modules'
settings and repr; torch's errors for bad arguments."""
import numpy as np
import pytest

import fgrad
from fgrad.nn.upsampling import (
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
    interpolate,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)

from .torch_reference import compare

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]
IDS = ["float64", "float32"]
rng = np.random.default_rng(0)
SHAPES = {3: (2, 3, 5), 4: (2, 3, 4, 5), 5: (1, 2, 3, 4, 2)}
RESIZES = [
    {"size": 7}, {"size": 3}, {"size": 1}, {"scale_factor": 2}, {"scale_factor": 0.5}, {"scale_factor": 1.7},
    {"scale_factor": 3, "recompute_scale_factor": True}, {"scale_factor": 2.3, "recompute_scale_factor": True},
    {"scale_factor": 1.0}, {"size": 10}, {"scale_factor": 1 / 3},
]


def _per_axis(kw, dim):
    """size and scale_factor as tuples with a different value per axis (the first as given)."""
    out = dict(kw)
    if "size" in kw:
        out["size"] = tuple(kw["size"] + i for i in range(dim))
    else:
        out["scale_factor"] = tuple(kw["scale_factor"] * (1 + 0.25 * i) for i in range(dim))
    return out


def _torchs_backward_differs(x, kw):
    """torch 2.13's upsample_nearest1d/3d backward halves (or copies) the index where an output is
    twice (or once) the input's size, as the 4-D kernel does, while its forward samples at i /
    scale_factor: for such a scale_factor its gradient is not its forward's. fgrad's gradient is
    its forward's (which is torch's forward), so there the gradients are compared with a
    finite-difference-free check instead: the gradient of sum(out * c) scatters c by the forward's
    own indices."""
    if kw.get("mode") != "nearest" or x.ndim == 4 or "scale_factor" not in kw or kw.get("recompute_scale_factor"):
        return False
    scales = kw["scale_factor"] if isinstance(kw["scale_factor"], tuple) else (kw["scale_factor"],) * (x.ndim - 2)
    return any(int(n * s) in (n, 2 * n) and s != int(n * s) / n for n, s in zip(x.shape[2:], scales))


def _check(x, dtype, **kw):
    spatial = x.shape[2:]
    scales = kw.get("scale_factor")
    if scales is not None and kw.get("mode") != "area" and any(int(n * s) == 0 for n, s in
                                  zip(spatial, scales if isinstance(scales, tuple) else (scales,) * len(spatial))):
        for f, lib in ((interpolate, fgrad), (TF.interpolate, torch)):
            with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0"):
                f(lib.tensor(x), **kw)
        return
    if not _torchs_backward_differs(x, kw):
        empty = scales is not None and any(int(n * s) == 0 for n, s in zip(spatial, scales if isinstance(
            scales, tuple) else (scales,) * len(spatial)))  # (area: torch's backward refuses an empty output)
        compare(torch, lambda t: interpolate(t, **kw), lambda t: TF.interpolate(t, **kw), [x], dtype,
                differentiable=[not empty], what=str(kw))
        return
    x = x.astype(dtype)
    want = TF.interpolate(torch.tensor(x), **kw).numpy()
    t = fgrad.tensor(x, requires_grad=True)
    got = interpolate(t, **kw)
    np.testing.assert_array_equal(got.detach().numpy(), want)
    # the input's positions, gathered as the output samples them: the forward's indices
    where = interpolate(fgrad.tensor(np.arange(x.size, dtype=np.float64).reshape(x.shape)), **kw).numpy()
    c = rng.standard_normal(want.shape).astype(dtype)
    (got * fgrad.tensor(c)).sum().backward()
    expected = np.bincount(where.astype(np.int64).ravel(), weights=c.ravel().astype(np.float64), minlength=x.size)
    np.testing.assert_allclose(t.grad.numpy().ravel(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("resize", RESIZES, ids=lambda kw: "-".join(f"{k}={v:.3g}" for k, v in kw.items()))
@pytest.mark.parametrize("ndim", [3, 4, 5])
@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "linear-False", "linear-True", "area"])
def test_interpolate_matches_torch(mode, ndim, resize, dtype):
    _run(mode, ndim, resize, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("resize", RESIZES, ids=lambda kw: "-".join(f"{k}={v:.3g}" for k, v in kw.items()))
@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_matches_torch(align_corners, resize, dtype):
    _run(f"bicubic-{align_corners}", 4, resize, dtype)


def _run(mode, ndim, resize, dtype):
    kw = dict(resize)
    if mode.startswith(("linear", "bicubic")):
        kw["align_corners"] = mode.endswith("True")
        mode = {3: "linear", 4: "bilinear", 5: "trilinear"}[ndim] if mode.startswith("linear") else "bicubic"
    if mode == "area" and kw.get("recompute_scale_factor"):
        del kw["recompute_scale_factor"]  # (area recomputes it anyway)
    x = rng.standard_normal(SHAPES[ndim])
    _check(x, dtype, mode=mode, **kw)
    if ndim > 3:
        _check(x, dtype, mode=mode, **_per_axis(kw, ndim - 2))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@pytest.mark.parametrize("align_corners", [None, False, True])
def test_upsample_modules_match_torch(align_corners, dtype):
    x = rng.standard_normal((2, 3, 4, 6))
    for kw in ({"scale_factor": 2}, {"size": (5, 9)}, {"scale_factor": (1.5, 0.5)}):
        mode = "nearest" if align_corners is None else "bilinear"
        ours, theirs = Upsample(**kw, mode=mode, align_corners=align_corners), \
            torch.nn.Upsample(**kw, mode=mode, align_corners=align_corners)
        assert repr(ours) == repr(theirs) and ours.scale_factor == theirs.scale_factor
        compare(torch, ours, theirs, [x], dtype, what=f"Upsample {kw}")
        if "scale_factor" not in kw or not isinstance(kw["scale_factor"], tuple):
            compare(torch, UpsamplingNearest2d(**kw), torch.nn.UpsamplingNearest2d(**kw), [x], dtype, what="nearest2d")
            compare(torch, UpsamplingBilinear2d(**kw), torch.nn.UpsamplingBilinear2d(**kw), [x], dtype,
                    what="bilinear2d")


def test_dtypes_and_a_training_step():
    x = fgrad.tensor(np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3), requires_grad=True)
    y = interpolate(x, scale_factor=2, mode="bilinear")
    assert y.dtype == np.float32
    y.sum().backward()
    assert x.grad.dtype == np.float32 and np.allclose(x.grad.numpy(), 4.0)  # every input feeds 4 outputs' worth
    for shape in ((1, 2, 3), (1, 1, 2, 3), (1, 1, 1, 2, 3)):
        ints = np.arange(6, dtype=np.uint8).reshape(shape)
        got = interpolate(fgrad.tensor(ints), scale_factor=1.7)
        want = TF.interpolate(torch.tensor(ints), scale_factor=1.7)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.dtype == np.uint8
    model = fgrad.nn.Sequential(fgrad.nn.Conv2d(1, 2, 3, padding=1), Upsample(scale_factor=2, mode="nearest"))
    model(fgrad.randn(2, 1, 4, 4)).sum().backward()
    assert model[0].weight.grad is not None


def test_bad_arguments_raise_as_torch():
    x = fgrad.randn(1, 2, 4)
    x4 = fgrad.randn(1, 2, 4, 4)
    cases = [
        (dict(size=3, align_corners=True), ValueError, "align_corners option can only be set with the interpolating"),
        (dict(size=3, scale_factor=2), ValueError, "only one of size or scale_factor should be defined"),
        ({}, ValueError, "either size or scale_factor should be defined"),
        (dict(size=(3, 4)), ValueError, "Input and output must have the same number of spatial dimensions"),
        (dict(scale_factor=(2, 2)), ValueError, "Input and scale_factor must have the same number of spatial"),
        (dict(size=(3.0,)), TypeError, "expected size to be one of int or Tuple"),
        (dict(size=3, recompute_scale_factor=True), ValueError, "recompute_scale_factor is not meaningful"),
        (dict(size=3, mode="bilinear"), NotImplementedError, "Got 3D input, but bilinear mode needs 4D input"),
        (dict(size=3, mode="trilinear"), NotImplementedError, "Got 3D input, but trilinear mode needs 5D input"),
        (dict(size=3, mode="cubic"), NotImplementedError, r"Input Error: Only 3D, 4D and 5D input Tensors supported"),
        (dict(size=0), RuntimeError, r"Input and output sizes should be greater than 0, but got input \(W: 4\)"),
        (dict(scale_factor=0.1), RuntimeError, "Input and output sizes should be greater than 0"),
        (dict(size=3, mode="linear", antialias=True), ValueError, "Anti-alias option is restricted"),
    ]
    for kw, error, match in cases:
        with pytest.raises(error, match=match):
            TF.interpolate(torch.randn(1, 2, 4), **kw)
        with pytest.raises(error, match=match):
            interpolate(x, **kw)
    for kw, error, match in [(dict(size=3, mode="linear"), NotImplementedError, "Got 4D input, but linear mode"),
                             (dict(size=(3, 4), mode="bilinear", antialias=True), NotImplementedError,
                              "not supported by fgrad"),
                             (dict(size=(3, 4), mode="lanczos"), NotImplementedError, "not supported by fgrad")]:
        with pytest.raises(error, match=match):
            interpolate(x4, **kw)
    for lib, f in ((torch, TF.interpolate), (fgrad, interpolate)):
        with pytest.raises(NotImplementedError, match=r"Only 3D, 4D and 5D input Tensors supported \(got 3D\)"):
            f(lib.randn(1, 2, 4), size=3, mode="bicubic")
    with pytest.raises(NotImplementedError, match=r"Only 3D, 4D and 5D input Tensors supported \(got 2D\)"):
        interpolate(fgrad.randn(2, 4), size=3)
    with pytest.raises(NotImplementedError, match="\"compute_indices_weights_linear\" not implemented for 'Long'"):
        interpolate(fgrad.tensor(np.zeros((1, 1, 3), np.int64)), size=4, mode="linear")
    with pytest.raises(NotImplementedError, match="\"compute_indices_weights_nearest\" not implemented for 'Long'"):
        interpolate(fgrad.tensor(np.zeros((1, 1, 3), np.int64)), size=4)
    with pytest.raises(NotImplementedError, match="\"compute_indices_weights_linear\" not implemented for 'Long'"):
        TF.interpolate(torch.zeros((1, 1, 3), dtype=torch.int64), size=4, mode="linear")


def test_the_deprecated_functions_warn_and_match_torch():
    x = rng.standard_normal((2, 3, 4, 5))
    for ours, theirs, kw in ((upsample, TF.upsample, dict(scale_factor=2, mode="bilinear")),
                             (upsample, TF.upsample, dict(size=(3, 7))),
                             (upsample_nearest, TF.upsample_nearest, dict(scale_factor=1.5)),
                             (upsample_bilinear, TF.upsample_bilinear, dict(size=(6, 3)))):
        match = f"`nn.functional.{ours.__name__}` is deprecated. Use `nn.functional.interpolate` instead."
        with pytest.warns(UserWarning, match=match):
            got = ours(fgrad.tensor(x), **kw)
        with pytest.warns(UserWarning, match=match):
            want = theirs(torch.tensor(x), **kw)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("mode, kw", [("bilinear", {}), ("nearest", {}), ("bicubic", {"align_corners": True}),
                                      ("area", {})])
def test_on_arrays_under_grad_vmap_and_compile(mode, kw):
    x = rng.standard_normal((2, 3, 4, 5))

    def f(x):
        return (interpolate(x, scale_factor=1.5, mode=mode, **kw) ** 2).sum()
    tx = torch.tensor(x, requires_grad=True)
    (TF.interpolate(tx, scale_factor=1.5, mode=mode, **kw) ** 2).sum().backward()
    np.testing.assert_allclose(fgrad.grad(f)(x), tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(fgrad.compile(f)(x), f(x), rtol=1e-12)
    per = fgrad.vmap(lambda xi: interpolate(xi[None], size=(6, 7), mode=mode, **kw)[0])(x)
    np.testing.assert_allclose(per, TF.interpolate(torch.tensor(x), size=(6, 7), mode=mode, **kw).numpy(),
                               rtol=1e-10, atol=1e-10)
