"""fgrad.utils.data: datasets and the DataLoader that batches them, as torch.utils.data.

A DataLoader draws indices from a sampler (in order, or shuffled by a Generator), fetches the
samples and collates each batch into Tensors as torch's default_collate does. It loads in the
calling process (num_workers=0). Shuffles are reproducible with a seeded fgrad.Generator, but
are not torch's: the two libraries' random streams differ (autograd/generator.py).
"""
import collections.abc
import itertools
import math
import warnings
from collections.abc import Sized

import numpy as np

from .. import numpy as fnp
from ..autograd.generator import Generator, default_generator
from ..autograd.tensor import Tensor
from ..typing import Any, Callable, Iterable, Iterator, Sequence

__all__ = ["DataLoader", "Dataset", "RandomSampler", "SequentialSampler", "Subset", "TensorDataset",
           "default_collate", "default_convert", "random_split"]


class Dataset:
    """A map-style dataset: subclasses define __getitem__(index) and __len__().

    Examples
    --------
    >>> class Squares(fgrad.utils.data.Dataset):
    ...     def __len__(self):
    ...         return 3
    ...     def __getitem__(self, i):
    ...         return float(i * i)
    >>> [x for x in fgrad.utils.data.DataLoader(Squares(), batch_size=2)]
    [tensor([0., 1.]), tensor([4.])]
    """

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} (a Dataset) must implement __getitem__")


class TensorDataset(Dataset):
    """Samples are the rows of tensors sharing their first dimension: (x[i], y[i], ...).

    Examples
    --------
    >>> ds = fgrad.utils.data.TensorDataset(fgrad.arange(3.0), fgrad.tensor([0, 1, 0]))
    >>> len(ds), ds[1]
    (3, (tensor(1.), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [t.shape[0] for t in tensors]
        if any(size != sizes[0] for size in sizes):
            raise ValueError(f"Size mismatch between tensors: first dimensions {sizes}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __getitems__(self, indices: Sequence[int]) -> list[tuple[Tensor, ...]]:
        """The samples at `indices` (torch's batched fetch, which DataLoader uses): one gather per
        tensor instead of a recorded index per sample (8 us each), where nothing is recorded."""
        if any(t.requires_grad for t in self.tensors):
            return [self[i] for i in indices]
        rows = [t.primal[indices] for t in self.tensors]  # (copies: a batch never aliases the dataset)
        return [tuple(Tensor._wrap(r[k], None, 0) for r in rows) for k in range(len(indices))]

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order.

    Examples
    --------
    >>> ds = fgrad.utils.data.TensorDataset(fgrad.arange(5.0))
    >>> sub = fgrad.utils.data.Subset(ds, [4, 0])
    >>> len(sub), sub[0]
    (2, (tensor(4.),))
    """

    def __init__(self, dataset: Dataset | Sequence[Any], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: int | list[int]) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: Sequence[int]) -> list[Any]:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset | Sequence[Any], lengths: Sequence[int | float],
                 generator: Generator | None = None) -> list[Subset]:
    """Split `dataset` at random into Subsets of the given lengths, or fractions summing to 1
    (floored, the remainder handed out one by one from the first split on, as torch's).

    Examples
    --------
    >>> train, test = fgrad.utils.data.random_split(range(10), [0.8, 0.2], generator=fgrad.Generator().manual_seed(0))
    >>> len(train), len(test), sorted(list(train) + list(test)) == list(range(10))
    (8, 2, True)
    """
    generator = default_generator if generator is None else generator
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, fraction in enumerate(lengths):
            if not 0 <= fraction <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        sizes = [math.floor(len(dataset) * fraction) for fraction in lengths]
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
        lengths = sizes
    if sum(lengths) != len(dataset):
        raise ValueError(f"Sum of input lengths ({sum(lengths)}) does not equal the length of the input dataset "
                         f"({len(dataset)})!")
    order = generator.randperm(sum(lengths)).tolist()
    return [Subset(dataset, order[end - n:end]) for end, n in zip(itertools.accumulate(lengths), lengths)]


class SequentialSampler:
    """Indices 0, 1, ..., len(data_source) - 1.

    Examples
    --------
    >>> list(fgrad.utils.data.SequentialSampler(range(3)))
    [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler:
    """A fresh random order each pass (or num_samples draws with replacement), from `generator`.

    Examples
    --------
    >>> sorted(fgrad.utils.data.RandomSampler(range(4)))  # a permutation of the indices
    [0, 1, 2, 3]
    """

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator

    @property
    def num_samples(self) -> int:
        """How many indices one pass draws: `num_samples` as given, else the length of the data source."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        generator = default_generator if self.generator is None else self.generator
        n = len(self.data_source)
        if self.replacement:
            return iter(generator.numpy.integers(0, n, size=self.num_samples).tolist())
        passes = -(-self.num_samples // n)  # (as torch: num_samples > n repeats whole permutations)
        return iter(np.concatenate([generator.randperm(n) for _ in range(passes)])[:self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples


_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_collate(batch: Sequence[Any]) -> Any:
    """Batch a list of samples as torch's default_collate: Tensors and arrays stacked on a new
    first axis, Python floats to a float64 Tensor, ints to int64, strings kept as a list, and
    dicts, named tuples, tuples and lists collated field by field (tuples become lists).

    Examples
    --------
    >>> fgrad.utils.data.default_collate([(fgrad.tensor([1.0]), 0), (fgrad.tensor([2.0]), 1)])
    [tensor([[1.], [2.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        if any(t.requires_grad for t in batch):
            return fnp.stack(batch)  # (recorded: the batch stays differentiable)
        return Tensor._wrap(np.stack([t.primal for t in batch]), None, 0)  # 10x fewer us than a recorded stack
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OUSV":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return Tensor(np.stack(batch))
    if isinstance(elem, (bool, int, float, np.number, np.bool_)):
        return Tensor(np.array(batch, dtype=np.float64 if type(elem) is float else None))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:  # a mapping type that cannot be made from a dict: a dict, as torch
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple keeps its type
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(sample: Any) -> Any:
    """One sample as torch's default_convert leaves it (the collate of a DataLoader with
    batch_size=None): NumPy arrays and scalars become Tensors, dicts, named tuples and lists are
    converted field by field (a tuple becomes a list), anything else is kept.

    Examples
    --------
    >>> fgrad.utils.data.default_convert({"x": np.ones(2)})
    {'x': tensor([1., 1.])}
    """
    if isinstance(sample, Tensor):
        return sample
    if isinstance(sample, (np.ndarray, np.generic)):
        return sample if sample.dtype.kind in "OUSV" else Tensor(np.asarray(sample))
    if isinstance(sample, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in sample.items()}
        try:
            return type(sample)(converted)
        except TypeError:
            return converted
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*(default_convert(field) for field in sample))
    if isinstance(sample, collections.abc.Sequence) and not isinstance(sample, (str, bytes)):
        return [default_convert(item) for item in sample]
    return sample


class DataLoader:
    """Iterate over `dataset` in batches of `batch_size`, collated into Tensors.

    shuffle=True draws a new order each epoch from `generator` (fgrad.default_generator if
    None); drop_last drops a last batch smaller than batch_size; batch_size=None yields the
    samples one by one, converted by default_convert (torch's loading without batching).

    Examples
    --------
    >>> ds = fgrad.utils.data.TensorDataset(fgrad.arange(4.0), fgrad.arange(4.0) * 2)
    >>> for x, y in fgrad.utils.data.DataLoader(ds, batch_size=2):
    ...     print(x, y)
    tensor([0., 1.]) tensor([0., 2.])
    tensor([2., 3.]) tensor([4., 6.])
    """

    def __init__(self, dataset: Dataset | Sequence[Any], batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Iterable[int] | None = None, num_workers: int = 0,
                 collate_fn: Callable[[list[Any]], Any] | None = None, drop_last: bool = False,
                 generator: Generator | None = None) -> None:
        if batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                                 "drop_last")
        elif isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if num_workers != 0:
            raise ValueError(f"DataLoader: fgrad loads in the calling process; num_workers must be 0, not "
                             f"{num_workers}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"DataLoader: generator must be an fgrad.Generator, not {type(generator).__name__}")
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.num_workers = num_workers
        self.generator = generator
        self.collate_fn = collate_fn or (default_convert if batch_size is None else default_collate)
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        self.sampler = sampler

    def __iter__(self) -> Iterator[Any]:
        if self.batch_size is None:
            yield from (self.collate_fn(self.dataset[i]) for i in self.sampler)
            return
        indices = []
        for index in self.sampler:
            indices.append(index)
            if len(indices) == self.batch_size:
                yield self.collate_fn(self._fetch(indices))
                indices = []
        if indices and not self.drop_last:
            yield self.collate_fn(self._fetch(indices))

    def _fetch(self, indices):
        # torch's protocol: a dataset with __getitems__ is asked for the batch's samples at once
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(indices)
        return [self.dataset[i] for i in indices]

    def __len__(self) -> int:
        n = len(self.sampler)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
