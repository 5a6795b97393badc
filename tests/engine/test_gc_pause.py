"""The collector is off while a transform runs and back on after, however the transform ends."""
import gc
import threading

import numpy as np
import pytest

import fgrad
import fgrad.numpy as fnp
from fgrad.engine.gc_pause import gc_paused, paused


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_transforms_pause_the_collector_and_restore_it(collector_on):
    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return fnp.sum(fnp.sin(x))
    fgrad.grad(f)(np.ones(3))
    fgrad.hvp(f, (np.ones(3),), (np.ones(3),))
    assert seen == [False, False] and gc.isenabled()


def test_collector_is_restored_when_the_function_raises(collector_on):
    def f(x):
        raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        fgrad.grad(f)(np.ones(3))
    assert gc.isenabled()


def test_nested_pauses_leave_it_to_the_outermost(collector_on):
    inner_state = []
    inner = paused(lambda: inner_state.append(gc.isenabled()))
    with gc_paused():
        inner()
        assert not gc.isenabled()  # the inner call did not switch it back on
    assert inner_state == [False] and gc.isenabled()


def test_a_collector_the_user_switched_off_stays_off():
    was = gc.isenabled()
    gc.disable()
    try:
        fgrad.grad(lambda x: fnp.sum(x * x))(np.ones(2))
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()


def test_concurrent_transforms_leave_the_collector_on(collector_on):
    barrier = threading.Barrier(4)
    g = fgrad.grad(lambda x: fnp.sum(fnp.tanh(x) ** 2))

    def work():
        barrier.wait()
        for _ in range(200):
            g(np.linspace(0.0, 1.0, 8))
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gc.isenabled()


def test_collector_stays_off_until_the_last_concurrent_transform_ends(collector_on):
    started, release = threading.Event(), threading.Event()
    worker = threading.Thread(target=paused(lambda: (started.set(), release.wait(10))))

    @paused
    def first_transform():  # turns the collector off, starts another, and ends before it
        worker.start()
        started.wait(10)
    first_transform()
    assert not gc.isenabled(), "the collector came back on while a transform still ran"
    release.set()
    worker.join()
    assert gc.isenabled()


class _Cycle:
    def __init__(self):
        self.me = self


def test_a_pause_held_by_another_thread_does_not_starve_this_threads_garbage(collector_on):
    """Note [a pause must not starve other threads]: while thread A holds the pause, a
    transform that starts and ends in this thread collects the young generations."""
    inside, release = threading.Event(), threading.Event()

    def hold(x):
        inside.set()
        release.wait(10)
        return fnp.sum(x * x)
    holder = threading.Thread(target=lambda: fgrad.grad(hold)(np.ones(2)))
    holder.start()
    try:
        assert inside.wait(10)
        import weakref
        refs = [weakref.ref(_Cycle()) for _ in range(5 * gc.get_threshold()[0])]  # cyclic garbage
        fgrad.grad(lambda x: fnp.sum(x * x))(np.ones(2))
        assert not gc.isenabled()  # the other thread's pause still holds
        assert sum(r() is not None for r in refs) < gc.get_threshold()[0]  # but it was collected
    finally:
        release.set()
        holder.join()
    assert gc.isenabled()


def test_a_single_threads_nested_transforms_do_not_collect(collector_on, monkeypatch):
    from fgrad.engine import gc_pause
    calls = []
    monkeypatch.setattr(gc_pause, "collect_young", lambda: calls.append(1))
    fgrad.hessian(lambda x: fnp.sum(fnp.sin(x) ** 3))(np.ones(3))
    assert calls == []
