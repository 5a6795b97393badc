"""The reducer of DistributedDataParallel: gradients gathered in buckets, each bucket's
all-reduce started the moment its last gradient is in, while backward walks on.

A bucket is one flat buffer for parameters of one dtype and device, filled in the order their
gradients are expected (the reverse of the module's parameter order at first, as torch's; from
the second iteration, the order rank 0 saw them arrive). The engine hands each leaf's
gradient over as soon as it is complete (Note [leaves as they complete] in
engine/backward.py), and its post-accumulate-grad hook copies it into its bucket; when a
bucket is full, its nonblocking all-reduce starts, in bucket order on every rank (MPI needs
the ranks' collectives in one order: a later bucket that fills first waits for the ones
before it). Each hook also tests the requests in flight, which is what moves MPI's progress
along without a thread. A callback queued on the first hook (autograd/callbacks.py) waits for
every request before backward() returns, and writes the means back into each .grad.

With find_unused_parameters, the forward pass's graph is walked from its outputs: a parameter
it does not reach counts as ready with a zero gradient, and one more all-reduce of a used-
or-not bitmap tells which parameters no rank used; their .grad is left as it was, as torch's.
"""
import numpy as np

from ...autograd.callbacks import queue_callback
from ...autograd.tensor import Tensor
from ...backend.arrays import array_module
from ...distributed.agreement import Call
from ...distributed.buffers import writeable
from ...ir.node import Edge
from ...transforms import trees

__all__ = ["Reducer"]

FIRST_BUCKET_BYTES = 1 << 20  # (torch's first bucket: small, so the first all-reduce starts early)


class _Bucket:
    __slots__ = ("index", "members", "offsets", "buffer", "pending", "request")

    def __init__(self, index, members, params):
        self.index, self.members = index, members
        self.offsets, n = [], 0
        for i in members:
            self.offsets.append(n)
            n += params[i].primal.size
        first = params[members[0]].primal
        self.buffer = array_module(first).zeros(n, dtype=first.dtype)
        self.pending, self.request = len(members), None


class Reducer:
    """Buckets of `params` (Parameters named `names`), all-reduced over `world`."""

    def __init__(self, params, names, cap_bytes, world, find_unused):
        self.params, self.names, self.world = params, names, world
        self.cap_bytes, self.find_unused = cap_bytes, find_unused
        self._set_buckets(_assign(params, list(reversed(range(len(params)))), cap_bytes))
        self.armed = False       # prepared by a forward pass with sync on, not yet reduced
        self.synced = False      # was the last forward pass one with sync on?
        self.log = []            # this iteration's events: ("ready", name), ("start", bucket), ("done",)
        self.seen = None         # the order gradients arrived in during the first reduced iteration
        self.rebuilt = False

    # ---- one iteration: prepare (forward), ready (each gradient), finish (end of backward) --
    def prepare(self, outputs):
        if self.armed and any(b.request is not None for b in self.buckets):
            raise RuntimeError("DistributedDataParallel: the previous iteration's gradient reduction did not finish "
                               "(its backward raised); the ranks' collectives are out of step")
        if self.seen is not None and not self.rebuilt:
            self._rebuild()
        self.ready = [False] * len(self.params)
        self.used = np.zeros(len(self.params), dtype=np.int32)
        self.next, self.queued, self.log = 0, False, []
        for b in self.buckets:
            b.pending, b.request = len(b.members), None
        self.armed = self.synced = True
        if self.find_unused:
            reached = _reached(outputs)
            for i, p in enumerate(self.params):
                if p.node not in reached:
                    self._mark(i, None)

    def skip(self):
        """A forward pass under no_sync: its backward accumulates locally."""
        self.synced = False

    def on_ready(self, i, tensor):
        """The post-accumulate-grad hook of parameter i."""
        if not self.armed:
            if self.synced:  # (reduced already: a second backward of one forward would go unreduced)
                raise RuntimeError(f"DistributedDataParallel: parameter {self.names[i]!r} got a gradient after this "
                                   f"iteration's gradients were reduced (a second backward after one forward?); run "
                                   f"all but the last backward under no_sync()")
            return  # (under no_sync, or no forward yet: gradients accumulate locally)
        if self.ready[i]:
            raise RuntimeError(f"DistributedDataParallel: parameter {self.names[i]!r} got its gradient twice in one "
                               f"iteration (a second backward after one forward?); run all but the last backward "
                               f"under no_sync()")
        if not self.queued:
            self.queued = True
            queue_callback(self.finish)
        self.used[i] = 1
        self._mark(i, tensor.grad.primal)
        for b in self.buckets[:self.next]:
            if b.request is not None:
                b.request.Test()  # (MPI progresses only inside MPI calls: a poke per gradient)

    def _mark(self, i, grad):
        """Parameter i is ready: its gradient (None: zeros) in its bucket, the bucket's all-reduce
        started once it is full and every bucket before it has started."""
        b, offset = self.where[i]
        n = self.params[i].primal.size
        if grad is None:
            b.buffer[offset:offset + n] = 0
        else:
            b.buffer[offset:offset + n] = grad.reshape(-1)
        self.ready[i] = True
        self.log.append(("ready", self.names[i]))
        b.pending -= 1
        while self.next < len(self.buckets) and self.buckets[self.next].pending == 0:
            nb = self.buckets[self.next]
            nb.request = self.world.start("all_reduce", nb.buffer, nb.buffer, op="sum")
            self.log.append(("start", nb.index))
            self.next += 1

    def finish(self):
        """Before backward() returns: every bucket reduced, each .grad the mean over the ranks."""
        missing = [i for i, ready in enumerate(self.ready) if not ready]
        call = Call("DistributedDataParallel's gradient all-reduce", f"{len(self.buckets)} buckets")
        if missing and not self.find_unused:
            self.armed = False
            self.world.wait([b.request for b in self.buckets[:self.next]], call)  # (the ranks stay in step)
            for b in self.buckets:
                b.request = None
            raise RuntimeError(
                f"DistributedDataParallel: parameters {[self.names[i] for i in missing]} received no gradient in "
                f"this backward (the loss does not use them); pass find_unused_parameters=True to the constructor, "
                f"or leave them out of the module")
        for i in missing:
            self._mark(i, None)
        requests = [b.request for b in self.buckets]
        used = self.used
        if self.find_unused:
            used = self.used.copy()
            requests.append(self.world.start("all_reduce", used, used, op="sum"))
        self.world.wait(requests, call)
        size = self.world.size
        for b in self.buckets:
            if size > 1:
                b.buffer /= size
            for i, offset in zip(b.members, b.offsets):
                if not used[i]:
                    continue  # (no rank used it: its .grad stays as it was)
                self._write_back(self.params[i], b.buffer, offset)
            b.request = None
        if self.seen is None:
            self.seen = [self.names.index(e[1]) for e in self.log if e[0] == "ready"]
        self.log.append(("done",))
        self.armed = False

    def _write_back(self, p, buffer, offset):
        n = p.primal.size
        mean = buffer[offset:offset + n].reshape(p.primal.shape)
        g = p.grad
        if g is None or not writeable(g.primal):
            p.grad = Tensor(mean.copy())
        elif self.world.size > 1:
            g.primal[...] = mean

    def _rebuild(self):
        """Buckets in the order rank 0's gradients arrived in (the same on every rank)."""
        order = self.world.broadcast_object(self.seen, 0, Call("DistributedDataParallel's bucket order"))
        self.rebuilt = True
        if order != [i for b in self.buckets for i in b.members]:
            self._set_buckets(_assign(self.params, order, self.cap_bytes))

    def _set_buckets(self, buckets):
        self.buckets = buckets
        self.where = {i: (b, off) for b in buckets for i, off in zip(b.members, b.offsets)}


def _assign(params, order, cap_bytes):
    """Buckets of the parameters in `order`: one dtype and device each, the first of at most
    FIRST_BUCKET_BYTES, the others of `cap_bytes` (a parameter larger than that alone)."""
    buckets, members, size, kind = [], [], 0, None
    for i in order:
        a = params[i].primal
        k = (a.__class__, a.dtype)
        cap = min(cap_bytes, FIRST_BUCKET_BYTES) if not buckets else cap_bytes
        if members and (k != kind or size + a.nbytes > cap):
            buckets.append(_Bucket(len(buckets), members, params))
            members, size = [], 0
        members.append(i)
        size += a.nbytes
        kind = k
    if members:
        buckets.append(_Bucket(len(buckets), members, params))
    return buckets


def _reached(outputs):
    """The nodes the graph of `outputs` (a pytree holding Tensors) reaches, leaves included."""
    stack = [t.node for t in trees.flatten(outputs)[0] if isinstance(t, Tensor) and t.node is not None]
    seen = set(stack)
    while stack:
        for e in stack.pop().inputs:
            if e is not None:
                node = e.node if e.__class__ is Edge else e
                if node not in seen:
                    seen.add(node)
                    stack.append(node)
    return seen
