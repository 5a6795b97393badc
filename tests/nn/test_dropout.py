"""fgrad.nn's dropout: torch's rules (zeroed entries or channels with probability p, the rest
scaled by 1 / (1 - p), identity in eval mode), masks from fgrad's default generator."""
import numpy as np
import pytest

import fgrad
import fgrad.nn.functional as F
from fgrad import nn


def test_dropout_zeroes_and_rescales_in_training_only():
    fgrad.manual_seed(0)
    x = fgrad.tensor(np.ones((200, 50)), requires_grad=True)
    out = F.dropout(x, 0.3)
    values = out.detach().numpy()
    assert set(np.unique(values)) == {0.0, 1 / 0.7}
    assert abs((values == 0).mean() - 0.3) < 0.02
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), values)  # the gradient has the same mask and scale
    np.testing.assert_array_equal(F.dropout(x, 0.3, training=False).detach().numpy(), np.ones((200, 50)))
    assert np.all(F.dropout(x, 1.0).detach().numpy() == 0.0)


def test_the_default_generator_repeats_the_masks():
    x = fgrad.tensor(np.ones((4, 6)))
    fgrad.manual_seed(3)
    a = F.dropout(x, 0.5).numpy()
    fgrad.manual_seed(3)
    np.testing.assert_array_equal(F.dropout(x, 0.5).numpy(), a)


def test_dropout2d_drops_whole_channels():
    fgrad.manual_seed(1)
    x = fgrad.tensor(np.ones((30, 40, 3, 2)))
    out = nn.Dropout2d(0.25)(x).numpy()
    per_channel = out.reshape(30, 40, -1)
    assert np.all(per_channel.min(axis=2) == per_channel.max(axis=2))  # a channel is kept or dropped whole
    assert abs((per_channel[..., 0] == 0).mean() - 0.25) < 0.05
    assert set(np.unique(out)) == {0.0, 1 / 0.75}
    unbatched = F.dropout2d(fgrad.tensor(np.ones((40, 3, 2))), 0.5).numpy()
    assert np.all(unbatched.min(axis=(1, 2)) == unbatched.max(axis=(1, 2)))


def test_modules_follow_train_and_eval():
    drop = nn.Dropout(0.5)
    x = fgrad.tensor(np.ones((10, 10)))
    assert (drop(x).numpy() == 0).any()
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), x.numpy())
    assert drop.extra_repr() == "p=0.5, inplace=False"
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got 1\.5"):
        nn.Dropout(1.5)


def test_torch_has_the_same_rule():
    torch = pytest.importorskip("torch")
    t = torch.nn.functional.dropout(torch.ones(1000, 10), 0.3).numpy()
    assert set(np.unique(t)) == set(np.unique(F.dropout(fgrad.tensor(np.ones((1000, 10), np.float32)), 0.3).numpy()))
