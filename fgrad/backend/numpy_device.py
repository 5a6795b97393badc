"""A second NumPy device, "cpu:k", for tests of multi-device behaviour where there is no GPU.

Note [a second NumPy device]: tests of multi-device scheduling need two devices where
there is no GPU. `register_numpy_device(k)` makes "cpu:k": its arrays are an ndarray
subclass that knows its device, its array module makes arrays there, and an op that
meets arrays of two devices raises naming both (as CuPy refuses NumPy arrays). It is for
tests: it finds every place that would make a constant on the wrong device.
"""
import numpy as np

from .arrays import ARRAY_MODULES
from .devices import NUMPY_DEVICES, Device, check_one_device

__all__ = ["register_numpy_device"]


class _NumpyDevice:
    """A registered second NumPy device: its array class and its array module."""

    def __init__(self, index):
        self.device = dev = Device.__new__(Device)
        dev.kind, dev.index = "cpu", index
        self.array = type(f"cpu{index}_ndarray", (_DeviceArray,), {"fgrad_device": dev})
        self.module = _DeviceModule(self.array, np)


def _on(cls, value):
    """NumPy results as arrays of the device class `cls` (tuples and lists of them too; a NumPy
    scalar becomes a 0-d array, as CuPy's reductions give)."""
    if isinstance(value, np.ndarray) and value.__class__ is not cls:
        return value.view(cls)
    if isinstance(value, np.generic):
        return np.asarray(value).view(cls)
    if isinstance(value, (tuple, list)):
        items = [_on(cls, v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)  # (namedtuples too)
    return value


def _foreign(x):
    """Is x a value with its own NumPy override (a traced value), to which NumPy defers?"""
    return not isinstance(x, (np.ndarray, np.generic, int, float, complex)) and hasattr(x, "__array_ufunc__")


class _DeviceArray(np.ndarray):
    """An array of a second NumPy device: ops keep it there, and refuse another device's."""

    fgrad_device = None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if any(_foreign(x) for x in inputs):
            return NotImplemented  # (another type's override, a traced value's, goes first)
        check_one_device(ufunc.__name__, inputs + tuple(kwargs.get("out", ())))
        plain = [x.view(np.ndarray) if isinstance(x, _DeviceArray) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(x.view(np.ndarray) if isinstance(x, _DeviceArray) else x for x in kwargs["out"])
        return _on(type(self), getattr(ufunc, method)(*plain, **kwargs))

    def __getitem__(self, index):  # (an element is a 0-d array here, as in CuPy, not a NumPy scalar)
        return _on(type(self), super().__getitem__(index))

    def __array_function__(self, func, types, args, kwargs):
        if any(not issubclass(t, np.ndarray) for t in types):
            return NotImplemented
        check_one_device(func.__name__, list(args) + list(kwargs.values()))
        return _on(type(self), super().__array_function__(func, tuple(np.ndarray if issubclass(t, _DeviceArray)
                                                                            else t for t in types), args, kwargs))


class _DeviceModule:
    """numpy, making its arrays on a second NumPy device (what cupy is to a CUDA device)."""

    numpy_backed = True

    def __init__(self, cls, module):
        self._cls, self._module = cls, module

    def __getattr__(self, name):
        value = getattr(self._module, name)
        if name in ("linalg", "fft", "random"):
            value = _DeviceModule(self._cls, value)
        elif callable(value) and not isinstance(value, (type, np.ufunc)):  # (ufuncs keep the device themselves)
            value = self._on_device(value, name)
        setattr(self, name, value)
        return value

    def _on_device(self, fn, name):
        """fn, run on plain arrays (NumPy's Python code makes temporaries of its own), its
        arguments first checked to be on one device, its arrays returned on this one."""
        cls = self._cls

        def on_device(*args, **kwargs):
            check_one_device(name, list(args) + list(kwargs.values()))
            return _on(cls, fn(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}))
        return on_device

    def over(self, module):
        """`module` (scipy.special, say) with its functions run this way."""
        return _DeviceModule(self._cls, module)


def _plain(value):
    if isinstance(value, _DeviceArray):
        return value.view(np.ndarray)
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    return value


def register_numpy_device(index=1):
    """Make "cpu:<index>" a second NumPy-backed device (for tests: Note [a second NumPy
    device]); returns it."""
    if index not in NUMPY_DEVICES:
        d = NUMPY_DEVICES[index] = _NumpyDevice(index)
        ARRAY_MODULES[d.array] = d.module
    return NUMPY_DEVICES[index].device
