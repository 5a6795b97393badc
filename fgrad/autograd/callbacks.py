"""queue_callback: work that backward() finishes before it returns (PyTorch's final callbacks).

A hook may start work that runs on while the engine walks the rest of the graph (the bucket
all-reduces that DistributedDataParallel starts from post-accumulate-grad hooks). It queues a
callback that completes that work; backward() runs its queued callbacks in order, on its own
thread, once the walk has ended and every .grad is accumulated, and only then returns. A
callback may queue another, which runs after it. Callbacks belong to the innermost backward
running on their thread (a backward inside a hook has its own); when backward raises, its
queued callbacks are dropped, as torch's are.
"""
import threading

from ..typing import Callable

__all__ = ["final_callbacks", "queue_callback"]


class _Running(threading.local):
    """Per thread: the callback lists of the backward calls running, innermost last."""

    def __init__(self):
        self.stack = []


_running = _Running()


def queue_callback(callback: Callable[[], None]) -> None:
    """Run `callback()` when the backward() now running on this thread has walked its graph.

    As torch's `Variable._execution_engine.queue_callback`, it may be called only during a
    backward pass (from a hook); elsewhere it raises RuntimeError.

    Examples
    --------
    >>> import fgrad
    >>> from fgrad.autograd.callbacks import queue_callback
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> h = x.register_post_accumulate_grad_hook(
    ...     lambda t: queue_callback(lambda: seen.append(t.grad.tolist())))
    >>> (x * x).sum().backward()
    >>> seen
    [[2.0, 4.0]]
    """
    stack = _running.stack
    if not stack:
        raise RuntimeError("queue_callback: final callbacks can only be installed during the backward pass "
                           "(call it from a hook while backward() runs)")
    stack[-1].append(callback)


class final_callbacks:
    """backward()'s scope: callbacks queued inside it run at its end, unless it raised."""

    __slots__ = ()

    def __enter__(self):
        _running.stack.append([])
        return self

    def __exit__(self, exc_type, exc, tb):
        queued = _running.stack[-1]
        try:
            if exc_type is None:
                i = 0
                while i < len(queued):  # (a callback may queue another)
                    queued[i]()
                    i += 1
        finally:
            _running.stack.pop()
        return False
