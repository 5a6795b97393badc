"""Devices: where arrays live (NumPy backs "cpu", CuPy "cuda:N"), the device of an array, and
the check that one op's arrays live on one device.

A device is named as torch names one (`fgrad.device("cuda:0")`); a CUDA device runs an
engine worker's nodes on its own stream (`Device.running`). A "cpu:k" exists only once a
test registers it (numpy_device.py, Note [a second NumPy device]).
"""
import contextlib
from typing import Any

import numpy as np

from ..errors import DeviceMismatchError  # (public here too: fgrad.backend.DeviceMismatchError)
from .arrays import CUPY_ARRAY, cupy, cupy_available, to_host

__all__ = ["CPU", "Device", "DeviceMismatchError", "check_one_device", "device", "device_of", "devices"]

# index k -> the registered second NumPy device "cpu:k" (numpy_device.register_numpy_device fills it)
NUMPY_DEVICES = {}


class Device:
    """A place where arrays live: `Device("cpu")` or `Device("cuda:0")`.

    Examples
    --------
    >>> d = fgrad.Device("cpu")
    >>> d, d.kind, d.index
    (device(type='cpu'), 'cpu', None)
    """

    __slots__ = ("kind", "index")

    def __init__(self, spec: "str | Device" = "cpu") -> None:
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
        if kind == "cpu" and self.index is not None and self.index not in NUMPY_DEVICES:
            raise ValueError(f"fgrad.device: unknown device {spec!r}; the CPU is 'cpu' (a 'cpu:N' exists only "
                             f"when registered for tests, register_numpy_device)")

    @property
    def xp(self) -> Any:  # (NumPy, CuPy or a test device's module)
        """The array module that backs this device."""
        if self.kind == "cuda":
            return cupy
        return np if self.index is None else NUMPY_DEVICES[self.index].module

    def send(self, array: Any) -> Any:  # (an array of this device's module)
        """Move `array` to this device (a no-op when it already lives here)."""
        if self.kind == "cpu":
            if self.index is not None:
                return NUMPY_DEVICES[self.index].module.asarray(to_host(array))
            return to_host(array)
        with cupy.cuda.Device(self.index):
            return cupy.asarray(array)

    def running(self) -> contextlib.AbstractContextManager[Any]:
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


def device(spec: str | Device = "cpu") -> Device:
    """`fgrad.device("cpu")` or `fgrad.device("cuda:0")`.

    Examples
    --------
    >>> fgrad.device("cpu") == fgrad.Device("cpu")
    True
    """
    return spec if isinstance(spec, Device) else (CPU if spec == "cpu" else Device(spec))


def devices() -> list[Device]:
    """Every device fgrad can use here: the CPU, each CUDA device CuPy sees, and any second
    NumPy device registered for tests.

    Examples
    --------
    >>> fgrad.devices()[0]
    device(type='cpu')
    """
    out = [CPU]
    if cupy_available():
        out += [Device(f"cuda:{i}") for i in range(cupy.cuda.runtime.getDeviceCount())]
    return out + [d.device for _, d in sorted(NUMPY_DEVICES.items())]


def device_of(value: Any) -> Device:
    """The device an array lives on (CPU for NumPy arrays and Python scalars)."""
    if value.__class__ is np.ndarray:
        return CPU
    if CUPY_ARRAY and isinstance(value, CUPY_ARRAY):
        return _cuda_device(value.device.id)
    return getattr(value, "fgrad_device", CPU)


def _cuda_device(index):
    """The Device of CUDA device `index`, made once (the engine asks for it per node)."""
    d = _CUDA_DEVICES.get(index)
    if d is None:
        d = _CUDA_DEVICES[index] = Device(f"cuda:{index}")
    return d


_CUDA_DEVICES = {}


@contextlib.contextmanager
def _cuda_running(dev):
    with cupy.cuda.Device(dev.index):
        stream = _STREAMS.get(dev.index)
        if stream is None:
            stream = _STREAMS[dev.index] = cupy.cuda.Stream(non_blocking=True)
        stream.wait_event(cupy.cuda.Stream.null.record())
        with stream:
            yield
        cupy.cuda.Stream.null.wait_event(stream.record())


_STREAMS = {}  # CUDA device index -> the stream its engine worker runs nodes on


def _device_of_array(x):
    """The device of an operand of a NumPy call; None for scalars (they go anywhere)."""
    return device_of(x) if isinstance(x, (np.ndarray, CUPY_ARRAY)) else None


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
