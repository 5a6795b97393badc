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
