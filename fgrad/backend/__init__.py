"""Devices and array modules: NumPy backs "cpu", CuPy backs "cuda:N".

Op code is written once against the array module of its inputs (Chainer's `xp`),
never forked by device. CuPy is optional: without it only "cpu" exists.

Note [a second NumPy device]: tests of multi-device scheduling need two devices where
there is no GPU. `register_numpy_device(k)` makes "cpu:k": its arrays are an ndarray
subclass that knows its device, its array module makes arrays there, and an op that
meets arrays of two devices raises naming both (as CuPy refuses NumPy arrays). It is for
tests: it finds every place that would make a constant on the wrong device.
"""
import contextlib
import functools
import importlib

import numpy as np

from ..errors import DeviceMismatchError  # (public here too: fgrad.backend.DeviceMismatchError)

try:  # CuPy is an optional extra; its absence must cost nothing on the CPU path.
    import cupy as _cupy
    _CUPY_ARRAY = _cupy.ndarray
except Exception:  # ImportError, or a CuPy without a usable CUDA runtime
    _cupy = None
    _CUPY_ARRAY = ()

__all__ = ["CPU", "Device", "DeviceMismatchError", "array_module", "check_one_device", "cupy_available", "device",
           "device_of", "devices", "register_numpy_device", "scipy_function", "to_host"]


def cupy_available():
    """True when CuPy imports and sees at least one CUDA device."""
    if _cupy is None:
        return False
    try:
        return _cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


_MODULES = {}  # array class -> its array module, for the classes that are not NumPy's ndarray


def array_module(*values):
    """The array module that owns `values` (cupy for CuPy arrays, numpy for NumPy arrays and
    Python scalars, a second NumPy device's module for its arrays)."""
    if not _MODULES:  # (no CuPy, no second device: the common case)
        return np
    for v in values:
        m = _MODULES.get(v.__class__)
        if m is not None:
            return m
    return np


if _cupy is not None:
    _MODULES[_CUPY_ARRAY] = _cupy


@functools.cache
def scipy_function(xp, module, name, on_device=True):
    """scipy.<module>.<name> ("special", "linalg", "signal") for arrays of the array module xp:
    SciPy's for NumPy (and a second NumPy device's), cupyx.scipy's for CuPy, or, where cupyx
    lacks it (or not `on_device`), SciPy's on host copies with the results copied back."""
    scipy_module = importlib.import_module(f"scipy.{module}")
    if xp is np:
        return getattr(scipy_module, name)
    if getattr(xp, "numpy_backed", False):  # (a second NumPy device, for tests: Note [a second NumPy device])
        return getattr(xp.over(scipy_module), name)
    fn = getattr(importlib.import_module(f"cupyx.scipy.{module}"), name, None) if on_device else None
    return fn if fn is not None else _on_host(xp, getattr(scipy_module, name))


def to_host(x):
    """x as a NumPy array (a CuPy array copied to the host)."""
    return _to_numpy(x)


def _on_host(xp, fn):
    def run(*args, **params):
        out = fn(*[to_host(a) if isinstance(a, xp.ndarray) else a for a in args], **params)
        return tuple(xp.asarray(o) for o in out) if isinstance(out, tuple) else xp.asarray(out)
    return run


class Device:
    """A place where arrays live: `Device("cpu")` or `Device("cuda:0")`."""

    __slots__ = ("kind", "index")

    def __init__(self, spec="cpu"):
        if isinstance(spec, Device):
            self.kind, self.index = spec.kind, spec.index
            return
        kind, _, index = str(spec).partition(":")
        if kind not in ("cpu", "cuda"):
            raise ValueError(f"fgrad.device: unknown device {spec!r}; use 'cpu' or 'cuda:N'")
        if kind == "cuda" and not cupy_available():
            raise RuntimeError(f"fgrad.device({spec!r}): CUDA needs CuPy and a GPU, and none is available")
        self.kind = kind
        self.index = int(index) if index else (0 if kind == "cuda" else None)
        if kind == "cpu" and self.index is not None and self.index not in _NUMPY_DEVICES:
            raise ValueError(f"fgrad.device: unknown device {spec!r}; the CPU is 'cpu' (a 'cpu:N' exists only "
                             f"when registered for tests, register_numpy_device)")

    @property
    def xp(self):
        """The array module that backs this device."""
        if self.kind == "cuda":
            return _cupy
        return np if self.index is None else _NUMPY_DEVICES[self.index].module

    def send(self, array):
        """Move `array` to this device (a no-op when it already lives here)."""
        if self.kind == "cpu":
            if self.index is not None:
                return _NUMPY_DEVICES[self.index].module.asarray(_to_numpy(array))
            return _to_numpy(array)
        with _cupy.cuda.Device(self.index):
            return _cupy.asarray(array)

    def running(self):
        """A context in which this device runs an engine worker's node: for a CUDA device its
        own stream, ordered after what the driver queued on the default stream before, and
        the default stream after it (events, not a device-wide synchronisation)."""
        if self.kind != "cuda":
            return contextlib.nullcontext()
        return _cuda_running(self)

    def __eq__(self, other):
        if isinstance(other, str):
            return str(self) == (other if ":" in other or other == "cpu" else f"{other}:0")
        return isinstance(other, Device) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self):
        return hash((self.kind, self.index))

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.kind}')"
        return f"device(type='{self.kind}', index={self.index})"

    def __str__(self):
        return self.kind if self.index is None else f"{self.kind}:{self.index}"


CPU = Device("cpu")


def device(spec="cpu"):
    """`fgrad.device("cpu")` or `fgrad.device("cuda:0")`."""
    return spec if isinstance(spec, Device) else (CPU if spec == "cpu" else Device(spec))


def devices():
    """Every device fgrad can use here: the CPU, each CUDA device CuPy sees, and any second
    NumPy device registered for tests."""
    out = [CPU]
    if cupy_available():
        out += [Device(f"cuda:{i}") for i in range(_cupy.cuda.runtime.getDeviceCount())]
    return out + [d.device for _, d in sorted(_NUMPY_DEVICES.items())]


def device_of(value):
    """The device an array lives on (CPU for NumPy arrays and Python scalars)."""
    if value.__class__ is np.ndarray:
        return CPU
    if _CUPY_ARRAY and isinstance(value, _CUPY_ARRAY):
        return _cuda_device(value.device.id)
    return getattr(value, "fgrad_device", CPU)


def _cuda_device(index):
    """The Device of CUDA device `index`, made once (the engine asks for it per node)."""
    d = _CUDA_DEVICES.get(index)
    if d is None:
        d = _CUDA_DEVICES[index] = Device(f"cuda:{index}")
    return d


_CUDA_DEVICES = {}


def _to_numpy(array):
    if _CUPY_ARRAY and isinstance(array, _CUPY_ARRAY):
        return _cupy.asnumpy(array)
    return np.asarray(array)  # (a second NumPy device's array comes back as a plain ndarray)


@contextlib.contextmanager
def _cuda_running(dev):
    with _cupy.cuda.Device(dev.index):
        stream = _STREAMS.get(dev.index)
        if stream is None:
            stream = _STREAMS[dev.index] = _cupy.cuda.Stream(non_blocking=True)
        stream.wait_event(_cupy.cuda.Stream.null.record())
        with stream:
            yield
        _cupy.cuda.Stream.null.wait_event(stream.record())


_STREAMS = {}  # CUDA device index -> the stream its engine worker runs nodes on


def _device_of_array(x):
    """The device of an operand of a NumPy call; None for scalars (they go anywhere)."""
    return device_of(x) if isinstance(x, (np.ndarray, _CUPY_ARRAY)) else None


def check_one_device(name, operands):
    """Raise DeviceMismatchError, naming op `name` and both devices, when the arrays among
    `operands` (nested lists and tuples too) live on two devices."""
    seen = None
    for x in operands:
        if isinstance(x, (list, tuple)):
            check_one_device(name, x)
            continue
        d = _device_of_array(x)
        if d is not None:
            if seen is None:
                seen = d
            elif d != seen:
                raise DeviceMismatchError(f"fgrad: {name} got arrays on two devices, {seen} and {d}; move one "
                                          f"with fgrad.device_put(x, device) (Tensor.to(device))")


# ---- a second NumPy device, for tests (Note [a second NumPy device]) ------------------------
_NUMPY_DEVICES = {}  # index -> _NumpyDevice


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
    if index not in _NUMPY_DEVICES:
        d = _NUMPY_DEVICES[index] = _NumpyDevice(index)
        _MODULES[d.array] = d.module
    return _NUMPY_DEVICES[index].device
