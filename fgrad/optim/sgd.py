"""SGD: stochastic gradient descent with momentum, dampening, Nesterov, weight decay, maximize."""
import numpy as np

from .optimizer import Optimizer, ParamsT, _check, _check_lr, _decayed_grad

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, torch.optim.SGD's options and numbers.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.SGD([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); w.data  # w - lr * 2 w
    tensor([0.8])
    """

    def __init__(self, params: ParamsT, lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False, *, maximize: bool = False) -> None:
        _check_lr(lr)
        _check(momentum >= 0, "momentum value", momentum)
        _check(weight_decay >= 0, "weight_decay value", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))

    def _update(self, group, params):
        # As torch's: every buffer is read before any is written, so a parameter given twice
        # gets two updates, each with a fresh buffer on the first step (torch's numbers).
        momentum = group["momentum"]
        buffers = [self.state[p].get("momentum_buffer") for p in params] if momentum else None
        for i, p in enumerate(params):
            g = _decayed_grad(p, group)
            if momentum:
                buf = buffers[i]
                if buf is None:
                    buf = buffers[i] = np.array(g, copy=True)
                else:
                    buf *= momentum
                    buf += (1 - group["dampening"]) * g
                g = g + momentum * buf if group["nesterov"] else buf
            p.primal -= group["lr"] * g
            p._version_counter.value += 1
        for p, buf in zip(params, buffers or ()):
            self.state[p]["momentum_buffer"] = buf
