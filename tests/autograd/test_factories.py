"""The tensor factories' torch forms: randint(high, size) and randint(low, high, size), a
generator= for randn, rand and randint, and set_default_device."""
import numpy as np
import pytest

import fgrad


def test_randint_two_and_three_argument_forms():
    fgrad.manual_seed(0)
    a = fgrad.randint(10, (64,))
    assert a.shape == (64,) and a.dtype == np.int64 and 0 <= a.min().item() and a.max().item() < 10
    b = fgrad.randint(3, 5, (2, 3))
    assert b.shape == (2, 3) and set(np.unique(b.numpy())) <= {3, 4}
    assert fgrad.randint(high=2, size=(4,)).max().item() < 2
    assert fgrad.randint(4, size=(3,)).shape == (3,)


def test_randint_refuses_a_missing_size_and_an_empty_range():
    with pytest.raises(TypeError, match="size"):
        fgrad.randint(10)
    with pytest.raises(ValueError, match="high"):
        fgrad.randint(5, 5, (2,))


@pytest.mark.parametrize("draw", [lambda g: fgrad.randn(3, generator=g), lambda g: fgrad.rand(2, 2, generator=g),
                                  lambda g: fgrad.randint(0, 100, (5,), generator=g)])
def test_a_generator_makes_draws_repeatable_and_leaves_the_default_stream(draw):
    g = fgrad.Generator().manual_seed(7)
    fgrad.manual_seed(1)
    first = draw(g).numpy()
    after = fgrad.randn(2).numpy()
    g.manual_seed(7)
    fgrad.manual_seed(1)
    np.testing.assert_array_equal(draw(g).numpy(), first)
    np.testing.assert_array_equal(fgrad.randn(2).numpy(), after)  # (the default stream did not move)


def test_set_default_device():
    try:
        fgrad.set_default_device("cpu")
        assert str(fgrad.get_default_device()) == "cpu"
        assert fgrad.zeros(2).device == "cpu" and fgrad.tensor([1.0]).device == "cpu"
        with pytest.raises(ValueError, match="unknown device"):
            fgrad.set_default_device("tpu")
    finally:
        fgrad.set_default_device(None)
    assert str(fgrad.get_default_device()) == "cpu"


def test_randint_shapes_match_torch():
    torch = pytest.importorskip("torch")
    for args in [(10, (64,)), (3, 5, (2, 3))]:
        assert tuple(fgrad.randint(*args).shape) == tuple(torch.randint(*args).shape)
        assert fgrad.randint(*args).dtype == np.dtype(str(torch.randint(*args).dtype).split(".")[1])
