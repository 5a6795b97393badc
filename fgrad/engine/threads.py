"""Worker threads of the backward engine: a pool of CPU workers and one worker per device.

The thread that calls backward drives its graph: it counts dependencies, keeps the
cotangents (the input buffers) and runs most nodes itself. A node goes to a worker only
when that can pay: a node on another device (a CUDA device, or a test device) runs on
that device's worker, in order, as PyTorch runs each device's queue on its own thread;
and a CPU node whose cotangent is large (`HEAVY` elements, where NumPy's kernels release
the GIL for long enough) goes to the CPU pool when another node is ready to run beside
it. Small graphs never leave the calling thread. Only the driver touches the graph's
counts and buffers, so they need no lock; a worker returns the cotangents it computed.

Note [a worker runs in its driver's state]: rules run under the trace, grad mode and
anomaly mode of the thread that called backward (thread-locals), so a worker takes them
over for the node it runs (`THREAD_STATE`: each layer that keeps such a thread-local
registers how to read and set it) and puts its own back after.

Note [re-entrant backward]: a rule may call backward itself (a custom Function's backward
calling grad). That inner backward is driven by whichever thread runs the rule, a worker
too. A driver never waits on a CPU node that has not started: it takes such nodes back and
runs them itself, so every wait is on a node some thread is running, and a pool whose
workers are all drivers cannot deadlock. A device's worker runs its own device's nodes of
an inner backward itself. (Two devices' workers each waiting on an inner backward's node
of the other's device would still wait for each other; nothing here does that.)
"""
import concurrent.futures as cf
import os
import threading

from ..ops import primitive

__all__ = ["HEAVY", "THREAD_STATE", "Offload", "get_num_threads", "heavy", "set_num_threads"]

HEAVY = 1 << 16  # elements of a cotangent: below this a node's rules cost less than a hand-off (docs/design.md)


def _default_threads():
    env = os.environ.get("FGRAD_NUM_THREADS")
    if env:
        return _checked(int(env) if env.strip().isdigit() else env, "FGRAD_NUM_THREADS")
    return min(4, os.cpu_count() or 1)


def _checked(n, what):
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"fgrad: {what} must be a positive int (1: a serial, deterministic engine), got {n!r}")
    return n


class _Settings:
    __slots__ = ("threads", "pool", "devices", "lock")

    def __init__(self):
        self.threads = _default_threads()
        self.pool = None     # the CPU workers (threads - 1 of them), made on first use
        self.devices = {}    # device -> its worker (one thread), made on first use
        self.lock = threading.Lock()


_settings = _Settings()


def set_num_threads(n: int) -> None:
    """How many threads run a backward pass on the CPU: the caller and n - 1 workers. With 1
    the engine is serial and deterministic (FGRAD_NUM_THREADS sets the default).

    Examples
    --------
    >>> n = fgrad.get_num_threads()
    >>> fgrad.set_num_threads(2); fgrad.get_num_threads()
    2
    >>> fgrad.set_num_threads(n)
    """
    n = _checked(n, "set_num_threads(n)")
    with _settings.lock:
        if n != _settings.threads and _settings.pool is not None:
            _settings.pool.shutdown(wait=True)
            _settings.pool = None
        _settings.threads = n


def get_num_threads() -> int:
    """How many threads run a backward pass on the CPU (set_num_threads; FGRAD_NUM_THREADS sets the
    default): the caller and n - 1 workers.

    Examples
    --------
    >>> fgrad.get_num_threads() >= 1
    True
    """
    return _settings.threads


def _cpu_pool():
    pool = _settings.pool
    if pool is None:
        with _settings.lock:
            if _settings.pool is None:
                _settings.pool = cf.ThreadPoolExecutor(_settings.threads - 1, thread_name_prefix="fgrad-cpu")
            pool = _settings.pool
    return pool


def _device_worker(device):
    worker = _settings.devices.get(device)
    if worker is None:
        with _settings.lock:
            worker = _settings.devices.get(device)
            if worker is None:
                worker = _settings.devices[device] = cf.ThreadPoolExecutor(1, thread_name_prefix=f"fgrad-{device}")
    return worker


# (read, set) pairs of the thread-locals a rule runs under (Note [a worker runs in its driver's state]).
THREAD_STATE = [(lambda: primitive._state.trace, lambda trace: setattr(primitive._state, "trace", trace))]


class _Worker(threading.local):
    device = None  # the device whose worker this thread is (None: the CPU pool, or not a worker)


_worker = _Worker()


def _in_state(state, device, fn, *args):
    """fn(*args) with the driver's thread-local `state` set, this thread's own restored after;
    on a device's worker, with that device current (Device.running)."""
    own, own_device = [read() for read, _ in THREAD_STATE], _worker.device
    for (_, write), value in zip(THREAD_STATE, state):
        write(value)
    _worker.device = device
    try:
        if device is None:
            return fn(*args)
        with device.running():
            return fn(*args)
    finally:
        for (_, write), value in zip(THREAD_STATE, own):
            write(value)
        _worker.device = own_device


def _elements(x):
    size = getattr(x, "size", 0)
    return size if size.__class__ is int else 0  # (a Tensor's size is a method: its array is what counts)


def heavy(g):
    """Is cotangent g (a list of them for a multiple-result node) large enough for a worker?"""
    if g.__class__ is list:
        return max((_elements(x) for x in g if x is not None), default=0) >= HEAVY
    return _elements(g) >= HEAVY


class Offload:
    """One backward pass's nodes running on workers: which, and what came back."""

    __slots__ = ("state", "running")

    def __init__(self):
        self.state = [read() for read, _ in THREAD_STATE]
        self.running = {}  # future -> (node, its cotangent, what computes it, on the CPU pool?)

    @staticmethod
    def wanted():
        """Can a backward pass use workers at all? Not with one thread: then every node runs
        on the calling thread, in a fixed order."""
        return _settings.threads > 1

    def takes(self, node, g, device, more_ready, run):
        """Hand node (with cotangent g, on `device`, None for the CPU) to a worker if that pays:
        `run(node, g)` computes its input cotangents there. True when it was handed over."""
        if device is not None:
            if _worker.device == device:  # (this thread is that device's worker: a re-entrant backward)
                return False
            worker = _device_worker(device)
        elif more_ready and heavy(g):
            worker = _cpu_pool()
        else:
            return False
        future = worker.submit(_in_state, self.state, device, run, node, g)
        self.running[future] = (node, g, run, device is None)
        return True

    def finished(self, block):
        """(node, its input cotangents) of each offloaded node that finished; with `block`,
        first waits for one. A CPU node no worker has started is taken back and run here
        (Note [re-entrant backward]). A worker's exception is raised here, with its own
        traceback, once no other worker still runs a node of this graph."""
        done = [f for f in self.running if f.done()]
        if not done and block:
            for f, (node, g, run, cpu) in list(self.running.items()):
                if cpu and f.cancel():  # not started: the driver runs it itself
                    del self.running[f]
                    return [(node, run(node, g))]
            done = cf.wait(list(self.running), return_when=cf.FIRST_COMPLETED).done
        out = []
        for f in done:
            node = self.running.pop(f)[0]
            exc = f.exception()
            if exc is not None:
                self.stop()
                raise exc
            out.append((node, f.result()))
        return out

    def stop(self):
        """Cancel what has not started; wait for what has (no worker still touches the graph)."""
        for f in list(self.running):
            f.cancel()
        cf.wait(list(self.running))
        self.running.clear()
