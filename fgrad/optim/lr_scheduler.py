"""fgrad.optim.lr_scheduler: torch's learning-rate schedules, with torch 2.13's numbers.

A scheduler sets each param group's "lr" once per step(). As torch's, most compute the new
rate from the current one (get_lr, the recursive form), so schedulers stepping one optimizer
compose by multiplication; step(epoch) (deprecated in torch) uses the closed form where there
is one. The two forms differ in the last bits, so which one runs is torch's choice, kept.
"""
import bisect
import collections
import math
import types
import warnings
from typing import SupportsFloat

from ..typing import Any, Callable, Iterable
from .optimizer import Optimizer

__all__ = ["CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR", "MultiStepLR", "OneCycleLR",
           "ReduceLROnPlateau", "SequentialLR", "StepLR"]

_EPOCH_DEPRECATED = ("The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
                     "possible. Please use `scheduler.step()` to step the scheduler.")


def _per_group(name, optimizer, value):
    """One value per param group: a list or tuple is checked for length, anything else repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} "
                             f"values, param_groups has {len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


def _lrs(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


class LRScheduler:
    """Base of the schedules: step() advances last_epoch and sets each group's lr to get_lr().

    Examples
    --------
    >>> class Halving(fgrad.optim.lr_scheduler.LRScheduler):
    ...     def get_lr(self):
    ...         return [base_lr * 0.5 ** self.last_epoch for base_lr in self.base_lrs]
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = Halving(opt); opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
    """

    _in_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                                   f"scheduler with last_epoch >= 0 (load the optimizer's state_dict first)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The group lrs for last_epoch, computed from the current ones (the recursive form)."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def get_last_lr(self) -> list[float]:
        """The lrs the last step() set, one per param group."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (call it after optimizer.step()) and set the groups' lrs."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. You should call them "
                          "in the opposite order: `optimizer.step()` before `lr_scheduler.step()`. Failure to do "
                          "this will result in skipping the first value of the learning rate schedule.",
                          UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._in_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = self._closed_form() if hasattr(self, "_closed_form") else self.get_lr()
        finally:
            self._in_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)

    def _warn_outside_step(self):
        if not self._in_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=3)

    def state_dict(self) -> dict[str, Any]:
        """Everything the scheduler holds but the optimizer (as torch's)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore this scheduler's state from `state_dict` (a dict from state_dict())."""
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch), one lambda for all groups or one per group.

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
    >>> [(opt.step(), sched.step(), round(sched.get_last_lr()[0], 4))[-1] for _ in range(4)]
    [0.5, 0.25, 0.125, 0.0625]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        # A function is not saved (None); a callable object's attributes are, as torch's.
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore this scheduler's state from `state_dict` (from state_dict()); the lambdas stay the
        functions given to the constructor, with the saved attributes of those that are callable objects.
        """
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self) -> list[float]:
        self._warn_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply each group's learning rate by `gamma` every `step_size` steps: lr = base_lr * gamma **
    (epoch // step_size) (torch.optim.lr_scheduler.StepLR).

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> [(opt.step(), sched.step(), round(sched.get_last_lr()[0], 4))[-1] for _ in range(4)]
    [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [lr * self.gamma for lr in _lrs(self.optimizer)]

    def _closed_form(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr *= gamma at each milestone epoch (a milestone given twice, gamma**2).

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    >>> [(opt.step(), sched.step(), round(sched.get_last_lr()[0], 4))[-1] for _ in range(4)]
    [0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = collections.Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in _lrs(self.optimizer)]

    def _closed_form(self):
        passed = bisect.bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class LinearLR(LRScheduler):
    """lr from initial_lr * start_factor to initial_lr * end_factor linearly over total_iters epochs.

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> [(opt.step(), sched.step(), round(sched.get_last_lr()[0], 4))[-1] for _ in range(4)]
    [0.75, 1.0, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in _lrs(self.optimizer)]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [lr * ratio for lr in _lrs(self.optimizer)]

    def _closed_form(self):
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * done) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply each group's learning rate by `gamma` at every step(): lr = base_lr * gamma ** epoch
    (torch.optim.lr_scheduler.ExponentialLR).

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> [(opt.step(), sched.step(), round(sched.get_last_lr()[0], 4))[-1] for _ in range(4)]
    [0.5, 0.25, 0.125, 0.0625]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [lr * self.gamma for lr in _lrs(self.optimizer)]

    def _closed_form(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr from initial_lr down to eta_min along half a cosine over T_max epochs (and back up after).

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    >>> [(opt.step(), sched.step(), round(sched.get_last_lr()[0], 4))[-1] for _ in range(4)]
    [0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_outside_step()
        lrs, t, period = _lrs(self.optimizer), self.last_epoch, self.T_max
        if self._is_initial:
            return lrs
        if self._step_count == 1 and t > 0:  # resumed: no current lr to go on from
            return [self.eta_min + (base - self.eta_min) * (1 + math.cos(t * math.pi / period)) / 2
                    for base in self.base_lrs]
        if (t - 1 - period) % (2 * period) == 0:  # the bottom of a cycle: the recursion would divide by zero
            return [lr + (base - self.eta_min) * (1 - math.cos(math.pi / period)) / 2
                    for lr, base in zip(lrs, self.base_lrs)]
        return [(1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period))
                * (lr - self.eta_min) + self.eta_min for lr in lrs]

    def _closed_form(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith): lr up from max_lr / div_factor to max_lr, then down to
    initial_lr / final_div_factor, over total_steps steps; momentum (or beta1) cycles the other way.

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5)
    >>> [(opt.step(), sched.step(), round(sched.get_last_lr()[0], 4))[-1] for _ in range(4)]
    [0.9505, 0.6113, 0.1883, 0.0]
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        # Each phase: (its last step, then the group keys it anneals lr and momentum between).
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                                     (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                                      "base_momentum", "max_momentum"),
                                     (self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                                     (self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, _per_group("max_lr", optimizer, max_lr)):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            if last_epoch == -1:
                for group, top, base in zip(optimizer.param_groups, _per_group("max_momentum", optimizer, max_momentum),
                                            _per_group("base_momentum", optimizer, base_momentum)):
                    self._set_momentum(group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = base
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr_from, lr_to, m_from, m_to) in enumerate(self._schedule_phases):
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[m_from], group[m_to], pct))
                    break
                start = end
        return lrs


class SequentialLR(LRScheduler):
    """Hands the optimizer to one scheduler after another, switching at the milestone epochs.

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> warmup = fgrad.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = fgrad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> sched = fgrad.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[2])
    >>> [(opt.step(), sched.step(), sched.get_last_lr()[0])[-1] for _ in range(4)]
    [0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int],
                 last_epoch: int = -1) -> None:
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        for i, scheduler in enumerate(schedulers):
            if not hasattr(scheduler, "optimizer"):
                raise TypeError(f"SequentialLR at index {i} should have `optimizer` as its attribute.")
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(f"SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires "
                                 f"additional kwargs to be specified when calling `step`, but got one at index {i} "
                                 f"in the given schedulers sequence.")
            if scheduler.optimizer is not optimizer:
                raise ValueError(f"SequentialLR expects all schedulers to belong to the same optimizer, but got "
                                 f"scheduler {type(scheduler).__name__} at index {i} with another optimizer")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Each scheduler took a first step when it was made; undo those, and take the first one's again.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        _undo_first_steps(self)
        first = self._schedulers[bisect.bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self) -> None:
        """Step the scheduler in charge; at a milestone, start the next one at its epoch 0."""
        self.last_epoch += 1
        i = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore this scheduler's state from `state_dict` (from state_dict()), and each of its
        schedulers' from the state saved with it.
        """
        state = dict(state_dict)
        schedulers = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, schedulers):
            scheduler.load_state_dict(saved)


def _undo_first_steps(scheduler):
    """last_epoch -= 1 on every scheduler in a (nested) SequentialLR, as torch's recursive_undo."""
    if hasattr(scheduler, "_schedulers"):
        for inner in scheduler._schedulers:
            _undo_first_steps(inner)
    else:
        scheduler.last_epoch -= 1


class ReduceLROnPlateau(LRScheduler):
    """lr *= factor when the metric passed to step(metric) has not improved for `patience` epochs.

    Examples
    --------
    >>> opt = fgrad.optim.SGD([fgrad.nn.Parameter(fgrad.zeros(1))], lr=1.0)
    >>> sched = fgrad.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
    >>> for loss in (1.0, 1.0, 1.0, 1.0):  # no improvement: halved after `patience` bad epochs
    ...     sched.step(loss)
    >>> opt.param_groups[0]["lr"]
    0.5
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | list[float] = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.optimizer = optimizer
        self.factor = factor
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self.best, self.cooldown_counter, self.num_bad_epochs = self.mode_worse, 0, 0

    def step(self, metrics: SupportsFloat, epoch: int | None = None) -> None:
        """Record this epoch's metric; reduce the lrs after more than `patience` bad epochs."""
        current = float(metrics)
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(current):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:  # bad epochs in a cooldown do not count
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = _lrs(self.optimizer)

    @property
    def in_cooldown(self) -> bool:
        """True while the cooldown after a reduction runs (no new reduction until it ends)."""
        return self.cooldown_counter > 0

    def _is_better(self, value):
        best, threshold = self.best, self.threshold
        if self.mode == "min":
            return value < (best * (1.0 - threshold) if self.threshold_mode == "rel" else best - threshold)
        return value > (best * (threshold + 1.0) if self.threshold_mode == "rel" else best + threshold)

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(self.optimizer.param_groups)})"
                                   f" differs from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                                   f"usually due to a new param group being added to the optimizer. Please modify "
                                   f"the `min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for group, floor in zip(self.optimizer.param_groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:  # (a change smaller than eps is not made)
                group["lr"] = new
