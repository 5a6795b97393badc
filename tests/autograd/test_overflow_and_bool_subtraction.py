"""Edges of the Tensor face against torch (issue 31): a Python int out of an integer tensor's range
where torch checks it (a tensor ** int, pow, clamp and its bounds, where, fill_, setitem,
masked_fill, full, full_like: RuntimeError, where NumPy's OverflowError surfaced; an unsigned
dtype takes -max..-1 wrapped, as torch's c10::overflows), an int ** tensor wrapping its base
as torch's, an integer tensor ** a negative int refused, and subtraction or negation with a bool
tensor refused (operators, reflected, in place, fgrad.sub/subtract/rsub, the methods)."""
import operator

import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _torchs_default_dtype():
    """float32, torch's default, so that an integer tensor ** 2.5 (or 1.5 - int) is of torch's dtype."""
    fgrad.set_default_dtype(fgrad.float32)
    yield
    fgrad.set_default_dtype(fgrad.float64)


def _pair(name, values):
    if name == "bool":
        values = [bool(v % 2) for v in values]
    return fgrad.tensor(values, dtype=getattr(fgrad, name)), torch.tensor(values, dtype=getattr(torch, name))


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # (torch's error type, and its message, are the answer)
        return None, e


def _compare(f_fn, t_fn, what):
    want, t_error = _outcome(t_fn)
    if t_error is not None:
        with pytest.raises(type(t_error)) as info:
            f_fn()
        return info.value
    got = f_fn()
    assert isinstance(got, fgrad.Tensor), what
    assert str(got.dtype) == str(want.dtype).removeprefix("torch."), what
    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=what)
    return None


def _setitem(x, value):
    x[0] = value
    return x


def _isub(x, other):
    x -= other
    return x


def _ipow(x, other):
    x **= other
    return x


NUMBERS = [300, -300, 255, 256, -1, -255, -256, 127, 128, -128, -129, 70000, 2 ** 63, 2 ** 70, -2 ** 70, 2, 0]

CALLS = {  # (name: call(module, tensor, number))
    "t ** n": lambda m, t, n: t ** n,
    "n ** t": lambda m, t, n: n ** t,
    "pow(t, n)": lambda m, t, n: m.pow(t, n),
    "pow(n, t)": lambda m, t, n: m.pow(n, t),
    "t.pow(n)": lambda m, t, n: t.pow(n),
    "t.pow_(n)": lambda m, t, n: t.clone().pow_(n),
    "t **= n": lambda m, t, n: _ipow(t.clone(), n),
    "clamp(max=n)": lambda m, t, n: m.clamp(t, max=n),
    "clamp(min=n)": lambda m, t, n: m.clamp(t, min=n),
    "clamp(n, n)": lambda m, t, n: m.clamp(t, n, n),
    "t.clamp(max=n)": lambda m, t, n: t.clamp(max=n),
    "t.clip(min=n)": lambda m, t, n: t.clip(min=n),
    "t.clamp_(max=n)": lambda m, t, n: t.clone().clamp_(max=n),
    "where(c, t, n)": lambda m, t, n: m.where(t > 1, t, n),
    "t.fill_(n)": lambda m, t, n: t.clone().fill_(n),
    "t[0] = n": lambda m, t, n: _setitem(t.clone(), n),
    "masked_fill": lambda m, t, n: m.masked_fill(t, t > 1, n),
    "full_like": lambda m, t, n: m.full_like(t, n),
    "full": lambda m, t, n: m.full((2,), n, dtype=t.dtype),
}


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int64"])
@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_python_int_meets_an_integer_tensor_as_torch(call, dtype, number):
    """Values and dtypes where torch computes (wrapped where torch wraps: 300 ** int8, clamp(uint8,
    min=-1)), torch's exception type where it raises (fgrad.int8 ** 300 raised OverflowError)."""
    f, t = _pair(dtype, [1, 2, 3])
    if call == "t[0] = n" and not -2 ** 63 <= number < 2 ** 63:
        pytest.skip("torch's setitem raises ValueError (Overflow when unpacking long long), fgrad OverflowError")
    if call == "full" and dtype == "int64" and number == 2 ** 63:
        pytest.skip("torch.full reads 2**63 as a uint64 fill for an int64 tensor: an OverflowError here, a "
                    "RuntimeError there")
    err = _compare(lambda: CALLS[call](fgrad, f, number), lambda: CALLS[call](torch, t, number),
                   f"{call} {dtype} {number}")
    if isinstance(err, RuntimeError) and "overflow" in str(err):
        assert f"fgrad.{dtype}" in str(err)  # (torch's dtype name, as the Tensor face writes it)


def test_the_issues_cases_raise_runtime_error():
    x = fgrad.tensor([1, 2], dtype=fgrad.int8)
    with pytest.raises(RuntimeError, match=r"value cannot be converted to type fgrad\.int8 without overflow"):
        x ** 300
    with pytest.raises(RuntimeError, match=r"value cannot be converted to type fgrad\.int8 without overflow"):
        fgrad.clamp(x, max=300)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        x ** -1
    assert (300 ** x).tolist() == [44, -112]  # (torch's: the base wraps into int8)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int64"])
@pytest.mark.parametrize("exponent", [-1, -300, 0, 1, -1.0, 2.5])
def test_a_negative_int_power_of_an_integer_tensor_as_torch(dtype, exponent):
    f, t = _pair(dtype, [1, 2, 3])
    for call in ("t ** n", "pow(t, n)", "t.pow_(n)"):
        if call == "t.pow_(n)" and isinstance(exponent, float):
            continue  # (a float result into an integer tensor: refused by both, tested elsewhere)
        _compare(lambda: CALLS[call](fgrad, f, exponent), lambda: CALLS[call](torch, t, exponent),
                 f"{call} {dtype} {exponent}")


SUBTRACTIONS = {
    "a - b": operator.sub,
    "sub": lambda a, b: (fgrad if isinstance(a, fgrad.Tensor) or isinstance(b, fgrad.Tensor) else torch).sub(a, b),
    "subtract": lambda a, b: (fgrad if isinstance(a, fgrad.Tensor) or isinstance(b, fgrad.Tensor)
                              else torch).subtract(a, b),
    "sub alpha=2": lambda a, b: (fgrad if isinstance(a, fgrad.Tensor) or isinstance(b, fgrad.Tensor)
                                 else torch).sub(a, b, alpha=2),
    "a.sub(b)": lambda a, b: a.sub(b),
    "a.sub_(b)": lambda a, b: a.clone().sub_(b),
    "a -= b": lambda a, b: _isub(a.clone(), b),
    "rsub": lambda a, b: (fgrad if isinstance(a, fgrad.Tensor) else torch).rsub(a, b),
}
OPERANDS = ["bool", "int64", "float32", "bool_0d", "True", "1", "1.5"]


def _operand(name):
    if name in ("True", "1", "1.5"):
        return (eval(name),) * 2
    if name == "bool_0d":
        return fgrad.tensor(True), torch.tensor(True)
    return _pair(name, [1, 2, 3])


@pytest.mark.parametrize("left", OPERANDS[:4])
@pytest.mark.parametrize("right", OPERANDS)
@pytest.mark.parametrize("call", sorted(SUBTRACTIONS))
def test_subtraction_with_a_bool_tensor_is_refused_as_torch(call, left, right):
    """torch refuses `-` with a bool tensor or a Python bool operand (RuntimeError, its message); other
    operands as before. fgrad had computed bool - int (and raised NumPy's TypeError for bool - bool)."""
    (fa, ta), (fb, tb) = _operand(left), _operand(right)
    fn = SUBTRACTIONS[call]
    err = _compare(lambda: fn(fa, fb), lambda: fn(ta, tb), f"{left} {call} {right}")
    t_err = _outcome(lambda: fn(ta, tb))[1]
    if "Subtraction" in str(t_err):  # (torch's message, word for word)
        assert str(err) == str(t_err)
    if call == "a - b" and right in ("True", "1", "1.5"):  # (the reflected operator)
        err = _compare(lambda: fb - fa, lambda: tb - ta, f"{right} - {left}")
        t_err = _outcome(lambda: tb - ta)[1]
        if "Subtraction" in str(t_err):
            assert str(err) == str(t_err)


@pytest.mark.parametrize("call", ["-t", "t.neg()", "t.neg_()"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "float32"])
def test_negation_of_a_bool_tensor_is_refused_as_torch(call, dtype):
    f, t = _pair(dtype, [1, 2, 3])
    fn = {"-t": operator.neg, "t.neg()": lambda x: x.neg(), "t.neg_()": lambda x: x.clone().neg_()}[call]
    err = _compare(lambda: fn(f), lambda: fn(t), f"{call} {dtype}")
    if err is not None:
        assert str(err) == str(_outcome(lambda: fn(t))[1])


def test_an_ndarray_or_numpy_bool_operand_keeps_numpys_rules():
    """A NumPy array meets a Tensor by NumPy's rules (torch hands it to NumPy too), so int - bool array
    is computed; np.bool_ is torch's float, not a bool operand (float tensor - np.bool_ is computed)."""
    np.testing.assert_array_equal((fgrad.tensor([1, 2]) - np.array([True, False])).numpy(), [0, 2])
    np.testing.assert_array_equal((fgrad.tensor([1.0, 2.0]) - np.bool_(True)).numpy(), [0.0, 1.0])
    with pytest.raises(RuntimeError, match="with a bool tensor"):
        fgrad.tensor([True]) - np.bool_(True)


def test_subtraction_keeps_its_gradient():
    x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    (x - 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    y = fgrad.tensor([1.0, 2.0], requires_grad=True)
    (2 - y).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [-1.0, -1.0])
