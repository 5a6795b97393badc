"""fgrad.nn modules: Module, Parameter, Linear, activations, Sequential, losses."""
import collections
import math

from ..autograd.factories import _rng
from ..autograd.tensor import Tensor
from . import functional as F

__all__ = ["CrossEntropyLoss", "Linear", "MSELoss", "Module", "Parameter", "ReLU", "Sequential", "Sigmoid", "Tanh"]


def _typename(value):
    """How torch.typename names a value in Module's messages: fgrad.Tensor, or the class."""
    if isinstance(value, Tensor):
        return "fgrad.Tensor"
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


class Parameter(Tensor):
    """A leaf tensor that a Module registers as a parameter (requires grad by default)."""

    __slots__ = ()

    def __init__(self, data, requires_grad=True):
        Tensor.__init__(self, data.primal if isinstance(data, Tensor) else data, requires_grad=requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)


class Module:
    """Base class: assign Parameters and Modules as attributes; implement forward()."""

    def __init__(self):
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        # As torch's Module: a Parameter is registered (and leaves the modules); a name that is a
        # parameter takes only a Parameter or None, so the optimizer never trains a tensor the
        # module no longer uses; a name that is a child module takes only a Module or None.
        params = self.__dict__.get("_parameters")
        if params is None:
            if isinstance(value, (Parameter, Module)):
                raise AttributeError(f"cannot assign {'parameters' if isinstance(value, Parameter) else 'module'} "
                                     f"before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        if isinstance(value, Parameter):
            self._modules.pop(name, None)
            params[name] = value
        elif name in params:
            if value is not None:
                advice = "; to train it, wrap it: fgrad.nn.Parameter(value)" if hasattr(value, "shape") else ""
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (fgrad.nn.Parameter or "
                                f"None expected){advice}")
            params[name] = None
        elif isinstance(value, Module):
            params.pop(name, None)
            self._modules[name] = value
        elif name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (fgrad.nn.Module or "
                                f"None expected)")
            self._modules[name] = None
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self.__dict__.get("_parameters", {}).pop(name, None)
        self.__dict__.get("_modules", {}).pop(name, None)
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        """Add `param` (a Parameter, or None for a parameter slot left empty) under `name`."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' (fgrad.nn.Parameter "
                            f"or None required)")
        self._modules.pop(name, None)
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix=""):
        seen = set()
        for name, p in self._parameters.items():
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                yield prefix + name, p
        for mname, module in self._modules.items():
            if module is None:
                continue
            for name, p in module.named_parameters(prefix + mname + "."):
                if id(p) not in seen:
                    seen.add(id(p))
                    yield name, p

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def children(self):
        return (m for m in self._modules.values() if m is not None)

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def train(self, mode=True):
        object.__setattr__(self, "training", bool(mode))
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def __repr__(self):
        inner = "".join(f"\n  ({k}): " + repr(m).replace("\n", "\n  ") for k, m in self._modules.items()
                        if m is not None)
        return f"{type(self).__name__}({self.extra_repr()}{inner}{chr(10) if inner else ''})"

    def extra_repr(self):
        return ""


class Linear(Module):
    """y = x @ W.T + b, with W of shape (out_features, in_features), PyTorch's initialization."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        self.weight = Parameter(_rng[0].uniform(-bound, bound, (out_features, in_features)))
        self.register_parameter("bias", Parameter(_rng[0].uniform(-bound, bound, (out_features,))) if bias else None)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class ReLU(Module):
    def forward(self, x):
        return F.relu(x)


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class Sequential(Module):
    """Modules applied in order."""

    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)


class _Loss(Module):
    """A loss function as a module: forward(input, target) with a reduction."""

    loss = None

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return type(self).loss(input, target, self.reduction)


class MSELoss(_Loss):
    loss = staticmethod(F.mse_loss)


class CrossEntropyLoss(_Loss):
    loss = staticmethod(F.cross_entropy)



