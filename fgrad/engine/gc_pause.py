"""Pause Python's cyclic garbage collector while a transform runs.

Note [no cycles, so no collector]: tape nodes point only to the nodes that produced
their inputs, and traced values only to their node and trace, so everything a trace
builds is freed by reference counting alone. The cyclic collector would still scan
these objects (several per op) again and again as the tape grows, its full collections
the whole tape each time (a long chain's grad is markedly slower with it on: "The
collector and long tapes" in benchmarks/README.md). Transforms therefore pause it while
they run.

Note [a pause must not starve other threads]: threads share one collector, so one count
of running transforms (under a lock) decides: the first to start turns the collector off
if it was on, the last to finish turns it back on. With transforms running in several
threads at once, that count may never reach zero, and the cyclic garbage of every thread
would pile up. So when a thread's outermost transform starts or ends while other threads
hold the pause (outermost: no trace of this thread is active, which `_state` tells without
a per-thread count), it runs the young collections the collector would have run by then
(generation 0 once more than threshold0 objects were made, and generation 1 every
threshold1 of those, as gc.get_threshold() says); full collections wait until no
transform runs. A transform in one thread alone is as fast as before, and garbage made
by other threads meanwhile is collected when it ends.

The lock is taken with explicit acquire/release calls and the decorator calls plain
functions: a Python-level context manager (or `with lock`) costs more than all the rest
of a small transform's entry.
"""
import functools
import gc
import threading

from ..ops.primitive import EVAL, _state

__all__ = ["gc_paused", "paused"]

_lock = threading.Lock()
_running = 0         # transforms running now, in every thread
_switched = False    # did the first of them turn the collector off?


def pause():
    """One more transform is running: the collector is off until resume(). (A thread's
    outermost one, while other threads pause it, first collects what is due.)"""
    global _running, _switched
    _lock.acquire()
    if _running == 0:
        _switched = gc.isenabled()
        if _switched:
            gc.disable()
        collect = False
    else:
        collect = _switched and _state.trace is EVAL  # (no transform of this thread is running)
    _running += 1
    _lock.release()
    if collect:
        collect_young()


def resume():
    """A transform has finished: the last one turns the collector back on (if it was on); a
    thread's outermost one, while other threads still pause it, collects the young
    generations (Note [a pause must not starve other threads])."""
    global _running
    _lock.acquire()
    _running -= 1
    if _running == 0:
        if _switched:
            gc.enable()
        _lock.release()
        return
    collect = _switched and _state.trace is EVAL
    _lock.release()
    if collect:
        collect_young()


def collect_young():
    """The young collection the collector would have made by now, if any is due."""
    threshold0, threshold1, _ = gc.get_threshold()
    count0, count1, _ = gc.get_count()
    if threshold0 and count0 > threshold0:
        gc.collect(1 if count1 >= threshold1 else 0)


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
