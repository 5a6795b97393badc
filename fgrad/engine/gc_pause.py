"""Pause Python's cyclic garbage collector while a transform runs.

Note [no cycles, so no collector]: tape nodes point only to the nodes that produced
their inputs, and traced values only to their node and trace, so everything a trace
builds is freed by reference counting alone. The cyclic collector would still scan
these objects (several per op) again and again as the tape grows, which cost a quarter
of a long chain's time and made a million-op tape quadratic. Transforms therefore pause
it while they run; cyclic garbage the user's own code makes meanwhile is collected once
they return.

Threads share one collector, so one count of running transforms (under a lock) decides:
the first to start turns the collector off if it was on, the last to finish turns it back
on. The lock is taken with explicit acquire/release calls and the decorator calls plain
functions: a Python-level context manager (or `with lock`) costs more than all the rest
of a small transform's entry.
"""
import functools
import gc
import threading

__all__ = ["gc_paused", "paused"]

_lock = threading.Lock()
_running = 0         # transforms running now, in every thread
_switched = False    # did the first of them turn the collector off?


def pause():
    """One more transform is running: the collector is off until resume()."""
    global _running, _switched
    _lock.acquire()
    if _running == 0:
        _switched = gc.isenabled()
        if _switched:
            gc.disable()
    _running += 1
    _lock.release()


def resume():
    """A transform has finished: the last one turns the collector back on (if it was on)."""
    global _running
    _lock.acquire()
    _running -= 1
    if _running == 0 and _switched:
        gc.enable()
    _lock.release()


class gc_paused:
    """Context manager: the collector is off inside (re-entrant, thread-safe)."""

    __slots__ = ()

    def __enter__(self):
        pause()
        return self

    def __exit__(self, *exc):
        resume()
        return False


def paused(fn):
    """Decorator: run `fn` with the collector paused."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        pause()
        try:
            return fn(*args, **kwargs)
        finally:
            resume()
    return wrapper
