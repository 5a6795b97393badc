"""Pause Python's cyclic garbage collector while a transform runs.

Note [no cycles, so no collector]: tape nodes point only to the nodes that produced
their inputs, and traced values only to their node and trace, so everything a trace
builds is freed by reference counting alone. The cyclic collector would still scan
these objects (several per op) again and again as the tape grows, which cost a quarter
of a long chain's time and made a million-op tape quadratic. Transforms therefore pause
it while they run; cyclic garbage the user's own code makes meanwhile is collected once
they return.
"""
import functools
import gc
import threading

__all__ = ["gc_paused"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


class gc_paused:
    """Context manager (re-entrant, thread-safe): the collector is off inside."""

    __slots__ = ()

    def __enter__(self):
        global _depth, _was_enabled
        with _lock:
            if _depth == 0:
                _was_enabled = gc.isenabled()
                gc.disable()
            _depth += 1
        return self

    def __exit__(self, *exc):
        global _depth
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
        return False


_PAUSE = gc_paused()  # stateless, so one instance serves every call


def paused(fn):
    """Decorator: run `fn` with the collector paused."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _PAUSE:
            return fn(*args, **kwargs)
    return wrapper
