"""saved_tensors_hooks(pack, unpack): run user code when values are saved for backward.

pack(tensor) runs when a node saves a value its rule reads (an input or its output, as
PyTorch's SavedVariable: exp saves its result; a Function what it gave save_for_backward);
its result is kept instead of the tensor, and unpack(packed) must give the value back in
backward (e.g. offload to disk or another device and load it again). As in PyTorch, the
pack hook runs with grad mode and the hooks off, so a hook that computes (`t * 1.0`)
neither records nor packs its own values.
"""
import threading

from ..typing import Any, Callable
from . import grad_mode

__all__ = ["current", "disable_saved_tensors_hooks", "pack", "saved_tensors_hooks"]

class _State(threading.local):
    stack = None  # a list per thread, once a hook pair is installed
    disabled = None  # the message of an enclosing disable_saved_tensors_hooks


_state = _State()

# Set once any thread installs a hook pair, never reset: until then the imperative tape's
# short path skips reading the thread-local (as PyTorch's SavedTensorDefaultHooks keeps an
# is_initialized flag): a thread-local read per op costs (docs/design.md, "Measured").
ever_used = False


def current():
    """The innermost (pack, unpack) pair, or None."""
    stack = _state.stack
    return stack[-1] if stack else None


def pack(tensor):
    """(packed, unpack): `tensor` packed by the innermost pack hook, which runs with grad mode
    and the hooks off. The caller checked that a pair is installed."""
    stack = _state.stack
    pack_hook, unpack_hook = stack[-1]
    enabled = grad_mode._state.enabled
    _state.stack, grad_mode._state.enabled = None, False
    try:
        return pack_hook(tensor), unpack_hook
    finally:
        _state.stack, grad_mode._state.enabled = stack, enabled


class saved_tensors_hooks:
    """Context manager installing a (pack, unpack) pair for values saved inside it.

    Examples
    --------
    >>> packed = []
    >>> def pack(t):
    ...     packed.append(t.shape)
    ...     return t
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> with fgrad.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad, len(packed) > 0
    (tensor([2., 4.]), True)
    """

    # (pack_hook takes a Tensor and unpack_hook gives one: Any here, as this module is beneath tensor.py)
    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pair = (pack_hook, unpack_hook)

    def __enter__(self) -> "saved_tensors_hooks":
        global ever_used
        if _state.disabled is not None:
            raise RuntimeError(_state.disabled)
        ever_used = True
        if _state.stack is None:
            _state.stack = []
        _state.stack.append(self.pair)
        return self

    def __exit__(self, *exc: object) -> bool:
        _state.stack.pop()
        return False


class disable_saved_tensors_hooks:
    """Inside it, installing saved_tensors_hooks raises RuntimeError(error_message), as torch's
    (for code whose saved values must stay where they are).

    Examples
    --------
    >>> with fgrad.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    ...     try:
    ...         with fgrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    ...             pass
    ...     except RuntimeError as e:
    ...         print(e)
    no hooks here
    """

    def __init__(self, error_message: str) -> None:
        self.message = error_message

    def __enter__(self) -> "disable_saved_tensors_hooks":
        self.prev, _state.disabled = _state.disabled, self.message
        return self

    def __exit__(self, *exc: object) -> bool:
        _state.disabled = self.prev
        return False
