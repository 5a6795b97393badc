"""fgrad: differentiate NumPy and CuPy programs."""
from . import numpy  # noqa: F401  (attaches operators to traced values)
from . import autograd, nn, optim, scipy
from .autograd import Tensor, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.factories import (arange, as_tensor, empty, eye, from_numpy, full, full_like, linspace,
                                 manual_seed, ones, ones_like, rand, randint, randn, tensor, zeros, zeros_like)
from .backend import Device, device
from .ir.graph import Graph
from .ops.stop_gradient import stop_gradient
from .transforms.custom import checkpoint, custom_jvp, custom_vjp
from .transforms.graph import make_graph
from .transforms.forward import jvp, linearize
from .transforms.jacobians import hessian, hvp, jacfwd, jacrev
from .transforms.reverse import grad, value_and_grad, vjp

from .numpy import allclose
from .testing import gradcheck, gradgradcheck

__version__ = "0.1.0"
__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "hessian", "hvp", "stop_gradient", "device", "Device", "make_graph", "Graph",
           "custom_vjp", "custom_jvp", "checkpoint", "autograd", "nn", "optim", "scipy", "Tensor", "tensor", "as_tensor", "from_numpy",
           "zeros", "ones", "full", "empty", "eye", "arange", "linspace", "randn", "rand", "randint", "zeros_like",
           "ones_like", "full_like", "manual_seed", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "gradcheck", "gradgradcheck", "allclose"]
