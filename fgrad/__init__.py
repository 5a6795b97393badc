"""fgrad: differentiate NumPy and CuPy programs.

The folders, lowest layer first (each imports only the ones above it in this list;
tests/test_layers.py checks it), and the top-level modules:

- backend/: array modules and devices: NumPy backs "cpu", CuPy "cuda:N".
- ir/: the tape's IR: traced values, tape nodes, the Graph.
- ops/: the primitives, each declared once with its kernel and its derivative rules.
- engine/: the backward engine: ready queue, worker threads, the collector pause.
- transforms/: grad/vjp, jvp/linearize, vmap, jacobians, custom rules, make_graph.
- compile/: fgrad.compile: a composition staged once into a Program, optimized, written as Python, replayed.
- numpy/: fgrad.numpy, NumPy's names and signatures, differentiable, and the protocol bridge.
- lax/: fgrad.lax, jax.lax's control flow (cond, while_loop, scan, ...) and implicit differentiation.
- scipy/: fgrad.scipy: special, stats, linalg, signal, integrate.
- distributed/: fgrad.distributed: collectives on MPI, data_parallel, ZeRO-1 (the [distributed] extra).
- autograd/: the imperative, PyTorch-style face: Tensor, backward, Function, hooks.
- nn/: just enough of torch.nn for training loops.
- optim/: torch.optim's optimizers and lr_scheduler.
- utils/: fgrad.utils.data: Dataset, DataLoader, random_split.
- testing/: finite differences, check_grads, gradcheck.
- errors.py: fgrad.errors, the errors fgrad raises on purpose (beneath every layer).
- config.py: fgrad.config, the library-wide switches, as jax.config (beneath every layer).
- tree_util.py: fgrad.tree_util, pytrees on optree, as jax.tree_util (beneath every layer).
- tree.py: fgrad.tree, jax.tree's short names for tree_util's functions.
- flatten_util.py: fgrad.flatten_util.ravel_pytree.
- func.py: fgrad.func, the functional transforms under torch.func's names.
- cuda.py, accelerator.py: torch.cuda's and torch.accelerator's questions (is a CUDA device there?).
- typing.py: the type aliases of fgrad's public signatures.
- __main__.py: `python -m fgrad`, a one-minute tour.
"""
import sys as _sys

from . import (
                                 accelerator,
                                 autograd,
                                 cuda,
                                 errors,
                                 flatten_util,
                                 func,
                                 lax,  # noqa: F401  (fgrad.lax, an attribute of the package)
                                 nn,
                                 numpy,  # noqa: F401  (attaches operators to traced values)
                                 optim,
                                 scipy,
                                 tree,
                                 tree_util,
                                 utils,
)
from .autograd import Tensor, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .autograd import torch_fft as fft  # (torch.fft's namespace; fgrad.numpy.fft is NumPy's)
from .autograd import torch_linalg as linalg  # (torch.linalg's namespace; fgrad.numpy.linalg is NumPy's)
from .autograd import torch_special as special  # (torch.special's; fgrad.scipy.special is SciPy's)
from .autograd.dtypes import *  # noqa: F403  (torch's dtype names: fgrad.float32, fgrad.long, ...; Size)
from .autograd.factories import (
                                 arange,
                                 as_tensor,
                                 bernoulli,
                                 empty,
                                 eye,
                                 from_numpy,
                                 full,
                                 full_like,
                                 get_default_device,
                                 linspace,
                                 manual_seed,
                                 multinomial,
                                 normal,
                                 ones,
                                 ones_like,
                                 rand,
                                 rand_like,
                                 randint,
                                 randn,
                                 randn_like,
                                 randperm,
                                 set_default_device,
                                 tensor,
                                 zeros,
                                 zeros_like,
)
from .autograd.generator import Generator, default_generator
from .autograd.grad_mode import inference_mode
from .autograd.serialization import load, save
from .autograd.torch_complex import *  # noqa: F403  (fgrad.view_as_real, complex, polar, angle, cdist, ...)
from .autograd.torch_functions import *  # noqa: F403  (torch's functions: fgrad.cat, fgrad.gather, ...)
from .autograd.torch_order import *  # noqa: F403  (fgrad.median, quantile, kthvalue, cummax, unique, ...)
from .autograd.torch_shapes import *  # noqa: F403  (fgrad.meshgrid, hstack, tensor_split, index_add, cov, ...)
from .backend import Device, device, devices
from .compile.api import compile
from .config import config
from .engine.threads import get_num_threads, set_num_threads
from .ir.graph import Graph
from .ops.devices import device_put
from .ops.stop_gradient import stop_gradient
from .testing import gradcheck, gradgradcheck
from .transforms.batching import vmap
from .transforms.custom import checkpoint, custom_jvp, custom_vjp
from .transforms.forward import jvp, linearize
from .transforms.graph import make_graph
from .transforms.jacobians import hessian, hvp, jacfwd, jacobian, jacrev
from .transforms.reverse import grad, value_and_grad, vjp

__version__ = "0.1.0"
__all__ = [*autograd.dtypes.__all__, *autograd.torch_functions.__all__, *autograd.torch_complex.__all__,
           *autograd.torch_order.__all__, *autograd.torch_shapes.__all__,
                                 "Device",
                                 "accelerator",
                                 "cuda",
                                 "Generator",
                                 "Graph",
                                 "Tensor",
                                 "arange",
                                 "as_tensor",
                                 "bernoulli",
                                 "autograd",
                                 "checkpoint",
                                 "compile",
                                 "config",
                                 "custom_jvp",
                                 "custom_vjp",
                                 "default_generator",
                                 "device",
                                 "device_put",
                                 "devices",
                                 "empty",
                                 "enable_grad",
                                 "errors",
                                 "flatten_util",
                                 "eye",
                                 "from_numpy",
                                 "full",
                                 "full_like",
                                 "func",
                                 "get_default_device",
                                 "get_num_threads",
                                 "grad",
                                 "gradcheck",
                                 "gradgradcheck",
                                 "hessian",
                                 "hvp",
                                 "inference_mode",
                                 "is_grad_enabled",
                                 "jacfwd",
                                 "jacobian",
                                 "jacrev",
                                 "jvp",
                                 "linearize",
                                 "linspace",
                                 "load",
                                 "make_graph",
                                 "manual_seed",
                                 "multinomial",
                                 "normal",
                                 "nn",
                                 "no_grad",
                                 "ones",
                                 "ones_like",
                                 "optim",
                                 "rand",
                                 "rand_like",
                                 "randint",
                                 "randn",
                                 "randn_like",
                                 "randperm",
                                 "set_default_device",
                                 "save",
                                 "scipy",
                                 "set_grad_enabled",
                                 "set_num_threads",
                                 "stop_gradient",
                                 "tensor",
                                 "utils",
                                 "value_and_grad",
                                 "vjp",
                                 "vmap",
                                 "zeros",
                                 "zeros_like",
                                 "tree",
                                 "tree_util",
                                 "linalg",
                                 "fft",
                                 "special",
]
_sys.modules[__name__ + ".linalg"] = linalg  # (`import fgrad.linalg`, `from fgrad.linalg import norm`, as torch's)
_sys.modules[__name__ + ".fft"] = fft
_sys.modules[__name__ + ".special"] = special
