"""The Tensor face's bitwise and logical ops (& | ^ ~, reflected and in place, fgrad.bitwise_* and
logical_*), and Python ints out of an integer tensor's range in the binary operators: values,
dtypes and errors against torch (autograd/promotion.py)."""
import operator

import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

INT_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64"]


def _pair(name, values):
    if name == "bool":
        values = [bool(v % 2) for v in values]
    return (fgrad.tensor(values, dtype=getattr(fgrad, name)), torch.tensor(values, dtype=getattr(torch, name)))


def _same(got, want, what):
    assert isinstance(got, fgrad.Tensor), what
    assert str(got.dtype) == str(want.dtype).removeprefix("torch."), what
    assert got.grad_fn is None and want.grad_fn is None, what
    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=what)


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # (torch's error type is the answer)
        return None, type(e)


def _compare(f_fn, t_fn, what):
    want, t_error = _outcome(t_fn)
    if t_error is not None:
        with pytest.raises(t_error):
            f_fn()
        return
    _same(f_fn(), want, what)


BITWISE = {"&": operator.and_, "|": operator.or_, "^": operator.xor}


@pytest.mark.parametrize("symbol", sorted(BITWISE))
@pytest.mark.parametrize("left", INT_DTYPES + ["float32"])
@pytest.mark.parametrize("right", INT_DTYPES + ["float64", "int", "bool_number", "float", "zero_dim", "int300"])
def test_bitwise_operators_as_torch(symbol, left, right):
    fa, ta = _pair(left, [3, -2, 7]) if left != "uint8" else _pair(left, [3, 254, 7])
    op = BITWISE[symbol]
    numbers = {"int": (5, 5), "bool_number": (True, True), "float": (1.5, 1.5), "int300": (300, 300),
               "zero_dim": (fgrad.tensor(6), torch.tensor(6))}
    if right in numbers:
        fb, tb = numbers[right]
    else:
        fb, tb = _pair(right, [6, 5, -1]) if right != "uint8" else _pair(right, [6, 5, 255])
    _compare(lambda: op(fa, fb), lambda: op(ta, tb), f"{left} {symbol} {right}")
    _compare(lambda: op(fb, fa), lambda: op(tb, ta), f"{right} {symbol} {left}")
    name = {"&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor"}[symbol]
    _compare(lambda: getattr(fgrad, name)(fa, fb), lambda: getattr(torch, name)(ta, tb), name)
    _compare(lambda: getattr(fa, name)(fb), lambda: getattr(ta, name)(tb), f"Tensor.{name}")
    # in place: self's dtype, or torch's error where the result type cannot be cast to it
    fs, ts = fa.clone(), ta.clone()
    inplace = {"&": operator.iand, "|": operator.ior, "^": operator.ixor}[symbol]
    want, error = _outcome(lambda: inplace(ts, tb))
    if error is not None:
        with pytest.raises(error):
            inplace(fs, fb)
    else:
        got = inplace(fs, fb)
        assert got is fs
        _same(got, want, f"{left} {symbol}= {right}")


@pytest.mark.parametrize("dtype", INT_DTYPES + ["float32"])
def test_invert_and_bitwise_not_as_torch(dtype):
    f, t = _pair(dtype, [0, 5, -3]) if dtype != "uint8" else _pair(dtype, [0, 5, 200])
    _compare(lambda: ~f, lambda: ~t, f"~{dtype}")
    _compare(lambda: fgrad.bitwise_not(f), lambda: torch.bitwise_not(t), "bitwise_not")
    _compare(lambda: f.clone().bitwise_not_(), lambda: t.clone().bitwise_not_(), "bitwise_not_")


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("left", ["bool", "int8", "float32"])
@pytest.mark.parametrize("right", ["bool", "int64", "float64", "int"])
def test_logical_functions_as_torch(name, left, right):
    fa, ta = _pair(left, [0, 2, 3])
    fb, tb = (1, 1) if right == "int" else _pair(right, [1, 0, 4])
    _compare(lambda: getattr(fgrad, name)(fa, fb), lambda: getattr(torch, name)(ta, tb), name)
    _compare(lambda: getattr(fa, name)(fb), lambda: getattr(ta, name)(tb), f"Tensor.{name}")
    _compare(lambda: getattr(fa.clone(), name + "_")(fb), lambda: getattr(ta.clone(), name + "_")(tb), name + "_")
    _compare(lambda: fgrad.logical_not(fa), lambda: torch.logical_not(ta), "logical_not")
    _compare(lambda: fa.clone().logical_not_(), lambda: ta.clone().logical_not_(), "logical_not_")


def test_bitwise_of_a_float_tensor_raises_not_implemented_naming_the_dtype():
    with pytest.raises(NotImplementedError, match=r"&: not implemented for fgrad.float32"):
        fgrad.tensor([1.0], dtype=fgrad.float32) & 1
    with pytest.raises(TypeError, match=r"~ \(operator.invert\) is only implemented on integer and Boolean"):
        ~fgrad.tensor([1.0], requires_grad=True)


ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
              "%": operator.mod, "<": operator.lt, "==": operator.eq, ">=": operator.ge, "&": operator.and_}


@pytest.mark.parametrize("symbol", sorted(ARITHMETIC))
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "bool"])
@pytest.mark.parametrize("number", [300, -300, 200, 128, -129, 70000, 2 ** 31 + 7, 2 ** 63 + 5, -2 ** 63, 2 ** 64,
                                    -2 ** 63 - 1])
def test_python_ints_out_of_range_wrap_as_torch(symbol, dtype, number):
    """torch takes a Python int into an integer tensor's dtype by its low bits (int8 + 300 is int8 + 44),
    in comparisons too; beyond int64 and uint64 both it raises OverflowError. (// and % by an int that
    wraps to 0 are left out: torch raises ZeroDivisionError, NumPy gives 0.)"""
    f, t = _pair(dtype, [1, 2, 100])
    if symbol in ("//", "%") and (dtype == "bool" or (abs(number) < 2 ** 64 and
                                  number % (1 << (8 * np.dtype(dtype).itemsize)) == 0)):
        pytest.skip("integer division by zero (a False divisor, or an int that wraps to 0)")
    op = ARITHMETIC[symbol]
    _compare(lambda: op(f, number), lambda: op(t, number), f"{dtype} {symbol} {number}")
    _compare(lambda: op(number, f), lambda: op(number, t), f"{number} {symbol} {dtype}")
    if symbol in ("+", "-", "*"):
        fs, ts = f.clone(), t.clone()
        inplace = {"+": operator.iadd, "-": operator.isub, "*": operator.imul}[symbol]
        _compare(lambda: inplace(fs, number), lambda: inplace(ts, number), f"{dtype} {symbol}= {number}")


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
@pytest.mark.parametrize("number", [300, -300, 100, 70000])
def test_where_refuses_a_python_int_out_of_range_as_torch(dtype, number):
    """Only torch's binary operators wrap an int; where raises (NumPy's kernel had wrapped 300 to 44)."""
    f, t = _pair(dtype, [1, 2, 100])
    _compare(lambda: fgrad.where(f > 1, f, number), lambda: torch.where(t > 1, t, number), f"where {dtype} {number}")
    _compare(lambda: fgrad.where(f > 1, number, f), lambda: torch.where(t > 1, number, t), f"where {number} {dtype}")
