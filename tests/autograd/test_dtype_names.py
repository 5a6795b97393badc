"""The Tensor face names dtypes as torch does (torch.float32), in fgrad's namespace: fgrad.float32,
the name a user passes as dtype= (dtypes.name), in its error messages (issue 31: they named
NumPy's 'float64')."""
import numpy as np
import pytest

import fgrad
from fgrad.autograd import dtypes

torch = pytest.importorskip("torch")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
         "complex128"]


@pytest.mark.parametrize("name", NAMES)
def test_a_dtype_is_named_as_torch_names_it(name):
    assert dtypes.name(getattr(fgrad, name)) == str(getattr(torch, name)).replace("torch.", "fgrad.")
    assert eval(dtypes.name(getattr(fgrad, name)), {"fgrad": fgrad}) == getattr(fgrad, name)


def test_a_dtype_fgrad_has_no_name_for_is_numpys():
    assert dtypes.name(np.uint16) == "numpy.uint16"


F32, F64 = fgrad.tensor([1.0, 2.0], dtype=fgrad.float32), fgrad.tensor([1.0, 2.0])
I64 = fgrad.tensor([1, 2])
ERRORS = {
    "requires_grad": (lambda: I64.requires_grad_(), RuntimeError, "got fgrad.int64"),
    "in place cast": (lambda: I64.clone().add_(1.5), RuntimeError,
                      "result type fgrad.float64 can't be cast to the desired output type fgrad.int64"),
    "matmul": (lambda: F32 @ F64, RuntimeError, "got fgrad.float32 and fgrad.float64"),
    "bitwise": (lambda: F32 & F32, NotImplementedError, "not implemented for fgrad.float32"),
    "bitwise_not": (lambda: fgrad.bitwise_not(F32), NotImplementedError, "not implemented for fgrad.float32"),
    "invert": (lambda: ~F32, TypeError, "not fgrad.float32"),
    "lerp": (lambda: fgrad.lerp(F32, F64, 0.5), RuntimeError, "expected dtype fgrad.float32 for `end` but got dtype "
                                                              "fgrad.float64"),
    "grad assign": (lambda: setattr(F64.clone().requires_grad_(), "grad", F32), RuntimeError,
                    "a gradient with dtype fgrad.float32 to a tensor with dtype fgrad.float64"),
    "complex": (lambda: fgrad.complex(I64, I64), RuntimeError, "got fgrad.int64 and fgrad.int64"),
    "overflow": (lambda: fgrad.clamp(fgrad.tensor([1], dtype=fgrad.int8), max=300), RuntimeError,
                 "to type fgrad.int8 without overflow"),
    "alpha": (lambda: fgrad.add(fgrad.tensor([1], dtype=fgrad.int8), 1, alpha=300), RuntimeError,
              "to type fgrad.int8 without overflow"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_tensor_face_errors_name_dtypes_as_torch(case):
    fn, error, words = ERRORS[case]
    with pytest.raises(error) as info:
        fn()
    assert words in str(info.value)
    assert "'float" not in str(info.value) and "'int" not in str(info.value)


def _suffix(text):
    """The repr's keywords after the values (size=, dtype=, requires_grad=), torch's names as fgrad's."""
    return [part.strip(" )") for part in text.replace("torch.", "fgrad.").split("]")[-1].split(", ")[1:]] \
        if "[" in text else [part.strip(" )") for part in text.replace("torch.", "fgrad.").split(", ")[1:]]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", [(2,), (), (0,), (0, 2)])
def test_repr_shows_the_dtype_as_torch(default, name, shape):
    """torch leaves out the default float dtype, its complex dtype, int64 and bool (an empty tensor: only
    the default float dtype, and shows its size unless 1-D); fgrad had shown only non-float64 floats."""
    torch_default = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, default))
    fgrad.set_default_dtype(getattr(fgrad, default))
    try:
        want = repr(torch.ones(shape, dtype=getattr(torch, name)))
        got = repr(fgrad.ones(*shape, dtype=getattr(fgrad, name)) if shape else
                   fgrad.tensor(1, dtype=getattr(fgrad, name)))
        want_grad = repr(torch.ones(shape, dtype=getattr(torch, name), requires_grad=True)) if name[0] in "fc" \
            else None
        got_grad = repr(fgrad.ones(*shape, dtype=getattr(fgrad, name), requires_grad=True)) if name[0] in "fc" \
            and shape else None
    finally:
        torch.set_default_dtype(torch_default)
        fgrad.set_default_dtype(fgrad.float64)
    assert _suffix(got) == _suffix(want), (got, want)
    if got_grad is not None:
        assert _suffix(got_grad) == _suffix(want_grad), (got_grad, want_grad)


def test_the_issues_reprs():
    assert repr(fgrad.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(fgrad.tensor([1, 2], dtype=fgrad.int32)) == "tensor([1, 2], dtype=fgrad.int32)"
    assert repr(fgrad.tensor([True])) == "tensor([ True])"
    assert repr(fgrad.tensor([1.0, 2.0], dtype=fgrad.float32)) == "tensor([1., 2.], dtype=fgrad.float32)"
    assert repr(fgrad.tensor([1.0, 2.0])) == "tensor([1., 2.])"  # (fgrad's default dtype, float64)


def test_nn_messages_and_reprs_name_dtypes_as_torch():
    """nn's ParameterList repr ([torch.float32 of size 2x3]), RNN's and embedding's dtype errors."""
    got = repr(fgrad.nn.ParameterList([fgrad.nn.Parameter(fgrad.zeros(2, 3, dtype=fgrad.float32))]))
    want = repr(torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3))]))
    assert got.replace("fgrad.", "torch.") == want
    with pytest.raises(RuntimeError, match=r"but got fgrad\.float64 instead"):
        fgrad.nn.functional.embedding(fgrad.tensor([0.5]), fgrad.zeros(2, 2))
    with pytest.raises(RuntimeError, match=r"input must have the type fgrad\.float64, got type fgrad\.float32"):
        fgrad.nn.RNN(2, 3)(fgrad.zeros(1, 1, 2, dtype=fgrad.float32))
