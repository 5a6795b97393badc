"""Moving values between devices: the transfer primitive, and device_put.

A transfer's cotangent goes back the way its value came (to `source`), so a derivative
comes back on the device of its input; its tangent goes the same way as its value.
"""
import numpy as np

from ..backend import device as to_device
from ..backend import device_of
from ..ir.value import Tracer, peek
from ..tree_util import tree_map
from ..typing import Any, PyTree
from .primitive import Primitive

__all__ = ["device_put", "transfer"]


transfer = Primitive("transfer", lambda x, device, source: device.send(x), saves="nothing", torch_name="ToCopy",
                     batch=lambda args, dims, device, source: (transfer(args[0], device=device, source=source),
                                                               dims[0]))
transfer.defvjp(lambda g, ans, x, device, source: transfer(g, device=source, source=device)).defjvp(
    lambda t, ans, x, device, source: transfer(t, device=device, source=source))


def _put(x, device):
    if not (isinstance(x, Tracer) or hasattr(x, "shape")):
        x = np.asarray(x)
    source = device_of(peek(x))
    return x if source == device else transfer(x, device=device, source=source)


def device_put(x: PyTree, device: Any) -> PyTree:
    """`x` (an array, a traced value or a pytree of them) on `device` ("cpu", "cuda:0", or a
    Device); differentiable: the derivative goes back to where each value came from.

    Examples
    --------
    >>> x = fgrad.device_put(np.array([1.0, 2.0]), "cpu")
    >>> fgrad.grad(lambda x: fnp.sum(fgrad.device_put(x, "cpu") ** 2))(x)
    array([2., 4.])
    """
    device = to_device(device)
    return tree_map(lambda v: _put(v, device), x)
