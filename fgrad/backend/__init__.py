"""fgrad.backend: array modules and devices: NumPy backs "cpu", CuPy backs "cuda:N".

Op code is written once against the array module of its inputs (Chainer's `xp`),
never forked by device. CuPy is optional: without it only "cpu" exists. The public
names live in three modules and are all re-exported here (`fgrad.backend.device_of`):

- arrays.py: the array module of some values (`array_module`), whether CuPy is there,
  SciPy's functions for an array module (`scipy_function`, and `scipy_over_stacks` for
  scipy.linalg's over stacks of matrices), host copies (`to_host`).
- devices.py: `Device`, `CPU`, `device`, `devices`, `device_of`, and `check_one_device`,
  which raises DeviceMismatchError when one op's arrays live on two devices.
- numpy_device.py: `register_numpy_device`, the test-only second NumPy device "cpu:k"
  (Note [a second NumPy device]).

The modules import one way: arrays.py <- devices.py <- numpy_device.py.
"""
from .arrays import (
    array_module,
    cupy_available,
    linalg_errors_raised,
    over_stacks,
    scipy_function,
    scipy_over_stacks,
    to_host,
)
from .devices import CPU, Device, DeviceMismatchError, check_one_device, device, device_of, devices
from .numpy_device import register_numpy_device

__all__ = ["CPU", "Device", "DeviceMismatchError", "array_module", "check_one_device", "cupy_available", "device",
           "device_of", "devices", "linalg_errors_raised", "over_stacks", "register_numpy_device",
           "scipy_function", "scipy_over_stacks", "to_host"]
