"""The world of many processes, on MPI (mpi4py): collectives as nonblocking requests that are
polled against a deadline.

Every collective here starts nonblocking requests (MPI_Iallreduce, MPI_Ibcast, ...) and waits
by polling them (MPI_Test, which is also what moves MPI's transfers along: MPICH has no progress
thread unless MPIR_CVAR_ASYNC_PROGRESS=1), so that a wait can end in an error instead of a hang: at the deadline
(CollectiveTimeoutError) or when another rank's failure notice arrives (RankFailedError,
Note [a failing rank] in faults.py). The checked collectives first agree on their signature
(agreement.py). Leaves travel packed, one buffer per kind (buffers.py). CuPy arrays go
through NCCL when it is there (nccl.py), through MPI itself when MPI is CUDA-aware, and
through host copies otherwise.
"""
import atexit
import ctypes
import os
import pickle
import threading
import time

import numpy as np

from ..backend.arrays import CUPY_ARRAY, cupy
from . import agreement
from .buffers import Pool, kinds, pack, pack_rows, unpack, unpack_columns
from .errors import CollectiveMismatchError, CollectiveTimeoutError, RankFailedError
from .faults import Faults, install_handler

__all__ = ["MPIWorld"]


class MPIWorld:
    """The processes of MPI_COMM_WORLD (on a duplicate of it, so fgrad's messages never meet the
    user's), with `timeout` seconds for any collective to complete."""

    kind = "mpi"

    def __init__(self, mpi, comm, timeout):
        self.MPI = mpi
        self.comm = comm.Dup()
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.timeout = timeout
        self.seq = 0  # checked collectives made so far on this rank (part of every signature)
        self.faults = Faults(mpi, comm)
        self.lock = threading.RLock()  # (one collective at a time: two threads must not interleave theirs)
        self.nccl = None   # the NCCL communicator, made at the first collective of CuPy arrays (nccl.py)
        self.pool = Pool()  # the buffers MPI reads and writes, kept from call to call (buffers.py)
        self.cuda_aware = _cuda_aware_mpi()
        self.ops = {"sum": mpi.SUM, "mean": mpi.SUM, "max": mpi.MAX, "min": mpi.MIN}
        install_handler(self.faults, grace=lambda: min(self.timeout, 30.0))
        atexit.register(self.close)

    # ---- the checked collectives: lists of arrays in, lists out --------------------------
    def all_reduce(self, arrays, op, call):
        def start(xp, idx):
            flat = pack(self.pool, xp, arrays, idx)
            return flat, self.start("all_reduce", flat, flat, op=op)

        def finish(flat, idx, outs):
            if op == "mean":
                flat /= self.size
            unpack(flat, arrays, idx, outs)
        return self._collective(arrays, call, start, finish)

    def broadcast(self, arrays, root, call):
        def start(xp, idx):
            flat = pack(self.pool, xp, arrays, idx)
            return flat, self.start("broadcast", flat, flat, root=root)
        return self._collective(arrays, call, start, lambda flat, idx, outs: unpack(flat, arrays, idx, outs))

    def reduce(self, arrays, root, op, call):
        """The reduction on `root`; zeros elsewhere (a defined value, the transpose of broadcast)."""
        def start(xp, idx):
            flat = pack(self.pool, xp, arrays, idx)
            recv = self.pool.get(xp, flat.dtype, flat.shape, "recv")
            recv[...] = 0
            return recv, self.start("reduce", flat, recv, op=op, root=root)

        def finish(recv, idx, outs):
            if op == "mean" and self.rank == root:
                recv /= self.size
            unpack(recv, arrays, idx, outs)
        return self._collective(arrays, call, start, finish)

    def all_gather(self, arrays, call):
        """Each array stacked over the ranks: shape (size, *shape), rank r's at [r]."""
        def start(xp, idx):
            flat = pack(self.pool, xp, arrays, idx)
            table = self.pool.get(xp, flat.dtype, (self.size, flat.size), "table")
            return table, self.start("all_gather", flat, table)
        shapes = [a.shape for a in arrays]
        return self._collective(arrays, call, start,
                                lambda table, idx, outs: unpack_columns(table, arrays, idx, outs, shapes))

    def reduce_scatter(self, arrays, op, call):
        """Each array has `size` rows (axis 0); rank r gets the reduction of every rank's row r."""
        def start(xp, idx):
            table = pack_rows(self.pool, xp, arrays, idx, self.size)
            mine = self.pool.get(xp, table.dtype, (table.shape[1],), "mine")
            return mine, self.start("reduce_scatter", table, mine, op=op)

        def finish(mine, idx, outs):
            if op == "mean":
                mine /= self.size
            unpack(mine, arrays, idx, outs, [a.shape[1:] for a in arrays])
        return self._collective(arrays, call, start, finish)

    def _collective(self, arrays, call, start, finish):
        """The one shape of every checked collective: the ranks agree on `call`, then for each
        kind of array (one buffer per array module and dtype) `start(xp, idx)` packs it and
        starts the request, returning (result buffer, request); once every request is done,
        `finish(buffer, idx, outs)` unpacks each buffer into `outs`, one result per array."""
        with self.lock:
            self.agree(call, arrays)
            outs, jobs = [None] * len(arrays), []
            for xp, idx in kinds(arrays):
                buffer, request = start(xp, idx)
                jobs.append((buffer, idx, request))
            self.wait([request for _, _, request in jobs], call)
            for buffer, idx, _ in jobs:
                finish(buffer, idx, outs)
            return outs

    def barrier(self, call):
        with self.lock:
            self.agree(call, [])
            self.wait([self.comm.Ibarrier()], call)

    # ---- objects (pickled), for agreement messages and checkpoints ------------------------
    def share(self, obj, call):
        """Every rank's `obj`, as a list indexed by rank."""
        data = np.frombuffer(pickle.dumps(obj, protocol=5), dtype=np.uint8)
        mine, counts = np.array([data.size], dtype=np.int64), np.zeros(self.size, dtype=np.int64)
        self.wait([self.comm.Iallgather(mine, counts)], call)
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
        table = np.empty(int(counts.sum()), dtype=np.uint8)
        self.wait([self.comm.Iallgatherv(data, [table, counts, offsets, self.MPI.BYTE])], call)
        return [pickle.loads(table[o:o + c].tobytes()) for o, c in zip(offsets, counts)]

    def broadcast_object(self, obj, root, call):
        """Rank `root`'s `obj`, on every rank."""
        with self.lock:
            self.agree(call, [])
            data = np.frombuffer(pickle.dumps(obj, protocol=5), dtype=np.uint8) if self.rank == root else None
            n = np.array([0 if data is None else data.size], dtype=np.int64)
            self.wait([self.comm.Ibcast(n, root=root)], call)
            buf = data.copy() if data is not None else np.empty(int(n[0]), dtype=np.uint8)
            self.wait([self.comm.Ibcast(buf, root=root)], call)
            return obj if self.rank == root else pickle.loads(buf.tobytes())

    # ---- agreement, requests, waiting -----------------------------------------------------
    def agree(self, call, arrays):
        """Every rank calls the same collective on the same leaves (agreement.py), or every
        rank raises CollectiveMismatchError."""
        self.seq += 1
        sig = agreement.signature(self.seq, call, arrays)
        d = agreement.digest(sig)
        extremes = np.array([d, -d], dtype=np.int64)  # (max of d and of -d: all equal iff max(d) == min(d))
        self.wait([self.comm.Iallreduce(self.MPI.IN_PLACE, extremes, op=self.MPI.MAX)], call)
        if extremes[0] != -extremes[1]:
            why = agreement.explain(self.share(sig, call))
            raise CollectiveMismatchError(f"fgrad.distributed: the ranks disagree at {call} (collective #{self.seq} "
                                          f"on rank {self.rank} of {self.size}): {why}")

    def start(self, kind, send, recv, op="sum", root=0):
        """Start one nonblocking collective; returns its request (anything with Test())."""
        if CUPY_ARRAY and isinstance(send, CUPY_ARRAY):
            return self._start_on_device(kind, send, recv, op, root)
        return self._start_mpi(kind, send, recv, op, root)

    def _start_mpi(self, kind, send, recv, op, root):
        comm, mpi_op = self.comm, self.ops[op]
        if kind == "all_reduce":
            return comm.Iallreduce(self.MPI.IN_PLACE if send is recv else send, recv, op=mpi_op)
        if kind == "broadcast":
            return comm.Ibcast(recv, root=root)
        if kind == "reduce":
            return comm.Ireduce(send, recv if self.rank == root else None, op=mpi_op, root=root)
        if kind == "all_gather":
            return comm.Iallgather(send, recv)
        return comm.Ireduce_scatter_block(send, recv, op=mpi_op)

    def _start_on_device(self, kind, send, recv, op, root):
        if self.nccl is None and _nccl_available():
            from .nccl import NcclComm  # (imports cupy.cuda.nccl: only where CuPy arrays meet a collective)
            self.nccl = NcclComm(self)
        if self.nccl is not None:
            return self.nccl.start(kind, send, recv, op, root)
        cupy.cuda.get_current_stream().synchronize()  # (MPI reads the memory itself, outside CUDA's stream order)
        if self.cuda_aware:
            return self._start_mpi(kind, send, recv, op, root)
        host_send = cupy.asnumpy(send)
        host_recv = host_send if recv is send else np.zeros(recv.shape, dtype=recv.dtype)
        return _Staged(self._start_mpi(kind, host_send, host_recv, op, root), host_recv, recv)

    def wait(self, reqs, call):
        """Until every request in `reqs` has completed; raises when another rank's failure notice
        arrives or the timeout passes, and then every later collective raises too."""
        faults = self.faults
        if faults.failed is not None:
            raise RankFailedError(f"fgrad.distributed: {call} on rank {self.rank}: the world is broken since "
                                  f"an earlier error ({faults.failed})") from faults.failed
        start = time.monotonic()
        spins = 0
        while not all(r.Test() for r in reqs):
            notice = faults.poll()
            if notice is not None:
                faults.failed = RankFailedError(
                    f"fgrad.distributed: rank {notice[0]} of {self.size} failed ({notice[1]}), so {call} cannot "
                    f"complete on rank {self.rank}")
                raise faults.failed
            spins += 1
            if spins > 64:
                _yield()  # (gives the core to a runnable process, the other rank itself when the cores are shared)
            if spins & 63 == 0:  # (the clock is read every 64 polls: most waits end within microseconds)
                waited = time.monotonic() - start
                if waited > self.timeout:
                    faults.failed = CollectiveTimeoutError(
                        f"fgrad.distributed: {call} on rank {self.rank} of {self.size} timed out after "
                        f"{self.timeout:g} s: some rank did not reach it (stuck, much slower, or calling other "
                        f"collectives); raise the timeout with fgrad.distributed.init(timeout=...) if it is slow")
                    raise faults.failed
                # MPI moves a large message only while it is polled (no progress thread), so the
                # first second polls without a pause, only yielding; a longer wait (a rank still
                # computing) sleeps between polls.
                if waited > 1.0:
                    time.sleep(1e-4)

    def close(self):
        """At exit, before MPI_Finalize: nothing of fgrad's left pending."""
        if self.nccl is not None:
            self.nccl.close()
        self.faults.close()


_yield = getattr(os, "sched_yield", lambda: time.sleep(0))


class _Staged:
    """A collective of CuPy arrays through host copies: completes by copying its result back."""

    __slots__ = ("req", "host", "device")

    def __init__(self, req, host, device):
        self.req, self.host, self.device = req, host, device

    def Test(self):  # (MPI's name: a request is anything with Test())
        if self.req is None:
            return True
        if not self.req.Test():
            return False
        self.device.set(self.host)
        self.req = None
        return True


def _nccl_available():
    if cupy is None or os.environ.get("FGRAD_DISTRIBUTED_NCCL", "1") == "0":
        return False
    try:
        from cupy.cuda import nccl  # (optional: CuPy built without NCCL has none)
        return nccl.available if hasattr(nccl, "available") else True
    except Exception:
        return False


def _cuda_aware_mpi():
    """Does the MPI library read and write CUDA memory itself? MPIX_Query_cuda_support (Open
    MPI, MPICH) of the libmpi this process loaded; FGRAD_CUDA_AWARE_MPI=0/1 overrides."""
    flag = os.environ.get("FGRAD_CUDA_AWARE_MPI")
    if flag is not None:
        return flag == "1"
    if cupy is None:
        return False
    try:
        with open("/proc/self/maps") as maps:
            libs = sorted({line.split()[-1] for line in maps if "libmpi" in line})
        return any(bool(ctypes.CDLL(lib).MPIX_Query_cuda_support()) for lib in libs)
    except (OSError, AttributeError):
        return False
