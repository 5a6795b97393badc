"""saved_tensors_hooks(pack, unpack): run user code when values are saved for backward.

pack(tensor) runs when a node saves an input; its result is kept instead of the
tensor, and unpack(packed) must give the value back in backward (e.g. offload to
disk or another device and load it again).
"""
import threading

__all__ = ["current", "saved_tensors_hooks"]

class _State(threading.local):
    stack = None  # a list per thread, once a hook pair is installed


_state = _State()

# Set once any thread installs a hook pair, never reset: until then the imperative tape's
# short path skips reading the thread-local (as PyTorch's SavedTensorDefaultHooks keeps an
# is_initialized flag): a thread-local read per op costs (docs/design.md, "Measured").
ever_used = False


def current():
    """The innermost (pack, unpack) pair, or None."""
    stack = _state.stack
    return stack[-1] if stack else None


class saved_tensors_hooks:
    """Context manager installing a (pack, unpack) pair for values saved inside it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pair = (pack_hook, unpack_hook)

    def __enter__(self):
        global ever_used
        ever_used = True
        if _state.stack is None:
            _state.stack = []
        _state.stack.append(self.pair)
        return self

    def __exit__(self, *exc):
        _state.stack.pop()
        return False
