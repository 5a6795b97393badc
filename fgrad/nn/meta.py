"""The "meta" device of Module.to('meta'): parameters and buffers that keep their shape, dtype and
requires_grad but hold no values, as torch's meta tensors.

Such a module keeps its structure only (torch's "stateless" module, the ensembling tutorial's
base model): fgrad.func.functional_call runs it on values given in their place, and
Module.to_empty(device=...) gives it fresh, uninitialized storage. fgrad has no shape-only kernels,
so computing with a meta value raises, naming it, where torch would compute shapes only: never
a number made up from missing values.
"""
import numpy as np

from ..backend.devices import Device

__all__ = ["META", "MetaArray", "is_meta"]

META = object.__new__(Device)  # (Device("meta") refuses: no array lives there)
META.kind, META.index = "meta", None


def is_meta(device):
    """Is `device` (a str or Device) the meta device?"""
    return str(device) == "meta"


class MetaArray:
    """A shape and a dtype without values: the array of a Tensor on the meta device."""

    __slots__ = ("shape", "dtype")
    fgrad_device = META

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def _refuse(self, *args, **kwargs):
        raise RuntimeError(f"a Tensor on the meta device (shape {self.shape}, dtype {self.dtype}) has no values to "
                           f"compute with: a module moved by .to('meta') keeps only its structure; pass its "
                           f"parameters and buffers to fgrad.func.functional_call, or give it storage with "
                           f".to_empty(device='cpu')")

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = __setitem__ = __float__ = __int__ = _refuse

    def __getattr__(self, name):  # (reshape, astype, copy, ...: whatever an op asks of its array)
        if name.startswith("__"):  # (protocol probes: copy's __deepcopy__, pickle's __reduce_ex__)
            raise AttributeError(name)
        self._refuse()

    def __reduce__(self):
        return MetaArray, (self.shape, self.dtype)

    def __repr__(self):
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"
