"""Pause Python's cyclic garbage collector while a transform runs.

Note [no cycles, so no collector]: tape nodes point only to the nodes that produced
their inputs, and traced values only to their node and trace, so everything a trace
builds is freed by reference counting alone. The cyclic collector would still scan
these objects (several per op) again and again as the tape grows, which cost a quarter
of a long chain's time and made a million-op tape quadratic. Transforms therefore pause
it while they run; cyclic garbage the user's own code makes meanwhile is collected once
they return.

Only the call that found the collector on switches it off and on again, so nested
transforms cost one `gc.isenabled()` each, and the collector is never left off. Threads
share one collector: while two threads run transforms, the first to finish turns it back
on, and the other finishes with it on (slower, never wrong). A lock and a depth count would
keep it off until both finish, but cost more than all the rest of a small transform's entry.
"""
import functools
import gc

__all__ = ["gc_paused", "paused"]


class gc_paused:
    """Context manager: the collector is off inside (re-entrant)."""

    __slots__ = ("switched",)

    def __enter__(self):
        self.switched = gc.isenabled()
        if self.switched:
            gc.disable()
        return self

    def __exit__(self, *exc):
        if self.switched:
            gc.enable()
        return False


def paused(fn):
    """Decorator: run `fn` with the collector paused. (Inline, not `with gc_paused()`: a
    Python-level context manager costs two calls from C per entry.)"""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not gc.isenabled():  # already paused: by an enclosing transform, or by the user
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
    return wrapper
