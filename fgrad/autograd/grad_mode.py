"""Grad mode: whether ops on tensors record a graph. Thread-local, as in PyTorch.

no_grad / enable_grad / set_grad_enabled work as context managers and as decorators.
They govern the imperative face only; the functional transforms always trace.
"""
import functools
import threading

from ..engine.threads import THREAD_STATE
from ..typing import Callable, P, R

__all__ = ["enable_grad", "inference_mode", "is_grad_enabled", "no_grad", "set_grad_enabled"]

class _State(threading.local):
    enabled = True  # the default in every thread


_state = _State()


def is_grad_enabled() -> bool:
    """True when tensor ops record their backward graph (the default).

    Examples
    --------
    >>> with fgrad.no_grad():
    ...     print(fgrad.is_grad_enabled())
    False
    >>> fgrad.is_grad_enabled()
    True
    """
    return _state.enabled


def _set(mode):
    _state.enabled = bool(mode)


THREAD_STATE.append((is_grad_enabled, _set))  # an engine worker runs a node in its driver's grad mode


class _GradModeContext:
    """Base: a context manager that is also a decorator."""

    mode = True

    def __enter__(self) -> "_GradModeContext":
        self.prev = is_grad_enabled()
        _set(self.mode)
        return self

    def __exit__(self, *exc: object) -> bool:
        _set(self.prev)
        return False

    def __call__(self, fn: Callable[P, R]) -> Callable[P, R]:
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = is_grad_enabled()
            _set(mode)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(prev)
        return wrapper


class no_grad(_GradModeContext):
    """Ops inside do not record a graph: results have requires_grad=False.

    Examples
    --------
    >>> x = fgrad.tensor([1.0], requires_grad=True)
    >>> with fgrad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    mode = False


class inference_mode(_GradModeContext):
    """torch.inference_mode: no recording inside (as no_grad: fgrad has no separate inference
    tensors, so tensors made inside may later be used in recorded ops); mode=False records.
    A context manager, a decorator, and `@inference_mode` without parentheses.

    Examples
    --------
    >>> x = fgrad.tensor([1.0], requires_grad=True)
    >>> with fgrad.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode: "bool | Callable[P, R]" = True):
        if callable(mode):  # (@inference_mode, not called)
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = not mode


class enable_grad(_GradModeContext):
    """Re-enable recording inside a no_grad region.

    Examples
    --------
    >>> x = fgrad.tensor([1.0], requires_grad=True)
    >>> with fgrad.no_grad(), fgrad.enable_grad():
    ...     y = x * 2
    >>> y.requires_grad
    True
    """

    mode = True


class set_grad_enabled(_GradModeContext):
    """`set_grad_enabled(False)` switches recording off now (and back on leaving a `with`).
    As a decorator it switches nothing until the function runs, and restores the mode after.

    Examples
    --------
    >>> x = fgrad.tensor([1.0], requires_grad=True)
    >>> with fgrad.set_grad_enabled(False):
    ...     y = x * 2
    >>> y.requires_grad, fgrad.is_grad_enabled()
    (False, True)
    """

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self.prev = is_grad_enabled()
        _set(self.mode)

    def __enter__(self) -> "set_grad_enabled":
        return self

    def __call__(self, fn: Callable[P, R]) -> Callable[P, R]:
        _set(self.prev)  # `@set_grad_enabled(m)` ran __init__: undo that, the wrapper sets m per call
        return _GradModeContext.__call__(self, fn)
