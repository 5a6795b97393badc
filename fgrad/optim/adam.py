"""The Adam family: Adam, AdamW, Adamax, NAdam, RAdam.

Each keeps a moving average of the gradient (exp_avg) and of its scale (exp_avg_sq, or
Adamax's exp_inf), both started at zero, so each divides by its bias correction 1 - beta**step.
"""
import numpy as np

from .optimizer import Optimizer, ParamsT, _check, _check_betas, _check_lr

__all__ = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam"]


def _correction(beta, step):
    """1 - beta**step: the weight a zero-started moving average has gathered after `step` steps."""
    return 1 - beta ** step


def _moments(grad, state, b1, b2, scratch):
    """Update the averages of the gradient and of its square in place, through `scratch` (an
    array like grad): m += (1 - b1) (g - m) (torch's lerp), v = b2 v + (1 - b2) g g.

    Why the out= arguments: a temporary the size of a parameter is a fresh mmap each time
    (NumPy caches only small blocks), and its page faults cost more than the arithmetic: with
    one scratch array, Adam's step on an MLP of W2's sizes went from 4.4 ms to 2.4 ms (torch
    2.13's single-tensor Adam: 3.2 ms, this machine)."""
    m, v = state["exp_avg"], state["exp_avg_sq"]
    np.subtract(grad, m, out=scratch)
    scratch *= 1 - b1
    m += scratch
    v *= b2
    np.multiply(grad, grad, out=scratch)
    scratch *= 1 - b2
    v += scratch
    return m, v


def _check_common(lr, betas, eps, weight_decay):
    _check_lr(lr)
    _check(eps >= 0, "epsilon value", eps)
    _check_betas(betas)
    _check(weight_decay >= 0, "weight_decay value", weight_decay)


class Adam(Optimizer):
    """Adam (Kingma and Ba) with torch's options: amsgrad, maximize, decoupled_weight_decay.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.Adam([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); w.data  # the first step moves by lr
    tensor([0.9])
    """

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False,
                 decoupled_weight_decay: bool = False) -> None:
        _check_common(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, decoupled_weight_decay=decoupled_weight_decay))

    def _init_state(self, param, group):
        state = dict(step=0, exp_avg=np.zeros_like(param), exp_avg_sq=np.zeros_like(param))
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = np.zeros_like(param)
        return state

    def _step(self, param, grad, state, group):
        b1, b2 = group["betas"]
        update = np.empty_like(param)  # (the one scratch array: _moments says why)
        m, v = _moments(grad, state, b1, b2, update)
        if group["amsgrad"]:  # the largest second moment so far: steps never grow back
            v = np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
        # param -= lr / bc1 * m / (sqrt(v) / sqrt(bc2) + eps), torch's order of operations
        np.sqrt(v, out=update)
        update /= _correction(b2, state["step"]) ** 0.5
        update += group["eps"]
        np.divide(m, update, out=update)
        update *= group["lr"] / _correction(b1, state["step"])
        param -= update


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter), weight_decay 1e-2 by default.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.AdamW([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); w.data  # and decays w by lr * weight_decay
    tensor([0.899])
    """

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         decoupled_weight_decay=True)


class Adamax(Adam):
    """Adamax: Adam with the infinity norm of past gradients in place of the root mean square.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.Adamax([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); w.data
    tensor([0.9])
    """

    def __init__(self, params: ParamsT, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, *, maximize: bool = False) -> None:
        _check_common(lr, betas, eps, weight_decay)
        Optimizer.__init__(self, params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                              maximize=maximize))

    def _init_state(self, param, group):
        return dict(step=0, exp_avg=np.zeros_like(param), exp_inf=np.zeros_like(param))

    def _step(self, param, grad, state, group):
        b1, b2 = group["betas"]
        m, u = state["exp_avg"], state["exp_inf"]
        m += (1 - b1) * (grad - m)
        u *= b2
        np.maximum(u, np.abs(grad) + group["eps"], out=u)
        param -= group["lr"] / _correction(b1, state["step"]) * (m / u)


class NAdam(Adam):
    """NAdam (Dozat): Adam with Nesterov momentum, its momentum warmed up by `momentum_decay`.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.NAdam([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); w.data
    tensor([0.89435482])
    """

    def __init__(self, params: ParamsT, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 maximize: bool = False) -> None:
        _check_common(lr, betas, eps, weight_decay)
        _check(momentum_decay >= 0, "momentum_decay value", momentum_decay)
        Optimizer.__init__(self, params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                              momentum_decay=momentum_decay, maximize=maximize,
                                              decoupled_weight_decay=decoupled_weight_decay))

    def _init_state(self, param, group):
        return dict(step=0, mu_product=1.0, exp_avg=np.zeros_like(param), exp_avg_sq=np.zeros_like(param))

    def _step(self, param, grad, state, group):
        b1, b2 = group["betas"]
        step, lr = state["step"], group["lr"]
        mu, mu_next = (b1 * (1.0 - 0.5 * 0.96 ** (t * group["momentum_decay"])) for t in (step, step + 1))
        state["mu_product"] *= mu
        mu_product = state["mu_product"]
        m, v = _moments(grad, state, b1, b2, np.empty_like(param))
        denom = np.sqrt(v / _correction(b2, step)) + group["eps"]
        param += (-lr * (1.0 - mu) / (1.0 - mu_product)) * (grad / denom)
        param += (-lr * mu_next / (1.0 - mu_product * mu_next)) * (m / denom)


class RAdam(Adam):
    """RAdam (Liu et al.): Adam whose adaptive step is rectified by its variance, and plain
    momentum SGD while that variance is undefined (the first steps).

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.RAdam([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); w.data  # un-rectified at first: SGD with momentum
    tensor([0.8])
    """

    def __init__(self, params: ParamsT, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, decoupled_weight_decay: bool = False, *, maximize: bool = False) -> None:
        _check_common(lr, betas, eps, weight_decay)
        Optimizer.__init__(self, params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                              maximize=maximize, decoupled_weight_decay=decoupled_weight_decay))

    def _init_state(self, param, group):
        return dict(step=0, exp_avg=np.zeros_like(param), exp_avg_sq=np.zeros_like(param))

    def _step(self, param, grad, state, group):
        b1, b2 = group["betas"]
        step = state["step"]
        m, v = _moments(grad, state, b1, b2, np.empty_like(param))
        m_hat = m / _correction(b1, step)
        rho_inf = 2 / (1 - b2) - 1
        rho = rho_inf - 2 * step * b2 ** step / _correction(b2, step)
        if rho > 5.0:
            rect = ((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho)) ** 0.5
            adaptive = _correction(b2, step) ** 0.5 / (np.sqrt(v) + group["eps"])
            param -= m_hat * group["lr"] * adaptive * rect
        else:
            param -= m_hat * group["lr"]
