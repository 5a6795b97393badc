"""Devices and array modules: NumPy backs "cpu", CuPy backs "cuda:N".

Op code is written once against the array module of its inputs (Chainer's `xp`),
never forked by device. CuPy is optional: without it only "cpu" exists.
"""
import numpy as np

try:  # CuPy is an optional extra; its absence must cost nothing on the CPU path.
    import cupy as _cupy
    _CUPY_ARRAY = _cupy.ndarray
except Exception:  # ImportError, or a CuPy without a usable CUDA runtime
    _cupy = None
    _CUPY_ARRAY = ()

__all__ = ["Device", "array_module", "cupy_available", "device", "device_of"]


def cupy_available():
    """True when CuPy imports and sees at least one CUDA device."""
    if _cupy is None:
        return False
    try:
        return _cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


if _cupy is None:
    def array_module(*values):
        """The array module (numpy or cupy) that owns `values`: without CuPy, numpy."""
        return np
else:
    def array_module(*values):
        """The array module (numpy or cupy) that owns `values`; numpy for Python scalars."""
        for v in values:
            if isinstance(v, _CUPY_ARRAY):
                return _cupy
        return np


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

    @property
    def xp(self):
        """The array module that backs this device."""
        return np if self.kind == "cpu" else _cupy

    def send(self, array):
        """Move `array` to this device (a no-op when it already lives here)."""
        if self.kind == "cpu":
            return _cupy.asnumpy(array) if _CUPY_ARRAY and isinstance(array, _CUPY_ARRAY) else np.asarray(array)
        with _cupy.cuda.Device(self.index):
            return _cupy.asarray(array)

    def __eq__(self, other):
        other = Device(other) if isinstance(other, str) else other
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


def device_of(value):
    """The device an array lives on (CPU for NumPy arrays and Python scalars)."""
    if _CUPY_ARRAY and isinstance(value, _CUPY_ARRAY):
        return Device(f"cuda:{value.device.id}")
    return CPU
