"""sgd and adam as functional update rules on flat vectors, for ShardedOptimizer (sharded.py).

A rule is pure: `init(params)` gives its state (a dict of arrays of the parameters' shape, and
the step count), `update(params, grads, state)` the new parameters and state. The formulas
are fgrad.optim's (torch's): SGD with momentum, dampening, Nesterov and weight decay; Adam
with bias correction. They are written with operators and fgrad.numpy, so a compiled step
stages them too.
"""
import collections

from .. import numpy as fnp

__all__ = ["Rule", "adam", "sgd"]

Rule = collections.namedtuple("Rule", "name settings init update")
Rule.__doc__ = "An optimizer as two pure functions: init(params) -> state, update(params, grads, state)."


def sgd(lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0, weight_decay: float = 0.0,
        nesterov: bool = False) -> Rule:
    """Stochastic gradient descent, as fgrad.optim.SGD (torch.optim.SGD) computes it.

    Examples
    --------
    >>> import numpy as np
    >>> rule = sgd(lr=0.5)
    >>> p, state = rule.update(np.ones(2), np.ones(2), rule.init(np.ones(2)))
    >>> p.tolist()
    [0.5, 0.5]
    """
    if lr < 0 or momentum < 0 or weight_decay < 0:
        raise ValueError(f"sgd: lr, momentum and weight_decay must be >= 0, got {lr}, {momentum}, {weight_decay}")
    if nesterov and (momentum <= 0 or dampening != 0):
        raise ValueError("sgd: Nesterov momentum requires a momentum and zero dampening")

    def init(params):
        return {"step": 0, "momentum_buffer": fnp.zeros_like(params)}

    def update(params, grads, state):
        g = grads + weight_decay * params if weight_decay else grads
        buf = state["momentum_buffer"]
        if momentum:
            buf = g if state["step"] == 0 else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        return params - lr * g, {"step": state["step"] + 1, "momentum_buffer": buf}
    return Rule("sgd", dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                            nesterov=nesterov), init, update)


def adam(lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0.0) -> Rule:
    """Adam with bias correction, as fgrad.optim.Adam (torch.optim.Adam) computes it.

    Examples
    --------
    >>> import numpy as np
    >>> rule = adam(lr=0.1)
    >>> p, state = rule.update(np.zeros(2), np.array([1.0, -1.0]), rule.init(np.zeros(2)))
    >>> np.round(p, 6).tolist(), state["step"]
    ([-0.1, 0.1], 1)
    """
    b1, b2 = betas
    if lr < 0 or eps < 0 or weight_decay < 0 or not (0 <= b1 < 1 and 0 <= b2 < 1):
        raise ValueError(f"adam: invalid settings lr={lr}, betas={betas}, eps={eps}, weight_decay={weight_decay}")

    def init(params):
        return {"step": 0, "exp_avg": fnp.zeros_like(params), "exp_avg_sq": fnp.zeros_like(params)}

    def update(params, grads, state):
        g = grads + weight_decay * params if weight_decay else grads
        t = state["step"] + 1
        m = b1 * state["exp_avg"] + (1 - b1) * g
        v = b2 * state["exp_avg_sq"] + (1 - b2) * g * g
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        return params - lr * m_hat / (fnp.sqrt(v_hat) + eps), {"step": t, "exp_avg": m, "exp_avg_sq": v}
    return Rule("adam", dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay), init, update)
