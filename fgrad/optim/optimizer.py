"""The Optimizer base: parameter groups, per-parameter state, state_dict, and the pieces every
update rule shares (maximize, weight decay, complex parameters as pairs of reals).

A rule is one `_step(param, grad, state, group)` on arrays, in place; `_init_state` makes its
state on a parameter's first step. torch 2.13's single-tensor code is the reference for the
order of operations (so float64 trajectories agree to rounding), not its foreach or fused paths.

Note [optimizer state follows its parameters]: as torch's, `Optimizer.state` is keyed by the
parameter objects themselves (a Tensor hashes by identity), never by `id(p)`: an id is a
number that pickle, copy.deepcopy and a restarted process do not keep, so state keyed by it
would silently start over (Adam's moments from zero) after `pickle.loads(pickle.dumps((model,
opt)))`. Keyed by the objects, the state travels with them through pickle and deepcopy (which
keep shared objects shared). `state_dict()` names parameters by their position in the groups
instead, as torch's does, and `load_state_dict()` gives each position's state to the parameter
now at that position. The state's arrays are copied both ways: a dict taken as a checkpoint
does not change as training goes on (torch shares them; a checkpoint kept in memory would
silently follow the optimizer).
"""
import collections
import copy
import warnings
from collections.abc import Mapping
from typing import TypeAlias, TypeVar

import numpy as np

from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.tensor import Tensor
from ..typing import Any, Callable, Iterable

__all__ = ["Optimizer"]

# What an optimizer takes: the tensors (model.parameters()), or groups of them with their own
# options ({"params": [...], "lr": ...}), as torch.optim's ParamsT.
ParamsT: TypeAlias = Iterable[Tensor] | Iterable[dict[str, Any]]
_R = TypeVar("_R")  # (what a closure returns, step returns)


class Optimizer:
    """Holds parameter groups and their state; step() updates, zero_grad() clears .grad.

    Examples
    --------
    >>> w = fgrad.nn.Parameter(fgrad.tensor([1.0]))
    >>> opt = fgrad.optim.SGD([w], lr=0.1)
    >>> (w ** 2).sum().backward(); opt.step(); opt.zero_grad()
    >>> w.data, w.grad, opt.param_groups[0]["lr"]
    (tensor([0.8]), None, 0.1)
    """

    _state_like_params = True  # each state array has its parameter's shape (LBFGS's are flat)

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        if isinstance(params, Tensor):
            raise TypeError(f"params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got a Tensor of shape {tuple(params.shape)}; pass [tensor] or model.parameters()")
        self.defaults = defaults
        # parameter -> its state (Note [optimizer state follows its parameters])
        self.state = collections.defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError(f"{type(self).__name__}: optimizer got an empty parameter list")
        for group in groups if isinstance(groups[0], dict) else [{"params": groups}]:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (a dict with "params" and options that override the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len(params) != len(set(params)):  # (as torch: kept twice, so step() updates it twice)
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        taken = set()
        for group in self.param_groups:
            taken.update(group["params"])
        if not taken.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append({**self.defaults, **param_group, "params": params})

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter of every group: to None (`set_to_none`, the default, as
        torch's), or to zeros in place where one exists.
        """
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad.zero_()

    def step(self, closure: Callable[[], _R] | None = None) -> _R | None:
        """One update of every parameter that has a .grad; `closure` (re-evaluating the loss,
        with grad enabled) is called first and its loss returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._update(group, [p for p in group["params"] if p.grad is not None])
        self._opt_called = True  # (read by a scheduler's first step: was it called in torch's order?)
        return loss

    def _update(self, group, params):
        # One parameter at a time, its state read and written in turn: a parameter given twice
        # gets two steps on one state, as torch's single-tensor loops do.
        for p in params:
            state = self.state[p]
            if not state:
                state.update(self._init_state(p.primal, group))
            if "step" in state:
                state["step"] += 1
            grad = _decayed_grad(p, group)
            if np.iscomplexobj(p.primal):  # as torch: the rule sees (real, imag) pairs
                views = {k: _real(v) if isinstance(v, np.ndarray) else v for k, v in state.items()}
                self._step(_real(p.primal), _real(grad), views, group)
                state.update({k: v for k, v in views.items() if not isinstance(v, np.ndarray)})
            else:
                self._step(p.primal, grad, state, group)
            p._version_counter.value += 1

    def _init_state(self, param, group):
        """The state of `param` before its first step (a dict of arrays and numbers)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _init_state(param, group)")

    def _step(self, param, grad, state, group):
        """Update `param` (an array) in place from `grad` and `state`."""
        raise NotImplementedError(f"{type(self).__name__} must implement _step(param, grad, state, group)")

    def state_dict(self) -> dict[str, Any]:
        """{"state": {index: state}, "param_groups": [options with "params" as indices]}, as torch's:
        a parameter's index is its first position counting through the groups in order."""
        index, start, groups = {}, 0, []
        for group in self.param_groups:
            for i, p in enumerate(group["params"], start):
                index.setdefault(p, i)
            groups.append({**{k: v for k, v in group.items() if k != "params"},
                           "params": [index[p] for p in group["params"]]})
            start += len(group["params"])
        return {"state": {index.get(k, k): _copied(v) for k, v in self.state.items()}, "param_groups": groups}

    def load_state_dict(self, state_dict: Mapping[str, Any]) -> None:
        """Take the state and options of `state_dict` (from state_dict(), perhaps of another
        optimizer over parameters of the same shapes, in the same order)."""
        saved = copy.deepcopy(state_dict["param_groups"])
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        at = {i: p for s, g in zip(saved, self.param_groups) for i, p in zip(s["params"], g["params"])}
        state = collections.defaultdict(dict)
        for k, v in state_dict["state"].items():
            param = at.get(k)
            if param is None:
                state[k] = _copied(v)
                continue
            for name, value in v.items():
                if self._state_like_params and isinstance(value, np.ndarray) and value.shape != param.primal.shape:
                    raise ValueError(f"load_state_dict: state {name!r} of parameter {k} has shape {value.shape}, "
                                     f"but the parameter at that position has shape {tuple(param.shape)}")
            state[param] = {name: np.array(value, dtype=param.primal.dtype) if isinstance(value, np.ndarray)
                            else copy.deepcopy(value) for name, value in v.items()}
        self.state = state
        self.param_groups = [{**s, "params": g["params"]} for g, s in zip(self.param_groups, saved)]

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(group.items()) if k != "params"]
        return "\n".join(lines + [")"])


def _copied(state):
    return {k: v.copy() if isinstance(v, np.ndarray) else copy.deepcopy(v) for k, v in state.items()}


def _decayed_grad(p, group):
    """p's gradient as a rule sees it: negated under `maximize`, then with `weight_decay` added as
    an L2 term (weight_decay * p), or, under `decoupled_weight_decay`, p itself shrunk by
    lr * weight_decay first (AdamW's decay, which adaptive steps do not rescale)."""
    grad = p.grad.primal
    if group.get("maximize"):
        grad = -grad
    decay = group.get("weight_decay", 0)
    if decay:
        if group.get("decoupled_weight_decay"):
            p.primal *= 1 - group["lr"] * decay
        else:
            grad = grad + decay * p.primal
    return grad


def _real(array):
    """A complex array as a real view of its (real, imag) pairs; a real one as it is."""
    return array.view(array.real.dtype) if np.iscomplexobj(array) else array


def _check_lr(lr):
    if isinstance(lr, Tensor):  # (torch's capturable/fused paths take one; every rule here wants a number)
        raise TypeError(f"fgrad.optim: lr must be a number, not a Tensor of shape {tuple(lr.shape)}; pass lr.item()")
    _check(lr >= 0, "learning rate", lr)


def _check(ok, what, value):
    """torch's error for a bad hyperparameter: 'Invalid learning rate: -1'."""
    if not ok:
        raise ValueError(f"Invalid {what}: {value}")


def _check_betas(betas):
    for i, beta in enumerate(betas):
        _check(0.0 <= beta < 1.0, f"beta parameter at index {i}", beta)
