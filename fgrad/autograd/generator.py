"""fgrad.Generator: a seedable source of random numbers, as torch.Generator, on numpy.random.

Its streams are NumPy's (PCG64), not torch's (Mersenne Twister / Philox): the same seed gives
different numbers in fgrad and torch, and the same numbers in fgrad from run to run.
`default_generator` backs fgrad.manual_seed, randn, rand, randint, nn's initializers and a
DataLoader or random_split given no generator.
"""
import numpy as np

from ..typing import Any, Array

__all__ = ["Generator", "default_generator"]


class Generator:
    """A random-number generator with torch.Generator's seeding methods.

    Examples
    --------
    >>> g = fgrad.Generator().manual_seed(1); a = fgrad.rand(2, generator=g)
    >>> _ = g.manual_seed(1); bool(fgrad.equal(a, fgrad.rand(2, generator=g)))
    True
    """

    def __init__(self, device: str = "cpu") -> None:
        self.device = device
        self._seed = int(np.random.SeedSequence().entropy % 2 ** 63)
        self.numpy = np.random.default_rng(self._seed)  # the stream itself: one object, reseeded in place

    def manual_seed(self, seed: int) -> "Generator":
        """Restart the stream from `seed` (an int); returns the generator, as torch's."""
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise TypeError(f"Generator.manual_seed: seed must be an int, not {type(seed).__name__}")
        self._seed = int(seed) % 2 ** 64  # (torch takes negative seeds modulo 2**64 too)
        self.numpy.bit_generator.state = np.random.PCG64(self._seed).state
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        self.manual_seed(int(np.random.SeedSequence().entropy % 2 ** 63))
        return self._seed

    def initial_seed(self) -> int:
        """The seed the stream last started from (manual_seed's, or the one drawn at creation)."""
        return self._seed

    def get_state(self) -> dict[str, Any]:
        """The stream's position (a dict), for set_state: a checkpoint of the generator."""
        return {"seed": self._seed, "bit_generator": self.numpy.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> "Generator":
        """Restore the stream to `state`, a dict from get_state(): the draws that follow repeat those
        that followed get_state(). Returns this generator.
        """
        self._seed = state["seed"]
        self.numpy.bit_generator.state = state["bit_generator"]
        return self

    def randperm(self, n: int) -> Array:
        """A random permutation of range(n), as int64 indices."""
        return self.numpy.permutation(n).astype(np.int64)

    def __repr__(self):
        return f"<fgrad.Generator device={self.device!r} initial_seed={self._seed}>"


default_generator = Generator()
