"""What a function does while fgrad.compile traces it, besides computing: replay will not do it again.

A replay runs only the kernels, so a print or a draw from NumPy's global random state
happens on the first call alone. `SideEffectWatch` is entered around each trace
(compile/api.py) and warns once per compiled function (SideEffectWarning) when the
function printed or drew; docs/compile.md says what is detected and what is not.
"""
import builtins
import threading
import warnings

import numpy as np

from ..errors import SideEffectWarning

__all__ = ["SideEffectWarning", "SideEffectWatch"]


class SideEffectWatch:
    """While tracing: warn once per function when it prints or draws from NumPy's global
    random state, since replay will not do either again.

    print is watched by one wrapper, installed while any thread traces (a count under a
    lock) and asking which function this thread traces, so concurrent traces cannot leave
    a stale wrapper behind. The random state is compared before and after: a draw by
    another thread meanwhile would warn too (docs/compile.md says what is detected)."""

    _lock = threading.Lock()
    _users = 0
    _print = None  # builtins.print as it was before the first trace installed the wrapper
    _tracing = threading.local()  # .compiled: the Compiled this thread traces now

    def __init__(self, compiled):
        self.compiled = compiled

    def __enter__(self):
        cls = SideEffectWatch
        with cls._lock:
            if cls._users == 0:
                cls._print = builtins.print
                builtins.print = _watching_print
            cls._users += 1
        self.outer = getattr(cls._tracing, "compiled", None)
        cls._tracing.compiled = self.compiled
        self.random_state = _random_position()

    def __exit__(self, *exc):
        cls = SideEffectWatch
        cls._tracing.compiled = self.outer
        with cls._lock:
            cls._users -= 1
            if cls._users == 0:
                builtins.print = cls._print
        if _random_position() != self.random_state:
            _warn_once(self.compiled, "random", "drew from np.random while being traced; the draws are constants "
                                                "of the compiled program, the same on every replay (pass random "
                                                "numbers in as arguments)", stacklevel=5)
        return False


def _watching_print(*args, **kwargs):
    compiled = getattr(SideEffectWatch._tracing, "compiled", None)
    if compiled is not None:
        _warn_once(compiled, "print", "printed while being traced; print runs only when fgrad.compile traces, "
                                      "not on replay (return the value instead)", stacklevel=2)
    return SideEffectWatch._print(*args, **kwargs)


def _random_position():
    """Where NumPy's global random state is (it moves with every draw)."""
    state = np.random.get_state(legacy=False)["state"]
    return state["pos"], int(state["key"][0])


def _warn_once(compiled, what, message, stacklevel):
    """Warn of `what` once per compiled function; stacklevel points at the user's line (the
    print, or the call of the compiled function)."""
    if what not in compiled._warned:
        compiled._warned.add(what)
        warnings.warn(f"fgrad.compile: {compiled.__name__} {message}", SideEffectWarning, stacklevel=stacklevel + 1)
