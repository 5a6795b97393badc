"""Tensor face: mean, var and std of an integer or bool tensor raise torch's RuntimeError (mean gave
fgrad.numpy's float64, a value torch never returns); mean with a floating dtype= computes, as
torch's, and an integer dtype= raises. fgrad.numpy keeps NumPy's float64. Against torch."""
import numpy as np
import pytest
import torch

import fgrad
import fgrad.numpy as fnp

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64", "complex64"]
CALLS = {
    "mean": lambda m, x: x.mean(),
    "mean(0)": lambda m, x: x.mean(0),
    "mean(dim=-1, keepdim)": lambda m, x: x.mean(dim=-1, keepdim=True),
    "mean(dtype=float32)": lambda m, x: x.mean(dtype=m.float32),
    "mean(dtype=float64)": lambda m, x: m.mean(x, dtype=m.float64),
    "mean(dtype=int64)": lambda m, x: x.mean(dtype=m.int64),
    "fn mean": lambda m, x: m.mean(x, 0),
    "var": lambda m, x: x.var(),
    "var(0)": lambda m, x: m.var(x, 0),
    "std": lambda m, x: x.std(),
    "std(0, unbiased=False)": lambda m, x: m.std(x, 0, unbiased=False),
}


def _run(f, m, x):
    try:
        return f(m, x)
    except RuntimeError as e:
        return e


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("call", CALLS)
def test_mean_var_std_dtypes_match_torch(dtype, call):
    values = [[1, 0, 3], [2, 1, 1]]
    want = _run(CALLS[call], torch, torch.tensor(values, dtype=getattr(torch, dtype)))
    got = _run(CALLS[call], fgrad, fgrad.tensor(values, dtype=getattr(fgrad, dtype)))
    if isinstance(want, RuntimeError):
        assert isinstance(got, RuntimeError), got
        head = str(want).split(" Got:")[0]
        assert str(got).startswith(head)
        return
    assert not isinstance(got, Exception), got
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.")
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-3 if dtype == "float16" else 1e-6)


def test_mean_error_names_the_dtype():
    with pytest.raises(RuntimeError, match=r"Got: fgrad\.int64"):
        fgrad.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match=r"Optional dtype .* Got: fgrad\.int32"):
        fgrad.tensor([1.0, 2.0]).mean(dtype=fgrad.int32)


def test_mean_with_dtype_of_an_int_tensor_has_torchs_gradient_free_value():
    x = fgrad.tensor([1, 2, 4], dtype=fgrad.int8)
    assert float(x.mean(dtype=fgrad.float64)) == float(torch.tensor([1, 2, 4], dtype=torch.int8).mean(
        dtype=torch.float64))


@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_fgrad_numpy_keeps_numpys_float64(name):
    x = np.array([1, 2, 4])
    got = getattr(fnp, name)(x)
    assert np.asarray(got).dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), getattr(np, name)(x))
