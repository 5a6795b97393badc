"""fgrad.nn's further activations (softsign, tanhshrink, threshold, glu, hardswish, hardsigmoid,
celu, hardshrink, softshrink, rrelu) against torch 2.13: outputs and input
gradients (float64 to 1e-10, float32 to 1e-5) with the kinks in the input (±3, the thresholds,
±lambd, 0), the Modules' outputs and reprs, dtypes, and torch's errors for bad arguments."""
import numpy as np
import pytest

import fgrad
from fgrad import nn
from fgrad.nn import functional as F

from .torch_reference import compare, to_fgrad, to_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional
DTYPES = [np.float64, np.float32]
KINKS = [0.0, -3.0, 3.0, 0.5, -0.5, 0.3, -0.3, 1.0, -1.0, 25.0, -30.0, 2.0]


def _input(shape=(4, 6, 3), seed=0):
    x = np.random.default_rng(seed).standard_normal(shape) * 3
    x.flat[:len(KINKS)] = KINKS
    return x


CASES = [
    ("softsign", lambda m, x: m.softsign(x)),
    ("tanhshrink", lambda m, x: m.tanhshrink(x)),
    ("threshold", lambda m, x: m.threshold(x, 0.5, -2.0)),
    ("threshold at 1", lambda m, x: m.threshold(x, 1.0, 20.0)),
    ("glu", lambda m, x: m.glu(x, dim=1)),
    ("glu first axis", lambda m, x: m.glu(x, 0)),
    ("glu last axis", lambda m, x: m.glu(x[..., :2])),
    ("hardswish", lambda m, x: m.hardswish(x)),
    ("hardsigmoid", lambda m, x: m.hardsigmoid(x)),
    ("celu", lambda m, x: m.celu(x)),
    ("celu alpha", lambda m, x: m.celu(x, alpha=2.0)),
    ("celu small alpha", lambda m, x: m.celu(x, 0.3)),
    ("hardshrink", lambda m, x: m.hardshrink(x)),
    ("hardshrink lambd", lambda m, x: m.hardshrink(x, 0.3)),
    ("softshrink", lambda m, x: m.softshrink(x)),
    ("softshrink lambd", lambda m, x: m.softshrink(x, lambd=1.0)),
    ("softshrink zero", lambda m, x: m.softshrink(x, 0.0)),
    ("rrelu eval", lambda m, x: m.rrelu(x)),
    ("rrelu eval bounds", lambda m, x: m.rrelu(x, 0.1, 0.5, training=False)),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 6, 3), (2, 8), (6,)], ids=["3d", "2d", "1d"])
@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_functional_matches_torch(name, fn, shape, dtype):
    if name in ROUNDED_BY_TORCH and dtype == np.float64:
        pytest.skip("torch's float64 gradient rounds a constant to float32: test_exact_derivatives_where_torch_rounds")
    if name.startswith("glu") and len(shape) < 2 and "first" not in name:
        shape = (4, 6)
    compare(torch, lambda x: fn(F, x), lambda x: fn(TF, x), [_input(shape)], dtype, what=name)


# torch's backward of hardsigmoid multiplies by 1/6 rounded to float32, and celu's takes 1/alpha
# from alpha rounded to float32, in float64 too (off by ~3e-8 where alpha is not a float32 number);
# fgrad's derivatives are exact, checked against the closed forms and torch's to that rounding.
ROUNDED_BY_TORCH = {"hardsigmoid": lambda x: np.where(np.abs(x) < 3.0, 1.0 / 6.0, 0.0),
                    "celu small alpha": lambda x: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0.0) / 0.3))}


@pytest.mark.parametrize("name", sorted(ROUNDED_BY_TORCH))
def test_exact_derivatives_where_torch_rounds(name):
    fn = dict(CASES)[name]
    x = _input((4, 6, 3))
    f, t = to_fgrad(x, True), to_torch(torch, x, True)
    fn(F, f).sum().backward()
    fn(TF, t).sum().backward()
    np.testing.assert_allclose(f.grad.numpy(), ROUNDED_BY_TORCH[name](x), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-12)  # (torch's rounding)
    np.testing.assert_allclose(fn(F, f).detach().numpy(), fn(TF, t).detach().numpy(), rtol=1e-12, atol=1e-15)


MODULES = [
    ("Softsign", (), {}), ("Tanhshrink", (), {}), ("Threshold", (0.1, 20.0), {}),
    ("Threshold", (0.5, -1.0), {"inplace": True}), ("GLU", (), {}), ("GLU", (), {"dim": 1}),
    ("Hardswish", (), {}), ("Hardsigmoid", (), {}), ("CELU", (), {}), ("CELU", (0.5,), {}),
    ("Hardshrink", (), {}), ("Hardshrink", (0.3,), {}), ("Softshrink", (), {}), ("Softshrink", (1.0,), {}),
]


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[f"{m[0]}{m[1]}{m[2]}" for m in MODULES])
def test_modules_match_torch_and_print_as_torch(name, args, kwargs, dtype):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    if kwargs.get("inplace"):  # (a leaf cannot be written in place: compare the values)
        x = _input((4, 6)).astype(dtype)
        f, t = to_fgrad(x), to_torch(torch, x)
        assert ours(f) is f and theirs(t) is t
        np.testing.assert_allclose(f.numpy(), t.numpy(), rtol=1e-6)
        return
    if name == "Hardsigmoid" and dtype == np.float64:  # (torch rounds its 1/6: the function's test above)
        np.testing.assert_allclose(ours(to_fgrad(_input((4, 6)))).numpy(), theirs(to_torch(torch, _input((4, 6))))
                                   .detach().numpy(), rtol=1e-12, atol=1e-15)
        return
    compare(torch, ours, theirs, [_input((4, 6))], dtype, what=name)


def test_module_reprs_with_flags_as_torch():
    for ours, theirs in [(nn.Hardswish(True), torch.nn.Hardswish(True)),
                         (nn.Hardsigmoid(inplace=True), torch.nn.Hardsigmoid(inplace=True)),
                         (nn.CELU(0.5, True), torch.nn.CELU(0.5, True)),
                         (nn.RReLU(), torch.nn.RReLU()), (nn.RReLU(0.1, 0.3, True), torch.nn.RReLU(0.1, 0.3, True)),
                         (nn.Threshold(0.1, 20.0, True), torch.nn.Threshold(0.1, 20.0, True))]:
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
def test_rrelu_module_in_eval_mode_matches_torch(dtype):
    ours, theirs = nn.RReLU(0.1, 0.4).eval(), torch.nn.RReLU(0.1, 0.4).eval()
    compare(torch, ours, theirs, [_input()], dtype, what="RReLU eval")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float64", "float32"])
def test_rrelu_in_training_draws_slopes_as_torch(dtype):
    """Training mode: a slope in [lower, upper] per entry at and below 0 (fgrad's generator, so not
    torch's draws), the derivative that slope there and 1 above 0, as torch's."""
    x = _input((50, 40)).astype(dtype)
    fgrad.manual_seed(3)
    f = to_fgrad(x, True)
    y = nn.RReLU(0.1, 0.4)(f)  # (a Module is in training mode at first)
    y.sum().backward()
    assert y.dtype == dtype and f.grad.dtype == dtype
    y, g = y.detach().numpy(), f.grad.numpy()
    assert np.array_equal(y[x > 0], x[x > 0]) and np.all(g[x > 0] == 1)
    slopes = g[x <= 0]
    assert 0.1 <= slopes.min() and slopes.max() <= 0.4 and abs(slopes.mean() - 0.25) < 0.01
    np.testing.assert_allclose(y[x < 0], x[x < 0] * slopes[x[x <= 0] < 0], rtol=1e-6)
    t = to_torch(torch, x, True)
    torch.nn.RReLU(0.1, 0.4)(t).sum().backward()  # torch's slopes: the same law
    assert abs(t.grad.numpy()[x <= 0].mean() - slopes.mean()) < 0.02
    fgrad.manual_seed(3)
    again = F.rrelu(to_fgrad(x), 0.1, 0.4, training=True).numpy()
    np.testing.assert_array_equal(again, y)  # fgrad.manual_seed repeats the draws
    for lower, upper in [(0.5, 0.1)]:
        for m in (F, TF):
            with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
                m.rrelu((to_fgrad if m is F else lambda a: to_torch(torch, a))(x), lower, upper, training=True)


@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "threshold", "celu"])
def test_inplace_writes_the_input_as_torch(name):
    args = (0.5, -2.0) if name == "threshold" else ()
    x = _input()
    f, t = to_fgrad(x), to_torch(torch, x)
    assert getattr(F, name)(f, *args, inplace=True) is f
    getattr(TF, name)(t, *args, inplace=True)
    np.testing.assert_allclose(f.numpy(), t.numpy(), rtol=1e-12, atol=1e-15)


def test_dtypes_as_torch():
    x32 = _input().astype(np.float32)
    for name in ["softsign", "tanhshrink", "hardswish", "hardsigmoid", "celu", "hardshrink", "softshrink", "rrelu"]:
        assert getattr(F, name)(to_fgrad(x32)).dtype == np.float32, name
    assert F.glu(to_fgrad(x32), dim=1).dtype == F.celu(to_fgrad(x32), 0.3).dtype == np.float32
    assert F.threshold(to_fgrad(x32), 0.5, 2.0).dtype == np.float32
    ints = np.arange(-2, 4)
    got, want = F.threshold(to_fgrad(ints), 1.5, 5.5), TF.threshold(to_torch(torch, ints), 1.5, 5.5)
    assert got.dtype == np.int64 and got.numpy().tolist() == want.tolist()  # value cast to the input's dtype
    # integer inputs promote to the default float dtype (torch's float32, fgrad's float64): the values agree
    for name in ["softsign", "tanhshrink"]:
        got, want = getattr(F, name)(to_fgrad(ints)), getattr(TF, name)(to_torch(torch, ints))
        assert got.dtype.kind == "f"
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_functions_take_plain_arrays():
    x = _input()
    for name in ["softsign", "tanhshrink", "hardswish", "hardsigmoid", "celu", "hardshrink", "softshrink"]:
        got = getattr(F, name)(x)
        assert isinstance(got, np.ndarray), name
        np.testing.assert_allclose(got, getattr(TF, name)(to_torch(torch, x)).numpy(), rtol=1e-12, atol=1e-15)


def test_bad_arguments_raise_as_torch():
    x = to_fgrad(_input((2, 3)))
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        F.glu(x)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        nn.GLU(dim=-1)(x)
    with pytest.raises(RuntimeError, match="glu does not support scalars because halving size must be even"):
        F.glu(to_fgrad(np.array(1.0)))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.glu(x, dim=2)
    with pytest.raises(RuntimeError, match="ZeroDivisionError: alpha cannot be 0 for CELU"):
        F.celu(x, alpha=0.0)
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 1.79769e\+308\] for input dtype Double, "
                                           r"but found -1"):
        F.softshrink(x, -1.0)
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float, "
                                           r"but found -0.5"):
        F.softshrink(to_fgrad(_input((2, 3)).astype(np.float32)), -0.5)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        TF.glu(to_torch(torch, _input((2, 3))))  # (torch's own message, the one matched above)
    # a negative lambd is allowed for hardshrink, as torch's: nothing is zeroed
    np.testing.assert_array_equal(F.hardshrink(x, -0.5).numpy(), TF.hardshrink(to_torch(torch, _input((2, 3))),
                                                                             -0.5).numpy())


@pytest.mark.parametrize("name", ["softsign", "tanhshrink", "celu", "glu"])
def test_second_derivatives_as_torch(name):
    from fgrad.func import hessian
    x = _input((6,), seed=2)
    f = getattr(F, name)
    tf = getattr(TF, name)
    want = torch.autograd.functional.hessian(lambda u: (tf(u) ** 2).sum(), to_torch(torch, x))
    np.testing.assert_allclose(np.asarray(hessian(lambda u: (f(u) ** 2).sum())(x)), want.numpy(), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("name,args", [("threshold", (0.5, 0.0)), ("hardswish", ()), ("hardsigmoid", ()),
                                       ("celu", ()), ("hardshrink", ()), ("softshrink", ()), ("rrelu", ())])
def test_complex_input_raises_rather_than_ordering_complex_numbers(name, args):
    """These compare the input with thresholds; NumPy orders complex numbers by their real part
    first, so a complex input gave a number (hardshrink kept -4+5j whole) where torch raises."""
    x = fgrad.tensor(np.array([-4 + 5j, 1 + 0j, 2 - 1j]))
    with pytest.raises(TypeError, match="complex inputs are not supported"):
        getattr(fgrad.nn.functional, name)(x, *args)


@pytest.mark.parametrize("dtype,value", [(np.uint8, -1), (np.uint8, -255), (np.uint8, -256), (np.uint8, 300),
                                         (np.uint8, 255.5), (np.uint8, -0.5), (np.uint8, 2.7), (np.int8, 200.0),
                                         (np.int32, 2 ** 31), (np.int64, float("inf"))])
def test_threshold_value_outside_an_integer_dtype_raises_as_torch(dtype, value):
    """threshold's value was cast with int() and wrapped around (uint8 with 300 gave 44) where torch
    raises; an integer value down to -max still wraps for an unsigned dtype, as torch's."""
    x = np.array([0, 5, 100], dtype=dtype)
    try:
        want = torch.nn.functional.threshold(torch.tensor(x), 3, value).numpy()
    except RuntimeError as e:
        assert "without overflow" in str(e)
        with pytest.raises(RuntimeError, match="without overflow"):
            F.threshold(fgrad.tensor(x), 3, value)
        return
    got = F.threshold(fgrad.tensor(x), 3, value)
    assert got.dtype == dtype and np.array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
def test_rrelu_in_training_refuses_integer_input_as_torch(dtype):
    """The random slopes were cast to the input's integer dtype, truncating them to 0: rrelu of
    [-4, 2] in training gave [0, 2]. torch raises; so does fgrad now."""
    x = np.array([-4, 2], dtype=dtype)
    with pytest.raises(NotImplementedError, match="rrelu_with_noise_out_cpu"):
        TF.rrelu(torch.tensor(x), training=True)
    with pytest.raises(NotImplementedError, match="rrelu_with_noise_out_cpu\" not implemented for '"):
        F.rrelu(fgrad.tensor(x), training=True)
