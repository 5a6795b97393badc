"""fgrad.utils.data: batching, shuffles reproducible from a seeded Generator, drop_last,
torch's default_collate for tensors, arrays, numbers, strings, tuples and dicts, Subset and
random_split (lengths, fractions, torch's remainder rule)."""
import collections

import numpy as np
import pytest

import fgrad
from fgrad.utils import data
from fgrad.utils.data import DataLoader, Dataset, RandomSampler, Subset, TensorDataset, default_collate, random_split

X = np.arange(30.0).reshape(10, 3)
Y = np.arange(10)


def _dataset():
    return TensorDataset(fgrad.tensor(X), fgrad.tensor(Y))


def _order(loader):
    """The sample indices a loader over _dataset() visits, read back from the labels."""
    return [int(i) for _, y in loader for i in y.numpy()]


def test_batches_and_the_last_short_one():
    loader = DataLoader(_dataset(), batch_size=4)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    assert [tuple(x.shape) for x, _ in batches] == [(4, 3), (4, 3), (2, 3)]
    x, y = batches[1]
    assert isinstance(x, fgrad.Tensor) and x.dtype == np.float64 and y.dtype == np.int64
    np.testing.assert_array_equal(x.numpy(), X[4:8])
    np.testing.assert_array_equal(y.numpy(), Y[4:8])


def test_drop_last():
    loader = DataLoader(_dataset(), batch_size=4, drop_last=True)
    assert len(loader) == 2 and _order(loader) == list(range(8))
    assert len(DataLoader(_dataset(), batch_size=5, drop_last=True)) == 2


def test_shuffle_is_reproducible_from_a_seeded_generator():
    def orders(seed, epochs=3):
        loader = DataLoader(_dataset(), batch_size=3, shuffle=True, generator=fgrad.Generator().manual_seed(seed))
        return [_order(loader) for _ in range(epochs)]
    first = orders(0)
    assert first == orders(0)  # the same seed, the same epochs
    assert first != orders(1)
    assert first[0] != first[1]  # each epoch a new order
    assert all(sorted(epoch) == list(range(10)) for epoch in first)  # each sample once per epoch
    assert first[0] != list(range(10))


def test_shuffle_without_a_generator_follows_manual_seed():
    loader = DataLoader(_dataset(), batch_size=4, shuffle=True)
    fgrad.manual_seed(3)
    a = _order(loader)
    fgrad.manual_seed(3)
    assert _order(loader) == a
    assert sorted(a) == list(range(10))


def test_generator_state_round_trip():
    g = fgrad.Generator().manual_seed(7)
    assert g.initial_seed() == 7
    state = g.get_state()
    a = g.randperm(20)
    g.randperm(5)
    g.set_state(state)
    np.testing.assert_array_equal(g.randperm(20), a)
    with pytest.raises(TypeError, match="seed must be an int"):
        g.manual_seed(1.5)


def test_random_sampler_with_replacement():
    sampler = RandomSampler(range(4), replacement=True, num_samples=50, generator=fgrad.Generator().manual_seed(0))
    drawn = list(sampler)
    assert len(drawn) == len(sampler) == 50 and set(drawn) == {0, 1, 2, 3}
    assert len(list(RandomSampler(range(4), num_samples=10))) == 10


Point = collections.namedtuple("Point", "x y")


class Samples(Dataset):
    """Samples of every kind default_collate handles."""

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"image": np.full((2, 2), i, np.float32), "label": i, "weight": i / 2, "name": f"s{i}",
                "pair": (fgrad.tensor([i, -i]), np.float32(i)), "point": Point(i, [i, i + 1])}


def test_collate_dicts_tuples_and_numbers_as_torch():
    batch = next(iter(DataLoader(Samples(), batch_size=3)))
    assert batch.keys() == {"image", "label", "weight", "name", "pair", "point"}
    assert batch["image"].shape == (3, 2, 2) and batch["image"].dtype == np.float32
    np.testing.assert_array_equal(batch["label"].numpy(), [0, 1, 2])
    assert batch["label"].dtype == np.int64 and batch["weight"].dtype == np.float64
    assert batch["name"] == ["s0", "s1", "s2"]
    assert isinstance(batch["pair"], list)  # a tuple of fields becomes a list, as torch's
    np.testing.assert_array_equal(batch["pair"][0].numpy(), [[0, 0], [1, -1], [2, -2]])
    assert batch["pair"][1].dtype == np.float32
    assert isinstance(batch["point"], Point) and isinstance(batch["point"].y, list)
    np.testing.assert_array_equal(batch["point"].y[1].numpy(), [1, 2, 3])
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate
    samples = [Samples()[i] for i in range(3)]
    for i in range(3):  # (torch's collate wants torch tensors where fgrad has its own)
        samples[i]["pair"] = (torch.tensor(samples[i]["pair"][0].numpy()), samples[i]["pair"][1])
    theirs = torch_collate(samples)
    for key in ("image", "label", "weight"):
        assert str(theirs[key].dtype).split(".")[1] == str(batch[key].dtype)
        np.testing.assert_array_equal(theirs[key].numpy(), batch[key].numpy())
    assert theirs["name"] == batch["name"] and type(theirs["pair"]) is type(batch["pair"])


def test_collate_errors():
    with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers, dicts or lists"):
        default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_loader_errors():
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        DataLoader(_dataset(), batch_size=0)
    with pytest.raises(ValueError, match="num_workers must be 0"):
        DataLoader(_dataset(), num_workers=2)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(_dataset(), sampler=[0, 1], shuffle=True)
    with pytest.raises(TypeError, match=r"fgrad\.Generator"):
        DataLoader(_dataset(), shuffle=True, generator=np.random.default_rng(0))
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(fgrad.tensor(X), fgrad.tensor(Y[:4]))


def test_a_given_sampler_and_collate_fn():
    loader = DataLoader(_dataset(), batch_size=2, sampler=[9, 0, 4], collate_fn=lambda b: [int(y) for _, y in b])
    assert list(loader) == [[9, 0], [4]]


@pytest.mark.parametrize("lengths,sizes", [([3, 7], [3, 7]), ([0.5, 0.5], [5, 5]), ([0.33, 0.33, 0.34], [4, 3, 3]),
                                           ([0.25, 0.25, 0.25, 0.25], [3, 3, 2, 2])])
def test_random_split(lengths, sizes):
    parts = random_split(_dataset(), lengths, generator=fgrad.Generator().manual_seed(0))
    assert [len(p) for p in parts] == sizes
    seen = [int(p[i][1]) for p in parts for i in range(len(p))]
    assert sorted(seen) == list(range(10)) and seen != list(range(10))
    again = random_split(_dataset(), lengths, generator=fgrad.Generator().manual_seed(0))
    assert [p.indices for p in again] == [p.indices for p in parts]
    torch = pytest.importorskip("torch")  # the same sizes as torch's rule for fractions
    assert [len(p) for p in torch.utils.data.random_split(range(10), lengths)] == sizes


def test_random_split_errors():
    with pytest.raises(ValueError, match="does not equal the length of the input dataset"):
        random_split(_dataset(), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(_dataset(), [1.5, -0.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(_dataset(), [1.0, 0.0])


def test_subset():
    subset = Subset(_dataset(), [7, 2, 5])
    assert len(subset) == 3 and int(subset[1][1]) == 2
    assert _order(DataLoader(subset, batch_size=2)) == [7, 2, 5]


def test_batches_are_copies_and_match_the_per_sample_path():
    dataset = _dataset()
    x, y = next(iter(DataLoader(Subset(dataset, [3, 1, 4, 1]), batch_size=4)))
    np.testing.assert_array_equal(y.numpy(), [3, 1, 4, 1])
    np.testing.assert_array_equal(x.numpy(), X[[3, 1, 4, 1]])
    assert dataset.__getitems__([3, 1])[1][0].shape == dataset[1][0].shape == (3,)
    x.numpy()[...] = -1  # a batch never aliases the dataset
    np.testing.assert_array_equal(dataset.tensors[0].numpy(), X)


def test_a_dataset_that_requires_grad_gives_differentiable_batches():
    w = fgrad.tensor(X, requires_grad=True)
    x, _ = next(iter(DataLoader(TensorDataset(w, fgrad.tensor(Y)), batch_size=4, sampler=[2, 0, 2, 9])))
    assert x.requires_grad
    (x * x).sum().backward()
    expected = np.zeros_like(X)
    expected[[0, 9]] = 2 * X[[0, 9]]
    expected[2] = 4 * X[2]  # (sampled twice)
    np.testing.assert_array_equal(w.grad.numpy(), expected)


def test_batch_size_none_yields_converted_samples_as_torch():
    loader = DataLoader(Samples(), batch_size=None, sampler=[4, 1])
    assert len(loader) == 2
    first = next(iter(loader))
    assert isinstance(first["image"], fgrad.Tensor) and first["image"].shape == (2, 2)
    assert first["label"] == 4 and first["name"] == "s4" and isinstance(first["pair"], list)
    assert isinstance(first["pair"][1], fgrad.Tensor) and first["pair"][1].dtype == np.float32
    assert data.default_convert(np.array(["a"])).dtype.kind == "U"  # (strings stay arrays, as torch's)
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        DataLoader(Samples(), batch_size=None, drop_last=True)
