"""Adagrad, RMSprop, Adadelta: steps scaled per coordinate by accumulated squared gradients
(a running sum, or a moving average), without Adam's bias corrections."""
import numpy as np

from .optimizer import Optimizer, ParamsT, _check, _check_lr

__all__ = ["Adadelta", "Adagrad", "RMSprop"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.): each coordinate's step divided by the root of its summed squares.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.Adagrad([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); w.data  # w - lr g / sqrt(g ** 2)
    tensor([0.9])
    """

    def __init__(self, params: ParamsT, lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, *, maximize: bool = False) -> None:
        _check_lr(lr)
        _check(lr_decay >= 0, "lr_decay value", lr_decay)
        _check(weight_decay >= 0, "weight_decay value", weight_decay)
        _check(initial_accumulator_value >= 0, "initial_accumulator_value value", initial_accumulator_value)
        _check(eps >= 0, "epsilon value", eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))
        # As torch's, the state exists from the start (a state_dict before any step has it).
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self._init_state(p.primal, group))

    def _init_state(self, param, group):
        start = group["initial_accumulator_value"]
        return dict(step=0, sum=np.full_like(param, complex(start, start) if np.iscomplexobj(param) else start))

    def _step(self, param, grad, state, group):
        lr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        state["sum"] += grad * grad
        param -= lr * (grad / (np.sqrt(state["sum"]) + group["eps"]))


class RMSprop(Optimizer):
    """RMSprop (Hinton): steps divided by a moving root mean square of the gradient, optionally
    centered (its variance instead) and with momentum.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.RMSprop([w], lr=0.01)
    >>> (w ** 2).sum().backward(); opt.step(); w.data  # v = (1 - alpha) g ** 2: w - lr g / sqrt(v)
    tensor([0.9])
    """

    def __init__(self, params: ParamsT, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False, *,
                 maximize: bool = False) -> None:
        _check_lr(lr)
        _check(eps >= 0, "epsilon value", eps)
        _check(momentum >= 0, "momentum value", momentum)
        _check(weight_decay >= 0, "weight_decay value", weight_decay)
        _check(alpha >= 0, "alpha value", alpha)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def _init_state(self, param, group):
        state = dict(step=0, square_avg=np.zeros_like(param))
        if group["momentum"] > 0:
            state["momentum_buffer"] = np.zeros_like(param)
        if group["centered"]:
            state["grad_avg"] = np.zeros_like(param)
        return state

    def _step(self, param, grad, state, group):
        alpha, square_avg = group["alpha"], state["square_avg"]
        square_avg *= alpha
        square_avg += (1 - alpha) * grad * grad
        if group["centered"]:
            mean = state["grad_avg"]
            mean += (1 - alpha) * (grad - mean)
            scale = np.sqrt(square_avg - mean * mean) + group["eps"]
        else:
            scale = np.sqrt(square_avg) + group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf *= group["momentum"]
            buf += grad / scale
            param -= group["lr"] * buf
        else:
            param -= group["lr"] * (grad / scale)


class Adadelta(Optimizer):
    """Adadelta (Zeiler): steps whose scale is the ratio of moving roots of past steps and of
    past gradients, so `lr` (1.0 by default) only rescales them.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.Adadelta([w], lr=1.0)
    >>> (w ** 2).sum().backward(); opt.step(); w.data
    tensor([0.99683773])
    """

    def __init__(self, params: ParamsT, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0.0,
                 *, maximize: bool = False) -> None:
        _check_lr(lr)
        _check(0.0 <= rho <= 1.0, "rho value", rho)
        _check(eps >= 0, "epsilon value", eps)
        _check(weight_decay >= 0, "weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))

    def _init_state(self, param, group):
        return dict(step=0, square_avg=np.zeros_like(param), acc_delta=np.zeros_like(param))

    def _step(self, param, grad, state, group):
        rho, eps, square_avg, acc_delta = group["rho"], group["eps"], state["square_avg"], state["acc_delta"]
        square_avg *= rho
        square_avg += (1 - rho) * grad * grad
        delta = np.sqrt(acc_delta + eps) / np.sqrt(square_avg + eps) * grad
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        param -= group["lr"] * delta
