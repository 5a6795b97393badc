"""fgrad.nansum and fgrad.nanmean (functions and methods) against torch (issue 31: nansum of an int
tensor gave float64 through fgrad.numpy; torch gives int64), and torch's int64 accumulator for the
sums and products of unsigned tensors (sum, prod, cumsum, cumprod of uint8 gave uint64, NumPy's)."""
import numpy as np
import pytest

import fgrad

torch = pytest.importorskip("torch")

NAN = float("nan")
DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32", "float64", "complex64"]
KWARGS = [{}, {"dim": 0}, {"dim": -1, "keepdim": True}, {"dim": (0, 1)}, {"dtype": "float64"}]


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # (torch's error type is the answer)
        return None, type(e)


def _values(dtype):
    if dtype[0] in "uib":
        return [[1, 0, 3], [2, 2, 1]]
    return [[1.0, NAN, 3.0], [NAN, NAN, NAN]]


def _kwargs(m, kw):
    return {k: getattr(m, v) if k == "dtype" else v for k, v in kw.items()}


@pytest.mark.parametrize("kw", range(len(KWARGS)))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["nansum", "nanmean"])
@pytest.mark.parametrize("form", ["function", "method"])
def test_nan_reductions_as_torch(name, dtype, kw, form):
    tx = torch.tensor(_values(dtype), dtype=getattr(torch, dtype))
    fx = fgrad.tensor(_values(dtype), dtype=getattr(fgrad, dtype))
    call = (lambda m, x: getattr(m, name)(x, **_kwargs(m, KWARGS[kw]))) if form == "function" else \
        (lambda m, x: getattr(x, name)(**_kwargs(m, KWARGS[kw])))
    want, error = _outcome(lambda: call(torch, tx))
    if error is not None:
        with pytest.raises(error):
            call(fgrad, fx)
        return
    got = call(fgrad, fx)
    assert str(got.dtype) == str(want.dtype).removeprefix("torch.") and tuple(got.shape) == tuple(want.shape)
    tol = 1e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=tol,
                               equal_nan=True)


def test_the_issues_case():
    got = fgrad.nansum(fgrad.tensor([1, 2]))
    assert got.dtype == fgrad.int64 and got.item() == 3


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_nan_reduction_gradients_as_torch(name, dim):
    values = [[1.0, NAN, 3.0], [2.0, 5.0, NAN]]
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    fx = fgrad.tensor(values, requires_grad=True)
    kw = {} if dim is None else {"dim": dim}
    (getattr(torch, name)(tx, **kw) ** 2).sum().backward()
    (getattr(fgrad, name)(fx, **kw) ** 2).sum().backward()
    np.testing.assert_allclose(fx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("dim", [0, -1])
def test_a_zero_dim_tensor_takes_dim_0_and_minus_1(dim):
    for name in ("nansum", "nanmean"):
        got, want = getattr(fgrad, name)(fgrad.tensor(NAN), dim), getattr(torch, name)(torch.tensor(NAN), dim)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(IndexError):
        fgrad.nansum(fgrad.tensor(1.0), 1)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16"])
@pytest.mark.parametrize("name", ["sum", "prod", "cumsum", "cumprod", "nansum"])
def test_integer_sums_and_products_accumulate_in_int64_as_torch(name, dtype):
    tx = torch.tensor([[1, 2], [3, 25]], dtype=getattr(torch, dtype))
    fx = fgrad.tensor([[1, 2], [3, 25]], dtype=getattr(fgrad, dtype))
    for call in ((lambda m, x: getattr(m, name)(x, 0)), (lambda m, x: getattr(x, name)(1))) + \
            (((lambda m, x: getattr(x, name)()),) if not name.startswith("cum") else ()):
        got, want = call(fgrad, fx), call(torch, tx)
        assert str(got.dtype) == str(want.dtype).removeprefix("torch."), name
        np.testing.assert_array_equal(got.numpy(), want.numpy())
