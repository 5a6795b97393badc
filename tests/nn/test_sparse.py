"""fgrad.nn.Embedding and F.embedding against torch 2.13: the rows picked, the gradient of the
table (repeated indices add up; none at padding_idx), and torch's initialization rules."""
import numpy as np
import pytest

import fgrad
import fgrad.nn.functional as F
from fgrad import nn

from .parity import module_parity, run_both

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_matches_torch(padding_idx, dtype):
    rng = np.random.default_rng(0)
    idx = np.array([[0, 2, 4], [2, 2, 1]])
    f, t = nn.Embedding(5, 3, padding_idx=padding_idx), torch.nn.Embedding(5, 3, padding_idx=padding_idx)
    module_parity(f, t, [idx], dtype)
    assert f.padding_idx == t.padding_idx
    w = rng.standard_normal((5, 3))
    run_both(lambda i, w: F.embedding(i, w, padding_idx=padding_idx),
             lambda i, w: torch.nn.functional.embedding(i, w, padding_idx=padding_idx), [idx, w], dtype)


def test_initialization_and_padding_row():
    e = nn.Embedding(50, 20, padding_idx=3)
    w = e.weight.detach().numpy()
    assert np.all(w[3] == 0) and abs(w.std() - 1.0) < 0.1
    fixed = nn.Embedding.from_pretrained(fgrad.tensor(np.arange(6.0).reshape(3, 2)))
    assert not fixed.weight.requires_grad
    np.testing.assert_array_equal(fixed(fgrad.tensor(np.array([2, 0]))).numpy(), [[4.0, 5.0], [0.0, 1.0]])


def test_errors_name_what_is_wrong():
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
        F.embedding(fgrad.tensor(np.array([0.0, 1.0])), fgrad.tensor(np.zeros((3, 2))))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)
