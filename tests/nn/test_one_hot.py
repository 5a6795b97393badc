"""fgrad.nn.functional.one_hot against torch 2.13: values, shapes and the int64 dtype for inputs
of several shapes (empty and 0-D ones included), num_classes given or inferred, and torch's
errors for negative, too large or non-int64 class indices."""
import numpy as np
import pytest

import fgrad
from fgrad.nn import functional as F

from .torch_reference import to_fgrad, to_torch

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [
    ([0, 2, 1], -1), ([0, 2, 1], 5), ([[0, 1], [3, 0]], -1), ([[0, 1], [3, 0]], 4), (3, 7), (0, -1),
    ([[[1, 0, 2]], [[2, 2, 0]]], 3), (np.zeros((0,), np.int64), 3), (np.zeros((2, 0), np.int64), 4), ([4], -1),
]


@pytest.mark.parametrize("indices,num_classes", CASES, ids=[f"{np.shape(c[0])}-{c[1]}" for c in CASES])
def test_one_hot_matches_torch(indices, num_classes):
    x = np.asarray(indices, dtype=np.int64)
    got, want = F.one_hot(to_fgrad(x), num_classes), TF.one_hot(to_torch(torch, x), num_classes)
    assert isinstance(got, fgrad.Tensor)
    assert got.dtype == np.int64 and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert not got.requires_grad
    plain = F.one_hot(x, num_classes)  # a plain array in, a plain array out
    assert isinstance(plain, np.ndarray)
    np.testing.assert_array_equal(plain, want.numpy())


def test_one_hot_defaults_to_inferring_the_classes():
    x = np.array([1, 4, 2])
    np.testing.assert_array_equal(F.one_hot(to_fgrad(x)).numpy(), TF.one_hot(to_torch(torch, x)).numpy())


def test_bad_arguments_raise_as_torch():
    def both(match, x, *args):
        with pytest.raises(RuntimeError, match=match):
            F.one_hot(to_fgrad(x), *args)
        with pytest.raises(RuntimeError, match=match):
            TF.one_hot(to_torch(torch, x), *args)
    both("Class values must be non-negative.", np.array([0, -1, 1]))
    both("Class values must be non-negative.", np.array([0, -1, 1]), 3)
    both("Class values must be smaller than num_classes.", np.array([0, 3, 1]), 3)
    both("Class values must be smaller than num_classes.", np.array([0, 1]), 0)
    both("Class values must be smaller than num_classes.", np.array([0, 1]), -2)
    both("Can not infer total number of classes from empty tensor.", np.zeros((0,), np.int64))
    both("Can not infer total number of classes from empty tensor.", np.zeros((0,), np.int64), 0)
    for dtype in [np.float64, np.float32, np.int32, np.uint8, np.bool_]:
        both("one_hot is only applicable to index tensor of type LongTensor.", np.array([0, 1]).astype(dtype), 3)
