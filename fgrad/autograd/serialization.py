"""fgrad.save and fgrad.load, as torch.save and torch.load: pickle, with torch's weights_only
guard. Tensors pickle as their class, values and requires_grad (Tensor.__reduce__), so a state
dict, an optimizer's state_dict or a Parameter comes back as it went.

weights_only=True (torch's default since 2.6) unpickles only tensors, NumPy arrays and dtypes,
and Python's plain containers and numbers: a file cannot run code on load. weights_only=False
unpickles anything, which runs whatever the file says: only for files you trust."""
import collections
import os
import pickle
from typing import IO

from ..backend import Device
from ..typing import Any
from .tensor import Tensor

__all__ = ["load", "save"]

_SAFE = {
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "slice"),
    ("builtins", "complex"), ("builtins", "range"),
    ("numpy", "dtype"), ("numpy", "ndarray"), ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("fgrad.autograd.tensor", "Tensor"), ("fgrad.nn.module", "Parameter"),
}


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _SAFE or (module == "numpy.dtypes" and name.endswith("DType")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"fgrad.load with weights_only=True: the file needs {module}.{name}, which is not a tensor, array or "
            f"plain container; load it with weights_only=False only if you trust where it came from")


def save(obj: object, f: str | os.PathLike[str] | IO[bytes], pickle_protocol: int = pickle.DEFAULT_PROTOCOL) -> None:
    """Pickle obj (tensors, state dicts, optimizer states, ...) to f: a path or a binary file.

    Examples
    --------
    >>> import io
    >>> f = io.BytesIO(); fgrad.save({"w": fgrad.ones(2)}, f); _ = f.seek(0)
    >>> fgrad.load(f)
    {'w': tensor([1., 1.])}
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            pickle.dump(obj, file, protocol=pickle_protocol)
    else:
        pickle.dump(obj, f, protocol=pickle_protocol)


def load(f: str | os.PathLike[str] | IO[bytes], map_location: str | Device | None = None,
         weights_only: bool = True) -> Any:
    """What save wrote to f (a path, a binary file or bytes in a BytesIO); map_location moves
    every tensor to that device ("cpu", "cuda:0").

    Examples
    --------
    >>> import io
    >>> f = io.BytesIO(); fgrad.save([fgrad.tensor(3.0)], f); _ = f.seek(0)
    >>> fgrad.load(f, map_location="cpu")
    [tensor(3.)]
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return load(file, map_location, weights_only)
    obj = (_WeightsUnpickler(f) if weights_only else pickle.Unpickler(f)).load()
    return obj if map_location is None else _moved(obj, map_location)


def _moved(obj, device):
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, collections.OrderedDict):
        return collections.OrderedDict((k, _moved(v, device)) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _moved(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_moved(v, device) for v in obj)
    return obj


