"""fgrad: differentiate NumPy and CuPy programs."""
from . import numpy  # noqa: F401  (attaches operators to traced values)
from .backend import Device, device
from .ir.graph import Graph, make_graph
from .ops.stop_gradient import stop_gradient
from .transforms.custom import checkpoint, custom_jvp, custom_vjp
from .transforms.forward import jvp, linearize
from .transforms.jacobians import hessian, hvp, jacfwd, jacrev
from .transforms.reverse import grad, value_and_grad, vjp

__version__ = "0.1.0"
__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "hessian", "hvp", "stop_gradient", "device", "Device", "make_graph", "Graph",
           "custom_vjp", "custom_jvp", "checkpoint"]
