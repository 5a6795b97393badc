"""Leaves accumulate as they complete, and queue_callback runs before backward() returns
(issue 30: what DistributedDataParallel's overlap stands on; Note [leaves as they complete])."""
import numpy as np
import pytest

import fgrad
from fgrad.autograd.callbacks import queue_callback


def test_a_leaf_accumulates_as_soon_as_its_last_consumer_has_run():
    """b is the first input of the last op: the ready stack (LIFO) would reach it last, after
    the whole chain beneath; it accumulates before the first op's node runs."""
    x = fgrad.tensor(np.ones((2, 3)))
    w1 = fgrad.tensor(np.full((3, 3), 0.1), requires_grad=True)
    b = fgrad.tensor(np.zeros(3), requires_grad=True)
    first = x @ w1
    events = []
    first.grad_fn.register_hook(lambda gi, go: events.append("first op"))
    b.register_post_accumulate_grad_hook(lambda t: events.append(("b", t.grad.tolist())))
    w1.register_post_accumulate_grad_hook(lambda t: events.append("w1"))
    loss = (b + first.tanh().tanh()).sum()
    loss.backward()
    assert events == [("b", [2.0, 2.0, 2.0]), "first op", "w1"]


def test_queued_callbacks_run_after_every_grad_is_in_and_before_backward_returns():
    a = fgrad.tensor([1.0, 2.0], requires_grad=True)
    c = fgrad.tensor([3.0], requires_grad=True)
    seen = []

    def queue(t):
        queue_callback(lambda: seen.append((a.grad.tolist(), c.grad.tolist())))
        queue_callback(lambda: queue_callback(lambda: seen.append("queued by a callback")))
    a.register_post_accumulate_grad_hook(queue)
    ((a * a).sum() * c).sum().backward()
    assert seen == [([6.0, 12.0], [5.0]), "queued by a callback"]


def test_queue_callback_outside_backward_raises():
    with pytest.raises(RuntimeError, match="only be installed during the backward pass"):
        queue_callback(lambda: None)


def test_a_backward_that_raises_drops_its_callbacks_and_the_next_one_starts_clean():
    x = fgrad.tensor([1.0], requires_grad=True)
    ran = []

    def bad(t):
        queue_callback(lambda: ran.append("dropped"))
        raise ValueError("hook failed")
    h = x.register_post_accumulate_grad_hook(bad)
    with pytest.raises(ValueError, match="hook failed"):
        (x * 2).sum().backward()
    h.remove()
    x.register_post_accumulate_grad_hook(lambda t: queue_callback(lambda: ran.append("ran")))
    (x * 2).sum().backward()
    assert ran == ["ran"]


def test_a_backward_inside_a_callback_has_its_own_callbacks():
    x = fgrad.tensor([1.0], requires_grad=True)
    y = fgrad.tensor([2.0], requires_grad=True)
    order = []
    y.register_post_accumulate_grad_hook(lambda t: queue_callback(lambda: order.append("inner")))

    def outer():
        (y * y).sum().backward()
        order.append("outer")
    x.register_post_accumulate_grad_hook(lambda t: queue_callback(outer))
    (x * 3).sum().backward()
    assert order == ["inner", "outer"] and y.grad.tolist() == [4.0]
