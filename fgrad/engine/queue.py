"""The ready queue of the backward engine.

A node becomes ready when every consumer has sent its cotangent. Any ready node may
run next; a LIFO stack keeps the working set small (depth first, like PyTorch's CPU
queue, which pops the most recently created node first). Devices get a queue each when
the engine grows worker threads; the interface (push, pop, truthiness) stays.
"""

__all__ = ["ReadyQueue"]


class ReadyQueue(list):
    """A stack of ready nodes."""

    __slots__ = ()
    push = list.append
