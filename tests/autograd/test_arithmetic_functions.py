"""torch's arithmetic by name (fgrad.add, sub/subtract, rsub, mul/multiply, div/divide with
rounding_mode, true_divide, floor_divide), their Tensor methods and in-place twins: values,
dtypes, errors and gradients against torch."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

DTYPES = ["int8", "int64", "float32", "float64"]


@pytest.fixture(autouse=True)
def _torch_default_float64():
    """fgrad's default float dtype is NumPy's (float64): torch's is set to it, for integer true division."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)
VALUES = [7, -7, 9, -3]


def _pair(name, values=VALUES, requires_grad=False):
    f = fgrad.tensor(values, dtype=getattr(fgrad, name))
    t = torch.tensor(values, dtype=getattr(torch, name))
    if requires_grad:
        f.requires_grad_(True)
        t.requires_grad_(True)
    return f, t


def _same(got, want, what):
    assert isinstance(got, fgrad.Tensor), what
    assert str(got.dtype) == str(want.dtype).removeprefix("torch."), what
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy(), err_msg=what)


def _compare(f_fn, t_fn, what):
    try:
        want = t_fn()
    except Exception as e:  # (torch's error type is the answer)
        with pytest.raises(type(e)):
            f_fn()
        return
    _same(f_fn(), want, what)


CALLS = {  # name: (keywords...) tried with each
    "add": [{}, {"alpha": 3}, {"alpha": 1.5}, {"alpha": 2j}, {"alpha": 300}],
    "sub": [{}, {"alpha": -2}, {"alpha": 0.5}],
    "subtract": [{"alpha": 2}],
    "mul": [{}], "multiply": [{}],
    "div": [{}, {"rounding_mode": None}, {"rounding_mode": "trunc"}, {"rounding_mode": "floor"},
            {"rounding_mode": "round"}],
    "divide": [{"rounding_mode": "trunc"}],
    "true_divide": [{}], "floor_divide": [{}],
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", DTYPES + ["int", "float", "zero_dim"])
def test_functions_methods_and_in_place_as_torch(name, left, right):
    fa, ta = _pair(left)
    numbers = {"int": (2, 2), "float": (2.5, 2.5), "zero_dim": (fgrad.tensor(-2), torch.tensor(-2))}
    fb, tb = numbers[right] if right in numbers else _pair(right, [2, 3, -2, 4])
    for kw in CALLS[name]:
        what = f"{name}({left}, {right}, {kw})"
        _compare(lambda: getattr(fgrad, name)(fa, fb, **kw), lambda: getattr(torch, name)(ta, tb, **kw), what)
        _compare(lambda: getattr(fa, name)(fb, **kw), lambda: getattr(ta, name)(tb, **kw), "method " + what)
        fs, ts = fa.clone(), ta.clone()
        _compare(lambda: getattr(fs, name + "_")(fb, **kw), lambda: getattr(ts, name + "_")(tb, **kw), "_ " + what)


def test_numbers_on_the_left_and_rsub():
    f, t = _pair("float32")
    _compare(lambda: fgrad.add(2, f, alpha=3), lambda: torch.add(2, t, alpha=3), "add(2, t)")
    _compare(lambda: fgrad.add(2, 3), lambda: torch.add(2, 3), "add(2, 3)")
    _compare(lambda: fgrad.div(7, fgrad.tensor([2, -2]), rounding_mode="trunc"),
             lambda: torch.div(7, torch.tensor([2, -2]), rounding_mode="trunc"), "div(7, t, trunc)")
    for other in (2.0, torch.tensor([1.0, 2.0, 3.0, 4.0])):
        fo = fgrad.tensor(other.numpy()) if isinstance(other, torch.Tensor) else other
        _compare(lambda: fgrad.rsub(f, fo, alpha=3), lambda: torch.rsub(t, other, alpha=3), "rsub")
    with pytest.raises(TypeError, match=r"fgrad.rsub\(\): argument 'input' must be Tensor"):
        fgrad.rsub(2.0, f)


def test_out_is_refused_clearly():
    f = fgrad.tensor([1.0])
    for name in ("add", "sub", "mul", "div", "true_divide", "floor_divide"):
        with pytest.raises(TypeError, match=rf"fgrad.{name}: out= is not supported"):
            getattr(fgrad, name)(f, f, out=f)


@pytest.mark.parametrize("call", [
    lambda m, a, b: m.add(a, b, alpha=3), lambda m, a, b: m.sub(a, b, alpha=-2), lambda m, a, b: m.rsub(a, b, alpha=2),
    lambda m, a, b: m.mul(a, b), lambda m, a, b: m.div(a, b), lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
    lambda m, a, b: m.div(a, b, rounding_mode="floor"), lambda m, a, b: a.add(b, alpha=0.5)])
def test_gradients_as_torch(call):
    """alpha scales other's gradient; a rounding mode gives zero gradients (recorded, as torch's)."""
    fa, ta = _pair("float64", [7.0, -7.5, 3.0], requires_grad=True)
    fb, tb = _pair("float64", [2.0, 3.0, -4.0], requires_grad=True)
    call(fgrad, fa, fb).sum().backward()
    call(torch, ta, tb).sum().backward()
    for g, w in ((fa.grad, ta.grad), (fb.grad, tb.grad)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-15, atol=0)


def test_floor_division_of_floats_is_torch_bit_for_bit():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=200) * 10, rng.normal(size=200)
    b[:3] = [0.1, -0.1, 0.0]
    a[:3] = [1.0, 1.0, 1.0]
    for mode in ("floor", "trunc"):
        got = fgrad.div(fgrad.tensor(a), fgrad.tensor(b), rounding_mode=mode).numpy()
        want = torch.div(torch.tensor(a), torch.tensor(b), rounding_mode=mode).numpy()
        np.testing.assert_array_equal(got, want)


ZERO_DIVISIONS = {
    "a // 0": lambda m, a, z: a // 0, "a // z": lambda m, a, z: a // z, "a % 0": lambda m, a, z: a % 0,
    "a % z": lambda m, a, z: a % z, "7 // z": lambda m, a, z: 7 // z, "7 % z": lambda m, a, z: 7 % z,
    "floor_divide": lambda m, a, z: m.floor_divide(a, z),
    "div floor": lambda m, a, z: m.div(a, z, rounding_mode="floor"),
    "div trunc": lambda m, a, z: m.div(a, z, rounding_mode="trunc"), "a.fmod(0)": lambda m, a, z: a.fmod(0),
    "a.remainder(z)": lambda m, a, z: a.remainder(z), "fmod(a, z)": lambda m, a, z: m.fmod(a, z),
    "remainder(a, 0)": lambda m, a, z: m.remainder(a, 0), "a.fmod_(z)": lambda m, a, z: a.clone().fmod_(z),
    "a //= 0": lambda m, a, z: a.clone().__ifloordiv__(0),
    "uint8 // 0": lambda m, a, z: a.to(m.uint8) // 0, "int8 // 256": lambda m, a, z: a.to(m.int8) // 256,
    "a // 2": lambda m, a, z: a // 2, "a % (z + 1)": lambda m, a, z: a % (z + 1),
}


@pytest.mark.parametrize("case", sorted(ZERO_DIVISIONS))
def test_an_integer_zero_divisor_raises_as_torch(case):
    """torch's integer // and % (and fmod, remainder, div's rounding modes) raise RuntimeError
    ZeroDivisionError on a zero divisor, where NumPy's kernels give 0 with a warning."""
    fn = ZERO_DIVISIONS[case]
    try:
        want, error = fn(torch, torch.tensor([5, -3]), torch.tensor([1, 0])), None
    except RuntimeError as e:
        want, error = None, e
    if error is not None:
        assert "ZeroDivisionError" in str(error)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(fgrad, fgrad.tensor([5, -3]), fgrad.tensor([1, 0]))
    else:
        np.testing.assert_array_equal(fn(fgrad, fgrad.tensor([5, -3]), fgrad.tensor([1, 0])).numpy(), want.numpy())


def test_an_integer_zero_divisor_in_an_ndarray_raises_too():
    """torch hands tensor // ndarray to NumPy (0 and a warning); fgrad's Tensor takes the ndarray as
    it takes a tensor, so the same zero divisor raises the same error."""
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fgrad.tensor([5, -3]) // np.array([1, 0])


@pytest.mark.parametrize("name", ["fmod", "remainder"])
@pytest.mark.parametrize("other", [2.0, -2.0, "tensor"])
def test_fmod_and_remainder_functions_as_torch(name, other):
    """fgrad.fmod and fgrad.remainder (functions, methods, in place): torch's values and gradients."""
    values = [-3.5, -1.0, 0.5, 3.0]
    results = []
    for m in (fgrad, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        y = m.tensor([2.0, -1.5, 0.75, -2.5], dtype=m.float64, requires_grad=True) if other == "tensor" else other
        out = getattr(m, name)(x, y)
        (out * m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64)).sum().backward()
        inplace = getattr(m.tensor(values, dtype=m.float64), f"{name}_")(y.detach() if other == "tensor" else y)
        method = getattr(x.detach(), name)(y).detach()
        results.append([out.detach().numpy(), x.grad.numpy(), inplace.numpy(), method.numpy()]
                       + ([y.grad.numpy()] if other == "tensor" else []))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
