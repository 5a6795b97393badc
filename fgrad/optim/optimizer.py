"""Optimizers update parameters in place from their .grad: SGD (momentum, weight decay) and Adam."""
import numpy as np

from ..autograd.grad_mode import no_grad

__all__ = ["SGD", "Adam", "Optimizer"]


class Optimizer:
    """Holds parameter groups; step() updates, zero_grad() clears .grad."""

    def __init__(self, params, defaults):
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__}: optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.param_groups = [{**defaults, **g, "params": list(g["params"])} for g in groups]
        self.state = {}

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad.zero_()

    def _each(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    yield group, p, p.grad.primal, self.state.setdefault(id(p), {})


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        if lr < 0:
            raise ValueError(f"SGD: invalid learning rate {lr}")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov))

    @no_grad()
    def step(self):
        for group, p, g, state in self._each():
            if group["weight_decay"]:
                g = g + group["weight_decay"] * p.primal
            if group["momentum"]:
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = np.array(g, copy=True)
                else:
                    buf *= group["momentum"]
                    buf += (1 - group["dampening"]) * g
                g = g + group["momentum"] * buf if group["nesterov"] else buf
            p.primal -= group["lr"] * g
            p._version_counter.value += 1


class Adam(Optimizer):
    """Adam (Kingma and Ba), with PyTorch's defaults and bias correction."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @no_grad()
    def step(self):
        for group, p, g, state in self._each():
            if group["weight_decay"]:
                g = g + group["weight_decay"] * p.primal
            b1, b2 = group["betas"]
            if not state:
                state.update(step=0, m=np.zeros_like(p.primal), v=np.zeros_like(p.primal))
            state["step"] += 1
            m, v, t = state["m"], state["v"], state["step"]
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            m_hat = m / (1 - b1 ** t)
            v_hat = v / (1 - b2 ** t)
            p.primal -= group["lr"] * m_hat / (np.sqrt(v_hat) + group["eps"])
            p._version_counter.value += 1
